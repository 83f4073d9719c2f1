//! The example's live mode (`--model`) from the outside: its arguments, its errors, the
//! `--json` lines of a run against a local `OpenAI`-compatible stand-in that answers a fixed
//! script, and a conversation saved by one process and resumed by another, whose requests
//! are byte for byte those of the uninterrupted conversation (the real model server,
//! llama.cpp, is driven by `tests/models/run.sh`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

fn agent() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_research-agent"));
    command
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL")
        .env_remove("GEMINI_API_KEY")
        .env_remove("GOOGLE_API_KEY")
        .env_remove("GEMINI_BASE_URL")
        .env_remove("GOOGLE_GEMINI_BASE_URL");
    command
}

/// A server answering each request with the next body of `answers` (the last one again and
/// again); its base URL.
fn stand_in(answers: Vec<Value>) -> String {
    recording_stand_in(answers).0
}

/// [`stand_in`], with the bodies of the requests it received.
fn recording_stand_in(answers: Vec<Value>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let received = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&received);
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
                if line == "\r\n" {
                    break;
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            record.lock().unwrap().push(String::from_utf8(body).unwrap());
            let answer = answers[n.min(answers.len() - 1)].to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                answer.len()
            );
        }
    });
    (base, received)
}

fn completion(message: &Value, finish: &str) -> Value {
    json!({
        "id": "c", "object": "chat.completion", "created": 1, "model": "stand-in",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 700, "completion_tokens": 20, "prompt_tokens_details": {"cached_tokens": 512}},
    })
}

fn tool_call(id: &str, name: &str, arguments: &Value) -> Value {
    completion(
        &json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": name, "arguments": arguments.to_string()}}
        ]}),
        "tool_calls",
    )
}

fn lines(output: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect()
}

#[test]
fn a_json_run_prints_each_model_call_then_the_answer() {
    let base = stand_in(vec![
        tool_call("c1", "loadSkill", &json!({"skillName": "dataAnalysis"})),
        tool_call(
            "c2",
            "analyzeStatistics",
            &json!({"dataset": "monthly_sales", "column": "units"}),
        ),
        completion(&json!({"role": "assistant", "content": "Sales grew."}), "stop"),
    ]);
    let output = agent()
        .args([
            "--model",
            "openai:stand-in",
            "--prompt",
            "What about batteries?",
            "--json",
        ])
        .env("OPENAI_BASE_URL", &base)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let lines = lines(&output.stdout);
    assert_eq!(lines.len(), 4, "{lines:#?}");
    let usage = json!({"input": 700, "cached_input": 512, "output": 20});
    assert_eq!(lines[0]["step"], 1);
    assert_eq!(
        lines[0]["calls"],
        json!([{"name": "loadSkill", "arguments": {"skillName": "dataAnalysis"}, "success": true}])
    );
    assert_eq!(lines[0]["usage"], usage);
    let tools = |n: usize| -> Vec<String> {
        lines[n]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_owned())
            .collect()
    };
    assert!(tools(0).contains(&"loadSkill".to_owned()));
    assert!(!tools(0).contains(&"analyzeStatistics".to_owned()), "not loaded yet");
    assert!(
        tools(1).contains(&"analyzeStatistics".to_owned()),
        "the load exposed it"
    );
    assert_eq!(lines[1]["calls"][0]["name"], "analyzeStatistics");
    assert_eq!(lines[1]["calls"][0]["success"], true);
    assert_eq!(lines[2]["calls"], json!([]));
    assert_eq!(lines[3], json!({"answer": "Sales grew.", "steps": 3, "stop": "answer"}));
}

/// `--tool-search carnet`: OpenAI's client-executed search, answered by carnet's own.
#[test]
fn carnet_answers_openais_client_executed_tool_search() {
    let reply = |output: Value| {
        json!({"id": "resp_1", "object": "response", "status": "completed", "output": output,
               "usage": {"input_tokens": 700, "output_tokens": 20, "input_tokens_details": {"cached_tokens": 512}}})
    };
    let search = json!({"type": "tool_search_call", "id": "tsc_1", "call_id": "call_search_1", "execution": "client",
                        "status": "completed", "arguments": {"query": "statistics of a dataset column"}});
    let answer = json!({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": "Found it.", "annotations": []}]});
    let (base, received) = recording_stand_in(vec![reply(json!([search])), reply(json!([answer]))]);
    let output = agent()
        .env("OPENAI_BASE_URL", &base)
        .args([
            "--model",
            "openai-responses:stand-in",
            "--mode",
            "deferred",
            "--tool-search",
            "carnet",
        ])
        .args(["--prompt", "analyze the monthly sales", "--json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let lines = lines(&output.stdout);
    assert_eq!(
        lines.last().unwrap(),
        &json!({"answer": "Found it.", "steps": 1, "stop": "answer"})
    );
    let received = received.lock().unwrap();
    assert_eq!(received.len(), 2, "the search answered within the model call");
    let first: Value = serde_json::from_str(&received[0]).unwrap();
    let declared = first["tools"].as_array().unwrap().last().unwrap();
    assert_eq!(
        (&declared["type"], &declared["execution"]),
        (&json!("tool_search"), &json!("client"))
    );
    let second: Value = serde_json::from_str(&received[1]).unwrap();
    let output = second["input"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "tool_search_output")
        .unwrap();
    assert_eq!(output["call_id"], "call_search_1");
    let found = output["tools"].to_string();
    assert!(found.contains("analyzeStatistics"), "{found}");
}

/// A Gemini answer of `parts`.
fn gemini_answer(parts: &Value) -> Value {
    json!({
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 700, "cachedContentTokenCount": 512, "candidatesTokenCount": 15,
                          "thoughtsTokenCount": 5},
    })
}

#[test]
fn gemini_runs_the_agent_and_sends_its_signatures_back() {
    let load = json!([{"functionCall": {"name": "loadSkill", "args": {"skillName": "dataAnalysis"}},
                       "thoughtSignature": "c2lnbmF0dXJl"}]);
    let (base, received) = recording_stand_in(vec![
        gemini_answer(&load),
        gemini_answer(&json!([{"text": "Sales grew."}])),
    ]);
    let output = agent()
        .args([
            "--model",
            "gemini:stand-in",
            "--prompt",
            "What about batteries?",
            "--json",
        ])
        .env("GEMINI_BASE_URL", base.trim_end_matches("/v1"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let lines = lines(&output.stdout);
    assert_eq!(lines.len(), 3, "{lines:#?}");
    assert_eq!(
        lines[0]["calls"],
        json!([{"name": "loadSkill", "arguments": {"skillName": "dataAnalysis"}, "success": true}])
    );
    assert_eq!(
        lines[0]["usage"],
        json!({"input": 700, "cached_input": 512, "output": 20})
    );
    assert_eq!(lines[2], json!({"answer": "Sales grew.", "steps": 2, "stop": "answer"}));
    let second: Value = serde_json::from_str(&received.lock().unwrap()[1]).unwrap();
    assert_eq!(second["contents"][1], json!({"role": "model", "parts": load}));
    assert_eq!(
        second["contents"][2]["parts"][0]["functionResponse"]["name"],
        "loadSkill"
    );
}

#[test]
fn a_model_that_never_answers_stops_at_the_step_limit() {
    let base = stand_in(vec![tool_call("c", "listAvailableSkills", &json!({}))]);
    let output = agent()
        .args([
            "--model",
            "openai:stand-in",
            "--prompt",
            "Loop",
            "--json",
            "--max-steps",
            "3",
        ])
        .env("OPENAI_BASE_URL", &base)
        .output()
        .unwrap();
    assert!(output.status.success());
    let lines = lines(&output.stdout);
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[3], json!({"answer": null, "steps": 3, "stop": "max_steps"}));
}

#[test]
fn errors_say_what_to_do() {
    let output = agent()
        .args(["--model", "openai:gpt-4.1-mini", "--prompt", "hi"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr).trim(),
        "error: OPENAI_API_KEY is not set: export it with your API key (or pass a key to the client)"
    );
    let output = agent()
        .args(["--model", "anthropic:claude-sonnet-4-5", "--prompt", "hi"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&output.stderr).contains("ANTHROPIC_API_KEY is not set"));
    let output = agent()
        .args(["--model", "gemini:gemini-2.5-flash", "--prompt", "hi"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&output.stderr).contains("GEMINI_API_KEY is not set"));
    for (args, message) in [
        (&["--model", "mistral:x"][..], "unknown provider `mistral`"),
        (&["--model", "openai"][..], "expected PROVIDER:NAME"),
        (
            &["--model", "openai:x", "--max-steps", "0"][..],
            "expected a number above 0",
        ),
        (
            &["--model", "openai:x", "--mode", "lazy"][..],
            "unknown exposure mode `lazy`",
        ),
        (&["--prompt", "hi"][..], "--model is required"),
    ] {
        let output = agent().args(args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(message) && stderr.contains("usage:"),
            "{args:?}: {stderr}"
        );
    }
    let help = agent().arg("--help").output().unwrap();
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).starts_with("usage: research-agent"));
}

#[test]
fn a_server_that_cannot_be_reached_is_a_clear_error() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let output = agent()
        .args(["--model", "openai:x", "--prompt", "hi", "--json"])
        .env("OPENAI_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("error: openai: connection failed after 3 attempts")
            && stderr.contains("check the base URL"),
        "{stderr}"
    );
}

#[test]
fn a_conversation_saved_by_one_process_resumes_in_another_with_the_same_bytes() {
    let script = || {
        vec![
            tool_call("c1", "loadSkill", &json!({"skillName": "dataAnalysis"})),
            completion(&json!({"role": "assistant", "content": "Loaded."}), "stop"),
            tool_call(
                "c2",
                "analyzeStatistics",
                &json!({"dataset": "monthly_sales", "column": "units"}),
            ),
            completion(&json!({"role": "assistant", "content": "Sales grew."}), "stop"),
        ]
    };
    let first = "Load what you need to analyze sales.";
    let second = "Now analyze monthly_sales, column units.";

    // One process, two messages (one a line on stdin).
    let (base, uninterrupted) = recording_stand_in(script());
    let mut child = agent()
        .args(["--model", "openai:stand-in", "--json"])
        .env("OPENAI_BASE_URL", &base)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    writeln!(child.stdin.take().unwrap(), "{first}\n{second}").unwrap();
    assert!(child.wait_with_output().unwrap().status.success());

    // Two processes: the first saves, the second resumes.
    let saved = std::env::temp_dir().join(format!("carnet-live-{}.json", std::process::id()));
    let (base, split) = recording_stand_in(script());
    for args in [
        vec!["--prompt", first, "--save", saved.to_str().unwrap()],
        vec!["--prompt", second, "--resume", saved.to_str().unwrap()],
    ] {
        let output = agent()
            .args(["--model", "openai:stand-in", "--json"])
            .args(args)
            .env("OPENAI_BASE_URL", &base)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    }
    let transcript: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert!(
        transcript["state"]["skills"]
            .as_array()
            .unwrap()
            .contains(&json!("dataAnalysis")),
        "the load is saved: {transcript:#}"
    );
    std::fs::remove_file(&saved).unwrap();

    let (uninterrupted, split) = (uninterrupted.lock().unwrap(), split.lock().unwrap());
    assert_eq!(uninterrupted.len(), 4);
    assert_eq!(*split, *uninterrupted, "every request, byte for byte");
}

/// `--tool-search` declares the provider's own search over the deferred tools, and is refused
/// where it cannot work.
#[test]
fn tool_search_declares_the_providers_search_over_deferred_tools() {
    let (base, received) = recording_stand_in(vec![json!({})]);
    let _ = agent()
        .env("OPENAI_BASE_URL", &base)
        .args(["--model", "openai-responses:stand-in", "--mode", "deferred"])
        .args(["--tool-search", "bm25", "--prompt", "chart the temperatures"])
        .output()
        .unwrap();
    let body: Value = serde_json::from_str(&received.lock().unwrap()[0]).unwrap();
    let tools = body["tools"].as_array().unwrap();
    assert!(tools.iter().any(|t| t["type"] == "tool_search"), "{body}");

    let refused = |args: &[&str], says: &str| {
        let output = agent().args(args).args(["--prompt", "hi"]).output().unwrap();
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(says), "{stderr}");
    };
    refused(
        &["--model", "openai:m", "--mode", "deferred", "--tool-search", "regex"],
        "Chat Completions has no tool search",
    );
    refused(
        &["--model", "gemini:m", "--mode", "deferred", "--tool-search", "bm25"],
        "Gemini has no tool search",
    );
    refused(
        &[
            "--model",
            "anthropic:m",
            "--mode",
            "deferred",
            "--tool-search",
            "carnet",
        ],
        "use openai-responses:NAME",
    );
    refused(
        &["--model", "anthropic:m", "--tool-search", "bm25"],
        "add --mode deferred",
    );
    refused(
        &["--model", "anthropic:m", "--tool-search", "fuzzy"],
        "expected one of off, bm25, regex",
    );
}
