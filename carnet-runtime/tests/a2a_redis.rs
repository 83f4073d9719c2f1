//! Two A2A servers sharing a `RedisStore` (a real `redis-server`, started here on a free
//! port; the tests are skipped with a note when it is not installed, unless `CI` is set): a
//! task started on one is read, listed, followed and canceled through the other, a context
//! goes on with its skills on the other, a replica that dies mid-task leaves its task failed
//! with a reason naming it (when read, or by another replica's sweeper when nobody reads
//! it); and a Redis that hangs or answers garbage is an error naming it.

use std::net::{SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use carnet_runtime::a2a::{RedisStore, Server, StoreError};
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
    "greet": { "name": "greet", "description": "Greets people", "toolsets": ["hello"], "content": "Call sayHello." },
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
        tokio::spawn(async move {
            signal.cancelled().await;
            fired.store(true, Ordering::SeqCst);
        });
        Box::pin(std::future::pending())
    }
}

fn carnet(fired: &Arc<AtomicBool>) -> Carnet {
    let manifest = Manifest::from_json(MANIFEST).unwrap();
    let hello = ToolImpl::from_fn("sayHello", json!({"type": "object"}), |_| async move {
        Ok(json!({"greeting": "Hello, Ada!"}))
    });
    let wait = ToolImpl::new("wait", json!({"type": "object"}), Wait(fired.clone()));
    Carnet::builder(&manifest)
        .toolset(ToolsetImpl::new("hello", [hello]))
        .toolset(ToolsetImpl::new("waiting", [wait]))
        .build()
        .unwrap()
}

/// "hello" loads `greet` and greets; "wait" loads `patience` and calls the endless tool;
/// anything else is echoed.
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
            ("hello", 1) => ChatResponse::tool_calls(None, vec![call(2, "sayHello", json!({}))]),
            ("hello", _) => ChatResponse::answer("Hello, Ada!"),
            ("wait", 0) => ChatResponse::tool_calls(None, vec![call(3, "loadSkill", json!({"skillName": "patience"}))]),
            ("wait", _) => ChatResponse::tool_calls(None, vec![call(4, "wait", json!({}))]),
            (text, _) => ChatResponse::answer(format!("you said: {text}")),
        }
    }))
}

/// A `redis-server` of its own on a free port, killed when dropped.
struct Redis {
    child: Child,
    url: String,
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn redis() -> Option<Redis> {
    let port = free_port();
    let child = Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let child = match child {
        Ok(child) => child,
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "redis-server is needed in CI (tests/a2a/replicas.sh installs it): {e}"
            );
            eprintln!("note: redis-server is not installed ({e}): skipping (apt-get install redis-server)");
            return None;
        }
    };
    let redis = Redis {
        child,
        url: format!("redis://127.0.0.1:{port}"),
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "redis-server did not listen within 10 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(redis)
}

struct Replica {
    addr: SocketAddr,
    fired: Arc<AtomicBool>,
    /// Its own runtime: shutting it down is the replica dying (its tasks and leases stop).
    runtime: Option<tokio::runtime::Runtime>,
}

impl Replica {
    fn kill(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn replica(url: &str, name: &str) -> Replica {
    let fired = Arc::new(AtomicBool::new(false));
    let store = RedisStore::connect(url)
        .await
        .unwrap()
        .replica(name)
        .lease(Duration::from_secs(2));
    let server = Server::new(&carnet(&fired), "helper", |context| Ok::<_, ModelError>(model(context)))
        .unwrap()
        .store(store);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (sender, receiver) = tokio::sync::oneshot::channel();
    runtime.spawn(async move {
        let http = server.bind("127.0.0.1:0").await.unwrap();
        sender.send(http.local_addr().unwrap()).unwrap();
        http.run().await
    });
    Replica {
        addr: receiver.await.unwrap(),
        fired,
        runtime: Some(runtime),
    }
}

/// One HTTP/1.1 request; the status and the body (SSE streams read to their end).
async fn http(addr: SocketAddr, body: &Value) -> String {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let body = body.to_string();
    let request = format!(
        "POST / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut response))
        .await
        .expect("the server answers in time")
        .unwrap();
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or_default();
    if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        dechunk(body)
    } else {
        body.to_owned()
    }
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

/// The state an SSE stream of events ends with: its last status update's, or its last
/// task's (a follower that found the task ended between two events sends it whole).
fn last_state(events: &[Value]) -> &Value {
    let last = &events.last().expect("events")["result"];
    if last["statusUpdate"].is_object() {
        &last["statusUpdate"]["status"]["state"]
    } else {
        &last["task"]["status"]["state"]
    }
}

async fn rpc(addr: SocketAddr, method: &str, params: Value) -> Value {
    let body = http(
        addr,
        &json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}),
    )
    .await;
    // Chunked or not, the JSON object is the body's one line that starts with `{`.
    let line = body.lines().find(|l| l.starts_with('{')).unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {body}"))
}

fn message(text: &str, context: Option<&str>) -> Value {
    let mut message = json!({"messageId": format!("m-{text}"), "role": "ROLE_USER", "parts": [{"text": text}]});
    if let Some(context) = context {
        message["contextId"] = json!(context);
    }
    message
}

async fn wait_for_state(addr: SocketAddr, id: &str, state: &str, within: Duration) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let got = rpc(addr, "GetTask", json!({"id": id})).await;
        if got["result"]["status"]["state"] == state || Instant::now() > deadline {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_share_tasks_events_cancellation_and_conversations() {
    let Some(redis) = redis() else { return };
    let a = replica(&redis.url, "a").await;
    let b = replica(&redis.url, "b").await;

    // A context moves between replicas: its first message on a, the second (which loads a
    // skill) on b, the third back on a, whose own copy of the conversation is older.
    let first = rpc(
        a.addr,
        "SendMessage",
        json!({"message": message("first", Some("ctx-1"))}),
    )
    .await;
    assert_eq!(
        first["result"]["task"]["metadata"]["carnet"]["loadedSkills"],
        json!([]),
        "{first}"
    );
    let sent = rpc(
        b.addr,
        "SendMessage",
        json!({"message": message("hello", Some("ctx-1"))}),
    )
    .await;
    let task = &sent["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{sent}");
    let again = rpc(
        a.addr,
        "SendMessage",
        json!({"message": message("again", Some("ctx-1"))}),
    )
    .await;
    assert_eq!(
        again["result"]["task"]["metadata"]["carnet"]["loadedSkills"],
        json!(["greet"]),
        "{again}"
    );

    // Run on b, read and listed (filters, pages) through a.
    let id = task["id"].as_str().unwrap();
    let got = rpc(a.addr, "GetTask", json!({"id": id})).await;
    assert_eq!(got["result"]["status"]["state"], "TASK_STATE_COMPLETED", "{got}");
    assert_eq!(got["result"]["artifacts"][0]["parts"][0]["text"], "Hello, Ada!");
    assert_eq!(got["result"]["history"].as_array().unwrap().len(), 2);
    let listed = rpc(a.addr, "ListTasks", json!({"contextId": "ctx-1", "pageSize": 2})).await;
    assert_eq!(listed["result"]["totalSize"], 3, "{listed}");
    assert_eq!(listed["result"]["tasks"].as_array().unwrap().len(), 2, "{listed}");
    let token = listed["result"]["nextPageToken"].as_str().unwrap();
    let rest = rpc(
        b.addr,
        "ListTasks",
        json!({"contextId": "ctx-1", "pageSize": 2, "pageToken": token}),
    )
    .await;
    assert_eq!(
        rest["result"]["tasks"][0]["id"], first["result"]["task"]["id"],
        "{rest}"
    );
    assert_eq!(rest["result"]["nextPageToken"], "", "{rest}");
    let none = rpc(b.addr, "ListTasks", json!({"contextId": "ctx-2"})).await;
    assert_eq!(none["result"]["totalSize"], 0, "{none}");

    // Started on a, followed and canceled through b: the tool on a sees its cancellation.
    let sent = rpc(
        a.addr,
        "SendMessage",
        json!({"message": message("wait", None), "configuration": {"returnImmediately": true}}),
    )
    .await;
    let id = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    wait_for_state(b.addr, &id, "TASK_STATE_WORKING", Duration::from_secs(10)).await;
    let subscribe = json!({"jsonrpc": "2.0", "id": 2, "method": "SubscribeToTask", "params": {"id": id}});
    let (b_addr, body) = (b.addr, subscribe.clone());
    let stream = tokio::spawn(async move { http(b_addr, &body).await });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let canceled = rpc(b.addr, "CancelTask", json!({"id": id})).await;
    assert_eq!(
        canceled["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    while !a.fired.load(Ordering::SeqCst) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(a.fired.load(Ordering::SeqCst), "the tool on a saw its cancellation");
    let events = stream.await.unwrap();
    let data: Vec<Value> = events
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(data[0]["result"]["task"]["id"] == id.as_str(), "{events}");
    assert_eq!(last_state(&data), "TASK_STATE_CANCELED", "{events}");
    drop((a, b));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_that_dies_mid_task_leaves_it_failed_naming_it() {
    let Some(redis) = redis() else { return };
    let mut a = replica(&redis.url, "doomed").await;
    let b = replica(&redis.url, "survivor").await;
    let sent = rpc(
        a.addr,
        "SendMessage",
        json!({"message": message("wait", None), "configuration": {"returnImmediately": true}}),
    )
    .await;
    let id = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    wait_for_state(b.addr, &id, "TASK_STATE_WORKING", Duration::from_secs(10)).await;
    // A follower on b learns of the death too.
    let subscribe = json!({"jsonrpc": "2.0", "id": 2, "method": "SubscribeToTask", "params": {"id": id}});
    let (b_addr, body) = (b.addr, subscribe.clone());
    let stream = tokio::spawn(async move { http(b_addr, &body).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    a.kill();
    let got = wait_for_state(b.addr, &id, "TASK_STATE_FAILED", Duration::from_secs(10)).await;
    let status = &got["result"]["status"];
    assert_eq!(status["state"], "TASK_STATE_FAILED", "{got}");
    let reason = status["message"]["parts"][0]["text"].as_str().unwrap();
    assert!(
        reason.contains("replica `doomed`") && reason.contains("lease"),
        "{reason}"
    );
    let events = tokio::time::timeout(Duration::from_secs(10), stream)
        .await
        .unwrap()
        .unwrap();
    let data: Vec<Value> = events
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(last_state(&data), "TASK_STATE_FAILED", "{events}");
    let listed = rpc(b.addr, "ListTasks", json!({"status": "TASK_STATE_WORKING"})).await;
    assert_eq!(listed["result"]["totalSize"], 0, "{listed}");
    drop(b);
}

/// A server that accepts and then answers `reply` (or nothing), as a broken Redis would.
async fn impostor(reply: Option<&'static [u8]>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut buffer = [0u8; 1024];
                let _ = socket.read(&mut buffer).await;
                if let Some(reply) = reply {
                    let _ = socket.write_all(reply).await;
                }
                tokio::time::sleep(Duration::from_mins(1)).await;
            });
        }
    });
    format!("redis://{addr}")
}

#[tokio::test]
async fn a_redis_that_hangs_or_answers_garbage_is_an_error_naming_it() {
    for reply in [
        None,
        Some(&b"HTTP/1.1 400 Bad Request\r\n\r\n"[..]),
        Some(&b"$99999999999\r\n"[..]),
        Some(&b"-ERR unknown command\r\n"[..]),
    ] {
        let url = impostor(reply).await;
        let started = Instant::now();
        let error = RedisStore::connect(&url).await.unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(8), "{:?}", started.elapsed());
        let StoreError::Unavailable(text) = &error else {
            panic!("{error:?}")
        };
        assert!(
            text.starts_with(&format!("Redis at {}", &url["redis://".len()..])),
            "{text}"
        );
    }
    let error = RedisStore::connect("http://localhost").await.unwrap_err();
    assert!(error.to_string().contains("redis://"), "{error}");
}

/// What Redis holds at `key`, read with a raw `GET` (past the store, which would check the
/// task's lease itself).
async fn raw_get(url: &str, key: &str) -> String {
    let mut stream = tokio::net::TcpStream::connect(&url["redis://".len()..]).await.unwrap();
    let command = format!("*2\r\n$3\r\nGET\r\n${}\r\n{key}\r\n", key.len());
    stream.write_all(command.as_bytes()).await.unwrap();
    let mut reply = Vec::new();
    let mut buffer = vec![0u8; 65536];
    loop {
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buffer))
            .await
            .unwrap()
            .unwrap();
        reply.extend_from_slice(&buffer[..n]);
        let text = String::from_utf8_lossy(&reply).into_owned();
        if let Some((head, rest)) = text.split_once("\r\n") {
            let len: i64 = head[1..].parse().unwrap();
            if len < 0 {
                return String::new();
            }
            if rest.len() >= usize::try_from(len).unwrap() + 2 {
                return rest[..usize::try_from(len).unwrap()].to_owned();
            }
        }
        assert!(n > 0, "Redis closed: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_survivors_sweeper_fails_a_dead_replicas_task_that_nobody_reads() {
    let Some(redis) = redis() else { return };
    let mut a = replica(&redis.url, "gone").await;
    let _b = replica(&redis.url, "sweeper").await;
    let sent = rpc(
        a.addr,
        "SendMessage",
        json!({"message": message("wait", None), "configuration": {"returnImmediately": true}}),
    )
    .await;
    let id = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    let key = format!("carnet:a2a:task:{id}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !raw_get(&redis.url, &key).await.contains("TASK_STATE_WORKING") {
        assert!(Instant::now() < deadline, "the task never worked");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    a.kill();
    // The lease (2 s) lapses, then b's sweeper (every 5 s) fails the task in Redis itself.
    let deadline = Instant::now() + Duration::from_secs(12);
    loop {
        let stored = raw_get(&redis.url, &key).await;
        if stored.contains("TASK_STATE_FAILED") {
            assert!(stored.contains("replica `gone`"), "{stored}");
            break;
        }
        assert!(Instant::now() < deadline, "not swept: {stored}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_that_stops_answering_mid_run_is_an_internal_error_in_bounded_time() {
    let Some(redis) = redis() else { return };
    let fired = Arc::new(AtomicBool::new(false));
    let store = RedisStore::connect(&redis.url)
        .await
        .unwrap()
        .timeout(Duration::from_millis(1_500));
    let server = Server::new(&carnet(&fired), "helper", |context| Ok::<_, ModelError>(model(context)))
        .unwrap()
        .store(store);
    let http_server = server.bind("127.0.0.1:0").await.unwrap();
    let addr = http_server.local_addr().unwrap();
    tokio::spawn(http_server.run());
    let sent = rpc(addr, "SendMessage", json!({"message": message("hi", None)})).await;
    let id = sent["result"]["task"]["id"].as_str().unwrap().to_owned();

    // Every client of Redis paused for 6 s: it accepts commands and answers none.
    let mut admin = tokio::net::TcpStream::connect(&redis.url["redis://".len()..])
        .await
        .unwrap();
    admin
        .write_all(b"*3\r\n$6\r\nCLIENT\r\n$5\r\nPAUSE\r\n$4\r\n6000\r\n")
        .await
        .unwrap();
    let mut ok = [0u8; 5];
    admin.read_exact(&mut ok).await.unwrap();
    assert_eq!(&ok, b"+OK\r\n");

    let started = Instant::now();
    let got = rpc(addr, "GetTask", json!({"id": id})).await;
    assert!(started.elapsed() < Duration::from_secs(4), "{:?}", started.elapsed());
    assert_eq!(got["error"]["code"], -32603, "{got}");
    let text = got["error"]["message"].as_str().unwrap();
    assert!(
        text.contains("Redis at 127.0.0.1:") && text.contains("no answer within 1500 ms"),
        "{text}"
    );
}
