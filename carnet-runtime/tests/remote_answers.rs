//! What carnet's client declares to a remote toolset's server, and who answers the server's
//! elicitation and sampling requests in a program's own loop (issue 53): the official
//! everything server, which lists `trigger-elicitation-request`, `trigger-sampling-request`
//! and `trigger-url-elicitation` only to a client that declared the capability (and the URL
//! mode), and sends its request during the call. The gateway's side (requests relayed to the
//! hosts) is `tests/remote/relay.py`'s.
#![cfg(feature = "remote")]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use carnet_runtime::remote::{Pin, Server};
use carnet_runtime::{Carnet, DriftPolicy, Manifest, RemoteOptions, ToolOutput};
use serde_json::{Value, json};

mod common;

const NAME: &str = "Ada Lovelace";
const SAMPLED: &str = "Sampled by the program: forty-two";

/// A manifest with agent `a` and skill `s` bringing remote toolset `t`: every tool of `pin`,
/// served by `server`.
fn manifest(pin: &Pin, server: &Value) -> Manifest {
    let tools = common::remote_tools(pin);
    let mcp =
        json!({"server": server, "pin": {"serverInfo": pin.json()["serverInfo"], "digest": pin.json()["digest"]}});
    Manifest::from_json(
        &json!({
            "agents": {"a": {"name": "a", "description": "A", "skills": ["s"], "prompt": ""}},
            "skills": {"s": {"name": "s", "description": "S", "toolsets": ["t"], "content": ""}},
            "toolsets": {"t": {"name": "t", "description": "T", "content": "", "toolDefinitions": tools, "mcp": mcp}}
        })
        .to_string(),
    )
    .unwrap()
}

/// The pin of the everything server, whose tools the engine of `options` offers; a session
/// of it with the skill loaded.
async fn loaded(server: &Value, options: RemoteOptions) -> (Pin, carnet_runtime::Session) {
    let pin = Pin::fetch(&Server::from_json(server).unwrap(), Duration::from_secs(30), 16 << 20)
        .await
        .expect("the everything server pins");
    let options = options
        .connect_timeout(Duration::from_secs(30))
        .call_timeout(Duration::from_secs(20))
        // A tool the connection does not list is called anyway: the server's own answer says
        // whether it offers it.
        .drift(DriftPolicy::Accept);
    let carnet = Carnet::builder(&manifest(&pin, server))
        .remote_options(options)
        .build()
        .unwrap();
    let mut session = carnet.session("a").unwrap();
    let out = session.call("loadSkill", json!({"skillName": "s"})).await;
    assert!(!out.is_error, "{out:?}");
    (pin, session)
}

/// Everything the output says, as one string.
fn said(out: &ToolOutput) -> String {
    format!("{} {} {:?}", out.value, json!(out.content), out.error_message())
}

/// Whether the server answered that it has no such tool (it lists it only to a client that
/// declared the capability).
fn not_offered(out: &ToolOutput) -> bool {
    out.is_error && said(out).contains("not found")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_handler_the_client_declares_neither_capability() {
    let Some(server) = common::everything() else { return };
    let (pin, mut session) = loaded(&server, RemoteOptions::default()).await;
    let pinned: Vec<&str> = pin.json()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for tool in [
        "trigger-elicitation-request",
        "trigger-sampling-request",
        "trigger-url-elicitation",
    ] {
        assert!(pinned.contains(&tool), "a pin declares as a gateway does: {pinned:?}");
    }
    let echo = session.call("echo", json!({"message": "still here"})).await;
    assert!(!echo.is_error && said(&echo).contains("still here"), "{echo:?}");
    let elicit = session.call("trigger-elicitation-request", json!({})).await;
    assert!(not_offered(&elicit), "elicitation was not declared: {elicit:?}");
    let sample = session
        .call(
            "trigger-sampling-request",
            json!({"prompt": "six times seven?", "maxTokens": 20}),
        )
        .await;
    assert!(not_offered(&sample), "sampling was not declared: {sample:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_s_handlers_answer_the_server_s_requests() {
    let Some(server) = common::everything() else { return };
    let asked: Arc<Mutex<Vec<Value>>> = Arc::default();
    let (elicited, sampled) = (Arc::clone(&asked), Arc::clone(&asked));
    let options = RemoteOptions::default()
        .on_elicitation(move |params| {
            elicited.lock().unwrap().push(params);
            async { Ok(json!({"action": "accept", "content": {"name": NAME, "check": true}})) }
        })
        .on_sampling(move |params| {
            sampled.lock().unwrap().push(params);
            async { Ok(json!({"role": "assistant", "content": {"type": "text", "text": SAMPLED}, "model": "mine"})) }
        });
    let (_, mut session) = loaded(&server, options).await;

    let elicit = session.call("trigger-elicitation-request", json!({})).await;
    assert!(
        !elicit.is_error && said(&elicit).contains(NAME),
        "the answer reached the server: {elicit:?}"
    );
    let request = asked.lock().unwrap().pop().expect("the handler was asked");
    assert!(
        request["requestedSchema"]["properties"]["name"].is_object(),
        "{request}"
    );

    let sample = session
        .call(
            "trigger-sampling-request",
            json!({"prompt": "What is six times seven?", "maxTokens": 20}),
        )
        .await;
    assert!(!sample.is_error && said(&sample).contains(SAMPLED), "{sample:?}");
    let request = asked.lock().unwrap().pop().expect("the handler was asked");
    assert!(request["messages"].to_string().contains("six times seven"), "{request}");

    // Form mode only: the server keeps its URL elicitation to itself.
    let url = session
        .call("trigger-url-elicitation", json!({"url": "https://example.com/sign-in"}))
        .await;
    assert!(not_offered(&url), "{url:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_s_failure_reaches_the_server_and_one_capability_is_declared_alone() {
    let Some(server) = common::everything() else { return };
    let options = RemoteOptions::default().on_elicitation(|_| async { Err("nobody is at the keyboard".to_owned()) });
    let (_, mut session) = loaded(&server, options).await;
    let elicit = session.call("trigger-elicitation-request", json!({})).await;
    assert!(
        elicit.is_error && said(&elicit).contains("nobody is at the keyboard"),
        "the server read the handler's error: {elicit:?}"
    );
    let sample = session
        .call(
            "trigger-sampling-request",
            json!({"prompt": "six times seven?", "maxTokens": 20}),
        )
        .await;
    assert!(not_offered(&sample), "sampling has no handler: {sample:?}");
}
