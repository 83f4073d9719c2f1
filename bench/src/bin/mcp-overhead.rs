//! What serving over MCP adds to a call: the same requests made directly on a `Session` and
//! as JSON-RPC lines through `carnet::mcp::Server::serve` (the stdio framing, over an
//! in-memory pipe), side by side in one run, on a 100-skill catalog. Prints medians of
//! rounds in microseconds and their ratio, as JSON lines.
//!
//! Usage: `mcp-overhead [requests per round, default 2000]`

use std::time::Instant;

use carnet_runtime::mcp::Server;
use carnet_runtime::{Carnet, Session};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

const ROUNDS: usize = 7;

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// A JSON-RPC client on one end of an in-memory pipe whose other end `server` serves.
struct Client {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    read: BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
    next_id: u64,
    line: String,
}

impl Client {
    async fn connect(server: &Server) -> Client {
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(theirs);
        let server = server.clone();
        tokio::spawn(async move { server.serve(read, write).await });
        let (read, write) = tokio::io::split(ours);
        let mut client = Client {
            write,
            read: BufReader::new(read),
            next_id: 0,
            line: String::new(),
        };
        client
            .request(
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}),
            )
            .await;
        client
            .write
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
            .await
            .expect("the pipe is open");
        client
    }

    /// One request; returns the length of the response line (so nothing is optimised away).
    async fn request(&mut self, method: &str, params: Value) -> usize {
        self.next_id += 1;
        let mut line =
            serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}))
                .expect("JSON serialises");
        line.push(b'\n');
        self.write.write_all(&line).await.expect("the pipe is open");
        self.line.clear();
        self.read.read_line(&mut self.line).await.expect("the pipe is open");
        self.line.len()
    }
}

fn time_direct(session: &mut Session, requests: usize, call: bool) -> f64 {
    let mut bytes = Vec::new();
    let start = Instant::now();
    let mut sink = 0;
    for _ in 0..requests {
        if call {
            let output = carnet_runtime::block_on(session.call("listAvailableSkills", json!({"query": "skill-00042"})));
            sink += output.to_text().len();
        } else {
            // The list as bytes, as fast as carnet writes it in process (each tool's bytes kept).
            bytes.clear();
            carnet_runtime::providers::mcp::write_tools(session.tools(), &mut bytes).expect("renders");
            sink += bytes.len();
        }
    }
    std::hint::black_box(sink);
    start.elapsed().as_secs_f64() * 1e6 / requests as f64
}

async fn time_mcp(client: &mut Client, requests: usize, call: bool) -> f64 {
    let start = Instant::now();
    let mut sink = 0;
    for _ in 0..requests {
        sink += if call {
            client
                .request(
                    "tools/call",
                    json!({"name": "listAvailableSkills", "arguments": {"query": "skill-00042"}}),
                )
                .await
        } else {
            client.request("tools/list", json!({})).await
        };
    }
    std::hint::black_box(sink);
    start.elapsed().as_secs_f64() * 1e6 / requests as f64
}

fn main() {
    let requests: usize = std::env::args().nth(1).map_or(2000, |n| n.parse().expect("a number"));
    let manifest = carnet_bench::catalog(100);
    let carnet = Carnet::builder(&manifest)
        .allow_unimplemented()
        .build()
        .expect("builds");
    let server = Server::new(&carnet, "agent").expect("the agent exists");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut client = runtime.block_on(Client::connect(&server));
    let mut session = carnet.session("agent").expect("the agent exists");
    for (name, call) in [("tools/call listAvailableSkills", true), ("tools/list", false)] {
        let (mut direct, mut mcp) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            direct.push(time_direct(&mut session, requests, call));
            mcp.push(runtime.block_on(time_mcp(&mut client, requests, call)));
        }
        let (direct, mcp) = (median(direct), median(mcp));
        println!(
            "{{\"request\": \"{name}\", \"directMicros\": {direct:.2}, \"mcpMicros\": {mcp:.2}, \"ratio\": {:.1}}}",
            mcp / direct
        );
    }
}
