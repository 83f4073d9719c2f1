//! `carnet_runtime::a2a` over raw HTTP/1.1: the JSON-RPC and HTTP+JSON bindings, a
//! conversation that keeps its skills, streaming, cancellation of a tool in flight, and
//! what a hostile or mistaken client meets (versions, garbage, sizes, counts, origins).
//! The official Python SDK judges the same server in `tests/a2a/run.sh`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use carnet_runtime::a2a::{Limits, Server};
use carnet_runtime::chat::{ChatModel, ModelError};
use carnet_runtime::testing::Scripted;
use carnet_runtime::{BoxFuture, Carnet, Context, Manifest, ToolError, ToolHandler, ToolImpl, ToolsetImpl};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

const MANIFEST: &str = r#"{
  "agents": {
    "helper": { "name": "helper", "description": "Greets and waits", "skills": ["greet", "patience"],
      "prompt": "You help." }
  },
  "skills": {
    "greet": { "name": "greet", "description": "Greets people", "toolsets": ["hello"],
      "content": "Call sayHello.", "extra": { "tags": ["greeting"], "examples": ["Say hello to Ada"] } },
    "patience": { "name": "patience", "description": "Waits", "toolsets": ["waiting"], "content": "Call wait." }
  },
  "toolsets": {
    "hello": { "name": "hello", "description": "Hello", "content": "", "tools": [
      { "name": "sayHello", "description": "Says hello" } ] },
    "waiting": { "name": "waiting", "description": "Waiting", "content": "", "tools": [
      { "name": "wait", "description": "Waits until canceled" } ] }
  }
}"#;

/// A tool that never finishes, and says when its cancellation signal fired.
struct Wait(Arc<AtomicBool>);

impl ToolHandler for Wait {
    fn call<'a>(&'a self, context: &'a Context<'a>, _arguments: Value) -> BoxFuture<'a, Result<Value, ToolError>> {
        let signal = context.cancellation().clone();
        let fired = self.0.clone();
        // Work handed elsewhere, as a real tool would: it stops when the signal fires.
        tokio::spawn(async move {
            signal.cancelled().await;
            fired.store(true, Ordering::SeqCst);
        });
        Box::pin(std::future::pending())
    }
}

fn carnet(fired: &Arc<AtomicBool>) -> Carnet {
    let manifest = Manifest::from_json(MANIFEST).unwrap();
    let hello = ToolImpl::from_fn(
        "sayHello",
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
        |args| async move { Ok(json!({"greeting": format!("Hello, {}!", args["name"].as_str().unwrap_or("?"))})) },
    );
    let wait = ToolImpl::new("wait", json!({"type": "object"}), Wait(fired.clone()));
    Carnet::builder(&manifest)
        .toolset(ToolsetImpl::new("hello", [hello]))
        .toolset(ToolsetImpl::new("waiting", [wait]))
        .build()
        .unwrap()
}

/// The script every context's model follows: "hello" loads `greet` and greets; "again"
/// answers without loading anything; "wait" loads `patience` and calls the endless tool.
fn model(_context: &str) -> Box<dyn ChatModel> {
    Box::new(Scripted::from_fn(|request| {
        use carnet_runtime::chat::{ChatResponse, Message, call};
        let last_user = request.messages.iter().rev().find_map(|m| match m {
            Message::User(text) => Some(text.as_str()),
            _ => None,
        });
        let after_user = request
            .messages
            .iter()
            .rev()
            .take_while(|m| !matches!(m, Message::User(_)))
            .filter(|m| matches!(m, Message::Assistant { .. }))
            .count();
        match (last_user.unwrap_or_default(), after_user) {
            ("hello", 0) => ChatResponse::tool_calls(None, vec![call(1, "loadSkill", json!({"skillName": "greet"}))]),
            ("hello", 1) => ChatResponse::tool_calls(None, vec![call(2, "sayHello", json!({"name": "Ada"}))]),
            ("hello", _) => ChatResponse::answer("Hello, Ada!"),
            ("wait", 0) => ChatResponse::tool_calls(None, vec![call(3, "loadSkill", json!({"skillName": "patience"}))]),
            ("wait", _) => ChatResponse::tool_calls(None, vec![call(4, "wait", json!({}))]),
            ("loop", n) => ChatResponse::tool_calls(None, vec![call(10 + n, "listAvailableSkills", json!({}))]),
            (text, _) => ChatResponse::answer(format!("you said: {text}")),
        }
    }))
}

struct Running {
    addr: SocketAddr,
    url: String,
    fired: Arc<AtomicBool>,
}

async fn start(limits: Limits) -> Running {
    let fired = Arc::new(AtomicBool::new(false));
    let server = Server::new(&carnet(&fired), "helper", |context| Ok::<_, ModelError>(model(context)))
        .unwrap()
        .limits(limits);
    let http = server.bind("127.0.0.1:0").await.unwrap();
    let addr = http.local_addr().unwrap();
    let url = http.url();
    tokio::spawn(http.run());
    Running { addr, url, fired }
}

/// One HTTP/1.1 request; the status and the body.
async fn http(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, String) {
    let (status, _, body) = exchange(addr, method, path, headers, body).await;
    (status, body)
}

/// One HTTP/1.1 request; the status, the head (lowercase) and the body.
async fn exchange(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    stream.write_all(request.as_bytes()).await.unwrap();
    stream.write_all(body).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut response))
        .await
        .expect("the server answers in time")
        .unwrap();
    let text = String::from_utf8_lossy(&response).into_owned();
    let status = text[9..12].parse().unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let head = head.to_ascii_lowercase();
    let body = if head.contains("transfer-encoding: chunked") {
        dechunk(body)
    } else {
        body.to_owned()
    };
    (status, head, body)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
    out
}

const JSON: (&str, &str) = ("Content-Type", "application/json");
const V1: (&str, &str) = ("A2A-Version", "1.0");

/// A JSON-RPC call with `A2A-Version: 1.0`; the response object.
async fn rpc(addr: SocketAddr, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    let (status, body) = http(addr, "POST", "/", &[JSON, V1], body.to_string().as_bytes()).await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

fn message(text: &str, context: Option<&str>) -> Value {
    let mut message = json!({"messageId": format!("m-{text}"), "role": "ROLE_USER", "parts": [{"text": text}]});
    if let Some(context) = context {
        message["contextId"] = json!(context);
    }
    message
}

fn code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {response}"))
}

#[tokio::test]
async fn the_card_names_both_bindings_at_the_real_url_and_the_catalog() {
    let server = start(Limits::default()).await;
    let (status, body) = http(server.addr, "GET", "/.well-known/agent-card.json", &[], b"").await;
    assert_eq!(status, 200);
    let card: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(card["name"], "helper");
    let interfaces = card["supportedInterfaces"].as_array().unwrap();
    assert_eq!(interfaces[0]["url"], server.url.as_str());
    assert_eq!(interfaces[0]["protocolBinding"], "JSONRPC");
    assert_eq!(interfaces[1]["protocolBinding"], "HTTP+JSON");
    assert_eq!(interfaces[0]["protocolVersion"], "1.0");
    assert_eq!(card["capabilities"]["streaming"], true);
    assert_eq!(card["capabilities"]["pushNotifications"], false);
    assert_eq!(card["skills"][0]["id"], "greet");
    assert_eq!(card["skills"][0]["tags"], json!(["greeting", "hello"]));
    assert_eq!(card["skills"][0]["examples"], json!(["Say hello to Ada"]));
}

#[tokio::test]
async fn a_context_keeps_its_skills_from_one_message_to_the_next() {
    let server = start(Limits::default()).await;
    let first = rpc(server.addr, "SendMessage", json!({"message": message("hello", None)})).await;
    let task = &first["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{first}");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "Hello, Ada!");
    assert_eq!(task["status"]["message"]["role"], "ROLE_AGENT");
    assert_eq!(task["metadata"]["carnet"]["loadedSkills"], json!(["greet"]));
    assert_eq!(task["history"].as_array().unwrap().len(), 2);
    let context = task["contextId"].as_str().unwrap();

    let second = rpc(
        server.addr,
        "SendMessage",
        json!({"message": message("again", Some(context))}),
    )
    .await;
    let task2 = &second["result"]["task"];
    assert_eq!(task2["contextId"], context);
    assert_eq!(task2["artifacts"][0]["parts"][0]["text"], "you said: again");
    assert_eq!(task2["metadata"]["carnet"]["loadedSkills"], json!(["greet"]));

    // Another context starts with nothing loaded.
    let other = rpc(server.addr, "SendMessage", json!({"message": message("again", None)})).await;
    assert_eq!(other["result"]["task"]["metadata"]["carnet"]["loadedSkills"], json!([]));
    assert_ne!(other["result"]["task"]["contextId"], context);
}

#[tokio::test]
async fn get_list_and_history_length() {
    let server = start(Limits::default()).await;
    let sent = rpc(server.addr, "SendMessage", json!({"message": message("hello", None)})).await;
    let id = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    let context = sent["result"]["task"]["contextId"].as_str().unwrap().to_owned();
    rpc(
        server.addr,
        "SendMessage",
        json!({"message": message("again", Some(&context))}),
    )
    .await;

    let got = rpc(server.addr, "GetTask", json!({"id": id, "historyLength": 1})).await;
    let history = got["result"]["history"].as_array().unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0]["role"], "ROLE_AGENT");
    assert_eq!(code(&rpc(server.addr, "GetTask", json!({"id": "nope"})).await), -32001);
    assert_eq!(
        code(&rpc(server.addr, "GetTask", json!({"id": id, "historyLength": -1})).await),
        -32602
    );

    let page = rpc(server.addr, "ListTasks", json!({"contextId": context, "pageSize": 1})).await;
    let result = &page["result"];
    assert_eq!(result["totalSize"], 2);
    assert_eq!(result["pageSize"], 1);
    assert!(
        result["tasks"][0].get("artifacts").is_none(),
        "artifacts only on request"
    );
    let token = result["nextPageToken"].as_str().unwrap();
    assert!(!token.is_empty());
    let next = rpc(
        server.addr,
        "ListTasks",
        json!({"contextId": context, "pageSize": 1, "pageToken": token, "includeArtifacts": true}),
    )
    .await;
    assert_eq!(next["result"]["tasks"][0]["id"], id.as_str(), "the oldest last");
    assert_eq!(next["result"]["nextPageToken"], "");
    assert!(next["result"]["tasks"][0]["artifacts"].is_array());
    let future = rpc(
        server.addr,
        "ListTasks",
        json!({"statusTimestampAfter": "2999-01-01T00:00:00Z"}),
    )
    .await;
    assert_eq!(future["result"]["totalSize"], 0, "{future}");
    let past = rpc(
        server.addr,
        "ListTasks",
        json!({"statusTimestampAfter": "2000-01-01T00:00:00Z"}),
    )
    .await;
    assert_eq!(past["result"]["totalSize"], 2);
    assert_eq!(
        code(&rpc(server.addr, "ListTasks", json!({"statusTimestampAfter": "yesterday"})).await),
        -32602
    );
    let completed = rpc(server.addr, "ListTasks", json!({"status": "TASK_STATE_CANCELED"})).await;
    assert_eq!(completed["result"]["pageSize"], 50, "the default page size");
    assert_eq!(completed["result"]["totalSize"], 0);
    assert_eq!(
        code(&rpc(server.addr, "ListTasks", json!({"pageSize": 0})).await),
        -32602
    );
    assert_eq!(
        code(&rpc(server.addr, "ListTasks", json!({"pageSize": 101})).await),
        -32602
    );
    assert_eq!(
        code(&rpc(server.addr, "ListTasks", json!({"pageToken": "x"})).await),
        -32602
    );
}

#[tokio::test]
async fn streaming_sends_the_task_then_its_steps_the_answer_and_the_end() {
    let server = start(Limits::default()).await;
    let body = json!({"jsonrpc": "2.0", "id": "s1", "method": "SendStreamingMessage",
        "params": {"message": message("hello", None)}});
    let (status, text) = http(server.addr, "POST", "/", &[JSON, V1], body.to_string().as_bytes()).await;
    assert_eq!(status, 200);
    let events: Vec<Value> = text
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str::<Value>(data).unwrap())
        .collect();
    assert!(events.iter().all(|e| e["id"] == "s1" && e["jsonrpc"] == "2.0"));
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["result"].as_object().unwrap().keys().next().unwrap().as_str())
        .collect();
    assert_eq!(
        kinds,
        [
            "task",
            "statusUpdate",
            "statusUpdate",
            "statusUpdate",
            "artifactUpdate",
            "statusUpdate"
        ]
    );
    assert_eq!(events[0]["result"]["task"]["status"]["state"], "TASK_STATE_SUBMITTED");
    assert_eq!(
        events[1]["result"]["statusUpdate"]["status"]["state"],
        "TASK_STATE_WORKING"
    );
    let load = &events[2]["result"]["statusUpdate"]["metadata"]["carnet"]["calls"][0];
    assert_eq!(load["name"], "loadSkill");
    assert_eq!(load["arguments"]["skillName"], "greet");
    assert_eq!(load["exposes"], json!(["sayHello"]));
    assert_eq!(
        events[3]["result"]["statusUpdate"]["metadata"]["carnet"]["calls"][0]["name"],
        "sayHello"
    );
    assert_eq!(
        events[4]["result"]["artifactUpdate"]["artifact"]["parts"][0]["text"],
        "Hello, Ada!"
    );
    assert_eq!(
        events[5]["result"]["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

#[tokio::test]
async fn cancel_stops_the_tool_in_flight_and_a_finished_task_is_not_cancelable() {
    let server = start(Limits::default()).await;
    let sent = rpc(
        server.addr,
        "SendMessage",
        json!({"message": message("wait", None), "configuration": {"returnImmediately": true}}),
    )
    .await;
    let id = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    // The tool is running once the task says so (or soon after).
    for _ in 0..100 {
        let got = rpc(server.addr, "GetTask", json!({"id": id})).await;
        if got["result"]["status"]["state"] == "TASK_STATE_WORKING" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!server.fired.load(Ordering::SeqCst));
    let canceled = rpc(server.addr, "CancelTask", json!({"id": id})).await;
    assert_eq!(
        canceled["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    for _ in 0..100 {
        if server.fired.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(server.fired.load(Ordering::SeqCst), "the tool saw its cancellation");
    assert_eq!(code(&rpc(server.addr, "CancelTask", json!({"id": id})).await), -32002);
    assert_eq!(
        code(&rpc(server.addr, "CancelTask", json!({"id": "nope"})).await),
        -32001
    );
    assert_eq!(
        code(&rpc(server.addr, "SubscribeToTask", json!({"id": id})).await),
        -32004
    );
}

#[tokio::test]
async fn the_step_limit_asks_for_input_and_the_task_goes_on() {
    let server = start(Limits::default().with_max_steps(2)).await;
    let sent = rpc(server.addr, "SendMessage", json!({"message": message("loop", None)})).await;
    let task = &sent["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED", "{sent}");
    // Continued by a message that runs on (it waits), a second one is refused meanwhile.
    let mut more = message("wait", task["contextId"].as_str());
    more["taskId"] = task["id"].clone();
    let running = rpc(
        server.addr,
        "SendMessage",
        json!({"message": more, "configuration": {"returnImmediately": true}}),
    )
    .await;
    assert_eq!(running["result"]["task"]["id"], task["id"], "{running}");
    let mut twice = message("again", task["contextId"].as_str());
    twice["taskId"] = task["id"].clone();
    assert_eq!(
        code(&rpc(server.addr, "SendMessage", json!({"message": twice})).await),
        -32004
    );
    let canceled = rpc(server.addr, "CancelTask", json!({"id": task["id"]})).await;
    assert_eq!(
        canceled["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );

    let sent = rpc(server.addr, "SendMessage", json!({"message": message("loop", None)})).await;
    let task = &sent["result"]["task"];
    let mut more = message("thanks", task["contextId"].as_str());
    more["taskId"] = task["id"].clone();
    let next = rpc(server.addr, "SendMessage", json!({"message": more})).await;
    assert_eq!(next["result"]["task"]["id"], task["id"]);
    assert_eq!(next["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    // A finished task takes no more messages.
    let mut late = message("late", None);
    late["taskId"] = task["id"].clone();
    assert_eq!(
        code(&rpc(server.addr, "SendMessage", json!({"message": late})).await),
        -32004
    );
}

#[tokio::test]
async fn versions_are_negotiated() {
    let server = start(Limits::default()).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}).to_string();
    let (_, none) = http(server.addr, "POST", "/", &[JSON], body.as_bytes()).await;
    let none: Value = serde_json::from_str(&none).unwrap();
    assert_eq!(code(&none), -32009);
    assert!(none["error"]["message"].as_str().unwrap().contains("0.3"));
    let (_, two) = http(
        server.addr,
        "POST",
        "/",
        &[JSON, ("A2A-Version", "2.0")],
        body.as_bytes(),
    )
    .await;
    assert_eq!(code(&serde_json::from_str(&two).unwrap()), -32009);
    let (_, minor) = http(
        server.addr,
        "POST",
        "/",
        &[JSON, ("A2A-Version", "1.1")],
        body.as_bytes(),
    )
    .await;
    assert_eq!(code(&serde_json::from_str(&minor).unwrap()), -32001, "1.x is served");
}

#[tokio::test]
async fn malformed_requests_get_json_rpc_errors() {
    let server = start(Limits::default()).await;
    let send = |body: &'static str| async move {
        let (status, text) = http(server.addr, "POST", "/", &[JSON, V1], body.as_bytes()).await;
        assert_eq!(status, 200);
        serde_json::from_str::<Value>(&text).unwrap()
    };
    assert_eq!(code(&send("{not json").await), -32700);
    assert_eq!(code(&send("[]").await), -32600);
    assert_eq!(code(&send(r#"{"jsonrpc": "2.0", "method": "GetTask"}"#).await), -32600);
    assert_eq!(
        code(&send(r#"{"jsonrpc": "1.0", "id": 1, "method": "GetTask"}"#).await),
        -32600
    );
    assert_eq!(
        code(&send(r#"{"jsonrpc": "2.0", "id": 1, "method": "Nope"}"#).await),
        -32601
    );
    assert_eq!(
        code(&send(r#"{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": [1]}"#).await),
        -32602
    );
    let missing = send(r#"{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {}}"#).await;
    assert_eq!(code(&missing), -32602);
    assert_eq!(missing["id"], 1);
    assert_eq!(missing["error"]["data"][0]["reason"], "INVALID_PARAMS");
    assert_eq!(
        code(&send(r#"{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "x"}]}}}"#).await),
        -32602
    );
    let file = r#"{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"url": "https://example.com/x.pdf"}]}}}"#;
    assert_eq!(code(&send(file).await), -32005);
    let modes = r#"{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}, "configuration": {"acceptedOutputModes": ["image/png"]}}}"#;
    assert_eq!(code(&send(modes).await), -32005);
    assert_eq!(
        code(&send(r#"{"jsonrpc": "2.0", "id": 1, "method": "CreateTaskPushNotificationConfig", "params": {}}"#).await),
        -32003
    );
    assert_eq!(
        code(&send(r#"{"jsonrpc": "2.0", "id": 1, "method": "GetExtendedAgentCard", "params": {}}"#).await),
        -32004
    );
    let (status, _) = http(server.addr, "POST", "/", &[("Content-Type", "text/plain"), V1], b"{}").await;
    assert_eq!(status, 415);
    let (status, _) = http(server.addr, "GET", "/", &[V1], b"").await;
    assert_eq!(status, 405);
    let (status, _) = http(server.addr, "GET", "/elsewhere", &[V1], b"").await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn sizes_counts_and_origins_are_bounded() {
    let limits = Limits::default()
        .with_max_request_bytes(4096)
        .with_max_message_chars(100)
        .with_max_tasks(2)
        .with_allowed_origins(["https://app.example.com"]);
    let server = start(limits).await;
    let big = vec![b' '; 5000];
    let (status, body) = http(server.addr, "POST", "/", &[JSON, V1], &big).await;
    assert_eq!(status, 413, "{body}");
    let long = "x".repeat(101);
    assert_eq!(
        code(&rpc(server.addr, "SendMessage", json!({"message": message(&long, None)})).await),
        -32602
    );
    let (status, _) = http(
        server.addr,
        "POST",
        "/",
        &[JSON, V1, ("Origin", "https://evil.example.com")],
        b"{}",
    )
    .await;
    assert_eq!(status, 403);
    let (status, _) = http(
        server.addr,
        "GET",
        "/.well-known/agent-card.json",
        &[("Origin", "https://evil.example.com")],
        b"",
    )
    .await;
    assert_eq!(status, 200, "the card is public");

    // Two unfinished tasks fill the store; a third is refused, not queued without bound.
    for _ in 0..2 {
        let sent = rpc(
            server.addr,
            "SendMessage",
            json!({"message": message("wait", None), "configuration": {"returnImmediately": true}}),
        )
        .await;
        assert!(sent["result"]["task"]["id"].is_string(), "{sent}");
    }
    let refused = rpc(
        server.addr,
        "SendMessage",
        json!({"message": message("hello", None), "configuration": {"returnImmediately": true}}),
    )
    .await;
    assert_eq!(code(&refused), -32603);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unfinished tasks")
    );
}

#[tokio::test]
async fn a_full_store_asks_the_client_to_come_back_later() {
    let server = start(Limits::default().with_max_tasks(1)).await;
    let waiting = json!({"message": message("wait", None), "configuration": {"returnImmediately": true}});
    let (status, text) = http(
        server.addr,
        "POST",
        "/message:send",
        &[JSON, V1],
        waiting.to_string().as_bytes(),
    )
    .await;
    assert_eq!(status, 200, "{text}");

    // HTTP+JSON: 503 with Retry-After, the status a client and a balancer act on.
    let body = json!({"message": message("hello", None)}).to_string();
    let (status, head, text) = exchange(server.addr, "POST", "/message:send", &[JSON, V1], body.as_bytes()).await;
    assert_eq!(status, 503, "{text}");
    assert!(
        head.contains("\r\nretry-after: 5\r\n") || head.ends_with("\r\nretry-after: 5"),
        "{head}"
    );
    let error: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(error["error"]["status"], "UNAVAILABLE", "{error}");
    assert!(error["error"]["message"].as_str().unwrap().contains("unfinished tasks"));
    let details = error["error"]["details"].as_array().unwrap();
    assert!(details.iter().any(|d| d["retryDelay"] == "5s"), "{error}");

    // JSON-RPC: its error (in a 200) carries the same delay.
    let refused = rpc(server.addr, "SendMessage", json!({"message": message("hello", None)})).await;
    assert_eq!(code(&refused), -32603);
    let data = refused["error"]["data"].as_array().unwrap();
    let retry = data
        .iter()
        .find(|d| d["@type"] == "type.googleapis.com/google.rpc.RetryInfo")
        .unwrap_or_else(|| panic!("no RetryInfo: {refused}"));
    assert_eq!(retry["retryDelay"], "5s");
}

#[tokio::test]
async fn a_conversation_is_bounded_in_length() {
    // "hello" leaves 6 chat messages (the user's, the load call and its result, the greeting
    // call and its result, the answer): a second message finds the conversation full.
    let server = start(Limits::default().with_max_context_messages(6)).await;
    let first = rpc(server.addr, "SendMessage", json!({"message": message("hello", None)})).await;
    let context = first["result"]["task"]["contextId"].as_str().unwrap();
    assert_eq!(first["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    let second = rpc(
        server.addr,
        "SendMessage",
        json!({"message": message("again", Some(context))}),
    )
    .await;
    let task = &second["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_FAILED", "{second}");
    assert!(
        task["status"]["message"]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .contains("start a new context")
    );
    let other = rpc(server.addr, "SendMessage", json!({"message": message("again", None)})).await;
    assert_eq!(other["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
}

#[tokio::test]
async fn cors_for_allowed_origins_only_when_asked() {
    let allowed = ("Origin", "http://localhost:3000");
    let server = start(Limits::default().with_cors(true)).await;
    let raw = |method: &'static str, origin: &'static str| async move {
        let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        let request = format!(
            "{method} / HTTP/1.1\r\nHost: x\r\nOrigin: {origin}\r\nAccess-Control-Request-Method: POST\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await.unwrap();
        String::from_utf8_lossy(&response).to_ascii_lowercase()
    };
    let preflight = raw("OPTIONS", allowed.1).await;
    assert!(preflight.starts_with("http/1.1 204"), "{preflight}");
    assert!(preflight.contains("access-control-allow-origin: http://localhost:3000"));
    assert!(preflight.contains("a2a-version"));
    assert!(
        raw("OPTIONS", "https://evil.example.com")
            .await
            .starts_with("http/1.1 403")
    );
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}).to_string();
    let (status, _) = http(server.addr, "POST", "/", &[JSON, V1, allowed], body.as_bytes()).await;
    assert_eq!(status, 200);

    let without = start(Limits::default()).await;
    let mut stream = tokio::net::TcpStream::connect(without.addr).await.unwrap();
    stream
        .write_all(b"OPTIONS / HTTP/1.1\r\nHost: x\r\nOrigin: http://localhost:3000\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    let response = String::from_utf8_lossy(&response).to_ascii_lowercase();
    assert!(
        response.starts_with("http/1.1 405"),
        "no preflight without cors: {response}"
    );
    assert!(!response.contains("access-control-allow-origin"));
}

#[tokio::test]
async fn a_slow_body_is_cut_off() {
    let server = start(Limits::default().with_body_timeout(Duration::from_millis(300))).await;
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: 100\r\n\r\n{")
        .await
        .unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut response))
        .await
        .expect("cut off in time")
        .unwrap();
    assert!(String::from_utf8_lossy(&response).starts_with("HTTP/1.1 408"));
}

#[tokio::test]
async fn the_http_json_binding_serves_the_same_operations() {
    let server = start(Limits::default()).await;
    let body = json!({"message": message("hello", None)}).to_string();
    let (status, text) = http(server.addr, "POST", "/message:send", &[JSON, V1], body.as_bytes()).await;
    assert_eq!(status, 200, "{text}");
    let sent: Value = serde_json::from_str(&text).unwrap();
    let id = sent["task"]["id"].as_str().unwrap();
    assert_eq!(sent["task"]["status"]["state"], "TASK_STATE_COMPLETED");

    let (status, text) = http(server.addr, "GET", &format!("/tasks/{id}?historyLength=1"), &[V1], b"").await;
    assert_eq!(status, 200);
    let task: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(task["history"].as_array().unwrap().len(), 1);

    let (status, text) = http(
        server.addr,
        "GET",
        "/tasks?pageSize=5&includeArtifacts=true",
        &[V1],
        b"",
    )
    .await;
    assert_eq!(status, 200);
    let list: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(list["totalSize"], 1);

    let (status, text) = http(server.addr, "GET", "/tasks/nope", &[V1], b"").await;
    assert_eq!(status, 404);
    let error: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(error["error"]["status"], "NOT_FOUND");
    assert_eq!(error["error"]["details"][0]["reason"], "TASK_NOT_FOUND");
    assert_eq!(
        error["error"]["details"][0]["@type"],
        "type.googleapis.com/google.rpc.ErrorInfo"
    );

    let (status, text) = http(server.addr, "POST", &format!("/tasks/{id}:cancel"), &[JSON, V1], b"").await;
    assert_eq!(status, 400);
    assert!(text.contains("TASK_NOT_CANCELABLE"));
    let (status, _) = http(server.addr, "GET", "/tasks", &[], b"").await;
    assert_eq!(status, 400, "no version: 0.3");
    let (status, _) = http(server.addr, "POST", "/tasks", &[JSON, V1], b"{}").await;
    assert_eq!(status, 404, "ListTasks is a GET");

    let body = json!({"message": message("again", None)}).to_string();
    let (status, text) = http(server.addr, "POST", "/message:stream", &[JSON, V1], body.as_bytes()).await;
    assert_eq!(status, 200);
    let events: Vec<Value> = text
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str::<Value>(data).unwrap())
        .collect();
    assert!(events[0].get("task").is_some());
    assert_eq!(
        events.last().unwrap()["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

/// Mutations of valid requests (bytes flipped, cut, repeated, fields swapped for others'
/// values): every one gets an answer in time, never a 5xx, and the server still serves.
#[tokio::test]
async fn garbage_never_breaks_the_server() {
    let server = start(Limits::default().with_max_request_bytes(64 * 1024)).await;
    let seeds: Vec<(&str, String)> = vec![
        (
            "/",
            json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message("hi", None)}})
                .to_string(),
        ),
        (
            "/",
            json!({"jsonrpc": "2.0", "id": "x", "method": "ListTasks", "params": {"pageSize": 3, "historyLength": 1}})
                .to_string(),
        ),
        (
            "/",
            json!({"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": "t", "historyLength": 2}})
                .to_string(),
        ),
        (
            "/message:send",
            json!({"message": message("hi", None), "configuration": {"returnImmediately": true}}).to_string(),
        ),
        ("/tasks/x:cancel", "{}".to_owned()),
    ];
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..300 {
        let (path, seed) = &seeds[round % seeds.len()];
        let mut bytes = seed.clone().into_bytes();
        for _ in 0..=(next() % 4) {
            let len = bytes.len().max(1);
            let at = usize::try_from(next() % len as u64).unwrap();
            match next() % 5 {
                0 if !bytes.is_empty() => {
                    let last = bytes.len() - 1;
                    bytes[at.min(last)] = u8::try_from(next() % 256).unwrap();
                }
                1 => bytes.truncate(at),
                2 => {
                    let tail = bytes[at.min(bytes.len())..].to_vec();
                    bytes.extend_from_slice(&tail);
                }
                3 => bytes.insert(
                    at.min(bytes.len()),
                    b"{[\"\\0,:}]"[usize::try_from(next() % 9).unwrap()],
                ),
                _ => {
                    let text = String::from_utf8_lossy(&bytes)
                        .replace("\"hi\"", "[1,{}]")
                        .replace('3', "-99999999999");
                    bytes = text.into_bytes();
                }
            }
        }
        let (status, body) = http(server.addr, "POST", path, &[JSON, V1], &bytes).await;
        assert!(
            status < 500,
            "{status} for {:?}: {body}",
            String::from_utf8_lossy(&bytes)
        );
        assert!(serde_json::from_str::<Value>(&body).is_ok(), "not JSON: {body}");
    }
    let still = rpc(
        server.addr,
        "SendMessage",
        json!({"message": message("still there?", None)}),
    )
    .await;
    assert_eq!(still["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
}
