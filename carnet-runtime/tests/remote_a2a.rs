//! Remote A2A agents as toolsets, against `tests/a2a/delegate_standin.py`: an A2A agent that
//! misbehaves on purpose (hangs, drops its stream, answers garbage, changes its card, floods
//! events). The real agent (a2a-sdk 1.3.0's server) is delegated to by `tests/a2a/delegate.sh`.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use carnet_runtime::remote::a2a::pin_card;
use carnet_runtime::{Carnet, Manifest, RemoteOptions, ToolOutput};
use serde_json::{Value, json};

/// The stand-in, started once for every test of this binary (it serves every mode).
struct Standin {
    url: String,
    _child: Child,
}

fn standin() -> &'static str {
    static STANDIN: OnceLock<Standin> = OnceLock::new();
    &STANDIN
        .get_or_init(|| {
            let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/a2a/delegate_standin.py");
            let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
            let mut child = Command::new(python)
                .arg(script)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("python3 starts the stand-in");
            let mut line = String::new();
            BufReader::new(child.stdout.take().unwrap())
                .read_line(&mut line)
                .expect("the stand-in prints its URL");
            Standin {
                url: line.trim().to_owned(),
                _child: child,
            }
        })
        .url
}

/// A manifest whose agent `a` has skill `s`, bringing toolset `t`: the agent at `mode` of
/// the stand-in, pinned with its one skill `echo`.
fn manifest(mode: &str) -> Manifest {
    manifest_at(&json!({"url": format!("{}/{mode}", standin())}), mode)
}

/// A card of one skill `echo`, as `carnet a2a pin` would pin it.
fn echo_card() -> Value {
    json!({
        "name": "n", "version": "1", "description": "d",
        "supportedInterfaces": [{"url": "http://h/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {}, "skills": [{"id": "echo", "name": "Echo", "description": "E", "tags": []}]
    })
}

/// The manifest of [`manifest`] with the agent reached as `server` says (`url`, `headers`).
fn manifest_at(server: &Value, mode: &str) -> Manifest {
    let pinned = pin_card(&echo_card()).unwrap();
    let tool = &pinned.json()["tools"][0];
    let remote = json!({"inputSchema": tool["inputSchema"], "a2a": tool["a2a"]});
    let mcp = json!({"server": server, "pin": {"serverInfo": {"name": format!("standin-{mode}"), "version": "1.0.0"}}, "protocol": "a2a"});
    Manifest::from_json(
        &json!({
            "agents": {"a": {"name": "a", "description": "A", "skills": ["s"], "prompt": ""}},
            "skills": {"s": {"name": "s", "description": "S", "toolsets": ["t"], "content": ""}},
            "toolsets": {"t": {"name": "t", "description": "T", "content": "", "mcp": mcp,
                "toolDefinitions": [{"name": "echo", "description": "Echoes", "remote": remote}]}}
        })
        .to_string(),
    )
    .unwrap()
}

fn options() -> RemoteOptions {
    RemoteOptions::default()
        .connect_timeout(Duration::from_secs(5))
        .call_timeout(Duration::from_secs(3))
}

async fn loaded(mode: &str) -> (Carnet, carnet_runtime::Session) {
    let carnet = Carnet::builder(&manifest(mode))
        .remote_options(options())
        .build()
        .unwrap();
    let mut session = carnet.session("a").unwrap();
    let out = session.call("loadSkill", json!({"skillName": "s"})).await;
    assert!(!out.is_error, "{out:?}");
    (carnet, session)
}

fn code(output: &ToolOutput) -> &str {
    output.value["code"].as_str().unwrap_or_default()
}

async fn ask(session: &mut carnet_runtime::Session, text: &str) -> ToolOutput {
    session.call("echo", json!({"message": text})).await
}

/// How many requests the stand-in's `mode` received.
async fn requests(mode: &str) -> u64 {
    let body = reqwest_free_get(&format!("{}/counter/requests", standin())).await;
    serde_json::from_str::<Value>(&body).unwrap()["requests"][mode]
        .as_u64()
        .unwrap_or(0)
}

/// A GET without an HTTP client crate: the stand-in speaks HTTP/1.1 with a length.
async fn reqwest_free_get(url: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_once('/').unwrap();
    let mut stream = tokio::net::TcpStream::connect(host).await.unwrap();
    let request = format!("GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    response.split_once("\r\n\r\n").unwrap().1.to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delegation_keeps_its_context_and_starts_only_after_a_load() {
    let carnet = Carnet::builder(&manifest("lazy"))
        .remote_options(options())
        .build()
        .unwrap();
    let mut session = carnet.session("a").unwrap();
    let refused = ask(&mut session, "hi").await;
    assert!(refused.is_error, "not loaded yet: {refused:?}");
    assert_eq!(carnet.remote_started("t"), Some(false));
    assert_eq!(requests("lazy").await, 0, "nothing reached the agent");

    session.call("loadSkill", json!({"skillName": "s"})).await;
    let first = ask(&mut session, "hello").await;
    assert!(requests("lazy").await >= 2, "the card, then the message");
    assert!(!first.is_error, "{first:?}");
    let text = first.value.as_str().unwrap();
    assert!(text.starts_with("#1 in ") && text.ends_with(": hello"), "{text}");
    let context = text.trim_start_matches("#1 in ").trim_end_matches(": hello").to_owned();
    let second = ask(&mut session, "again").await;
    assert_eq!(
        second.value,
        json!(format!("#2 in {context}: again")),
        "same A2A context"
    );

    let mut other = carnet.session("a").unwrap();
    other.call("loadSkill", json!({"skillName": "s"})).await;
    let theirs = ask(&mut other, "hello").await;
    assert!(
        theirs.value.as_str().unwrap().starts_with("#1 in "),
        "another session, another context: {theirs:?}"
    );
    assert!(!theirs.value.as_str().unwrap().contains(&context));

    // Sessions come and go (one per request in a server): a new one never continues a
    // dropped one's remote conversation, wherever the allocator puts it.
    drop((session, other));
    for n in 0..16 {
        let mut next = carnet.session("a").unwrap();
        next.call("loadSkill", json!({"skillName": "s"})).await;
        let answer = ask(&mut next, "hello").await;
        assert!(
            answer.value.as_str().unwrap().starts_with("#1 in "),
            "session {n} after a drop, a context of its own: {answer:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_and_polls_follow_the_task_to_its_end() {
    let (_carnet, mut session) = loaded("stream").await;
    let out = ask(&mut session, "streamed").await;
    assert!(
        out.value.as_str().unwrap().ends_with(": streamed"),
        "two chunks joined: {out:?}"
    );

    let (_carnet, mut session) = loaded("poll").await;
    let out = ask(&mut session, "polled").await;
    assert!(out.value.as_str().unwrap().ends_with(": polled"), "{out:?}");

    let (_carnet, mut session) = loaded("drop").await;
    let out = ask(&mut session, "dropped").await;
    assert!(
        out.value.as_str().unwrap().ends_with(": dropped"),
        "polled after the stream ended: {out:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_hangs_is_an_error_result_after_the_timeout() {
    let (_carnet, mut session) = loaded("hang").await;
    let started = Instant::now();
    let out = ask(&mut session, "hello").await;
    let took = started.elapsed();
    assert!(out.is_error, "{out:?}");
    assert_eq!(code(&out), "upstream_timeout", "{out:?}");
    assert!(
        took >= Duration::from_secs(3) && took < Duration::from_secs(8),
        "{took:?}"
    );
    let message = out.error_message().unwrap();
    assert!(message.contains("A2A agent `standin-hang` of toolset `t`"), "{message}");

    // A task that stalls once named: the error names it, and it is canceled at the agent.
    let (_carnet, mut session) = loaded("stall").await;
    let out = ask(&mut session, "hello").await;
    assert_eq!(code(&out), "upstream_timeout", "{out:?}");
    let message = out.error_message().unwrap();
    let task = message.split('`').rev().nth(1).unwrap().to_owned();
    assert!(message.ends_with(&format!("(task `{task}`, canceled)")), "{message}");
    let mut canceled = false;
    for _ in 0..50 {
        let body = reqwest_free_get(&format!("{}/counter/requests", standin())).await;
        let counter: Value = serde_json::from_str(&body).unwrap();
        if counter["canceled"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| *t == task.as_str())
        {
            canceled = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(canceled, "CancelTask {task} reached the agent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_failures_and_floods_are_error_results_naming_the_agent() {
    for (mode, code_wanted, says) in [
        ("garbage", "upstream_error", "not A2A"),
        ("notjson", "upstream_error", "not JSON"),
        ("failed", "upstream_error", "ended the task failed: the disk is full"),
        ("changed", "upstream_drift", "no longer has skill `echo`"),
        ("flood", "upstream_error", "more than 10000 events"),
    ] {
        let (_carnet, mut session) = loaded(mode).await;
        let out = ask(&mut session, "hello").await;
        assert!(out.is_error, "{mode}: {out:?}");
        assert_eq!(code(&out), code_wanted, "{mode}: {out:?}");
        let message = out.error_message().unwrap();
        assert!(message.contains(&format!("`standin-{mode}`")), "{mode}: {message}");
        assert!(message.contains(says), "{mode}: {message}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_required_continues_the_same_task() {
    let (_carnet, mut session) = loaded("ask").await;
    let question = ask(&mut session, "the weather").await;
    assert!(!question.is_error, "{question:?}");
    assert!(
        question.value.as_str().unwrap().starts_with("Which city?"),
        "{question:?}"
    );
    let answer = ask(&mut session, "Paris").await;
    assert_eq!(
        answer.value,
        json!("thanks for Paris"),
        "the pending task named: {answer:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_agent_is_unavailable() {
    let manifest = manifest_at(&json!({"url": "http://127.0.0.1:9"}), "gone");
    let carnet = Carnet::builder(&manifest).remote_options(options()).build().unwrap();
    let mut session = carnet.session("a").unwrap();
    session.call("loadSkill", json!({"skillName": "s"})).await;
    let out = ask(&mut session, "hello").await;
    assert_eq!(code(&out), "upstream_unavailable", "{out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_are_sent_with_their_variables_read_on_first_contact() {
    let url = format!("{}/auth", standin());
    for (token, works) in [
        ("${CARNET_TEST_SURELY_UNSET_A2A_TOKEN:-secret}", true),
        ("wrong", false),
    ] {
        let server = json!({"url": url, "headers": {"Authorization": format!("Bearer {token}")}});
        let carnet = Carnet::builder(&manifest_at(&server, "auth"))
            .remote_options(options())
            .build()
            .unwrap();
        let mut session = carnet.session("a").unwrap();
        session.call("loadSkill", json!({"skillName": "s"})).await;
        let out = ask(&mut session, "hello").await;
        assert_eq!(!out.is_error, works, "{token}: {out:?}");
        if !works {
            assert_eq!(code(&out), "upstream_unavailable", "{out:?}");
            assert!(out.error_message().unwrap().contains("HTTP 401"), "{out:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn execute_tool_spans_carry_the_remote_task_id() {
    use std::sync::{Arc, Mutex};
    use tracing::field::{Field, Visit};
    use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

    #[derive(Clone, Default)]
    struct Fields(Arc<Mutex<Vec<(String, String)>>>);
    struct Find<'a>(&'a mut Vec<(String, String)>);
    impl Visit for Find<'_> {
        fn record_debug(&mut self, _: &Field, _: &dyn std::fmt::Debug) {}
        fn record_str(&mut self, field: &Field, value: &str) {
            if field.name().starts_with("carnet.a2a.") {
                self.0.push((field.name().to_owned(), value.to_owned()));
            }
        }
    }
    impl<S: tracing::Subscriber> Layer<S> for Fields {
        fn on_record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>, _: Context<'_, S>) {
            values.record(&mut Find(&mut self.0.lock().unwrap()));
        }
    }

    let fields = Fields::default();
    let subscriber = tracing_subscriber::Registry::default().with(fields.clone());
    let (_carnet, mut session) = loaded("stream").await;
    let _guard = tracing::subscriber::set_default(subscriber);
    let out = ask(&mut session, "traced").await;
    assert!(!out.is_error, "{out:?}");
    let recorded = fields.0.lock().unwrap().clone();
    assert_eq!(
        recorded[0],
        ("carnet.a2a.agent".to_owned(), "standin-stream".to_owned())
    );
    let task = &recorded[1];
    assert_eq!(task.0, "carnet.a2a.task_id");
    assert_eq!(task.1.len(), 36, "the stand-in's task id, a UUID: {recorded:?}");
}

#[test]
fn pins_are_deterministic_and_refuse_cards_that_are_not_a2a() {
    let card = echo_card();
    let pin = pin_card(&card).unwrap();
    assert_eq!(pin.to_file(), pin_card(&card).unwrap().to_file());
    assert_eq!(pin.tool_names(), ["echo"]);
    assert!(pin_card(&json!({"skills": "no"})).is_err());
}
