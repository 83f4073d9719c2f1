//! The typed handle to a remote toolset's connection (`Carnet::remote`): its faults against
//! `tests/remote/standin.py` (an MCP server that misbehaves on purpose), and its resources,
//! prompts and tool calls against the official `everything` server
//! (`@modelcontextprotocol/server-everything`, installed by `tests/remote/setup.sh`; the test
//! says so and skips when it is not there).
#![cfg(feature = "remote")]

use std::time::Duration;

use carnet_runtime::remote::handle::ResourceBody;
use carnet_runtime::remote::{Pin, Remote, RemoteError, Server};
use carnet_runtime::{Carnet, DriftPolicy, Manifest, RemoteOptions, ToolsetId};
use serde_json::{Value, json};

mod common;

use common::standin;

/// The engine of a manifest whose toolset `t` is served by `server` as `pinned` recorded it
/// (`pinned`: a server that behaves), beside `plain`, a toolset of Rust tools.
async fn engine(pinned: &Value, server: &Value, options: RemoteOptions) -> Carnet {
    let pin = Pin::fetch(&Server::from_json(pinned).unwrap(), Duration::from_secs(30), 1 << 24)
        .await
        .expect("the server pins");
    let tools = common::remote_tools(&pin);
    let mcp = json!({"server": server, "pin": {"serverInfo": pin.json()["serverInfo"]}});
    let manifest = Manifest::from_json(
        &json!({
            "agents": {},
            "skills": {},
            "toolsets": {
                "t": {"name": "t", "description": "T", "content": "", "toolDefinitions": tools, "mcp": mcp},
                "plain": {"name": "plain", "description": "P", "content": "",
                          "toolDefinitions": [{"name": "nothing", "description": "Nothing"}]}
            }
        })
        .to_string(),
    )
    .unwrap();
    Carnet::builder(&manifest)
        .allow_unimplemented()
        .remote_options(options)
        .build()
        .unwrap()
}

fn options() -> RemoteOptions {
    RemoteOptions::default()
        .connect_timeout(Duration::from_secs(15))
        .call_timeout(Duration::from_secs(5))
        .restart_backoff(Duration::from_millis(50), Duration::from_millis(200))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handle_starts_its_server_lazily_and_calls_pinned_tools_only() {
    let carnet = engine(&standin("ok"), &standin("ok"), options()).await;
    let t = carnet.remote(ToolsetId::__new("t")).expect("a typed id");
    assert_eq!(t.toolset(), "t");
    assert!(!t.started(), "a handle starts nothing");
    assert_eq!(carnet.remote_started("t"), Some(false));

    let echo = t.call_tool("echo", json!({"text": "hi"})).await.unwrap();
    assert_eq!(echo.value, json!({"text": "hi"}), "structured content");
    assert_eq!(echo.content.as_ref().unwrap()[0]["text"], "hi", "the server's blocks");
    assert!(
        t.started() && carnet.remote_started("t") == Some(true),
        "the engine's own connection"
    );
    let sum = t.call_tool("add", json!({"a": 2, "b": 3})).await.unwrap();
    assert_eq!(sum.value, json!("5"));
    let failed = t.call_tool("fail", json!({})).await.unwrap();
    assert!(failed.is_error, "a tool's failure is an output, as in MCP");
    assert_eq!(failed.error_message(), Some("it failed on purpose"));

    let unknown = t.call_tool("shutdown", json!({})).await.unwrap_err();
    assert_eq!(
        unknown,
        RemoteError::UnknownTool {
            toolset: "t".into(),
            tool: "shutdown".into()
        }
    );
    assert!(unknown.to_string().contains("carnet mcp pin t"), "{unknown}");
    // The stand-in serves tools only: its answer to the rest is its own error.
    let resources = t.list_resources().await.unwrap_err();
    assert!(
        matches!(resources, RemoteError::Upstream { code: Some(-32601), .. }),
        "{resources:?}"
    );
    assert_eq!(resources.code(), "upstream_error");
    for method in ["tools/call", "initialize", "resources/subscribe"] {
        let refused = t.request(method, json!({})).await.unwrap_err();
        assert!(
            matches!(refused, RemoteError::InvalidRequest { .. }),
            "{method}: {refused:?}"
        );
    }
    let numbers = t.request("ping", json!(7)).await.unwrap_err();
    assert!(matches!(numbers, RemoteError::InvalidRequest { .. }), "{numbers:?}");
    let custom = t.request("skills/list", json!({})).await.unwrap_err();
    assert!(
        matches!(custom, RemoteError::Upstream { code: Some(-32601), .. }),
        "an extension's method reaches the server: {custom:?}"
    );
    assert_eq!(t.request("ping", json!({})).await.unwrap(), json!({}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_remote_toolsets_have_a_handle() {
    let carnet = engine(&standin("ok"), &standin("ok"), options()).await;
    for name in ["plain", "missing"] {
        let error = carnet.remote(name).unwrap_err();
        assert_eq!(error, RemoteError::NotRemote { toolset: name.into() });
        assert_eq!(
            error.to_string(),
            format!("`{name}` is not a remote toolset of this engine")
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_cannot_start_is_unavailable() {
    let carnet = engine(
        &standin("ok"),
        &json!({"command": "/nonexistent/mcp-server"}),
        options(),
    )
    .await;
    let t = carnet.remote("t").unwrap();
    let error = t.call_tool("echo", json!({"text": "hi"})).await.unwrap_err();
    assert!(matches!(error, RemoteError::Unavailable { .. }), "{error:?}");
    assert_eq!(error.toolset(), "t");
    assert!(error.to_string().contains("`/nonexistent/mcp-server`"), "{error}");
    // Within the backoff the next request is refused at once, saying when it retries.
    let again = t.read_resource("file:///x").await.unwrap_err();
    assert!(matches!(again, RemoteError::Unavailable { .. }), "{again:?}");
    assert!(again.to_string().contains("tries again in"), "{again}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_call_times_out_and_a_crash_is_named() {
    let quick = options().call_timeout(Duration::from_millis(800));
    let carnet = engine(&standin("ok"), &standin("hang-call"), quick).await;
    let t = carnet.remote("t").unwrap();
    let hung = t.call_tool("echo", json!({"text": "hi"})).await.unwrap_err();
    assert!(matches!(hung, RemoteError::Timeout { .. }), "{hung:?}");
    assert!(hung.to_string().contains("800 ms"), "{hung}");
    // Restarted on the next call, which the stand-in answers.
    let sum = t.call_tool("add", json!({"a": 1, "b": 2})).await.unwrap();
    assert_eq!(sum.value, json!("3"));

    let carnet = engine(&standin("ok"), &standin("crash-call"), options()).await;
    let crashed = carnet
        .remote("t")
        .unwrap()
        .call_tool("echo", json!({"text": "hi"}))
        .await
        .unwrap_err();
    assert!(matches!(crashed, RemoteError::Crashed { .. }), "{crashed:?}");
    assert_eq!(crashed.code(), "upstream_crashed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drift_from_the_pin_is_refused_unless_accepted() {
    for policy in [DriftPolicy::Refuse, DriftPolicy::Accept] {
        let carnet = engine(&standin("ok"), &standin("drift"), options().drift(policy)).await;
        let t = carnet.remote("t").unwrap();
        assert_eq!(
            t.call_tool("echo", json!({"text": "hi"})).await.unwrap().value,
            json!({"text": "hi"})
        );
        // `echo` gained a required argument and `add` vanished, then `list_changed`: once it
        // has arrived, carnet refuses (or, accepting, calls and the server refuses).
        let mut outcome = None;
        for _ in 0..50 {
            // A call that overtakes the notification reaches the server, which refuses it.
            match (policy, t.call_tool("add", json!({"a": 1, "b": 1})).await) {
                (DriftPolicy::Refuse, Err(error @ RemoteError::Drift { .. }))
                | (DriftPolicy::Accept, Err(error @ RemoteError::Upstream { .. })) => {
                    outcome = Some(error);
                    break;
                }
                _ => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
        let error = outcome.expect("`add` vanished upstream");
        if policy == DriftPolicy::Refuse {
            assert!(matches!(error, RemoteError::Drift { .. }), "{error:?}");
            assert!(error.to_string().contains("carnet mcp pin t"), "{error}");
            let echo = t.call_tool("echo", json!({"text": "hi"})).await.unwrap_err();
            assert_eq!(echo.code(), "upstream_drift", "its schema changed: {echo:?}");
        } else {
            // Called anyway: the server itself says it has no `add`.
            assert!(matches!(error, RemoteError::Upstream { code: None, .. }), "{error:?}");
        }
    }
}

#[test]
fn outside_a_tokio_runtime_a_request_is_unavailable() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let carnet = runtime.block_on(engine(&standin("ok"), &standin("ok"), options()));
    let t = carnet.remote("t").unwrap();
    let error = carnet_runtime::block_on(t.list_prompts()).unwrap_err();
    assert!(matches!(error, RemoteError::Unavailable { .. }), "{error:?}");
    assert!(error.to_string().contains("tokio runtime"), "{error}");
    assert!(!t.started(), "nothing started");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_server_s_resources_prompts_and_tools_through_a_handle() {
    let Some(server) = common::everything() else { return };
    let carnet = engine(&server, &server, options().call_timeout(Duration::from_secs(20))).await;
    let t = carnet.remote("t").unwrap();

    let resources = t.list_resources().await.unwrap();
    let doc = resources
        .iter()
        .find(|r| r.uri.ends_with("/architecture.md"))
        .unwrap_or_else(|| panic!("{resources:?}"));
    assert_eq!(doc.mime_type.as_deref(), Some("text/markdown"));
    let read = t.read_resource(&doc.uri).await.unwrap();
    assert_eq!(read.len(), 1, "{read:?}");
    assert!(read[0].text().is_some_and(|text| !text.trim().is_empty()), "{read:?}");

    let templates = t.list_resource_templates().await.unwrap();
    let blob = templates
        .iter()
        .find(|r| r.uri_template.contains("/blob/"))
        .unwrap_or_else(|| panic!("{templates:?}"));
    let uri = blob.uri_template.replace("{resourceId}", "7");
    let read = t.read_resource(&uri).await.unwrap();
    let ResourceBody::Blob(bytes) = &read[0].body else {
        panic!("a blob: {read:?}")
    };
    assert!(!bytes.is_empty() && read[0].text().is_none(), "decoded from base64");

    let missing = t.read_resource("demo://no/such/resource").await.unwrap_err();
    assert!(matches!(missing, RemoteError::Upstream { .. }), "{missing:?}");

    let prompts = t.list_prompts().await.unwrap();
    let args = prompts
        .iter()
        .find(|p| p.name == "args-prompt")
        .unwrap_or_else(|| panic!("{prompts:?}"));
    assert!(
        args.arguments.iter().any(|a| a.name == "city" && a.required),
        "{args:?}"
    );
    let prompt = t.get_prompt("args-prompt", json!({"city": "Lyon"})).await.unwrap();
    assert!(
        prompt
            .messages
            .iter()
            .any(|m| m.text().is_some_and(|text| text.contains("Lyon"))),
        "{prompt:?}"
    );

    let echo = t.call_tool("echo", json!({"message": "from a handle"})).await.unwrap();
    assert!(!echo.is_error, "{echo:?}");
    assert!(echo.to_text().contains("from a handle"), "{echo:?}");
}

#[cfg(feature = "remote-a2a")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_a2a_agent_s_toolset_has_a_handle_that_refuses_every_request() {
    let card = json!({
        "name": "n", "version": "1", "description": "d",
        "supportedInterfaces": [{"url": "http://127.0.0.1:9/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {}, "skills": [{"id": "echo", "name": "Echo", "description": "E", "tags": []}]
    });
    let pinned = carnet_runtime::remote::a2a::pin_card(&card).unwrap();
    let tool = &pinned.json()["tools"][0];
    let remote = json!({"inputSchema": tool["inputSchema"], "a2a": tool["a2a"]});
    let mcp = json!({"server": {"url": "http://127.0.0.1:9/rpc"}, "protocol": "a2a",
                     "pin": {"serverInfo": {"name": "n", "version": "1"}}});
    let manifest = Manifest::from_json(
        &json!({"agents": {}, "skills": {}, "toolsets": {"agent": {"name": "agent", "description": "A",
            "content": "", "mcp": mcp, "toolDefinitions": [{"name": "echo", "description": "E", "remote": remote}]}}})
        .to_string(),
    )
    .unwrap();
    let carnet = Carnet::builder(&manifest).build().unwrap();
    let agent = carnet.remote("agent").expect("a remote toolset");
    let call = agent.call_tool("echo", json!({"message": "hi"})).await.unwrap_err();
    let listed = agent.list_resources().await.unwrap_err();
    for error in [call, listed] {
        assert!(matches!(error, RemoteError::Unsupported { .. }), "{error:?}");
        assert!(error.to_string().contains("A2A agent"), "{error}");
    }
    assert!(!agent.started(), "nothing was reached");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_request_is_a_span_naming_the_toolset_the_server_and_the_failure() {
    use tracing_subscriber::layer::SubscriberExt as _;

    let spans = common::Spans::default();
    let carnet = engine(&standin("ok"), &standin("ok"), options()).await;
    let t = carnet.remote("t").unwrap();
    let _guard = tracing::subscriber::set_default(tracing_subscriber::Registry::default().with(spans.clone()));
    t.call_tool("echo", json!({"text": "hi"})).await.unwrap();
    t.list_prompts().await.unwrap_err();
    let fields = spans.said();
    for expected in [
        "span=remote_request",
        "otel.name=tools/call t",
        "otel.kind=client",
        "mcp.method.name=tools/call",
        "carnet.toolset.name=t",
        "gen_ai.tool.name=echo",
        "carnet.mcp.server=standin",
        "otel.name=prompts/list t",
        "error.type=upstream_error",
        "otel.status_code=error",
    ] {
        assert!(fields.iter().any(|f| f == expected), "no {expected} in {fields:?}");
    }
}

/// Every request is a `Send` future: a tool's future must be.
#[allow(dead_code, reason = "compiled, never run")]
fn requests_are_send(remote: &Remote) {
    fn send<T: Send>(_: T) {}
    send(remote.call_tool("t", json!({})));
    send(remote.list_resources());
    send(remote.list_resource_templates());
    send(remote.read_resource("x"));
    send(remote.list_prompts());
    send(remote.get_prompt("p", Value::Null));
    send(remote.request("ping", json!({})));
}
