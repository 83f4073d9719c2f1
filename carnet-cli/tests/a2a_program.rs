//! `serve-a2a` in an author's own program (`carnet_cli::program`, the facade's `carnet::cli`):
//! the tools the model calls are the program's, run for real; the `carnet` binary has none.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use carnet_runtime::{Carnet, Manifest, ToolImpl, ToolsetImpl};
use serde_json::{Value, json};

mod common;
use common::{repo, stderr};

const MANIFEST: &str = r#"{
  "agents": { "helper": { "name": "helper", "description": "Greets", "skills": ["greet"], "prompt": "You help." } },
  "skills": { "greet": { "name": "greet", "description": "Greets people", "toolsets": ["hello"], "content": "Call sayHello." } },
  "toolsets": { "hello": { "name": "hello", "description": "Hello", "content": "", "tools": [
    { "name": "sayHello", "description": "Says hello" } ] } }
}"#;

const SCRIPT: &str = r#"{"replies": [{"when": "hello", "steps": [
  {"calls": [{"name": "loadSkill", "arguments": {"skillName": "greet"}}]},
  {"calls": [{"name": "sayHello", "arguments": {"name": "Ada"}}]},
  {"text": "greeted"}
]}]}"#;

/// One request over a fresh connection; the raw response.
fn post(addr: SocketAddr, body: &Value) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let body = body.to_string();
    write!(
        stream,
        "POST / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

/// The calls reported by the stream's status updates, in order: (name, isError).
fn calls(response: &str) -> Vec<(String, bool)> {
    response
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
        .filter_map(|event| {
            event["result"]["statusUpdate"]["metadata"]["carnet"]["calls"]
                .as_array()
                .cloned()
        })
        .flatten()
        .map(|call| {
            (
                call["name"].as_str().unwrap().to_owned(),
                call["isError"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn free_addr() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap()
}

fn wait_for(addr: SocketAddr) {
    let start = Instant::now();
    while TcpStream::connect(addr).is_err() {
        assert!(start.elapsed() < Duration::from_secs(20), "the server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn stream_hello() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
        "params": {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hello"}]}}})
}

#[test]
fn a_program_serves_its_real_tools_over_a2a_and_the_binary_has_none() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    std::fs::write(&script, SCRIPT).unwrap();
    let model = format!("scripted:{}", script.display());

    let manifest = Manifest::from_json(MANIFEST).unwrap();
    let hello = ToolImpl::from_fn(
        "sayHello",
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
        |args| async move { Ok(json!({"greeting": format!("Hello, {}!", args["name"].as_str().unwrap_or("?"))})) },
    );
    let carnet = Carnet::builder(&manifest)
        .toolset(ToolsetImpl::new("hello", [hello]))
        .build()
        .unwrap();
    let addr = free_addr();
    let args = vec![
        "my-agent".to_owned(),
        "serve-a2a".to_owned(),
        "helper".to_owned(),
        "--http".to_owned(),
        addr.to_string(),
        "--model".to_owned(),
        model.clone(),
    ];
    // Serves until the test process ends.
    std::thread::spawn(move || carnet_cli::program::run_from(&carnet, args));
    wait_for(addr);
    let response = post(addr, &stream_hello());
    assert_eq!(
        calls(&response),
        [("loadSkill".to_owned(), false), ("sayHello".to_owned(), false)],
        "{response}"
    );

    // The same content through the `carnet` binary: the tool has no implementation there.
    let content = repo().join("tests/a2a/carnet");
    let addr = free_addr();
    let mut server = std::process::Command::new(env!("CARGO_BIN_EXE_carnet"))
        .args([
            "--dir",
            &content.to_string_lossy(),
            "serve-a2a",
            "helper",
            "--http",
            &addr.to_string(),
        ])
        .args(["--model", &model])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(addr);
    let response = post(addr, &stream_hello());
    server.kill().unwrap();
    let output = server.wait_with_output().unwrap();
    assert_eq!(
        calls(&response),
        [("loadSkill".to_owned(), false), ("sayHello".to_owned(), true)],
        "{response} {}",
        stderr(&output)
    );
}
