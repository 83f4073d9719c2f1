//! The Agent Skills formats: the `<available_skills>` catalog and the `<skill_context>` load
//! result, compared whole with golden files (`CARNET_BLESS=1` rewrites them), with `<`, `&`,
//! quotes and multi-line text in names and descriptions.

use std::path::Path;

use carnet_runtime::{
    Carnet, CatalogFormat, ExposureMode, Manifest, PromptOptions, ResultFormat, ToolOutput, block_on,
};
use serde_json::json;

const MANIFEST: &str = r#"{
  "agents": {
    "a": { "name": "a", "description": "A", "initialSkills": ["base"], "skills": ["q&a", "say \"hi\"", "z<tag>"],
      "prompt": "You help." }
  },
  "skills": {
    "base": { "name": "base", "description": "Always there", "content": "Be brief." },
    "q&a": { "name": "q&a", "description": "Questions & answers:\nline two <b>bold</b>", "toolsets": ["qa"],
      "content": "Answer the question.\nNever write </skill_context> yourself.",
      "files": [ { "path": "notes/a&b.md", "description": "Notes <draft> & 'quotes'", "content": "x" } ] },
    "say \"hi\"": { "name": "say \"hi\"", "description": "Greets 'everyone'", "content": "Say hi." },
    "z<tag>": { "name": "z<tag>", "description": "Last", "content": "Z." }
  },
  "toolsets": {
    "qa": { "name": "qa", "description": "Q&A", "content": "", "tools": [
      { "name": "ask", "description": "Asks" }, { "name": "answer.write", "description": "Answers" } ] }
  }
}"#;

fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    if std::env::var_os("CARNET_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let expected =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e} (CARNET_BLESS=1 writes it)", path.display()));
    assert_eq!(actual, expected, "{name} changed (CARNET_BLESS=1 to accept)");
}

fn carnet(configure: impl FnOnce(carnet_runtime::CarnetBuilder) -> carnet_runtime::CarnetBuilder) -> Carnet {
    let manifest = Manifest::from_json(MANIFEST).unwrap();
    configure(Carnet::builder(&manifest).allow_unimplemented())
        .build()
        .unwrap()
}

#[test]
fn the_xml_catalog_is_sorted_escaped_and_left_out_when_empty() {
    let xml = PromptOptions {
        catalog_format: CatalogFormat::Xml,
        ..PromptOptions::default()
    };
    let carnet = carnet(|b| b.prompt_options(xml.clone()));
    let session = carnet.session("a").unwrap();
    golden("catalog.xml.txt", session.system_prompt());
    // The same options per call on an engine with the markdown catalog.
    let markdown = self::carnet(|b| b);
    let session = markdown.session("a").unwrap();
    assert!(!session.system_prompt().contains("<available_skills>"));
    assert_eq!(
        session.system_prompt_for(&xml, None),
        carnet.session("a").unwrap().system_prompt()
    );

    // An agent with nothing to load: no catalog section at all.
    let manifest = Manifest::from_json(
        r#"{"agents": {"b": {"name": "b", "description": "B", "prompt": "Alone."}}, "skills": {}, "toolsets": {}}"#,
    )
    .unwrap();
    let alone = Carnet::builder(&manifest).prompt_options(xml).build().unwrap();
    assert_eq!(alone.session("b").unwrap().system_prompt(), "Alone.");
}

#[test]
fn the_envelope_wraps_a_loaded_skill_and_failures_stay_json() {
    for mode in [ExposureMode::Dynamic, ExposureMode::Dispatcher] {
        let carnet = carnet(|b| b.result_format(ResultFormat::Envelope).mode(mode));
        let mut session = carnet.session("a").unwrap();
        let output = block_on(session.call("loadSkill", json!({"skillName": "q&a"})));
        assert!(!output.is_error);
        assert_eq!(output.exposes, ["ask", "answer.write"]);
        golden(&format!("envelope-{}.txt", mode.name()), &output.to_text());
        let again = block_on(session.call("loadSkill", json!({"skillName": "q&a"})));
        assert!(again.to_text().contains("This skill was already loaded."));

        let missing: ToolOutput = block_on(session.call("loadSkill", json!({"skillName": "nope"})));
        assert!(missing.is_error);
        assert_eq!(
            missing.value["error"], "Skill not found: nope",
            "failures stay structured JSON"
        );
    }
    let json = carnet(|b| b);
    let mut session = json.session("a").unwrap();
    let output = block_on(session.call("loadSkill", json!({"skillName": "q&a"})));
    assert_eq!(output.value["success"], true, "JSON by default");
}
