//! `carnet_runtime::mcp` over HTTP as replicas see it: the stateless revision (`2026-07-28`)
//! with sealed session handles, and the limits a hostile client meets (raw HTTP/1.1 here;
//! the official Python SDK drives replicas behind haproxy in `tests/mcp/replicas.py`).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use carnet_runtime::mcp::{AGENT_CARD_PATH, HttpLimits, Server, SessionKeys};
use carnet_runtime::{Carnet, ExposureMode, Manifest, ToolImpl, ToolsetImpl};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

const MANIFEST: &str = r##"{
  "agents": {
    "researcher": { "name": "researcher", "description": "Researches",
      "initialSkills": ["webSearch"], "skills": ["dataAnalysis"], "prompt": "You research." },
    "analyst": { "name": "analyst", "description": "Analyses", "skills": ["secretOps"], "prompt": "You analyse." }
  },
  "skills": {
    "webSearch": { "name": "webSearch", "description": "Search the web", "toolsets": ["search-tools"],
      "content": "# Web search", "extra": { "tags": ["search", "web"], "examples": ["Find papers on Rust async"] } },
    "dataAnalysis": { "name": "dataAnalysis", "description": "Analyse data", "toolsets": ["statistics"],
      "content": "# Data analysis" },
    "secretOps": { "name": "secretOps", "description": "Analyst only", "toolsets": ["vault-tools"],
      "content": "# Secret" }
  },
  "toolsets": {
    "search-tools": { "name": "search-tools", "description": "Search", "content": "", "tools": [
      { "name": "basicSearch", "description": "Basic search" } ] },
    "statistics": { "name": "statistics", "description": "Statistics", "content": "", "tools": [
      { "name": "mean", "description": "The mean of numbers" } ] },
    "vault-tools": { "name": "vault-tools", "description": "Vault", "content": "", "tools": [
      { "name": "openVault", "description": "Opens the vault" } ] }
  }
}"##;

const KEY: &str = "replica-shared-key-0123456789abcdef";

fn carnet_of(json: &str, mode: ExposureMode) -> Carnet {
    let manifest = Manifest::from_json(json).unwrap();
    let search = ToolImpl::from_fn(
        "basicSearch",
        json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
        |args| async move { Ok(json!({ "hits": [args["query"].as_str().unwrap_or_default()] })) },
    );
    let mean = ToolImpl::from_fn(
        "mean",
        json!({"type": "object", "properties": {"values": {"type": "array", "items": {"type": "number"}}},
               "required": ["values"]}),
        |args| async move {
            let values: Vec<f64> = args["values"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_f64)
                .collect();
            let count: f64 = values.iter().map(|_| 1.0).sum();
            Ok(json!({ "mean": values.iter().sum::<f64>() / count }))
        },
    );
    let vault = ToolImpl::from_fn(
        "openVault",
        json!({"type": "object"}),
        |_| async move { Ok(json!("open")) },
    );
    Carnet::builder(&manifest)
        .toolsets([
            ToolsetImpl::new("search-tools", [search]),
            ToolsetImpl::new("statistics", [mean]),
            ToolsetImpl::new("vault-tools", [vault]),
        ])
        .mode(mode)
        .build()
        .unwrap()
}

fn carnet(mode: ExposureMode) -> Carnet {
    carnet_of(MANIFEST, mode)
}

/// A server bound on a free loopback port, served until the test's runtime ends.
async fn serve(server: Server) -> SocketAddr {
    let http = server.bind_http("127.0.0.1:0").await.unwrap();
    let addr = http.local_addr().unwrap();
    tokio::spawn(http.run());
    addr
}

fn replica(keys: SessionKeys) -> Server {
    Server::new(&carnet(ExposureMode::Dispatcher), "researcher")
        .unwrap()
        .session_keys(keys)
}

/// One HTTP/1.1 exchange on a fresh connection: status, headers (lowercase names) and body.
async fn exchange(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let _ = stream.write_all(body).await;
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut response))
        .await
        .expect("the server answers within 10 s")
        .unwrap();
    let response = String::from_utf8_lossy(&response).into_owned();
    let status = response[9..12].parse().unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (status, head.to_ascii_lowercase(), body.to_owned())
}

/// The JSON-RPC message answering request 1 in a JSON or SSE body.
fn message(body: &str) -> Value {
    if let Ok(value) = serde_json::from_str::<Value>(body) {
        return value;
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|m| m.get("id").is_some())
        .unwrap_or_else(|| panic!("no response in {body}"))
}

/// A `2026-07-28` request: no session, the version in a header and in `_meta`.
async fn modern(addr: SocketAddr, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "test", "version": "0" },
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let name = params["name"]
        .as_str()
        .or(params["uri"].as_str())
        .unwrap_or_default()
        .to_owned();
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let mut headers = vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", method)];
    if !name.is_empty() {
        headers.push(("Mcp-Name", &name));
    }
    let (status, _, body) = exchange(addr, "POST", "/mcp", &headers, body.to_string().as_bytes()).await;
    assert_eq!(status, 200, "{body}");
    message(&body)
}

async fn call(addr: SocketAddr, tool: &str, arguments: Value) -> Value {
    let answer = modern(addr, "tools/call", json!({ "name": tool, "arguments": arguments })).await;
    answer["result"]["structuredContent"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_sharing_a_key_serve_one_conversation_through_its_sealed_handle() {
    let a = serve(replica(SessionKeys::new(KEY).unwrap())).await;
    let b = serve(replica(SessionKeys::new(KEY).unwrap())).await;

    // The same list for every request: meta-tools and callTool, each taking `session`.
    let list = modern(a, "tools/list", json!({})).await;
    let tools = list["result"]["tools"].as_array().unwrap();
    assert!(tools.iter().any(|t| t["name"] == "callTool"), "{list}");
    for tool in tools {
        assert_eq!(tool["inputSchema"]["properties"]["session"]["type"], "string", "{tool}");
    }
    assert_eq!(modern(b, "tools/list", json!({})).await, list);

    // Without a handle, a tool of a skill not loaded is refused like any other.
    let refused = call(
        a,
        "callTool",
        json!({ "name": "mean", "arguments": { "values": [1, 2] } }),
    )
    .await;
    assert_eq!(refused["success"], false, "{refused}");
    assert!(refused.get("session").is_none());

    // Loaded on A, called on B.
    let loaded = call(a, "loadSkill", json!({ "skillName": "dataAnalysis" })).await;
    assert_eq!(loaded["success"], true, "{loaded}");
    let handle = loaded["session"]
        .as_str()
        .expect("a call that changes the state returns the handle")
        .to_owned();
    assert!(handle.starts_with("cs1.") && handle.len() < 600, "{handle}");
    let mean = call(
        b,
        "callTool",
        json!({ "name": "mean", "arguments": { "values": [1, 2, 3] }, "session": handle }),
    )
    .await;
    assert_eq!(mean["mean"], 2.0, "{mean}");
    assert!(
        mean.get("session").is_none(),
        "an unchanged state needs no new handle: {mean}"
    );

    // A replica with another key, or after a rotation that dropped the key, refuses it;
    // one that keeps it as the previous key accepts it.
    let stranger = serve(replica(
        SessionKeys::new("another-key-0123456789abcdef01234567").unwrap(),
    ))
    .await;
    let refused = call(
        stranger,
        "callTool",
        json!({ "name": "mean", "arguments": { "values": [1] }, "session": handle }),
    )
    .await;
    assert_eq!(refused["code"], "session_unknown_key", "{refused}");
    let rotated = SessionKeys::new("the-next-key-0123456789abcdef0123456")
        .unwrap()
        .with_previous(KEY)
        .unwrap();
    let rotated = serve(replica(rotated)).await;
    let mean = call(
        rotated,
        "callTool",
        json!({ "name": "mean", "arguments": { "values": [4] }, "session": handle }),
    )
    .await;
    assert_eq!(mean["mean"], 4.0, "{mean}");

    // A forged handle: the client adds a skill to the payload and keeps the tag.
    let parts: Vec<&str> = handle.split('.').collect();
    let forged = format!("{}.{}.{}x.{}", parts[0], parts[1], parts[2], parts[3]);
    let refused = call(
        a,
        "callTool",
        json!({ "name": "mean", "arguments": { "values": [1] }, "session": forged }),
    )
    .await;
    assert!(
        refused["code"] == "session_forged" || refused["code"] == "session_malformed",
        "{refused}"
    );
    let refused = call(a, "loadSkill", json!({ "skillName": "dataAnalysis", "session": 42 })).await;
    assert_eq!(refused["code"], "session_malformed", "{refused}");

    // Another agent's server with the same key, and other content, refuse it.
    let analyst = Server::new(&carnet(ExposureMode::Dispatcher), "analyst")
        .unwrap()
        .session_keys(SessionKeys::new(KEY).unwrap());
    let analyst = serve(analyst).await;
    let refused = call(
        analyst,
        "loadSkill",
        json!({ "skillName": "secretOps", "session": handle }),
    )
    .await;
    assert_eq!(refused["code"], "session_other_agent", "{refused}");
    let changed = MANIFEST.replace("You research.", "You research carefully.");
    let other = Server::new(&carnet_of(&changed, ExposureMode::Dispatcher), "researcher")
        .unwrap()
        .session_keys(SessionKeys::new(KEY).unwrap());
    let other = serve(other).await;
    let refused = call(
        other,
        "callTool",
        json!({ "name": "mean", "arguments": { "values": [1] }, "session": handle }),
    )
    .await;
    assert_eq!(refused["code"], "session_other_manifest", "{refused}");

    // An expired handle.
    let brief = serve(replica(SessionKeys::new(KEY).unwrap().with_ttl(Duration::ZERO))).await;
    let loaded = call(brief, "loadSkill", json!({ "skillName": "dataAnalysis" })).await;
    let stale = loaded["session"].as_str().unwrap();
    let refused = call(
        brief,
        "callTool",
        json!({ "name": "mean", "arguments": { "values": [1] }, "session": stale }),
    )
    .await;
    assert_eq!(refused["code"], "session_expired", "{refused}");
    assert!(refused["error"].as_str().unwrap().contains("expired"), "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_never_name_another_agents_skills_or_toolsets() {
    let addr = serve(replica(SessionKeys::random())).await;
    for (tool, arguments) in [
        ("loadSkill", json!({ "skillName": "secretOps" })),
        ("loadSkill", json!({ "skillName": "secretOp" })),
        ("loadToolset", json!({ "toolsetName": "vault-tools" })),
        ("loadToolset", json!({ "toolsetName": "vault-tool" })),
        ("loadTool", json!({ "toolName": "openVault" })),
        ("callTool", json!({ "name": "openVault", "arguments": {} })),
        ("callTool", json!({ "name": "openVaul", "arguments": {} })),
        ("listSkillToolsets", json!({ "skillName": "secretOps" })),
        ("listAvailableSkills", json!({ "query": "vault" })),
    ] {
        let answer = modern(addr, "tools/call", json!({ "name": tool, "arguments": arguments })).await;
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let echoed: Vec<&str> = arguments
            .as_object()
            .unwrap()
            .values()
            .filter_map(Value::as_str)
            .collect();
        for secret in [
            "secretOps",
            "vault-tools",
            "openVault",
            "Analyst only",
            "Opens the vault",
        ] {
            let named = text.contains(secret) && !echoed.iter().any(|e| e.contains(secret));
            assert!(!named, "`{tool}` {arguments} names `{secret}` of another agent: {text}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_card_describes_the_agent_and_its_skills() {
    let server = Server::new(&carnet(ExposureMode::Dispatcher), "researcher")
        .unwrap()
        .named("research", "1.2.3");
    let addr = serve(server).await;
    let (status, head, body) = exchange(addr, "GET", AGENT_CARD_PATH, &[], b"").await;
    assert_eq!(status, 200, "{body}");
    assert!(head.contains("content-type: application/json"), "{head}");
    let card: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(card["name"], "researcher");
    assert_eq!(card["version"], "1.2.3");
    assert_eq!(card["supportedInterfaces"][0]["url"], format!("http://{addr}/mcp"));
    let skills: Vec<&str> = card["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        skills,
        ["dataAnalysis", "webSearch"],
        "the analyst's skills are not the researcher's"
    );
    assert_eq!(card["skills"][1]["tags"], json!(["search", "web", "search-tools"]));
    assert_eq!(card["skills"][1]["examples"], json!(["Find papers on Rust async"]));
    assert!(card["skills"][0].get("examples").is_none());
    let (status, _, _) = exchange(addr, "POST", AGENT_CARD_PATH, &[], b"{}").await;
    assert_eq!(status, 405);
}

/// Sends `bytes` one a second (at most `max` of them) and returns how long the server took
/// to close the connection or answer.
async fn trickle(addr: SocketAddr, bytes: &[u8], max: usize) -> (Duration, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let start = Instant::now();
    let mut answer = Vec::new();
    for &byte in bytes.iter().take(max) {
        if stream.write_all(&[byte]).await.is_err() {
            break;
        }
        let mut buf = [0u8; 4096];
        match tokio::time::timeout(Duration::from_secs(1), stream.read(&mut buf)).await {
            Ok(Ok(0) | Err(_)) => break,
            Ok(Ok(n)) => {
                answer.extend_from_slice(&buf[..n]);
                let _ = tokio::time::timeout(Duration::from_millis(200), stream.read_to_end(&mut answer)).await;
                break;
            }
            Err(_) => {}
        }
    }
    (start.elapsed(), String::from_utf8_lossy(&answer).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_sending_one_byte_a_second_is_cut_off() {
    let limits = HttpLimits::default()
        .with_header_timeout(Duration::from_secs(2))
        .with_body_timeout(Duration::from_secs(2));
    let addr = serve(replica(SessionKeys::random()).http_limits(limits)).await;

    let headers =
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n";
    let (took, answer) = trickle(addr, headers, 30).await;
    assert!(
        took < Duration::from_secs(6),
        "headers at one byte a second were served for {took:?}: {answer}"
    );
    assert!(!answer.starts_with("HTTP/1.1 200"), "{answer}");

    // Headers at once, then the body at one byte a second: 408.
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(headers).await.unwrap();
    let start = Instant::now();
    let mut answer = Vec::new();
    for _ in 0..30 {
        let _ = stream.write_all(b" ").await;
        let mut buf = [0u8; 4096];
        if let Ok(Ok(n)) = tokio::time::timeout(Duration::from_secs(1), stream.read(&mut buf)).await {
            answer.extend_from_slice(&buf[..n]);
            break;
        }
    }
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        start.elapsed() < Duration::from_secs(6),
        "a slow body was read for {:?}",
        start.elapsed()
    );
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("did not arrive within 2000 ms"), "{answer}");
}

fn initialize() -> Vec<u8> {
    json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } } })
    .to_string()
    .into_bytes()
}

fn session_id(head: &str) -> String {
    head.lines()
        .find_map(|l| l.strip_prefix("mcp-session-id:"))
        .expect("a session id")
        .trim()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_capped_and_idle_ones_expire_and_free_their_place() {
    let limits = HttpLimits::default()
        .with_max_sessions(2)
        .with_session_idle(Duration::from_millis(1500));
    let addr = serve(
        Server::new(&carnet(ExposureMode::Dynamic), "researcher")
            .unwrap()
            .http_limits(limits),
    )
    .await;
    let (status, first, _) = exchange(addr, "POST", "/mcp", &[], &initialize()).await;
    assert_eq!(status, 200);
    let (status, _, _) = exchange(addr, "POST", "/mcp", &[], &initialize()).await;
    assert_eq!(status, 200);
    let (status, _, body) = exchange(addr, "POST", "/mcp", &[], &initialize()).await;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("limit of 2 sessions"), "{body}");
    // Stateless requests need no session and still pass.
    let list = modern_dynamic_refused_or_served(addr).await;
    assert!(list == 200 || list == 400, "{list}");

    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (status, _, body) = exchange(addr, "POST", "/mcp", &[], &initialize()).await;
    assert_eq!(status, 200, "idle sessions were ended and their places freed: {body}");
    // The expired session is gone: DELETE says so, as it does for one that never existed.
    let id = session_id(&first);
    let (status, _, body) = exchange(addr, "DELETE", "/mcp", &[("Mcp-Session-Id", &id)], b"").await;
    assert_eq!(status, 404, "{body}");
    let (status, _, body) = exchange(addr, "DELETE", "/mcp", &[("Mcp-Session-Id", "no-such-session")], b"").await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(message(&body)["error"]["code"], -32600);
}

async fn modern_dynamic_refused_or_served(addr: SocketAddr) -> u16 {
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "ping", "params": { "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "test", "version": "0" },
        "io.modelcontextprotocol/clientCapabilities": {} } } });
    let headers = [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "ping")];
    exchange(addr, "POST", "/mcp", &headers, body.to_string().as_bytes())
        .await
        .0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn origins_outside_the_allow_list_are_refused_and_cors_is_opt_in() {
    let addr = serve(replica(SessionKeys::random())).await;
    let (status, _, body) = exchange(
        addr,
        "POST",
        "/mcp",
        &[("Origin", "https://evil.example")],
        &initialize(),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("https://evil.example"), "{body}");
    let (status, _, _) = exchange(
        addr,
        "POST",
        "/mcp",
        &[("Origin", "http://localhost:5173")],
        &initialize(),
    )
    .await;
    assert_eq!(status, 200);
    let (status, _, _) = exchange(
        addr,
        "POST",
        "/mcp",
        &[("Origin", "http://localhost.evil.example")],
        &initialize(),
    )
    .await;
    assert_eq!(status, 403);
    // No CORS unless asked for.
    let (status, head, _) = exchange(addr, "OPTIONS", "/mcp", &[("Origin", "http://localhost:5173")], b"").await;
    assert_ne!(status, 204);
    assert!(!head.contains("access-control-allow-origin"), "{head}");

    let limits = HttpLimits::default()
        .with_allowed_origins(["https://app.example.com"])
        .with_cors(true);
    let addr = serve(replica(SessionKeys::random()).http_limits(limits)).await;
    let (status, head, _) = exchange(addr, "OPTIONS", "/mcp", &[("Origin", "https://app.example.com")], b"").await;
    assert_eq!(status, 204);
    assert!(
        head.contains("access-control-allow-origin: https://app.example.com"),
        "{head}"
    );
    assert!(head.contains("mcp-session-id"), "{head}");
    let (status, head, _) = exchange(
        addr,
        "POST",
        "/mcp",
        &[("Origin", "https://app.example.com")],
        &initialize(),
    )
    .await;
    assert_eq!(status, 200);
    assert!(head.contains("access-control-expose-headers: mcp-session-id"), "{head}");
    let (status, _, _) = exchange(
        addr,
        "POST",
        "/mcp",
        &[("Origin", "http://localhost:5173")],
        &initialize(),
    )
    .await;
    assert_eq!(status, 403, "the list replaces the loopback default");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn odd_skill_names_and_colliding_uris_do_not_break_the_skill_list() {
    // Content `carnet_codegen` refuses (E0029, E0030), written by hand as JSON.
    let manifest = r#"{
      "agents": { "main": { "name": "main", "description": "Main", "prompt": "Hi.",
        "skills": ["données analysis", "a/b", "a", "research"] } },
      "skills": {
        "données analysis": { "name": "données analysis", "description": "Spaces and accents", "content": "D" },
        "a/b": { "name": "a/b", "description": "A slash", "content": "AB" },
        "a": { "name": "a", "description": "Lists b/SKILL.md", "content": "A",
          "files": [ { "path": "b/SKILL.md", "description": "B", "content": "not the skill a/b" } ] },
        "research": { "name": "research", "description": "Lists its SKILL.md", "content": "R",
          "files": [ { "path": "SKILL.md", "description": "S", "content": "a second SKILL.md" } ] }
      },
      "toolsets": {}
    }"#;
    let carnet = Carnet::builder(&Manifest::from_json(manifest).unwrap())
        .mode(ExposureMode::Dispatcher)
        .build()
        .unwrap();
    let addr = serve(Server::new(&carnet, "main").unwrap()).await;
    let listed = modern(addr, "skills/list", json!({})).await;
    let skills = listed["result"]["skills"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"));
    let uris: Vec<&str> = skills.iter().map(|s| s["uri"].as_str().unwrap()).collect();
    assert!(
        uris.contains(&"skill://a/SKILL.md") && uris.contains(&"skill://research/SKILL.md"),
        "{listed}"
    );
    assert!(
        !uris.iter().any(|u| u.contains("%20") || u.contains("a/b/")),
        "{listed}"
    );
    // The instructions win over the file listed with their URI.
    let read = modern(addr, "resources/read", json!({ "uri": "skill://research/SKILL.md" })).await;
    let text = read["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{read}"));
    assert!(text.contains("Lists its SKILL.md"), "{text}");
    let resources = modern(addr, "resources/list", json!({})).await;
    let all: Vec<&str> = resources["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    let mut unique = all.clone();
    unique.dedup();
    assert_eq!(all, unique, "no URI twice");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_stdio_the_stateless_revision_returns_handles_and_the_process_keeps_the_conversation() {
    use tokio::io::{AsyncBufReadExt as _, BufReader};

    let server = replica(SessionKeys::new(KEY).unwrap());
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(theirs);
    tokio::spawn(async move { server.serve(read, write).await });
    let (read, mut write) = tokio::io::split(ours);
    let mut lines = BufReader::new(read).lines();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "test", "version": "0" },
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let mut id = 0;
    let mut request = async |method: &str, mut params: Value| {
        id += 1;
        params["_meta"] = meta.clone();
        let line = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string() + "\n";
        write.write_all(line.as_bytes()).await.unwrap();
        loop {
            let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
                .await
                .unwrap()
                .unwrap()
                .unwrap();
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    };
    let list = request("tools/list", json!({})).await;
    assert_eq!(
        list["result"]["tools"][0]["inputSchema"]["properties"]["session"]["type"], "string",
        "{list}"
    );
    let loaded = request(
        "tools/call",
        json!({ "name": "loadSkill", "arguments": { "skillName": "dataAnalysis" } }),
    )
    .await;
    let handle = loaded["result"]["structuredContent"]["session"]
        .as_str()
        .unwrap()
        .to_owned();
    // Without a handle, the process's conversation goes on.
    let mean = request(
        "tools/call",
        json!({ "name": "callTool", "arguments": { "name": "mean", "arguments": { "values": [2, 4] } } }),
    )
    .await;
    assert_eq!(mean["result"]["structuredContent"]["mean"], 3.0, "{mean}");
    // The handle works on an HTTP replica with the same key.
    let addr = serve(replica(SessionKeys::new(KEY).unwrap())).await;
    let mean = call(
        addr,
        "callTool",
        json!({ "name": "mean", "arguments": { "values": [5] }, "session": handle }),
    )
    .await;
    assert_eq!(mean["mean"], 5.0, "{mean}");
}

/// The `2026-07-28` request `id: ID, method, params` (with the version's `_meta` unless
/// `params` has one), and the headers a plain client sends with it.
/// Headers of a request, as name and value.
type Headers = Vec<(String, String)>;

fn modern_request(id: &Value, method: &str, mut params: Value) -> (Headers, Vec<u8>) {
    if params.get("_meta").is_none() {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { "name": "test", "version": "0" },
            "io.modelcontextprotocol/clientCapabilities": {},
        });
    }
    let mut headers = vec![
        ("MCP-Protocol-Version".to_owned(), "2026-07-28".to_owned()),
        ("Mcp-Method".to_owned(), method.to_owned()),
    ];
    if let Some(name) = params["name"].as_str() {
        headers.push(("Mcp-Name".to_owned(), name.to_owned()));
    }
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    (headers, body.to_string().into_bytes())
}

/// What a response says, comparable between servers: its status, its media type and its SSE
/// `data:` lines (or its JSON body), each sealed handle replaced by `<handle>`; and whether it
/// came in one piece (`content-length`) rather than chunked.
async fn answer(addr: SocketAddr, headers: &Headers, body: &[u8]) -> (u16, String, String, bool) {
    answer_at(addr, "/mcp", headers, body).await
}

/// [`answer`] for a request to `target`.
async fn answer_at(addr: SocketAddr, target: &str, headers: &Headers, body: &[u8]) -> (u16, String, String, bool) {
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let (status, head, body) = exchange(addr, "POST", target, &headers, body).await;
    let media = head
        .lines()
        .find_map(|l| l.strip_prefix("content-type: "))
        .unwrap_or_default()
        .to_owned();
    let whole = head.contains("content-length:") && !head.contains("transfer-encoding");
    let mut payload = if media == "text/event-stream" {
        body.lines()
            .filter(|l| l.starts_with("data:"))
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        body
    };
    if let Some(handle) = serde_json::from_str::<Value>(payload.trim_start_matches("data: "))
        .ok()
        .and_then(|m| m["result"]["structuredContent"]["session"].as_str().map(str::to_owned))
    {
        payload = payload.replace(&handle, "<handle>");
    }
    (status, media, payload, whole)
}

/// `body` (JSON) changed by `change`.
fn edit(body: &[u8], change: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut message: Value = serde_json::from_slice(body).unwrap();
    change(&mut message);
    message.to_string().into_bytes()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_lists_and_calls_are_answered_directly_with_rmcps_bytes() {
    let direct = serve(replica(SessionKeys::new(KEY).unwrap())).await;
    let rmcp = serve(replica(SessionKeys::new(KEY).unwrap()).through_rmcp_only()).await;
    let loaded = call(direct, "loadSkill", json!({ "skillName": "dataAnalysis" })).await;
    let handle = loaded["session"].as_str().unwrap().to_owned();

    let served_directly = [
        modern_request(&json!(1), "tools/list", json!({})),
        modern_request(&json!("list-\u{e9}\"1"), "tools/list", json!({})),
        modern_request(
            &json!(2),
            "tools/call",
            json!({ "name": "loadSkill", "arguments": { "skillName": "dataAnalysis" } }),
        ),
        modern_request(
            &json!(3),
            "tools/call",
            json!({ "name": "loadSkill", "arguments": { "skillName": "nope" } }),
        ),
        modern_request(
            &json!(4),
            "tools/call",
            json!({ "name": "callTool",
            "arguments": { "name": "mean", "arguments": { "values": [1, 2.5, 1e300] }, "session": handle } }),
        ),
        modern_request(
            &json!(5),
            "tools/call",
            json!({ "name": "callTool",
            "arguments": { "name": "basicSearch", "arguments": { "query": "quote \" slash \\ nul \u{0} tab \t \u{2028} 😀" } } }),
        ),
        modern_request(
            &json!(6),
            "tools/call",
            json!({ "name": "callTool",
            "arguments": { "name": "mean", "arguments": { "values": "no" }, "session": handle } }),
        ),
        modern_request(
            &json!(7),
            "tools/call",
            json!({ "name": "callTool",
            "arguments": { "name": "mean", "arguments": {}, "session": "cs1.forged" } }),
        ),
        modern_request(
            &json!(8),
            "tools/call",
            json!({ "name": "callTool",
            "arguments": { "name": "mean", "arguments": {}, "session": 42 } }),
        ),
        modern_request(
            &json!(9),
            "tools/call",
            json!({ "name": "noSuchTool", "arguments": {} }),
        ),
        modern_request(&json!(10), "tools/call", json!({ "name": "listAvailableSkills" })),
        {
            let (headers, body) = modern_request(&json!(12), "tools/list", json!({}));
            let body = edit(&body, |m| m["params"]["_meta"]["progressToken"] = json!("p"));
            (headers, body)
        },
        modern_request(
            &json!(11),
            "tools/call",
            json!({ "name": "callTool",
            "arguments": { "name": "openVault", "arguments": {} } }),
        ),
    ];
    for (headers, body) in &served_directly {
        let a = answer(direct, headers, body).await;
        let b = answer(rmcp, headers, body).await;
        let request = String::from_utf8_lossy(body);
        assert_eq!(a.0, 200, "{request}: {a:?}");
        assert_eq!(a.0, b.0, "{request}");
        assert_eq!(a.1, b.1, "{request}");
        assert_eq!(a.2, b.2, "{request}");
        assert!(a.3, "{request} was answered directly: {a:?}");
        assert!(!b.3, "{request} went through rmcp: {b:?}");
    }

    // What is not the plain case goes to rmcp, which serves or refuses it the same way
    // on both servers.
    let (headers, body) = modern_request(&json!(20), "tools/call", json!({ "name": "listAvailableSkills" }));
    let without = |name: &str| -> Headers {
        headers
            .iter()
            .filter(|(n, _)| !n.eq_ignore_ascii_case(name))
            .cloned()
            .collect()
    };
    let with = |name: &str, value: &str| -> Headers {
        let mut all = headers.clone();
        all.push((name.to_owned(), value.to_owned()));
        all
    };
    let mut renamed = headers.clone();
    renamed.retain(|(n, _)| n != "Mcp-Name");
    renamed.push(("Mcp-Name".to_owned(), "loadSkill".to_owned()));
    let (no_meta_headers, _) = modern_request(&json!(21), "tools/list", json!({}));
    let no_client_info = json!({ "jsonrpc": "2.0", "id": 21, "method": "tools/list", "params": { "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } })
    .to_string()
    .into_bytes();
    let older = json!({ "jsonrpc": "2.0", "id": 22, "method": "tools/list", "params": { "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2025-11-25",
        "io.modelcontextprotocol/clientInfo": { "name": "test", "version": "0" },
        "io.modelcontextprotocol/clientCapabilities": {} } } })
    .to_string()
    .into_bytes();
    let (_, task) = modern_request(
        &json!(23),
        "tools/call",
        json!({ "name": "listAvailableSkills", "requestState": "opaque" }),
    );
    let fallbacks: Vec<(&str, Headers, Vec<u8>)> = vec![
        ("no Mcp-Name", without("Mcp-Name"), body.clone()),
        ("no Mcp-Method", without("Mcp-Method"), body.clone()),
        ("no MCP-Protocol-Version", without("MCP-Protocol-Version"), body.clone()),
        ("a Mcp-Name naming another tool", renamed, body.clone()),
        ("two Mcp-Method headers", with("Mcp-Method", "tools/call"), body.clone()),
        ("a Mcp-Param header", with("Mcp-Param-Query", "x"), body.clone()),
        (
            "an older version header",
            with("MCP-Protocol-Version", "2025-11-25"),
            body.clone(),
        ),
        (
            "a weighted Accept",
            with("Accept", "text/event-stream;q=0"),
            body.clone(),
        ),
        ("a foreign Host", with("Host", "evil.example"), body.clone()),
        ("_meta without clientInfo", no_meta_headers.clone(), no_client_info),
        ("an older version in _meta", no_meta_headers, older),
        ("requestState", headers.clone(), task),
        (
            "an unknown field",
            headers.clone(),
            edit(&body, |m| m["extra"] = json!(1)),
        ),
        (
            "JSON-RPC 1.0",
            headers.clone(),
            edit(&body, |m| m["jsonrpc"] = json!("1.0")),
        ),
        (
            "an unknown param",
            headers.clone(),
            edit(&body, |m| m["params"]["task"] = json!({})),
        ),
        (
            "capabilities that are not an object",
            headers.clone(),
            edit(&body, |m| {
                m["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!(5);
            }),
        ),
        (
            "a method the headers do not name",
            headers.clone(),
            edit(&body, |m| m["method"] = json!("tools/list")),
        ),
        (
            "a batch",
            headers.clone(),
            format!("[{}]", String::from_utf8_lossy(&body)).into_bytes(),
        ),
    ];
    for (what, headers, body) in &fallbacks {
        let a = answer(direct, headers, body).await;
        let b = answer(rmcp, headers, body).await;
        assert!(
            !a.3 || a.1 != "text/event-stream",
            "{what}: not answered directly: {a:?}"
        );
        assert_eq!((a.0, &a.1, &a.2), (b.0, &b.1, &b.2), "{what}");
    }
    // An absolute-form target names its own authority, which rmcp checks instead of `Host`.
    for authority in ["127.0.0.1", "evil.example"] {
        let target = format!("http://{authority}/mcp");
        let a = answer_at(direct, &target, &headers, &body).await;
        let b = answer_at(rmcp, &target, &headers, &body).await;
        assert!(
            !a.3 || a.1 != "text/event-stream",
            "{target}: not answered directly: {a:?}"
        );
        assert_eq!((a.0, &a.1, &a.2), (b.0, &b.1, &b.2), "{target}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_call_whose_client_hangs_up_is_cancelled_on_either_path() {
    /// What the tool saw of its call: its id and its cancellation signal.
    type Seen = std::sync::Arc<std::sync::Mutex<Option<(Option<String>, carnet_runtime::Cancellation)>>>;
    /// Sleeps an hour, and hands its cancellation signal (and call id) out.
    struct Slow(Seen);
    impl carnet_runtime::ToolHandler for Slow {
        fn call<'a>(
            &'a self,
            context: &'a carnet_runtime::Context<'a>,
            _: Value,
        ) -> carnet_runtime::BoxFuture<'a, Result<Value, carnet_runtime::ToolError>> {
            *self.0.lock().unwrap() = Some((context.call_id().map(str::to_owned), context.cancellation().clone()));
            Box::pin(async move {
                tokio::time::sleep(Duration::from_hours(1)).await;
                Ok(json!("never"))
            })
        }
    }
    for rmcp_only in [false, true] {
        let seen = Seen::default();
        let slow = ToolImpl::new("basicSearch", json!({"type": "object"}), Slow(seen.clone()));
        let carnet = Carnet::builder(&Manifest::from_json(MANIFEST).unwrap())
            .toolset(ToolsetImpl::new("search-tools", [slow]))
            .allow_unimplemented()
            .mode(ExposureMode::Dispatcher)
            .build()
            .unwrap();
        let mut server = Server::new(&carnet, "researcher").unwrap();
        if rmcp_only {
            server = server.through_rmcp_only();
        }
        let addr = serve(server).await;
        let (headers, body) = modern_request(
            &json!("call-7"),
            "tools/call",
            json!({ "name": "callTool", "arguments": { "name": "basicSearch", "arguments": {} } }),
        );
        let mut request = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
            body.len()
        );
        for (name, value) in &headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        stream.write_all(&body).await.unwrap();
        let started = async {
            while seen.lock().unwrap().is_none() {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(10), started)
            .await
            .expect("the tool runs");
        drop(stream);
        let (id, signal) = seen.lock().unwrap().clone().expect("the tool ran");
        assert_eq!(id.as_deref(), Some("call-7"), "the call's id is the request's");
        tokio::time::timeout(Duration::from_secs(10), signal.cancelled())
            .await
            .unwrap_or_else(|_| panic!("rmcp only: {rmcp_only}: the client hanging up fires the tool's signal"));
    }
}

/// A replica of the agent whose prompt takes the variable `ORG` (default `Carnet Labs`).
fn replica_with_a_variable(rmcp_only: bool) -> Server {
    let manifest = MANIFEST.replacen('{', r#"{ "variables": { "ORG": "Carnet Labs" },"#, 1);
    let server = Server::new(&carnet_of(&manifest, ExposureMode::Dispatcher), "researcher")
        .unwrap()
        .session_keys(SessionKeys::new(KEY).unwrap());
    if rmcp_only { server.through_rmcp_only() } else { server }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stateless_revision_over_http_types_every_result_and_refuses_initialize_and_cursors() {
    let direct = serve(replica_with_a_variable(false)).await;
    let rmcp = serve(replica_with_a_variable(true)).await;
    for addr in [direct, rmcp] {
        for method in [
            "prompts/list",
            "resources/list",
            "resources/templates/list",
            "skills/list",
            "tools/list",
        ] {
            let listed = modern(addr, method, json!({})).await;
            assert_eq!(listed["result"]["resultType"], "complete", "{method}: {listed}");
            assert_eq!(listed["result"]["ttlMs"], 0, "{method}: {listed}");
            // This server lists everything on one page: a cursor is none of its own.
            let (headers, body) = modern_request(&json!(3), method, json!({ "cursor": "page-2" }));
            let (status, _, refused, _) = answer(addr, &headers, &body).await;
            let refused = message(&refused);
            assert_eq!(
                (status, &refused["error"]["code"]),
                (200, &json!(-32602)),
                "{method}: {refused}"
            );
        }
        let completed = modern(
            addr,
            "completion/complete",
            json!({ "ref": { "type": "ref/prompt", "name": "researcher" }, "argument": { "name": "ORG", "value": "" } }),
        )
        .await;
        assert_eq!(completed["result"]["resultType"], "complete", "{completed}");
        // `initialize` does not exist at this revision: 404 and -32601, as for any unknown method.
        let (headers, body) = modern_request(&json!(9), "initialize", json!({}));
        let (status, _, refused, _) = answer(addr, &headers, &body).await;
        let refused = message(&refused);
        assert_eq!(status, 404, "{refused}");
        assert_eq!(
            (&refused["id"], &refused["error"]["code"]),
            (&json!(9), &json!(-32601)),
            "{refused}"
        );
        assert!(
            refused["error"]["message"].as_str().unwrap().contains("2025-11-25"),
            "{refused}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_of_2025_gets_untyped_results_and_completions() {
    let addr = serve(replica_with_a_variable(false)).await;
    let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } } });
    let (status, head, body) = exchange(addr, "POST", "/mcp", &[], init.to_string().as_bytes()).await;
    assert_eq!(status, 200, "{body}");
    let init = message(&body);
    assert_eq!(init["result"]["serverInfo"]["name"], "researcher", "{init}");
    assert_eq!(init["result"]["capabilities"]["completions"], json!({}), "{init}");
    let session = head
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .unwrap()
        .to_owned();
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    exchange(addr, "POST", "/mcp", &headers, initialized.to_string().as_bytes()).await;
    let request = |id: u64, method: &str, params: Value| {
        json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string()
    };
    let (_, _, body) = exchange(
        addr,
        "POST",
        "/mcp",
        &headers,
        request(2, "prompts/list", json!({})).as_bytes(),
    )
    .await;
    let listed = message(&body);
    assert!(listed["result"]["prompts"].is_array(), "{listed}");
    assert!(listed["result"].get("resultType").is_none(), "{listed}");
    let completion =
        json!({ "ref": { "type": "ref/prompt", "name": "researcher" }, "argument": { "name": "ORG", "value": "Car" } });
    let (_, _, body) = exchange(
        addr,
        "POST",
        "/mcp",
        &headers,
        request(3, "completion/complete", completion).as_bytes(),
    )
    .await;
    let completed = message(&body);
    assert_eq!(
        completed["result"]["completion"]["values"],
        json!(["Carnet Labs"]),
        "{completed}"
    );
    let (_, _, body) = exchange(
        addr,
        "POST",
        "/mcp",
        &headers,
        request(4, "resources/list", json!({ "cursor": "x" })).as_bytes(),
    )
    .await;
    assert_eq!(message(&body)["error"]["code"], -32602, "{body}");
}
