//! A bounded load test of the MCP HTTP server on loopback: concurrent clients, each running a
//! conversation of `calls` tool calls (`loadSkill`, then `callTool` of a domain tool), in both
//! protocol shapes: `2026-07-28` (stateless, the state in the sealed `session` handle) and
//! `2025-11-25` (a session per client, `Mcp-Session-Id`). Prints p50/p99 latency and
//! throughput per shape, then the heap held per 1,000 open 2025 sessions and what idle expiry
//! gives back, as a markdown table.
//!
//! The stateless rows are measured twice: with the server answering `tools/call` and
//! `tools/list` itself (`direct`, the default) and with every request left to rmcp
//! (`through rmcp`, `Server::through_rmcp_only`), so both paths are timed in one run.
//!
//! Usage: `mcp-load [--clients N] [--calls N] [--sessions N]` (defaults 32, 50, 2000). The
//! server runs in this process (2 worker threads), the clients too; everything is on
//! 127.0.0.1 and the run ends by itself.
//!
//! Two more roles for `bench/mcp-haproxy.sh` (replicas behind a load balancer):
//!
//! - `mcp-load --serve ADDR [--through-rmcp] [--workers N]`: a replica serving the same agent
//!   in dispatcher mode over HTTP at `ADDR` on `N` worker threads (default: the cores),
//!   sealing handles with `CARNET_SESSION_KEY`; prints its URL and serves until killed.
//! - `mcp-load --url URL [--clients N] [--calls N] [--lists N] [--threads N] [--label L]`:
//!   drives an endpoint elsewhere with stateless conversations (the handle travels, so any
//!   replica serves any call), then with `tools/list` requests, from a runtime of `--threads`
//!   worker threads (default 1); prints one markdown row per kind.

use std::alloc::{GlobalAlloc, Layout, System};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use carnet_runtime::mcp::{HttpLimits, Server, SessionKeys};
use carnet_runtime::{Carnet, ExposureMode, Manifest, ToolImpl, ToolsetImpl};
use http_body_util::{BodyExt as _, Full};
use hyper::Request;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

/// Counts live heap bytes, so memory per session is measured, not guessed from the RSS.
/// Only in the in-process run: a replica or a load generator for `mcp-haproxy.sh` counts
/// nothing (two threads adding to one counter on every allocation would slow what is timed).
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static COUNTING: AtomicBool = AtomicBool::new(false);

// SAFETY: defers to the system allocator and only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if COUNTING.load(Ordering::Relaxed) {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        // SAFETY: the caller's contract is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const MANIFEST: &str = r##"{
  "agents": { "researcher": { "name": "researcher", "description": "Researches",
    "initialSkills": ["webSearch"], "skills": ["dataAnalysis"], "prompt": "You research." } },
  "skills": {
    "webSearch": { "name": "webSearch", "description": "Search the web", "toolsets": ["search-tools"], "content": "# Web search" },
    "dataAnalysis": { "name": "dataAnalysis", "description": "Analyse data", "toolsets": ["statistics"], "content": "# Data analysis\n\nUse the statistics tools." }
  },
  "toolsets": {
    "search-tools": { "name": "search-tools", "description": "Search", "content": "", "tools": [
      { "name": "basicSearch", "description": "Basic search" } ] },
    "statistics": { "name": "statistics", "description": "Statistics", "content": "", "tools": [
      { "name": "mean", "description": "The mean of numbers" } ] }
  }
}"##;

fn carnet(mode: ExposureMode) -> Carnet {
    let manifest = Manifest::from_json(MANIFEST).expect("valid manifest");
    let search = ToolImpl::from_fn("basicSearch", json!({"type": "object"}), |_| async move {
        Ok(json!({"hits": []}))
    });
    let mean = ToolImpl::from_fn(
        "mean",
        json!({"type": "object", "properties": {"values": {"type": "array", "items": {"type": "number"}}}, "required": ["values"]}),
        |args| async move {
            let values: Vec<f64> = args["values"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_f64)
                .collect();
            Ok(json!({ "mean": values.iter().sum::<f64>() / values.len().max(1) as f64 }))
        },
    );
    Carnet::builder(&manifest)
        .toolsets([
            ToolsetImpl::new("search-tools", [search]),
            ToolsetImpl::new("statistics", [mean]),
        ])
        .mode(mode)
        .build()
        .expect("every toolset is bound")
}

async fn serve(server: Server) -> SocketAddr {
    let http = server.bind_http("127.0.0.1:0").await.expect("binds loopback");
    let addr = http.local_addr().expect("an address");
    tokio::spawn(http.run());
    addr
}

/// One keep-alive HTTP/1.1 connection.
struct Conn {
    send: SendRequest<Full<Bytes>>,
    addr: SocketAddr,
}

/// `tools/list` requests one after another on one connection: their latencies.
async fn list_client(addr: SocketAddr, lists: usize) -> Vec<Duration> {
    let mut conn = Conn::open(addr).await;
    let mut latencies = Vec::with_capacity(lists);
    let headers = [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/list")];
    for i in 0..lists {
        let body = json!({ "jsonrpc": "2.0", "id": i, "method": "tools/list", "params": { "_meta": modern_meta() } });
        let start = Instant::now();
        let (message, _) = conn.post(&headers, &body).await;
        latencies.push(start.elapsed());
        assert!(message["result"]["tools"].is_array(), "{message}");
    }
    latencies
}

impl Conn {
    async fn open(addr: SocketAddr) -> Conn {
        let stream = tokio::net::TcpStream::connect(addr).await.expect("connects");
        stream.set_nodelay(true).expect("nodelay");
        let (send, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .expect("handshake");
        tokio::spawn(connection);
        Conn { send, addr }
    }

    /// POSTs `body`; the JSON-RPC response (from JSON or SSE) and the session id header.
    async fn post(&mut self, headers: &[(&str, &str)], body: &Value) -> (Value, Option<String>) {
        let mut request = Request::post("/mcp")
            .header("host", self.addr.ip().to_string())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request
            .body(Full::new(Bytes::from(body.to_string())))
            .expect("a request");
        if self.send.ready().await.is_err() {
            // The server closed the idle connection: open another.
            *self = Conn::open(self.addr).await;
        }
        let response = self.send.send_request(request).await.expect("a response");
        let session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let bytes = response.into_body().collect().await.expect("a body").to_bytes();
        let text = String::from_utf8_lossy(&bytes);
        let message = serde_json::from_str(&text).ok().or_else(|| {
            text.lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
                .find(|m| m.get("id").is_some())
        });
        (message.unwrap_or(Value::Null), session)
    }
}

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "mcp-load", "version": "0" },
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

fn call_body(id: usize, name: &str, arguments: Value, meta: Option<Value>) -> Value {
    let mut params = json!({ "name": name, "arguments": arguments });
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params })
}

fn structured(message: &Value) -> &Value {
    &message["result"]["structuredContent"]
}

/// One stateless conversation: latencies of its calls.
async fn stateless_client(addr: SocketAddr, calls: usize) -> Vec<Duration> {
    let mut conn = Conn::open(addr).await;
    let mut latencies = Vec::with_capacity(calls);
    let mut handle = Value::Null;
    for i in 0..calls {
        let (name, arguments) = if i == 0 {
            ("loadSkill", json!({ "skillName": "dataAnalysis" }))
        } else {
            (
                "callTool",
                json!({ "name": "mean", "arguments": { "values": [1, 2, 3, i] }, "session": handle }),
            )
        };
        let headers = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", name),
        ];
        let start = Instant::now();
        let (message, _) = conn
            .post(&headers, &call_body(i, name, arguments, Some(modern_meta())))
            .await;
        latencies.push(start.elapsed());
        let result = structured(&message);
        assert!(result["success"].as_bool().unwrap_or(true), "{message}");
        if i == 0 {
            handle = result["session"].clone();
            assert!(handle.is_string(), "loadSkill returns a handle: {message}");
        } else {
            assert!(result["mean"].is_number(), "{message}");
        }
    }
    latencies
}

/// Opens a 2025-11-25 session: its id.
async fn open_session(conn: &mut Conn) -> String {
    let init = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "mcp-load", "version": "0" } } });
    let (message, session) = conn.post(&[], &init).await;
    let session = session.unwrap_or_else(|| panic!("a session id: {message}"));
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    conn.post(
        &[("mcp-session-id", &session), ("mcp-protocol-version", "2025-11-25")],
        &initialized,
    )
    .await;
    session
}

/// One 2025 conversation: latencies of its calls (the handshake not counted).
async fn session_client(addr: SocketAddr, calls: usize) -> Vec<Duration> {
    let mut conn = Conn::open(addr).await;
    let session = open_session(&mut conn).await;
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let mut latencies = Vec::with_capacity(calls);
    for i in 0..calls {
        let (name, arguments) = if i == 0 {
            ("loadSkill", json!({ "skillName": "dataAnalysis" }))
        } else {
            (
                "callTool",
                json!({ "name": "mean", "arguments": { "values": [1, 2, 3, i] } }),
            )
        };
        let start = Instant::now();
        let (message, _) = conn.post(&headers, &call_body(i + 1, name, arguments, None)).await;
        latencies.push(start.elapsed());
        assert!(!message["result"].is_null(), "{message}");
    }
    latencies
}

struct Figures {
    requests: usize,
    p50: Duration,
    p99: Duration,
    throughput: f64,
}

async fn run<F, Fut>(clients: usize, calls: usize, client: F) -> Figures
where
    F: Fn() -> Fut,
    Fut: Future<Output = Vec<Duration>> + Send + 'static,
{
    let start = Instant::now();
    let tasks: Vec<_> = (0..clients).map(|_| tokio::spawn(client())).collect();
    let mut all = Vec::with_capacity(clients * calls);
    for task in tasks {
        all.extend(task.await.expect("a client finished"));
    }
    let elapsed = start.elapsed();
    all.sort_unstable();
    let at = |q: f64| all[((all.len() as f64 * q) as usize).min(all.len() - 1)];
    Figures {
        requests: all.len(),
        p50: at(0.50),
        p99: at(0.99),
        throughput: all.len() as f64 / elapsed.as_secs_f64(),
    }
}

fn arg(args: &[String], name: &str, default: usize) -> usize {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |v| v.parse().expect("a number"))
}

fn text_arg<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

fn main() {
    // On before anything is allocated, so the in-process run's frees match its allocations;
    // off in the other roles.
    COUNTING.store(true, Ordering::Relaxed);
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--serve" || a == "--url") {
        COUNTING.store(false, Ordering::Relaxed);
    }
    if let Some(addr) = text_arg(&args, "--serve") {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        replica(
            addr,
            args.iter().any(|a| a == "--through-rmcp"),
            arg(&args, "--workers", cores),
        );
        return;
    }
    if let Some(url) = text_arg(&args, "--url") {
        drive(url, &args);
        return;
    }
    let clients = arg(&args, "--clients", 32);
    let calls = arg(&args, "--calls", 50);
    let sessions = arg(&args, "--sessions", 2000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async move {
        let deadline = Duration::from_secs(300);
        tokio::time::timeout(deadline, measure(clients, calls, sessions))
            .await
            .expect("the load test ends within 5 minutes");
    });
}

/// A replica for `bench/mcp-haproxy.sh`: serves until killed.
fn replica(addr: &str, through_rmcp: bool, workers: usize) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async move {
        let keys = SessionKeys::from_env()
            .expect("a valid CARNET_SESSION_KEY")
            .expect("CARNET_SESSION_KEY is set: the replicas share it");
        let mut server = Server::new(&carnet(ExposureMode::Dispatcher), "researcher")
            .expect("the agent")
            .session_keys(keys);
        if through_rmcp {
            server = server.through_rmcp_only();
        }
        let http = server.bind_http(addr).await.expect("binds loopback");
        println!("{}", http.url());
        http.run().await.expect("serves");
    });
}

/// Drives the endpoint at `url` (`http://HOST:PORT/mcp`) and prints its rows.
fn drive(url: &str, args: &[String]) {
    let clients = arg(args, "--clients", 32);
    let calls = arg(args, "--calls", 100);
    let lists = arg(args, "--lists", 50);
    let threads = arg(args, "--threads", 1);
    let label = text_arg(args, "--label").unwrap_or("endpoint").to_owned();
    let addr: SocketAddr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .expect("a URL http://IP:PORT/mcp");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async move {
        let work = async {
            run(4, 5, move || stateless_client(addr, 5)).await;
            let calls = run(clients, calls, move || stateless_client(addr, calls)).await;
            let lists = run(clients, lists, move || list_client(addr, lists)).await;
            for (kind, f) in [("tools/call", calls), ("tools/list", lists)] {
                println!(
                    "| {label} | {kind} | {clients} | {} | {:.0} µs | {:.0} µs | {:.0} req/s |",
                    f.requests,
                    f.p50.as_secs_f64() * 1e6,
                    f.p99.as_secs_f64() * 1e6,
                    f.throughput
                );
            }
        };
        tokio::time::timeout(Duration::from_secs(300), work)
            .await
            .expect("the load ends within 5 minutes");
    });
}

async fn measure(clients: usize, calls: usize, sessions: usize) {
    let dispatcher = carnet(ExposureMode::Dispatcher);
    let limits = HttpLimits::default().with_max_sessions(sessions + clients + 16);
    let server = Server::new(&dispatcher, "researcher")
        .expect("the agent")
        .session_keys(SessionKeys::random())
        .http_limits(limits.clone());
    let addr = serve(server.clone()).await;
    let through_rmcp = serve(server.through_rmcp_only()).await;

    // Warm up every path.
    run(4, 5, move || stateless_client(addr, 5)).await;
    run(4, 5, move || stateless_client(through_rmcp, 5)).await;
    run(4, 5, move || session_client(addr, 5)).await;

    println!("| protocol | clients × calls | requests | p50 | p99 | throughput |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for round in 0..2 {
        let modern = run(clients, calls, move || stateless_client(addr, calls)).await;
        let rmcp = run(clients, calls, move || stateless_client(through_rmcp, calls)).await;
        let legacy = run(clients, calls, move || session_client(addr, calls)).await;
        for (name, f) in [
            ("2026-07-28 (handle), direct", modern),
            ("2026-07-28 (handle), through rmcp", rmcp),
            ("2025-11-25 (session)", legacy),
        ] {
            println!(
                "| {name}{} | {clients} × {calls} | {} | {:.0} µs | {:.0} µs | {:.0} req/s |",
                if round == 1 { ", round 2" } else { "" },
                f.requests,
                f.p50.as_secs_f64() * 1e6,
                f.p99.as_secs_f64() * 1e6,
                f.throughput
            );
        }
    }

    // Memory: stateless conversations leave nothing behind on the server.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before_stateless = LIVE.load(Ordering::Relaxed);
    run(sessions / 10, 2, move || stateless_client(addr, 2)).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let stateless_left = LIVE.load(Ordering::Relaxed).saturating_sub(before_stateless);

    // Memory: 2025 sessions held open (each with a skill loaded), then let idle expiry end them.
    let idle = Duration::from_secs(2);
    let server = Server::new(&dispatcher, "researcher")
        .expect("the agent")
        .http_limits(limits.with_session_idle(idle));
    let addr = serve(server).await;
    let mut conn = Conn::open(addr).await;
    let _ = open_session(&mut conn).await; // warm
    tokio::time::sleep(idle * 2).await;
    let before = LIVE.load(Ordering::Relaxed);
    for i in 0..sessions {
        let session = open_session(&mut conn).await;
        let headers = [
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", "2025-11-25"),
        ];
        conn.post(
            &headers,
            &call_body(i, "loadSkill", json!({ "skillName": "dataAnalysis" }), None),
        )
        .await;
    }
    let held = LIVE.load(Ordering::Relaxed).saturating_sub(before);
    tokio::time::sleep(idle * 2 + Duration::from_millis(500)).await;
    let left = LIVE.load(Ordering::Relaxed).saturating_sub(before);
    let per_thousand = held as f64 / sessions as f64 * 1000.0;
    println!();
    println!("| memory | value |");
    println!("| --- | ---: |");
    println!(
        "| heap per 1,000 open 2025 sessions (one skill loaded) | {:.2} MiB |",
        per_thousand / 1_048_576.0
    );
    println!(
        "| heap still held {} s after they went idle (of {:.1} MiB) | {:.1} KiB |",
        (idle * 2).as_secs(),
        held as f64 / 1_048_576.0,
        left as f64 / 1024.0
    );
    println!(
        "| heap held after {} 2026-07-28 conversations ended (state in the client's handle) | {:.1} KiB |",
        sessions / 10,
        stateless_left as f64 / 1024.0
    );
}
