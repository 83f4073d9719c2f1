//! A session's load history (each load and unload, when and by which call) and the
//! toolsets in its reach, through `Session::state`, JSON and `Carnet::resume` (issue 55,
//! items 1 and 2).

use std::time::{SystemTime, UNIX_EPOCH};

use carnet_runtime::session::LoadAction::{Load, Unload};
use carnet_runtime::session::{HISTORY_CAP, LoadAction, LoadCall, LoadEvent, LoadKind, LoadedToolset};
use carnet_runtime::{Carnet, Manifest, Preset, Session, SessionState, block_on};
use serde_json::{Value, json};

/// `researcher` starts with `webSearch` and may load `dataAnalysis` and `charts`, which both
/// bring toolset `visualization`.
fn manifest() -> Manifest {
    Manifest::from_value(&json!({
        "agents": {
            "researcher": {"name": "researcher", "description": "Researches", "initialSkills": ["webSearch"],
                "skills": ["dataAnalysis", "charts"], "prompt": "P"}
        },
        "skills": {
            "webSearch": {"name": "webSearch", "description": "Search the web", "toolsets": ["search-tools"], "content": "S"},
            "dataAnalysis": {"name": "dataAnalysis", "description": "Analyse data",
                "toolsets": ["statistical-analysis", "visualization"], "content": "D"},
            "charts": {"name": "charts", "description": "Draw charts", "toolsets": ["visualization"], "content": "C"}
        },
        "toolsets": {
            "search-tools": {"name": "search-tools", "description": "Search", "content": "", "tools": [
                {"name": "basicSearch", "description": "Basic search"}]},
            "statistical-analysis": {"name": "statistical-analysis", "description": "Statistics", "content": "", "tools": [
                {"name": "analyzeStatistics", "description": "Compute statistics"},
                {"name": "regression", "description": "Fit a line"}]},
            "visualization": {"name": "visualization", "description": "Charts", "content": "", "tools": [
                {"name": "visualizeData", "description": "Draw a chart"}]}
        }
    }))
    .unwrap()
}

fn carnet() -> Carnet {
    Carnet::builder(&manifest())
        .allow_unimplemented()
        .preset(Preset::Discovery)
        .skills_as_tools(true)
        .build()
        .unwrap()
}

fn call(session: &mut Session, tool: &str, arguments: Value, id: Option<&str>) {
    let output = block_on(session.call_with_id(tool, arguments, id));
    assert!(!output.is_error, "{tool}: {}", output.to_text());
}

/// The wall clock to the millisecond, as the history keeps it.
fn millis(at: SystemTime) -> u128 {
    at.duration_since(UNIX_EPOCH).unwrap().as_millis()
}

fn event(
    action: LoadAction,
    kind: LoadKind,
    name: &str,
    call: Option<(&str, Option<&str>)>,
) -> (LoadAction, LoadKind, String, Option<LoadCall>) {
    let call = call.map(|(tool, id)| LoadCall {
        tool: tool.to_owned(),
        id: id.map(str::to_owned),
    });
    (action, kind, name.to_owned(), call)
}

fn events(session: &Session) -> Vec<(LoadAction, LoadKind, String, Option<LoadCall>)> {
    session
        .history()
        .map(|e| (e.action, e.kind, e.name.clone(), e.call.clone()))
        .collect()
}

#[test]
fn each_load_and_unload_is_recorded_with_its_time_and_call_and_survives_a_json_round_trip() {
    let carnet = carnet();
    let mut session = carnet.session("researcher").unwrap();
    assert_eq!(session.history().len(), 0, "the initial skills are not in the history");
    let start = SystemTime::now();
    call(
        &mut session,
        "loadSkill",
        json!({"skillName": "dataAnalysis"}),
        Some("call_1"),
    );
    // A load that changes nothing is not an event.
    call(
        &mut session,
        "loadSkill",
        json!({"skillName": "dataAnalysis"}),
        Some("call_2"),
    );
    call(
        &mut session,
        "loadToolset",
        json!({"toolsetName": "visualization"}),
        None,
    );
    call(&mut session, "task.charts", json!({}), Some("toolu_3"));
    session.unload_skill("dataAnalysis");
    call(
        &mut session,
        "loadTool",
        json!({"toolName": "regression"}),
        Some("call_4"),
    );
    session.load_skill("dataAnalysis").unwrap();
    let end = SystemTime::now();
    assert_eq!(
        events(&session),
        [
            event(
                Load,
                LoadKind::Skill,
                "dataAnalysis",
                Some(("loadSkill", Some("call_1")))
            ),
            event(Load, LoadKind::Toolset, "visualization", Some(("loadToolset", None))),
            event(Load, LoadKind::Skill, "charts", Some(("task.charts", Some("toolu_3")))),
            event(Unload, LoadKind::Skill, "dataAnalysis", None),
            event(Load, LoadKind::Tool, "regression", Some(("loadTool", Some("call_4")))),
            event(Load, LoadKind::Skill, "dataAnalysis", None),
        ]
    );
    let times: Vec<u128> = session.history().map(|e| millis(e.at)).collect();
    assert!(times.is_sorted(), "{times:?}");
    assert!(
        millis(start) <= times[0] && times[5] <= millis(end),
        "{times:?} outside {start:?}..{end:?}"
    );

    let state = session.state();
    let text = serde_json::to_string(&state).unwrap();
    assert!(
        text.contains(&format!(
            r#""history":[{{"action":"load","kind":"skill","name":"dataAnalysis","at":{},"call":{{"tool":"loadSkill","id":"call_1"}}}}"#,
            times[0]
        )),
        "{text}"
    );
    assert!(
        text.contains(r#"{"action":"unload","kind":"skill","name":"dataAnalysis","at":"#),
        "{text}"
    );
    assert!(!text.contains("historyDropped"), "nothing dropped: {text}");

    let read: SessionState = serde_json::from_str(&text).unwrap();
    assert_eq!(read, state);
    let resumed = self::carnet().resume(&read).unwrap();
    assert_eq!(resumed.state(), state);
    assert!(resumed.history().eq(session.history()));
}

#[test]
fn a_state_saved_before_the_history_existed_still_resumes() {
    let carnet = carnet();
    let fingerprint = carnet.session("researcher").unwrap().state().fingerprint;
    // What the previous version wrote for a session that loaded `dataAnalysis`, a toolset
    // and a tool.
    let old = format!(
        r#"{{"agent":"researcher","skills":["webSearch","dataAnalysis"],"toolsets":["visualization"],"tools":["basicSearch"],"fingerprint":"{fingerprint}"}}"#
    );
    let state: SessionState = serde_json::from_str(&old).unwrap();
    assert!(state.history.is_empty() && state.history_dropped == 0 && state.loaded_toolsets.is_empty());
    let session = carnet.resume(&state).unwrap();
    assert!(session.is_exposed("analyzeStatistics") && session.is_exposed("visualizeData"));
    assert_eq!(session.history().len(), 0);
    let again = session.state();
    assert_eq!(
        (again.skills, again.toolsets, again.tools),
        (state.skills, state.toolsets, state.tools)
    );
}

#[test]
fn the_history_keeps_the_newest_events_and_counts_the_dropped_ones() {
    let carnet = carnet();
    let mut session = carnet.session("researcher").unwrap();
    let long_id = "x".repeat(500);
    for _ in 0..20 {
        call(
            &mut session,
            "loadSkill",
            json!({"skillName": "charts"}),
            Some(&long_id),
        );
        assert!(session.unload_skill("charts"));
    }
    assert_eq!(session.history().len(), HISTORY_CAP);
    assert_eq!(session.history_dropped(), 40 - HISTORY_CAP as u64);
    // The oldest kept event is the 9th: a load (events alternate load, unload).
    assert_eq!(session.history().next().unwrap().action, LoadAction::Load);
    let id = session
        .history()
        .next()
        .unwrap()
        .call
        .as_ref()
        .unwrap()
        .id
        .clone()
        .unwrap();
    assert_eq!(
        id.len(),
        carnet_runtime::session::history::CALL_ID_LIMIT,
        "a call id is cut"
    );

    let state = session.state();
    let text = serde_json::to_string(&state).unwrap();
    assert!(text.contains(r#""historyDropped":8"#), "{text}");
    // A full history of long call ids stays well inside a sealed MCP handle (16 KiB of
    // base64, about 12 KB of JSON).
    assert!(text.len() < 9_000, "{} bytes", text.len());
    let resumed = carnet.resume(&serde_json::from_str(&text).unwrap()).unwrap();
    assert_eq!(resumed.history_dropped(), 8);

    // A state that says more than the cap (written by hand) keeps the newest events.
    let mut long = state.clone();
    long.history.extend(state.history.iter().cloned());
    let resumed = carnet.resume(&long).unwrap();
    assert_eq!(resumed.history().len(), HISTORY_CAP);
    assert_eq!(resumed.history_dropped(), 8 + HISTORY_CAP as u64);

    // An event naming what the agent cannot reach is an invalid state, as a skill would be.
    let mut tampered = state.clone();
    tampered.history[0].name = "nope".into();
    assert_eq!(
        carnet.resume(&tampered).unwrap_err().to_string(),
        "the session state names skill `nope`, which agent `researcher` cannot load"
    );
}

#[test]
fn reset_is_recorded_as_the_unloads_and_loads_it_made() {
    let carnet = carnet();
    let mut session = carnet.session("researcher").unwrap();
    session.unload_skill("webSearch");
    call(&mut session, "loadSkill", json!({"skillName": "charts"}), Some("c1"));
    session.reset();
    assert_eq!(
        events(&session),
        [
            event(Unload, LoadKind::Skill, "webSearch", None),
            event(Load, LoadKind::Skill, "charts", Some(("loadSkill", Some("c1")))),
            event(Unload, LoadKind::Skill, "charts", None),
            event(Load, LoadKind::Skill, "webSearch", None),
        ]
    );
    // A reset that changes nothing is not recorded.
    session.reset();
    assert_eq!(session.history().len(), 4);
}

#[test]
fn explain_names_the_load_or_unload_behind_a_tool() {
    let carnet = carnet();
    let mut session = carnet.session("researcher").unwrap();
    assert_eq!(
        session.explain("basicSearch").to_string(),
        "exposed: toolset `search-tools` of loaded skill `webSearch`",
        "an initial skill has no event"
    );
    call(
        &mut session,
        "loadSkill",
        json!({"skillName": "dataAnalysis"}),
        Some("call_7"),
    );
    let at = session.history().last().map(|e: LoadEvent| e.at).unwrap();
    let when = {
        // RFC 3339 to the millisecond, as `explain` writes it.
        let text = session.explain("analyzeStatistics").to_string();
        let start = text.find(" at ").unwrap() + 4;
        text[start..start + 24].to_owned()
    };
    assert!(when.ends_with('Z') && when.len() == 24, "{when}");
    let expected_millis = format!(".{:03}Z", millis(at) % 1000);
    assert!(when.ends_with(&expected_millis), "{when} for {at:?}");
    assert_eq!(
        session.explain("analyzeStatistics").to_string(),
        format!(
            "exposed: toolset `statistical-analysis` of loaded skill `dataAnalysis` (loaded skill `dataAnalysis` at {when} by `loadSkill` call `call_7`)"
        )
    );
    session.unload_skill("dataAnalysis");
    let text = session.explain("analyzeStatistics").to_string();
    assert!(
        text.starts_with(
            "not exposed yet: toolset `statistical-analysis` comes with skill `dataAnalysis` (unloaded skill `dataAnalysis` at "
        ) && text.ends_with(" by the program)"),
        "{text}"
    );
}

#[test]
fn the_state_lists_every_toolset_in_reach_and_why() {
    let carnet = carnet();
    let mut session = carnet.session("researcher").unwrap();
    let reach = |session: &Session| session.state().loaded_toolsets;
    let toolset = |name: &str, direct: bool, skills: &[&str], tools: &[&str]| LoadedToolset {
        name: name.to_owned(),
        direct,
        skills: skills.iter().map(|s| (*s).to_owned()).collect(),
        tools: tools.iter().map(|s| (*s).to_owned()).collect(),
    };
    assert_eq!(reach(&session), [toolset("search-tools", false, &["webSearch"], &[])]);

    call(&mut session, "loadSkill", json!({"skillName": "dataAnalysis"}), None);
    call(&mut session, "loadSkill", json!({"skillName": "charts"}), None);
    assert_eq!(
        reach(&session),
        [
            toolset("search-tools", false, &["webSearch"], &[]),
            toolset("statistical-analysis", false, &["dataAnalysis"], &[]),
            toolset("visualization", false, &["dataAnalysis", "charts"], &[]),
        ]
    );
    // As JSON: the toolsets in reach and why, beside the ones loaded directly.
    let text = serde_json::to_value(session.state()).unwrap();
    assert_eq!(
        text["loadedToolsets"],
        json!([
            {"name": "search-tools", "skills": ["webSearch"]},
            {"name": "statistical-analysis", "skills": ["dataAnalysis"]},
            {"name": "visualization", "skills": ["dataAnalysis", "charts"]}
        ])
    );

    session.unload_skill("dataAnalysis");
    call(&mut session, "loadTool", json!({"toolName": "regression"}), None);
    call(
        &mut session,
        "loadToolset",
        json!({"toolsetName": "visualization"}),
        None,
    );
    assert_eq!(
        reach(&session),
        [
            toolset("search-tools", false, &["webSearch"], &[]),
            toolset("visualization", true, &["charts"], &[]),
            toolset("statistical-analysis", false, &[], &["regression"]),
        ]
    );
    // Derived: resume reads none of it, so a state that says otherwise resumes the same.
    let mut state = session.state();
    state.loaded_toolsets.clear();
    assert_eq!(carnet.resume(&state).unwrap().state(), session.state());
}

#[test]
fn search_that_loads_records_its_loads_under_its_call() {
    let carnet = Carnet::builder(&manifest())
        .allow_unimplemented()
        .preset(Preset::Discovery)
        .search_loads_tools(true)
        .build()
        .unwrap();
    let mut session = carnet.session("researcher").unwrap();
    call(
        &mut session,
        "searchTools",
        json!({"query": "fit a line regression", "limit": 1}),
        Some("s1"),
    );
    assert_eq!(
        events(&session),
        [event(
            LoadAction::Load,
            LoadKind::Tool,
            "regression",
            Some(("searchTools", Some("s1")))
        )]
    );
}
