//! No silent wrong answer (issue 54): the `carnet` binary reads markdown, so it cannot know
//! the input schemas or run the tools an author implements in Rust. Every command whose
//! output they would falsify says so on stderr (and in its JSON where it has one), naming the
//! command of the author's own program that gives the truth; tools it does know (remote
//! toolsets' pinned listings, the meta-tools) are not flagged.

use std::process::Command;

use serde_json::Value;

mod common;
use common::{call_researcher, carnet, example, repo, stderr, stdout};

/// The example's crate, as the note names it from the carnet-cli package's directory.
fn example_crate() -> String {
    repo().join("examples/research-agent/Cargo.toml").display().to_string()
}

/// The `help:` line of a note, and its command after `--` (what the program is given).
fn truth(err: &str) -> (String, String) {
    let help = err
        .lines()
        .find(|l| l.contains("= help: the truth"))
        .unwrap_or_else(|| panic!("no help line in: {err}"));
    let command = help.split_once("writes one): ").unwrap().1.to_owned();
    let args = command.split_once(" -- ").unwrap().1.to_owned();
    (command, args)
}

#[test]
fn tools_marks_the_rust_tools_and_names_the_program_command() {
    let out = carnet(&["--dir", &example(), "tools", "researcher", "--load", "webSearch"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("note: 5 tools (`filterByDate`, `filterByDomain`, `basicSearch`, `advancedSearch` and 1 more) are implemented in Rust"),
        "{err}"
    );
    let (command, args) = truth(&err);
    assert_eq!(
        command,
        format!(
            "cargo run --manifest-path {} -- tools researcher --load webSearch",
            example_crate()
        )
    );
    assert_eq!(args, "tools researcher --load webSearch");
    let tools: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let by_name = |name: &str| {
        tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()
            .clone()
    };
    let search = by_name("basicSearch");
    assert_eq!(search["inputSchemaKnown"], false, "{search}");
    assert_eq!(
        search["inputSchema"],
        serde_json::json!({"type": "object", "additionalProperties": true})
    );
    assert_eq!(by_name("loadSkill")["inputSchemaKnown"], true);

    // A provider's wire format stays the body a request carries; stderr says it all.
    let out = carnet(&[
        "--dir",
        &example(),
        "tools",
        "researcher",
        "--provider",
        "openai-responses",
        "--strict",
    ]);
    assert!(out.status.success());
    assert!(!stdout(&out).contains("inputSchemaKnown"));
    let (_, args) = truth(&stderr(&out));
    assert_eq!(args, "tools researcher --provider openai-responses --strict");

    // Before any load the agent is offered meta-tools only: nothing to say.
    let out = carnet(&["--dir", &example(), "tools", "analyst"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("implemented in Rust"), "{}", stderr(&out));
}

#[test]
fn stats_says_its_counts_are_short_in_text_and_json() {
    let out = carnet(&["--dir", &example(), "stats", "researcher", "--no-skill-costs"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("lower than what its model is sent"), "{err}");
    assert!(err.contains("11 tools"), "every tool the agent reaches: {err}");
    assert_eq!(truth(&err).1, "stats researcher");

    let out = carnet(&[
        "--dir",
        &example(),
        "stats",
        "researcher",
        "--load",
        "dataAnalysis",
        "--no-skill-costs",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let unknown = &report[0]["unknownInputSchemas"];
    assert_eq!(unknown["tools"].as_array().unwrap().len(), 11, "{unknown}");
    assert!(
        unknown["tools"]
            .as_array()
            .unwrap()
            .contains(&"analyzeStatistics".into())
    );
    assert_eq!(
        unknown["truth"],
        format!(
            "cargo run --manifest-path {} -- stats researcher --load dataAnalysis",
            example_crate()
        )
    );
}

#[test]
fn a_built_manifest_names_no_crate() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("m.json");
    let built = carnet(&["--dir", &example(), "build", "--out", manifest.to_str().unwrap()]);
    assert!(built.status.success(), "{}", stderr(&built));
    let out = carnet(&["--manifest", manifest.to_str().unwrap(), "tools", "researcher"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(truth(&stderr(&out)).0, "cargo run -- tools researcher");
}

#[test]
fn call_and_search_say_what_they_cannot_show() {
    // describeTool shows a schema; a plain loadSkill in dynamic mode shows none.
    let out = call_researcher(&["describeTool", r#"{"name": "basicSearch"}"#, "--preset", "discovery"]);
    let err = stderr(&out);
    assert!(
        err.contains("where this `describeTool` result shows one of them"),
        "{err}"
    );
    assert_eq!(
        truth(&err).1,
        r#"call researcher describeTool '{"name": "basicSearch"}'"#
    );
    let out = call_researcher(&["loadSkill", r#"{"skillName": "webSearch"}"#]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("implemented in Rust"), "{}", stderr(&out));
    // In dispatcher mode a load's result carries the schemas.
    let out = call_researcher(&["loadSkill", r#"{"skillName": "webSearch"}"#, "--mode", "dispatcher"]);
    assert!(stderr(&out).contains("implemented in Rust"), "{}", stderr(&out));

    let out = carnet(&["--dir", &example(), "search", "researcher", "chart a column"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("left out of this ranking"), "{err}");
    assert_eq!(truth(&err).1, "search researcher 'chart a column'");
}

/// Remote toolsets' tools carry the listing their server gave when pinned: known.
#[test]
fn remote_tools_are_known() {
    let desk = repo().join("tests/remote/desk");
    let desk = desk.to_str().unwrap();
    let list = carnet(&["--dir", desk, "list", "--format", "json"]);
    let agents: Value = serde_json::from_str(&stdout(&list)).unwrap();
    let agent = agents[0]["name"].as_str().unwrap().to_owned();
    let out = carnet(&["--dir", desk, "stats", &agent, "--no-skill-costs", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("implemented in Rust"), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report[0]["unknownInputSchemas"], Value::Null);
}

/// `show` and `list` print what the markdown says (names, descriptions, documentation) and
/// no schema; `prompt` holds no schema either: nothing to flag.
#[test]
fn show_list_and_prompt_print_no_schema() {
    for args in [
        &["show", "tool", "basicSearch"][..],
        &["list", "--depth", "4"],
        &["prompt", "researcher", "--load", "webSearch"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_carnet"))
            .args(["--dir", &example(), "--color", "never"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(!text.contains("additionalProperties"), "{args:?}: {text}");
        assert!(!stderr(&out).contains("implemented in Rust"), "{args:?}");
    }
}

/// `serve-a2a` names the Rust tools its model would be offered without schemas, and the
/// command serving them from the author's program, before it says where it serves.
#[test]
fn serve_a2a_names_the_rust_tools_and_the_program_command() {
    use std::io::{BufRead as _, BufReader};
    use std::process::Stdio;

    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    std::fs::write(&script, r#"{"replies": [{"steps": [{"text": "hi"}]}]}"#).unwrap();
    let model = format!("scripted:{}", script.display());
    let mut child = Command::new(env!("CARGO_BIN_EXE_carnet"))
        .args(["--dir", &example(), "serve-a2a", "researcher", "--http", "127.0.0.1:0"])
        .args(["--model", &model])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = String::new();
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        err.push_str(&line);
        err.push('\n');
        if line.starts_with("carnet: serving agent") {
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        err.contains("note: 11 tools (`filterByDate`, `filterByDomain`"),
        "{err}"
    );
    assert!(err.contains("calling one returns an error result to it"), "{err}");
    assert_eq!(
        truth(&err).0,
        format!(
            "cargo run --manifest-path {} -- serve-a2a researcher --model {model} --http 127.0.0.1:0",
            example_crate()
        )
    );
    assert!(
        err.contains("tools implemented in Rust can be loaded, not run"),
        "{err}"
    );
}
