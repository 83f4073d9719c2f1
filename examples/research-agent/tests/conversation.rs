//! The example's conversation, as `cargo run -p research-agent` runs it, through
//! `carnet::testing`: the tools offered at each turn, the refused call before
//! `dataAnalysis` loads, and a final answer built from the tool results.

use carnet::Carnet;
use carnet::testing::{self, Scripted};
use research_agent::manifest::{MANIFEST, agents, skills, tools as ids};
use research_agent::policy::{ScriptedResearcher, question};
use research_agent::tools;
use serde_json::json;

const META: [&str; 6] = [
    "listAvailableSkills",
    "loadSkill",
    "listSkillToolsets",
    "loadToolset",
    "loadTool",
    "loadSkillFile",
];
const SEARCH: [&str; 5] = [
    "basicSearch",
    "advancedSearch",
    "filterResults",
    "filterByDate",
    "filterByDomain",
];

fn question_text() -> String {
    match question() {
        carnet::chat::Message::User(text) => text,
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_conversation_loads_skills_progressively() {
    let carnet = Carnet::new(&MANIFEST, tools::toolsets()).build().unwrap();
    let mut session = carnet.session(agents::RESEARCHER);
    let chart = std::env::temp_dir().join(format!("carnet-conversation-{}.svg", std::process::id()));
    let model = ScriptedResearcher::new(chart.to_string_lossy());
    let run = testing::run(&mut session, model, &question_text()).unwrap();

    let names = |i: usize| -> Vec<&str> { run.turn(i).offered().collect() };
    let expected =
        |extra: &[&'static str]| -> Vec<&str> { META.iter().chain(SEARCH.iter()).chain(extra).copied().collect() };
    assert_eq!(run.turns.len(), 7);
    for turn in 0..=2 {
        assert_eq!(
            names(turn),
            expected(&[]),
            "turn {turn}: the initial skill's tools only"
        );
    }
    for turn in 3..=4 {
        assert_eq!(
            names(turn),
            expected(&["analyzeStatistics", "visualizeData"]),
            "turn {turn}"
        );
    }
    for turn in 5..=6 {
        assert_eq!(
            names(turn),
            expected(&["analyzeStatistics", "visualizeData", "formatCitation", "summarizeText"])
        );
    }
    // The unit conversion skill is never loaded, so its tools never cost context.
    assert!(run.turns.iter().all(|turn| !turn.can_call(ids::CONVERT_UNITS)));

    // A domain tool of a skill not yet loaded is refused, and the error names the skill.
    let refusals: Vec<_> = run.refusals().collect();
    assert_eq!(refusals.len(), 1, "{}", run.transcript());
    let (turn, call, refused) = refusals[0];
    assert_eq!((turn, call.name.as_str()), (1, "analyzeStatistics"));
    assert_eq!(refused.value["skills"], json!(["dataAnalysis"]));
    run.turn(1).assert_not_offered(ids::ANALYZE_STATISTICS);
    assert!(run.turn(2).result("loadSkill").is_some_and(|loaded| !loaded.is_error));
    run.turn(3).assert_offered(ids::ANALYZE_STATISTICS);
    assert!(session.is_loaded(skills::DATA_ANALYSIS));

    // The answer uses the tool results.
    let answer = run.answer().unwrap();
    let stats = &run.turn(3).result(ids::ANALYZE_STATISTICS).unwrap().value;
    assert!(
        answer.contains(&format!(
            "{:.2} units a month on average",
            stats["mean"].as_f64().unwrap()
        )),
        "{answer}"
    );
    assert!(answer.contains("standard deviation 52.54"), "{answer}");
    let citation = run
        .turn(5)
        .result(ids::FORMAT_CITATION)
        .unwrap()
        .value
        .as_str()
        .unwrap();
    assert!(answer.ends_with(&format!("Source: {citation}")), "{answer}");
    assert!(
        answer.contains("\"Battery storage costs keep falling\" (gridnews.net, 2024-12-02)"),
        "{answer}"
    );
    assert!(std::fs::read_to_string(&chart).unwrap().contains("<polyline"));
    std::fs::remove_file(chart).unwrap();
}

/// The testing kit's own scripted model, in a few lines: a model that tries a unit
/// conversion before its skill is loaded, loads it, converts, answers. The first turn's
/// system prompt is a snapshot (`tests/snapshots/`; review a change with `cargo insta
/// review`, or accept it with `INSTA_UPDATE=always`).
#[test]
fn a_scripted_model_in_a_few_lines() {
    let carnet = Carnet::new(&MANIFEST, tools::toolsets()).build().unwrap();
    let mut session = carnet.session(agents::RESEARCHER);
    let arguments = json!({"value": 10, "from": "km", "to": "mi"});
    let model = Scripted::new()
        .call(ids::CONVERT_UNITS, arguments.clone())
        .call("loadSkill", json!({"skillName": skills::UNIT_CONVERSION.name()}))
        .call(ids::CONVERT_UNITS, arguments)
        .answer("10 km is about 6.2 miles.");
    let run = testing::run(&mut session, model, "How far is 10 km in miles?").unwrap();

    assert_eq!(run.answer(), Some("10 km is about 6.2 miles."));
    run.turn(0).assert_not_offered(ids::CONVERT_UNITS);
    assert_eq!(run.refusals().map(|(turn, _, _)| turn).collect::<Vec<_>>(), [0]);
    run.turn(2).assert_offered(ids::CONVERT_UNITS);
    let converted = run.turn(2).result(ids::CONVERT_UNITS).unwrap();
    assert!(!converted.is_error, "{}", converted.value);
    insta::assert_snapshot!("turn-0-system-prompt", run.turn(0).system);
    insta::assert_snapshot!("unit-conversion-run", run.transcript());
}

/// A script that runs out says so: the test fails on the model's error, not on a hang.
#[test]
fn a_script_that_runs_out_is_an_error() {
    let carnet = Carnet::new(&MANIFEST, tools::toolsets()).build().unwrap();
    let mut session = carnet.session(agents::RESEARCHER);
    let model = Scripted::new().call("listAvailableSkills", json!({}));
    let error = testing::run(&mut session, model, "Hello").unwrap_err();
    assert_eq!(
        error.to_string(),
        "the scripted model was called for step 2 but its script has 1 step"
    );
}

#[test]
fn turn_zero_is_a_fraction_of_everything_up_front() {
    let carnet = Carnet::new(&MANIFEST, tools::toolsets()).build().unwrap();
    let session = carnet.session(agents::RESEARCHER);
    let turn0 = carnet::tokens::context(session.system_prompt(), session.tools()).total();
    let baseline = carnet.everything_up_front(agents::RESEARCHER);
    let all = carnet::tokens::context(&baseline.system_prompt, &baseline.tools).total();
    assert!(turn0 * 4 < all, "turn 0: {turn0} tokens, everything up front: {all}");
}
