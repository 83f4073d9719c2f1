//! MCP JSON-RPC over the stdio framing: after a valid `initialize`, the input's lines are
//! sent as they are; the server answers or refuses each, never panics, and the connection
//! ends when the input does.
#![no_main]

use std::sync::OnceLock;

use carnet_runtime::mcp::Server;
use carnet_runtime::{Carnet, Manifest};

const MANIFEST: &str = r#"{
  "agents": {"helper": {"name": "helper", "description": "Helps", "skills": ["math"], "prompt": "You help {{ USER }}."}},
  "skills": {"math": {"name": "math", "description": "Arithmetic", "toolsets": ["ops"], "content": "Use `add`."}},
  "toolsets": {"ops": {"name": "ops", "description": "Operations", "content": "",
                       "tools": [{"name": "add", "description": "Adds two integers"}]}}
}"#;

const HANDSHAKE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n"
);

fn server() -> &'static (tokio::runtime::Runtime, Server) {
    static SERVER: OnceLock<(tokio::runtime::Runtime, Server)> = OnceLock::new();
    SERVER.get_or_init(|| {
        let manifest: &'static Manifest = Box::leak(Box::new(Manifest::from_json(MANIFEST).expect("the manifest parses")));
        let carnet = Carnet::builder(manifest).allow_unimplemented().build().expect("the carnet builds");
        let server = Server::new(&carnet, "helper").expect("the agent exists");
        // Paused time: at the end of the input the server waits (up to a minute) for the
        // requests still running; paused, the clock jumps ahead when every task is idle, so
        // each input runs in microseconds.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .expect("a runtime");
        (runtime, server)
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (runtime, server) = server();
    let mut input = HANDSHAKE.as_bytes().to_vec();
    input.extend_from_slice(data);
    input.push(b'\n');
    runtime.block_on(async {
        let read = std::io::Cursor::new(input);
        let _ = server.serve(read, tokio::io::sink()).await;
    });
});
