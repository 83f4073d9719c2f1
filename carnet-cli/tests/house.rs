//! The CLI as a new user meets it (issue 28): `--preset` on the inspection commands and
//! `serve-mcp`, warnings said once with their count (`-q` for errors only), did-you-mean on
//! `--load`, plain mode names, plural counts, and `serve-mcp` on stdio taking pipelined
//! requests in order and answering each before it exits.

use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::process::{Command, Stdio};

mod common;
use common::{call_researcher, carnet, example, stderr, stdout};

/// `carnet init`'s content plus two skills no agent reaches: two warnings (W0001).
fn content_with_warnings() -> (tempfile::TempDir, PathBuf) {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("carnet");
    let init = carnet(&["init", &dir.to_string_lossy()]);
    assert!(init.status.success(), "{}", stderr(&init));
    for name in ["orphan-one", "orphan-two"] {
        let skill = dir.join("skills").join(name);
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(
            skill.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: Nobody loads this\n---\nUnused.\n"),
        )
        .unwrap();
    }
    (temp, dir)
}

#[test]
fn preset_reaches_tools_call_prompt_and_serve_mcp() {
    let tools = carnet(&["--dir", &example(), "tools", "researcher", "--preset", "discovery"]);
    assert!(tools.status.success(), "{}", stderr(&tools));
    let listed: serde_json::Value = serde_json::from_str(&stdout(&tools)).unwrap();
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"listTools") && names.contains(&"describeTool"),
        "{names:?}"
    );
    let default = carnet(&["--dir", &example(), "tools", "researcher"]);
    assert!(
        !stdout(&default).contains("\"listTools\""),
        "the default preset has no browsing tools"
    );
    let minimal = carnet(&["--dir", &example(), "tools", "researcher", "--preset", "minimal"]);
    let minimal: serde_json::Value = serde_json::from_str(&stdout(&minimal)).unwrap();
    let meta: Vec<&str> = minimal
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["kind"] == "meta")
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(meta, ["loadSkill", "loadSkillFile"]);

    // `listTools` answers only when the preset offers it.
    let call = call_researcher(&["listTools", "{}", "--preset", "discovery"]);
    assert!(call.status.success(), "{}{}", stdout(&call), stderr(&call));
    assert!(stdout(&call).contains("analyzeStatistics"), "{}", stdout(&call));
    let refused = call_researcher(&["listTools", "{}"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stdout(&refused));
    assert!(
        stderr(&refused).contains("`--preset discovery`"),
        "{}",
        stderr(&refused)
    );

    let full = carnet(&["--dir", &example(), "prompt", "researcher"]);
    let minimal = carnet(&["--dir", &example(), "prompt", "researcher", "--preset", "minimal"]);
    assert!(full.status.success() && minimal.status.success());
    assert!(stdout(&full).contains("loadToolset") && !stdout(&minimal).contains("loadToolset"));

    // An MCP host browses with `--preset discovery`.
    let responses = serve(
        &["--preset", "discovery"],
        &[
            initialize(1),
            serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        ],
    );
    let listed = responses.0[&2].to_string();
    assert!(
        listed.contains("\"listTools\"") && listed.contains("\"describeTool\""),
        "{listed}"
    );
    assert!(
        responses.1.contains("(dynamic mode)"),
        "the mode as `--mode` names it: {}",
        responses.1
    );
}

fn initialize(id: u64) -> serde_json::Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "house", "version": "0"}}})
}

/// Runs `carnet serve-mcp researcher ARGS` on the example, writes every message at once,
/// closes its input and reads everything it answers: the responses by id, and its stderr.
fn serve(args: &[&str], messages: &[serde_json::Value]) -> (std::collections::HashMap<u64, serde_json::Value>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_carnet"))
        .args(["--dir", &example(), "serve-mcp", "researcher"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = String::new();
    for message in messages {
        input.push_str(&message.to_string());
        input.push('\n');
    }
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let responses = out
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter_map(|m| Some((m.get("id")?.as_u64()?, m)))
        .collect();
    (responses, stderr(&output))
}

#[test]
fn serve_mcp_takes_pipelined_requests_in_order_and_answers_all_before_exiting() {
    for round in 0..5 {
        let (responses, note) = serve(
            &[],
            &[
                initialize(1),
                serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "loadSkill", "arguments": {"skillName": "dataAnalysis"}}}),
                // The skill's tool, sent before the load's answer came: it is exposed (it has no
                // implementation here, which is the answer a loaded tool gets).
                serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                    "params": {"name": "analyzeStatistics", "arguments": {"dataset": "revenue", "column": "revenue"}}}),
            ],
        );
        for id in 1..=3 {
            assert!(
                responses.contains_key(&id),
                "round {round}: request {id} unanswered: {responses:?} {note}"
            );
        }
        assert_eq!(
            responses[&2]["result"]["isError"], false,
            "round {round}: {}",
            responses[&2]
        );
        let text = responses[&3]["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(
            text.contains("has no implementation"),
            "round {round}: the call overtook the load: {text}"
        );
    }
}

#[test]
fn warnings_are_counted_once_by_inspection_commands_and_quiet_drops_them() {
    let (_temp, dir) = content_with_warnings();
    let dir = dir.to_string_lossy().into_owned();
    let tools = carnet(&["--dir", &dir, "tools", "assistant"]);
    assert!(tools.status.success(), "{}", stderr(&tools));
    let note = stderr(&tools);
    assert_eq!(note.lines().count(), 1, "one line, not the warnings in full: {note}");
    assert!(
        note.contains("has 2 warnings") && note.contains("carnet check"),
        "{note}"
    );
    serde_json::from_str::<serde_json::Value>(&stdout(&tools)).expect("stdout stays JSON");

    let quiet = carnet(&["--dir", &dir, "-q", "tools", "assistant"]);
    assert_eq!(stderr(&quiet), "", "-q keeps only errors");

    let check = carnet(&["--dir", &dir, "check"]);
    let rendered = stderr(&check);
    assert!(check.status.success());
    assert_eq!(
        rendered.matches("warning[W0001]").count(),
        2,
        "each warning once, in full: {rendered}"
    );
    assert!(rendered.contains("has 2 warnings"), "{rendered}");
    let quiet = carnet(&["--dir", &dir, "check", "-q"]);
    assert_eq!(stderr(&quiet), "");
    assert!(stdout(&quiet).contains("1 agent, 3 skills"), "{}", stdout(&quiet));
}

#[test]
fn small_things_a_new_user_tripped_over() {
    // `--load` with a typo gets a did-you-mean, as the build does.
    let prompt = carnet(&["--dir", &example(), "prompt", "researcher", "--load", "dataAnalisys"]);
    assert_eq!(prompt.status.code(), Some(2));
    assert!(
        stderr(&prompt).contains("did you mean `dataAnalysis`?"),
        "{}",
        stderr(&prompt)
    );
    // `card` names no endpoint it was not given.
    let card = carnet(&["--dir", &example(), "card", "researcher"]);
    assert_eq!(card.status.code(), Some(2), "{}", stdout(&card));
    assert!(stderr(&card).contains("--url"), "{}", stderr(&card));
    // The global options are listed apart in every subcommand's help.
    let help = carnet(&["tools", "--help"]);
    assert!(stdout(&help).contains("Global options"), "{}", stdout(&help));
    // `serve-mcp --mode` names the modes an MCP host takes first.
    let help = stdout(&carnet(&["serve-mcp", "--help"]));
    assert!(help.contains("MCP hosts take `dynamic`"), "{help}");
}

#[test]
fn a_chart_without_loads_loads_each_skill_in_turn_with_integer_axes_and_the_legend_apart() {
    let temp = tempfile::tempdir().unwrap();
    let svg = temp.path().join("chart.svg");
    let out = carnet(&[
        "--dir",
        &example(),
        "stats",
        "researcher",
        "--svg",
        &svg.to_string_lossy(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let chart = std::fs::read_to_string(&svg).unwrap();
    let texts: Vec<&str> = chart
        .split("<text")
        .skip(1)
        .filter_map(|t| Some(t.split_once('>')?.1.split_once("</text>")?.0.trim()))
        .collect();
    assert!(
        texts.iter().any(|t| t.contains("loading each skill in turn")),
        "{texts:?}"
    );
    for call in [
        "0: start",
        "1: +dataAnalysis",
        "2: +unitConversion",
        "3: +reportWriting",
    ] {
        assert_eq!(
            texts.iter().filter(|t| **t == call).count(),
            2,
            "{call} on both panels: {texts:?}"
        );
    }
    // Axis labels are whole numbers, each once per panel.
    let numbers: Vec<&str> = texts
        .iter()
        .copied()
        .filter(|t| t.chars().all(|c| c.is_ascii_digit() || c == ',' || c == '.') && !t.is_empty())
        .collect();
    assert!(numbers.iter().all(|n| !n.contains('.')), "{numbers:?}");
    for n in &numbers {
        assert!(
            numbers.iter().filter(|m| m == &n).count() <= 2,
            "`{n}` repeated: {numbers:?}"
        );
    }
    // The legend is drawn once, above the panels, not inside either.
    assert_eq!(
        texts.iter().filter(|t| **t == "everything up front").count(),
        1,
        "{texts:?}"
    );
}
