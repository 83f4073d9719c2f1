//! The A2A server's transport: a request of either binding (JSON-RPC at `/`, the HTTP+JSON
//! routes) made from the input, its method, path, headers (`A2A-Version`, `Content-Type`,
//! `Origin`, ...) and body, sent over a keep-alive HTTP/1.1 connection to an in-process
//! [`Server`] whose model is scripted. The server answers every request within a few
//! seconds, with a well-formed answer: a JSON body that parses, or an SSE stream whose every
//! `data:` line does.
//!
//! The input is text, as the seeds in `fuzz/seeds/a2a` show:
//!
//! ```text
//! POST /message:send
//! A2A-Version: 1.0
//! Content-Type: application/json
//!
//! {"message": {...}}
//! ```
//!
//! The first line is the method and path, then headers up to an empty line, then the body.
//! A request line or header that HTTP cannot carry is left out (hyper's parser is not what
//! is tested); `Content-Length`, `Transfer-Encoding`, `Connection` and `Host` are the
//! harness's.
#![no_main]

use std::net::SocketAddr;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use carnet_runtime::a2a::{Limits, Server};
use carnet_runtime::chat::{ChatModel, ChatResponse, Message, call};
use carnet_runtime::testing::Scripted;
use carnet_runtime::{Carnet, Manifest};
use http_body_util::{BodyExt as _, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;

const MANIFEST: &str = r#"{
  "agents": {"helper": {"name": "helper", "description": "Helps", "skills": ["math"], "prompt": "You help."}},
  "skills": {"math": {"name": "math", "description": "Arithmetic", "toolsets": ["ops"], "content": "Use `add`."}},
  "toolsets": {"ops": {"name": "ops", "description": "Operations", "content": "",
                       "tools": [{"name": "add", "description": "Adds two integers"}]}}
}"#;

/// How long one answer may take, its stream included: the scripted model answers at once,
/// so anything near this is a server that does not end an answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(5);

/// "hello" loads `math` and calls `add` (unimplemented: an error result), then answers;
/// "loop" lists skills until the step limit (input required); anything else is echoed.
fn model(_context: &str) -> Box<dyn ChatModel> {
    Box::new(Scripted::from_fn(|request| {
        let last_user = request.messages.iter().rev().find_map(|m| match m {
            Message::User(text) => Some(text.as_str()),
            _ => None,
        });
        let steps = request
            .messages
            .iter()
            .rev()
            .take_while(|m| !matches!(m, Message::User(_)))
            .filter(|m| matches!(m, Message::Assistant { .. }))
            .count();
        match (last_user.unwrap_or_default(), steps) {
            ("hello", 0) => ChatResponse::tool_calls(None, vec![call(1, "loadSkill", serde_json::json!({"skillName": "math"}))]),
            ("hello", 1) => ChatResponse::tool_calls(None, vec![call(2, "add", serde_json::json!({"a": 1, "b": 2}))]),
            ("loop", n) => ChatResponse::tool_calls(None, vec![call(10 + n, "listAvailableSkills", serde_json::json!({}))]),
            (text, _) => ChatResponse::answer(format!("you said: {text}")),
        }
    }))
}

struct Harness {
    runtime: tokio::runtime::Runtime,
    addr: SocketAddr,
    /// The keep-alive connection, made again when the server closed it.
    client: Mutex<Option<SendRequest<Full<Bytes>>>>,
}

fn harness() -> &'static Harness {
    static HARNESS: OnceLock<Harness> = OnceLock::new();
    HARNESS.get_or_init(|| {
        let manifest: &'static Manifest = Box::leak(Box::new(Manifest::from_json(MANIFEST).expect("the manifest parses")));
        let carnet = Carnet::builder(manifest).allow_unimplemented().build().expect("the carnet builds");
        // Small caps, so that a long run meets the full store and the conversation limit.
        let limits = Limits::default()
            .with_max_tasks(200)
            .with_max_contexts(50)
            .with_max_steps(3)
            .with_max_request_bytes(64 * 1024)
            .with_body_timeout(Duration::from_secs(2))
            .with_task_timeout(Duration::from_secs(2));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let addr = runtime.block_on(async {
            let server = Server::new(&carnet, "helper", |context| Ok(model(context)))
                .expect("the agent exists")
                .limits(limits);
            let http = server.bind("127.0.0.1:0").await.expect("a loopback port");
            let addr = http.local_addr().expect("its address");
            tokio::spawn(http.run());
            addr
        });
        Harness {
            runtime,
            addr,
            client: Mutex::new(None),
        }
    })
}

/// The request the input describes, or `None` when HTTP cannot carry it.
fn request(data: &[u8], addr: SocketAddr) -> Option<hyper::Request<Full<Bytes>>> {
    let (head, body) = match find(data, b"\n\n") {
        Some(at) => (&data[..at], &data[at + 2..]),
        None => (data, &[][..]),
    };
    let head = std::str::from_utf8(head).ok()?;
    let mut lines = head.split('\n');
    let first = lines.next().unwrap_or_default();
    let (method, path) = first.split_once(' ').unwrap_or(("POST", first));
    let method = hyper::Method::from_bytes(method.trim().as_bytes()).ok()?;
    let uri: hyper::Uri = format!("http://{addr}{}", path.trim()).parse().ok()?;
    let mut builder = hyper::Request::builder()
        .method(method)
        .uri(uri.path_and_query().map_or("/", |p| p.as_str()));
    for line in lines {
        let Some((name, value)) = line.split_once(':') else { continue };
        let name = name.trim().to_ascii_lowercase();
        if matches!(name.as_str(), "content-length" | "transfer-encoding" | "connection" | "host" | "te" | "upgrade") {
            continue;
        }
        let (Ok(name), Ok(value)) = (
            hyper::header::HeaderName::from_bytes(name.as_bytes()),
            hyper::header::HeaderValue::from_str(value.trim()),
        ) else {
            continue;
        };
        builder = builder.header(name, value);
    }
    builder = builder.header(hyper::header::HOST, addr.to_string());
    builder.body(Full::new(Bytes::copy_from_slice(body))).ok()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

async fn connect(addr: SocketAddr) -> SendRequest<Full<Bytes>> {
    let stream = tokio::net::TcpStream::connect(addr).await.expect("the server accepts");
    let _ = stream.set_nodelay(true);
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("an HTTP/1 connection");
    tokio::spawn(async move {
        let _ = connection.await;
    });
    sender
}

/// The answer is one a client can read: a JSON body, or SSE events of JSON.
fn check(content_type: &str, status: hyper::StatusCode, body: &[u8]) {
    if content_type.starts_with("text/event-stream") {
        let text = std::str::from_utf8(body).expect("an SSE stream is UTF-8");
        for line in text.lines() {
            if let Some(data) = line.strip_prefix("data: ") {
                serde_json::from_str::<serde_json::Value>(data)
                    .unwrap_or_else(|e| panic!("an SSE event that is not JSON ({e}): {data}"));
            }
        }
    } else if content_type.starts_with("application/json") && !body.is_empty() {
        serde_json::from_slice::<serde_json::Value>(body).unwrap_or_else(|e| {
            panic!("a {status} answer whose body is not JSON ({e}): {}", String::from_utf8_lossy(body))
        });
    }
    assert!(
        status != hyper::StatusCode::INTERNAL_SERVER_ERROR,
        "an internal error: {}",
        String::from_utf8_lossy(body)
    );
}

type Answer = (hyper::StatusCode, String, Bytes);

/// One request on `sender`, its whole answer read.
async fn exchange(sender: &mut SendRequest<Full<Bytes>>, request: hyper::Request<Full<Bytes>>) -> hyper::Result<Answer> {
    sender.ready().await?;
    let response = sender.send_request(request).await?;
    let status = response.status();
    let content_type = response
        .headers()
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let body = response.into_body().collect().await?.to_bytes();
    Ok((status, content_type, body))
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let harness = harness();
    let Some(request) = request(data, harness.addr) else {
        return;
    };
    let mut client = harness.client.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    harness.runtime.block_on(async {
        let mut sender = match client.take() {
            Some(sender) if !sender.is_closed() => sender,
            _ => connect(harness.addr).await,
        };
        let answer = async {
            match exchange(&mut sender, request).await {
                Ok(answer) => answer,
                // The server may close a kept-alive connection between two requests (after
                // an answer that said `Connection: close`): once more on a new one.
                Err(_) => {
                    sender = connect(harness.addr).await;
                    let again = self::request(data, harness.addr).expect("made once already");
                    exchange(&mut sender, again)
                        .await
                        .unwrap_or_else(|e| panic!("no answer on a new connection: {e}"))
                }
            }
        };
        let (status, content_type, body) = tokio::time::timeout(ANSWER_WITHIN, answer)
            .await
            .unwrap_or_else(|_| panic!("no whole answer within {} s", ANSWER_WITHIN.as_secs()));
        check(&content_type, status, &body);
        *client = Some(sender);
    });
});
