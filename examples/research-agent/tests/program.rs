//! The research agent's binary as carnet's command line (`carnet::cli`, feature `cli`): what
//! the `carnet` binary shows from the markdown alone, shown with the program's real tool
//! schemas, and domain tools run by their implementations (`carnet call` runs meta-tools
//! only; `carnet serve-mcp` answers a domain call with "no implementation").

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn agent(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_research-agent"))
        .args(args)
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn tools_carry_the_real_schemas() {
    let output = agent(&["tools", "researcher", "--load", "dataAnalysis"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let tools: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let search = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "basicSearch")
        .unwrap();
    // From the Rust signature, not the "any object" the markdown alone gives.
    assert_eq!(
        search["inputSchema"]["properties"]["query"]["type"], "string",
        "{search}"
    );
    assert_eq!(search["inputSchema"]["required"], json!(["query"]));
    assert!(tools.to_string().contains("\"analyzeStatistics\""));
    // The program knows every schema: nothing to flag, no note (issue 54).
    assert!(tools.as_array().unwrap().iter().all(|t| t["inputSchemaKnown"] == true));
    assert!(!stderr(&output).contains("implemented in Rust"), "{}", stderr(&output));

    let anthropic = agent(&["tools", "researcher", "--provider", "anthropic"]);
    assert!(anthropic.status.success(), "{}", stderr(&anthropic));
    assert!(stdout(&anthropic).contains("\"input_schema\""));
}

#[test]
fn call_runs_domain_tools_with_their_implementations() {
    let found = agent(&["call", "researcher", "basicSearch", r#"{"query": "battery storage"}"#]);
    assert!(found.status.success(), "{}", stderr(&found));
    assert!(
        stdout(&found).contains("Battery storage costs keep falling"),
        "{}",
        stdout(&found)
    );

    // A tool of a skill not loaded is refused as the model would be, unless `--load`.
    let refused = agent(&[
        "call",
        "researcher",
        "analyzeStatistics",
        r#"{"dataset": "monthly_sales", "column": "units"}"#,
    ]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stdout(&refused).contains("load skill `dataAnalysis` first"),
        "{}",
        stdout(&refused)
    );
    let loaded = agent(&[
        "call",
        "researcher",
        "analyzeStatistics",
        r#"{"dataset": "monthly_sales", "column": "units"}"#,
        "--load",
        "dataAnalysis",
    ]);
    assert!(loaded.status.success(), "{}", stdout(&loaded));
    let stats: Value = serde_json::from_str(&stdout(&loaded)).unwrap();
    assert!(stats["mean"].as_f64().is_some(), "{stats}");
}

/// `search`: the ranking of the program's own index, which holds the parameters of the
/// tools written in Rust (the `carnet` binary's ranking cannot, and says so).
#[test]
fn search_ranks_with_the_programs_index() {
    let output = agent(&["search", "researcher", "chart a column", "--limit", "3", "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let hits: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let hits = hits.as_array().unwrap();
    assert!(!hits.is_empty() && hits.len() <= 3, "{hits:?}");
    assert_eq!(hits[0]["name"], "visualizeData", "{hits:?}");
    assert!(
        hits.windows(2)
            .all(|w| w[0]["score"].as_f64() >= w[1]["score"].as_f64())
    );

    let table = agent(&["search", "researcher", "chart a column"]);
    assert!(stdout(&table).starts_with("tool "), "{}", stdout(&table));
    let empty = agent(&["search", "researcher", "  "]);
    assert_eq!(empty.status.code(), Some(2));
    let unknown = agent(&["search", "nobody", "chart"]);
    assert_eq!(unknown.status.code(), Some(2));
}

#[test]
fn prompt_stats_help_and_mistakes() {
    let prompt = agent(&["prompt", "researcher", "--load", "dataAnalysis"]);
    assert!(prompt.status.success(), "{}", stderr(&prompt));
    assert!(
        stdout(&prompt)
            .contains("## Loaded Skills\n\nSkills you have loaded during this session:\n\n- **dataAnalysis**"),
        "{}",
        stdout(&prompt)
    );

    let stats = agent(&["stats", "researcher", "--load", "dataAnalysis", "--json"]);
    assert!(stats.status.success(), "{}", stderr(&stats));
    let report: Value = serde_json::from_str(&stdout(&stats)).unwrap();
    assert_eq!(report[0]["agent"], "researcher");
    assert_eq!(report[0]["turns"].as_array().unwrap().len(), 2);
    // This catalog is large enough for progressive loading to pay: no advice.
    assert_eq!(report[0]["advice"], Value::Null);
    assert_eq!(report[0]["unknownInputSchemas"], Value::Null);

    let help = agent(&["help"]);
    assert!(help.status.success());
    for command in ["prompt", "tools", "call", "stats", "search", "serve-mcp"] {
        assert!(stdout(&help).contains(command), "{}", stdout(&help));
    }
    let unknown = agent(&["tools", "reseacher"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("did you mean `researcher`?"),
        "{}",
        stderr(&unknown)
    );
    let bad_load = agent(&["prompt", "researcher", "--load", "nope"]);
    assert_eq!(bad_load.status.code(), Some(2));
    let bad_flag = agent(&["tools", "researcher", "--provider", "nope"]);
    assert_eq!(bad_flag.status.code(), Some(2));
}

/// Reads JSON-RPC lines until the response with `id`.
fn response(lines: &mut impl Iterator<Item = std::io::Result<String>>, id: u64) -> Value {
    for line in lines {
        let message: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if message["id"] == id {
            return message;
        }
    }
    panic!("no response with id {id}");
}

#[test]
fn serve_mcp_runs_the_domain_tools() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_research-agent"))
        .args(["serve-mcp", "researcher"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |message: Value| writeln!(stdin, "{message}").unwrap();
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "program-test", "version": "0"}}}));
    assert!(response(&mut lines, 1)["result"]["serverInfo"].is_object());
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "loadSkill", "arguments": {"skillName": "dataAnalysis"}}}));
    assert_eq!(response(&mut lines, 2)["result"]["isError"], false);
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "analyzeStatistics", "arguments": {"dataset": "monthly_sales", "column": "units"}}}));
    let call = response(&mut lines, 3);
    assert_eq!(call["result"]["isError"], false, "{call}");
    assert!(call["result"]["structuredContent"]["mean"].as_f64().is_some(), "{call}");
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
}
