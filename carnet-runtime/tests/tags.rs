//! A skill's `tags` and `examples` where the model chooses a skill: its tool's description
//! (`task.<skill>`) and its `listTools` entry, within a budget of words, in the bytes a
//! provider receives and in the token count `carnet stats` makes of them (issue 55, item 3).

use carnet_runtime::providers::openai;
use carnet_runtime::session::TAGS_AND_EXAMPLES_WORDS;
use carnet_runtime::{Carnet, ExposureMode, Manifest, Preset, Session, block_on};
use serde_json::{Value, json};

fn manifest(greet_extra: &Value) -> Manifest {
    Manifest::from_value(&json!({
        "agents": {"host": {"name": "host", "description": "Hosts", "skills": ["greet", "farewell"], "prompt": "P"}},
        "skills": {
            "greet": {"name": "greet", "description": "Greets people by name", "toolsets": ["hello"],
                "content": "Call sayHello.", "extra": greet_extra},
            "farewell": {"name": "farewell", "description": "Says goodbye.", "content": "Wave."}
        },
        "toolsets": {"hello": {"name": "hello", "description": "Hello", "content": "", "tools": [
            {"name": "sayHello", "description": "Says hello to someone."}]}}
    }))
    .unwrap()
}

#[allow(clippy::needless_pass_by_value)] // called with `json!(..)`
fn session(greet_extra: Value, mode: ExposureMode) -> Session {
    Carnet::builder(&manifest(&greet_extra))
        .allow_unimplemented()
        .preset(Preset::Discovery)
        .skills_as_tools(true)
        .mode(mode)
        .build()
        .unwrap()
        .session("host")
        .unwrap()
}

fn tagged() -> Value {
    json!({"tags": ["greeting", "people"], "examples": ["Say hello to Ada", "Greet the new team"]})
}

fn description<'a>(session: &'a Session, tool: &str) -> &'a str {
    &session.tools().iter().find(|t| t.name == tool).unwrap().description
}

#[test]
fn tags_and_examples_follow_the_description_of_the_skills_tool_in_every_mode() {
    for mode in ExposureMode::ALL {
        let session = session(tagged(), mode);
        assert_eq!(
            description(&session, "task.greet"),
            "Greets people by name\n\nTags: greeting, people\nExample requests:\n- Say hello to Ada\n- Greet the new team",
            "{mode:?}"
        );
        assert_eq!(
            description(&session, "task.farewell"),
            "Says goodbye.",
            "no tags, no change"
        );
        // In the bytes a provider receives.
        let body = openai::chat_tools(session.tools(), &openai::Options::default())
            .unwrap()
            .to_string();
        assert!(
            body.contains(r#""description":"Greets people by name\n\nTags: greeting, people\nExample requests:\n- Say hello to Ada\n- Greet the new team""#),
            "{body}"
        );
    }
}

#[test]
fn list_tools_gives_a_skills_tags_and_examples_beside_its_summary() {
    let mut session = session(tagged(), ExposureMode::Dynamic);
    let listed = block_on(session.call("listTools", json!({"namespace": "task"})));
    assert_eq!(
        listed.value["tools"],
        json!([
            {"name": "task.farewell", "summary": "Says goodbye.", "namespace": "task"},
            {"name": "task.greet", "summary": "Greets people by name", "namespace": "task",
                "tags": ["greeting", "people"], "examples": ["Say hello to Ada", "Greet the new team"]}
        ])
    );
    let described = block_on(session.call("describeTool", json!({"name": "task.greet"})));
    assert!(
        described.value["description"]
            .as_str()
            .unwrap()
            .ends_with("- Greet the new team")
    );
}

#[test]
fn list_available_skills_gives_them_and_its_query_matches_tags() {
    let mut session = session(tagged(), ExposureMode::Dynamic);
    let listed = block_on(session.call("listAvailableSkills", json!({"query": "people"})));
    assert_eq!(
        listed.value["skills"],
        json!([{"name": "greet", "description": "Greets people by name", "toolsets": ["hello"], "loaded": false,
            "tags": ["greeting", "people"], "examples": ["Say hello to Ada", "Greet the new team"]}])
    );
    let by_tag = block_on(session.call("listAvailableSkills", json!({"query": "greeting"})));
    assert_eq!(by_tag.value["skills"][0]["name"], "greet", "{}", by_tag.to_text());
    let all = block_on(session.call("listAvailableSkills", json!({})));
    assert_eq!(
        all.value["skills"][0],
        json!({"name": "farewell", "description": "Says goodbye.", "toolsets": [], "loaded": false})
    );
}

#[test]
fn the_words_they_add_are_capped() {
    let many: Vec<String> = (0..100).map(|i| format!("Example request number {i}")).collect();
    let session = session(json!({"tags": "a, b", "examples": many}), ExposureMode::Dynamic);
    let text = description(&session, "task.greet");
    assert_eq!(text.lines().find_map(|l| l.strip_prefix("Tags: ")), Some("a, b"));
    // Tags `a`, `b` (2 words), then whole examples of 4 words while they fit.
    let examples: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("- ")).collect();
    let fit = (TAGS_AND_EXAMPLES_WORDS - 2) / 4;
    assert_eq!(examples, many[..fit], "{text}");
}

#[cfg(feature = "tokens")]
#[test]
fn stats_counts_the_tokens_they_add() {
    use carnet_runtime::tokens;
    let plain = session(json!({}), ExposureMode::Dynamic);
    let tagged = session(tagged(), ExposureMode::Dynamic);
    let (before, after) = (tokens::tools(plain.tools()), tokens::tools(tagged.tools()));
    let added =
        tokens::count("\n\nTags: greeting, people\nExample requests:\n- Say hello to Ada\n- Greet the new team");
    // What a description's JSON escapes add (`\n` is two characters) aside, the difference
    // is the text's.
    assert!(
        after > before && (after - before).abs_diff(added) <= 6,
        "{before} → {after}, text {added}"
    );
}
