//! Remote toolsets against `tests/remote/standin.py`, an MCP server that misbehaves on
//! purpose (hangs, crashes mid-call, garbage on stdout, a 50 MB tool list, a schema 10,000
//! levels deep, a `list_changed` that changes schemas, a slow start). The real servers are
//! tested through `carnet serve-mcp` by `tests/remote/gateway.py`.

use std::time::{Duration, Instant};

use carnet_runtime::remote::{Pin, Server};
use carnet_runtime::{Carnet, DriftPolicy, Manifest, RemoteOptions, ToolOutput};
use serde_json::{Value, json};

mod common;

/// The stand-in's server description in `mode`, with `env`.
fn server(mode: &str, env: &Value) -> Value {
    let mut server = common::standin(mode);
    server["env"] = env.clone();
    server
}

/// What `carnet mcp pin` records of the well-behaved stand-in.
async fn pinned() -> Pin {
    let server = Server::from_json(&server("ok", &json!({}))).unwrap();
    Pin::fetch(&server, Duration::from_secs(20), 1 << 20)
        .await
        .expect("the stand-in pins")
}

/// A manifest with agent `a`, skill `s` bringing remote toolset `t` served by `server`, and
/// skill `idle` bringing remote toolset `never` (a server that must never start).
fn manifest(pin: &Pin, server: &Value) -> Manifest {
    let tools = common::remote_tools(pin);
    let mcp =
        json!({"server": server, "pin": {"serverInfo": pin.json()["serverInfo"], "digest": pin.json()["digest"]}});
    let never = json!({"server": {"command": "/nonexistent/never-started"}});
    Manifest::from_json(
        &json!({
            "agents": {"a": {"name": "a", "description": "A", "skills": ["s", "idle"], "prompt": ""}},
            "skills": {
                "s": {"name": "s", "description": "S", "toolsets": ["t"], "content": ""},
                "idle": {"name": "idle", "description": "I", "toolsets": ["never"], "content": ""}
            },
            "toolsets": {
                "t": {"name": "t", "description": "T", "content": "", "toolDefinitions": tools, "mcp": mcp},
                "never": {"name": "never", "description": "N", "content": "",
                          "toolDefinitions": [{"name": "nothing", "description": "Nothing",
                                               "remote": {"inputSchema": {"type": "object"}}}],
                          "mcp": never}
            }
        })
        .to_string(),
    )
    .unwrap()
}

fn options() -> RemoteOptions {
    RemoteOptions::default()
        .connect_timeout(Duration::from_secs(15))
        .call_timeout(Duration::from_secs(5))
        .restart_backoff(Duration::from_millis(50), Duration::from_millis(200))
}

async fn engine(mode: &str, env: Value, options: RemoteOptions) -> Carnet {
    let pin = pinned().await;
    Carnet::builder(&manifest(&pin, &server(mode, &env)))
        .remote_options(options)
        .build()
        .unwrap()
}

async fn loaded(carnet: &Carnet) -> carnet_runtime::Session {
    let mut session = carnet.session("a").unwrap();
    let out = session.call("loadSkill", json!({"skillName": "s"})).await;
    assert!(!out.is_error, "{out:?}");
    session
}

fn code(output: &ToolOutput) -> &str {
    output.value["code"].as_str().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_reach_the_server_only_after_a_load() {
    let carnet = engine("ok", json!({}), options()).await;
    assert_eq!(carnet.remote_started("t"), Some(false));
    let mut session = carnet.session("a").unwrap();
    let refused = session.call("echo", json!({"text": "hi"})).await;
    assert!(refused.is_error, "not loaded yet: {refused:?}");
    assert_eq!(carnet.remote_started("t"), Some(false), "a refused call starts nothing");

    let mut session = loaded(&carnet).await;
    let out = session.call("echo", json!({"text": "hi"})).await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(out.value, json!({"text": "hi"}), "structured content");
    assert_eq!(
        out.content.as_ref().unwrap()[0]["text"],
        "hi",
        "content blocks as the server sent them"
    );
    let sum = session.call("add", json!({"a": 2, "b": 3})).await;
    assert_eq!(sum.value, json!("5"));
    let failed = session.call("fail", json!({})).await;
    assert!(failed.is_error);
    assert_eq!(failed.error_message(), Some("it failed on purpose"));
    let invalid = session.call("add", json!({"a": "two"})).await;
    assert!(invalid.is_error, "checked against the pinned schema: {invalid:?}");
    assert_eq!(carnet.remote_started("never"), Some(false), "no loaded skill needs it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_mid_call_is_an_error_result_then_the_server_restarts() {
    let state = std::env::temp_dir().join(format!("carnet-standin-crash-{}", std::process::id()));
    let _ = std::fs::remove_file(&state);
    let carnet = engine(
        "crash-call",
        json!({"STANDIN_STATE": state.display().to_string()}),
        options(),
    )
    .await;
    let mut session = loaded(&carnet).await;
    let crashed = session.call("echo", json!({"text": "hi"})).await;
    assert!(crashed.is_error, "{crashed:?}");
    assert_eq!(code(&crashed), "upstream_crashed", "{crashed:?}");
    assert!(crashed.error_message().unwrap().contains("toolset `t`"));
    let again = session.call("echo", json!({"text": "again"})).await;
    assert_eq!(again.value, json!({"text": "again"}), "restarted: {again:?}");
    let _ = std::fs::remove_file(&state);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_keeps_crashing_is_restarted_with_backoff() {
    // No state file: every call of `echo` crashes the server.
    let carnet = engine(
        "crash-call",
        json!({}),
        options().restart_backoff(Duration::from_secs(30), Duration::from_secs(30)),
    )
    .await;
    let mut session = loaded(&carnet).await;
    let first = session.call("echo", json!({"text": "hi"})).await;
    assert_eq!(code(&first), "upstream_crashed", "{first:?}");
    // One crash: started again at once, and it crashes again.
    let second = session.call("echo", json!({"text": "hi"})).await;
    assert_eq!(code(&second), "upstream_crashed", "{second:?}");
    // Two in a row with no success between them: the backoff holds.
    let third = session.call("add", json!({"a": 1, "b": 1})).await;
    assert_eq!(code(&third), "upstream_unavailable", "{third:?}");
    assert!(third.error_message().unwrap().contains("tries again"), "{third:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_name_the_server_as_written_not_its_resolved_values() {
    let pin = pinned().await;
    let server = json!({"command": "${CARNET_TEST_SURELY_UNSET_VAR:-/resolved-value}/no-such-server"});
    let carnet = Carnet::builder(&manifest(&pin, &server))
        .remote_options(options())
        .build()
        .unwrap();
    let mut session = loaded(&carnet).await;
    let out = session.call("echo", json!({"text": "hi"})).await;
    let message = out.error_message().unwrap();
    assert_eq!(code(&out), "upstream_unavailable", "{out:?}");
    assert!(
        message.contains("`${CARNET_TEST_SURELY_UNSET_VAR:-/resolved-value}/no-such-server`"),
        "{message}"
    );
}

#[test]
fn a_call_outside_a_tokio_runtime_is_an_error_result() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let pin = runtime.block_on(pinned());
    drop(runtime);
    let carnet = Carnet::builder(&manifest(&pin, &server("ok", &json!({}))))
        .build()
        .unwrap();
    let mut session = carnet.session("a").unwrap();
    carnet_runtime::block_on(session.call("loadSkill", json!({"skillName": "s"})));
    let out = carnet_runtime::block_on(session.call("echo", json!({"text": "hi"})));
    assert_eq!(code(&out), "upstream_unavailable", "{out:?}");
    assert!(out.error_message().unwrap().contains("tokio runtime"), "{out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_call_times_out_and_the_server_restarts() {
    let carnet = engine("hang-call", json!({}), options().call_timeout(Duration::from_secs(1))).await;
    let mut session = loaded(&carnet).await;
    let start = Instant::now();
    let hung = session.call("echo", json!({"text": "hi"})).await;
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(code(&hung), "upstream_timeout", "{hung:?}");
    let sum = session.call("add", json!({"a": 1, "b": 1})).await;
    assert_eq!(sum.value, json!("2"), "a new server answers: {sum:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_on_stdout_never_takes_the_session_down() {
    let carnet = engine("garbage", json!({}), options()).await;
    let mut session = loaded(&carnet).await;
    for _ in 0..3 {
        let out = session.call("add", json!({"a": 1, "b": 2})).await;
        // Either the transport skips what is not JSON-RPC and answers, or the result is an
        // error naming the toolset: never a panic, never a hang.
        assert!(
            out.value == json!("3") || code(&out).starts_with("upstream_"),
            "{out:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_50_mb_tool_list_is_refused_within_bounds() {
    let carnet = engine("huge-list", json!({}), options().max_message_bytes(1 << 20)).await;
    let mut session = loaded(&carnet).await;
    let start = Instant::now();
    let out = session.call("echo", json!({"text": "hi"})).await;
    assert!(out.is_error, "{out:?}");
    assert_eq!(code(&out), "upstream_unavailable", "{out:?}");
    assert!(start.elapsed() < Duration::from_secs(15));
    let soon = session.call("echo", json!({"text": "hi"})).await;
    assert!(
        soon.error_message().unwrap().contains("tries again"),
        "backoff: {soon:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_10000_levels_deep_does_not_overflow() {
    let carnet = engine("deep-schema", json!({}), options()).await;
    let mut session = loaded(&carnet).await;
    let out = session.call("add", json!({"a": 20, "b": 22})).await;
    // serde_json stops at 128 levels: the list cannot be read, and that is an error result.
    assert!(
        out.value == json!("42") || code(&out) == "upstream_unavailable",
        "{out:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_start_is_cut_off() {
    let carnet = engine(
        "slow-start",
        json!({"STANDIN_DELAY": "30"}),
        options().connect_timeout(Duration::from_secs(1)),
    )
    .await;
    let mut session = loaded(&carnet).await;
    let start = Instant::now();
    let out = session.call("echo", json!({"text": "hi"})).await;
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(code(&out), "upstream_unavailable", "{out:?}");
    assert!(
        out.error_message().unwrap().contains("did not finish starting"),
        "{out:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drift_from_the_pin_is_refused_unless_accepted() {
    for policy in [DriftPolicy::Refuse, DriftPolicy::Accept] {
        let carnet = engine("drift", json!({}), options().drift(policy)).await;
        let mut session = loaded(&carnet).await;
        let first = session.call("echo", json!({"text": "hi"})).await;
        assert_eq!(first.value, json!({"text": "hi"}), "{first:?}");
        // The server changed `echo`'s schema, removed `add` and sent `list_changed`. A call
        // that overtakes the notification reaches the server, which refuses it itself
        // (`upstream_error`); once it has arrived, carnet refuses (or, accepting, calls).
        let wanted = if policy == DriftPolicy::Refuse {
            "upstream_drift"
        } else {
            "upstream_error"
        };
        let mut refused = None;
        for _ in 0..50 {
            let out = session.call("add", json!({"a": 1, "b": 1})).await;
            if code(&out) == wanted {
                refused = Some(out);
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let refused = refused.expect("`add` vanished upstream");
        if policy == DriftPolicy::Refuse {
            assert_eq!(code(&refused), "upstream_drift", "{refused:?}");
            assert!(refused.error_message().unwrap().contains("carnet mcp pin t"));
            let echo = session.call("echo", json!({"text": "hi"})).await;
            assert_eq!(code(&echo), "upstream_drift", "its schema changed: {echo:?}");
        } else {
            // Called anyway: the server itself says it has no `add`.
            assert_eq!(code(&refused), "upstream_error", "{refused:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_variable_is_named_and_its_value_never_shown() {
    let pin = pinned().await;
    let server = json!({"command": common::python(), "args": [common::script(), "${CARNET_TEST_SURELY_UNSET_VAR}"],
                        "env": {"TOKEN": "literal-secret"}});
    let carnet = Carnet::builder(&manifest(&pin, &server))
        .remote_options(options())
        .build()
        .unwrap();
    let mut session = loaded(&carnet).await;
    let out = session.call("echo", json!({"text": "hi"})).await;
    let message = out.error_message().unwrap();
    assert!(message.contains("CARNET_TEST_SURELY_UNSET_VAR"), "{message}");
    assert!(!out.value.to_string().contains("literal-secret"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pins_are_deterministic_and_diff_readably() {
    let first = pinned().await;
    let second = pinned().await;
    assert_eq!(first.to_file(), second.to_file(), "same server, same bytes");
    assert_eq!(first.tool_names(), ["add", "echo", "fail"], "sorted by name");
    let mut edited = first.json().clone();
    edited["tools"][1]["description"] = json!("Edited by hand");
    let edited = Pin::parse(&serde_json::to_string(&edited).unwrap()).unwrap();
    let diff = edited.diff(&first);
    assert!(diff.contains("tool `echo`: description changed"), "{diff}");
    let paged = Pin::fetch(
        &Server::from_json(&server("paged", &json!({}))).unwrap(),
        Duration::from_secs(20),
        1 << 20,
    )
    .await
    .unwrap();
    assert_eq!(paged.tool_names(), first.tool_names(), "every page");
}

#[test]
fn without_a_runtime_reachable_remote_tools_are_still_listed_with_pinned_schemas() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let pin = runtime.block_on(pinned());
    let carnet = Carnet::builder(&manifest(&pin, &server("ok", &json!({}))))
        .build()
        .unwrap();
    let specs: Vec<_> = carnet.domain_tools_named("echo").collect();
    assert_eq!(specs[0].input_schema["required"], json!(["text"]));
    assert_eq!(carnet.remote_started("t"), Some(false));
}

/// Refuses every call it wraps.
struct Deny;

impl carnet_runtime::Hook for Deny {
    fn before(&self, _: &carnet_runtime::CallInfo<'_>) -> carnet_runtime::Before {
        carnet_runtime::Before::Deny("not on this desk".into())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_wrap_remote_tools_by_name_and_by_toolset() {
    let pin = pinned().await;
    let manifest = manifest(&pin, &server("ok", &json!({})));
    let by_name = Carnet::builder(&manifest)
        .remote_options(options())
        .tool_hook("add", Deny)
        .build()
        .unwrap();
    let mut session = loaded(&by_name).await;
    assert_eq!(
        session.call("add", json!({"a": 1, "b": 1})).await.error_message(),
        Some("not on this desk")
    );
    assert_eq!(
        session.call("echo", json!({"text": "hi"})).await.value,
        json!({"text": "hi"})
    );
    assert!(
        Carnet::builder(&manifest).tool_hook("ad", Deny).build().is_err(),
        "a hook for a remote tool that does not exist"
    );
    let by_toolset = Carnet::builder(&manifest)
        .remote_options(options())
        .toolset_hook("t", Deny)
        .build()
        .unwrap();
    let mut session = loaded(&by_toolset).await;
    assert!(session.call("echo", json!({"text": "hi"})).await.is_error);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_exposure_mode_refuses_then_calls_remote_tools() {
    use carnet_runtime::ExposureMode;
    let pin = pinned().await;
    let manifest = manifest(&pin, &server("ok", &json!({})));
    for mode in [
        ExposureMode::Dynamic,
        ExposureMode::Dispatcher,
        ExposureMode::Deferred,
        ExposureMode::AllowedTools,
    ] {
        let carnet = Carnet::builder(&manifest)
            .remote_options(options())
            .mode(mode)
            .build()
            .unwrap();
        let mut session = carnet.session("a").unwrap();
        let dispatcher = mode == ExposureMode::Dispatcher;
        let refused = echo(&mut session, dispatcher).await;
        assert!(refused.is_error, "{mode:?}: not loaded yet: {refused:?}");
        session.call("loadSkill", json!({"skillName": "s"})).await;
        let called = echo(&mut session, dispatcher).await;
        assert_eq!(called.value, json!({"text": "hi"}), "{mode:?}: {called:?}");
    }
}

/// `echo {text: "hi"}`, directly or through `callTool`.
async fn echo(session: &mut carnet_runtime::Session, dispatcher: bool) -> ToolOutput {
    if dispatcher {
        let arguments = json!({"name": "echo", "arguments": {"text": "hi"}});
        session.call("callTool", arguments).await
    } else {
        session.call("echo", json!({"text": "hi"})).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn execute_tool_spans_name_the_upstream_server() {
    use tracing_subscriber::layer::SubscriberExt as _;

    let spans = common::Spans::default();
    let subscriber = tracing_subscriber::Registry::default().with(spans.clone());
    let carnet = engine("ok", json!({}), options()).await;
    let mut session = loaded(&carnet).await;
    let _guard = tracing::subscriber::set_default(subscriber);
    let out = session.call("echo", json!({"text": "hi"})).await;
    assert!(!out.is_error, "{out:?}");
    let servers: Vec<String> = spans
        .said()
        .into_iter()
        .filter(|said| said.starts_with("carnet.mcp.server="))
        .collect();
    assert_eq!(servers, ["carnet.mcp.server=standin"]);
}
