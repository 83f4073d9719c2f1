//! `carnet call … --state`: after the result, the session's state (issue 55): the loaded
//! skills, every toolset in reach and why, and the history of loads.

mod common;
use common::{call_researcher, stderr, stdout};

use serde_json::{Value, json};

/// The JSON values of a command's stdout, one after the other.
fn documents(text: &str) -> Vec<Value> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn call_state_prints_the_toolsets_in_reach_and_the_history_after_the_result() {
    let out = call_researcher(&["loadSkill", r#"{"skillName": "dataAnalysis"}"#, "--state"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let [result, state] = <[Value; 2]>::try_from(documents(&stdout(&out))).unwrap();
    assert_eq!(result["success"], true);
    assert_eq!(state["agent"], "researcher");
    let skills: Vec<&str> = state["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(skills.last(), Some(&"dataAnalysis"));
    // The toolsets of the loaded skill are in reach, through it.
    let reach = state["loadedToolsets"].as_array().unwrap();
    let through_it: Vec<&Value> = reach
        .iter()
        .filter(|t| {
            t["skills"]
                .as_array()
                .is_some_and(|s| s.contains(&json!("dataAnalysis")))
        })
        .collect();
    assert!(!through_it.is_empty(), "{state:#}");
    // The load, by the `loadSkill` call (no id on the command line), with its time.
    let history = state["history"].as_array().unwrap();
    assert_eq!(history.len(), 1, "{state:#}");
    assert_eq!(history[0]["action"], "load");
    assert_eq!(history[0]["kind"], "skill");
    assert_eq!(history[0]["name"], "dataAnalysis");
    assert_eq!(history[0]["call"], json!({"tool": "loadSkill"}));
    assert!(
        history[0]["at"].as_u64().is_some_and(|at| at > 1_700_000_000_000),
        "{state:#}"
    );

    // An error result is followed by the state too (status 1); without `--state`, nothing.
    let out = call_researcher(&["loadSkill", r#"{"skillName": "nope"}"#, "--state"]);
    assert_eq!(out.status.code(), Some(1));
    let [_, state] = <[Value; 2]>::try_from(documents(&stdout(&out))).unwrap();
    assert!(state.get("history").is_none(), "nothing was loaded: {state:#}");
    let out = call_researcher(&["listAvailableSkills"]);
    assert_eq!(documents(&stdout(&out)).len(), 1);
}
