//! The example's conversation, as `cargo run -p research-agent` runs it: the tools exposed
//! at each turn, the refused call before `dataAnalysis` loads, and a final answer built
//! from the tool results.

use carnet::Carnet;
use carnet::chat;
use carnet::tools::block_on;
use research_agent::manifest::{MANIFEST, agents};
use research_agent::policy::{ScriptedResearcher, question};
use research_agent::tools;

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

#[test]
fn the_conversation_loads_skills_progressively() {
    let carnet = Carnet::new(&MANIFEST, tools::toolsets()).build().unwrap();
    let mut session = carnet.session(agents::RESEARCHER);
    let chart = std::env::temp_dir().join(format!("carnet-conversation-{}.svg", std::process::id()));
    let mut model = ScriptedResearcher::new(chart.to_string_lossy());
    let mut messages = vec![question()];
    let outcome = block_on(chat::run(&mut session, &mut model, &mut messages, 12, |_| {})).unwrap();

    let names = |i: usize| -> Vec<String> { outcome.steps[i].tools.iter().map(|t| t.name.clone()).collect() };
    let expected = |extra: &[&str]| -> Vec<String> {
        META.iter()
            .chain(SEARCH.iter())
            .chain(extra.iter())
            .map(|s| (*s).to_owned())
            .collect()
    };
    assert_eq!(outcome.steps.len(), 7);
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
    assert!(
        outcome
            .steps
            .iter()
            .all(|s| s.tools.iter().all(|t| t.name != "convertUnits"))
    );

    // A domain tool of a skill not yet loaded is refused, and the error names the skill.
    let (call, refused) = &outcome.steps[1].calls[0];
    assert_eq!(call.name, "analyzeStatistics");
    assert!(refused.is_error);
    assert_eq!(refused.value["skills"], serde_json::json!(["dataAnalysis"]));
    assert_eq!(outcome.steps[2].calls[0].0.name, "loadSkill");

    // The answer uses the tool results.
    let answer = outcome.answer.unwrap();
    let stats = &outcome.steps[3].calls[0].1.value;
    assert!(
        answer.contains(&format!(
            "{:.2} units a month on average",
            stats["mean"].as_f64().unwrap()
        )),
        "{answer}"
    );
    assert!(answer.contains("standard deviation 52.54"), "{answer}");
    let citation = outcome.steps[5].calls[0].1.value.as_str().unwrap();
    assert!(answer.ends_with(&format!("Source: {citation}")), "{answer}");
    assert!(
        answer.contains("\"Battery storage costs keep falling\" (gridnews.net, 2024-12-02)"),
        "{answer}"
    );
    assert!(std::fs::read_to_string(&chart).unwrap().contains("<polyline"));
    std::fs::remove_file(chart).unwrap();
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
