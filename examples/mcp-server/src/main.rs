//! The research agent as an MCP server: its skills, toolsets and eleven real tools, served
//! over stdio (the default) or streamable HTTP on a loopback address.
//!
//! ```text
//! mcp-server [--agent NAME] [--mode dynamic|dispatcher] [--http ADDR] [--public-url URL]
//! ```
//!
//! Replicas: start several with `--mode dispatcher --http ...` and the same
//! `CARNET_SESSION_KEY` (at least 32 bytes; `CARNET_SESSION_KEY_PREVIOUS` during a rotation)
//! behind a load balancer; `--public-url` is the balancer's endpoint, named by the agent card
//! at `/.well-known/agent-card.json`.
//!
//! With `--http`, the first line on stdout is the endpoint's URL (bind port 0 to get a free
//! one). Whoever connects drives the tools, so a [`Hook`] refuses `visualizeData`'s `path`
//! argument (it writes a file where it is told): charts come back inline only. A host such as
//! Claude Desktop starts the server as a child process:
//!
//! ```json
//! { "mcpServers": { "research": { "command": "/path/to/mcp-server" } } }
//! ```

use std::process::ExitCode;

use carnet::Carnet;
use carnet::engine::ExposureMode;
use carnet::mcp::{Server, SessionKeys};
use carnet::tools::{Before, CallInfo, Hook};
use research_agent::manifest::{MANIFEST, agents};
use research_agent::tools;

const USAGE: &str = "usage: mcp-server [--agent NAME] [--mode dynamic|dispatcher] [--http ADDR] [--public-url URL]";

struct Options {
    agent: String,
    mode: ExposureMode,
    http: Option<String>,
    public_url: Option<String>,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        agent: agents::RESEARCHER.to_string(),
        mode: ExposureMode::Dynamic,
        http: None,
        public_url: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("`{arg}` needs a value\n{USAGE}"));
        match arg.as_str() {
            "--agent" => options.agent = value()?,
            "--http" => options.http = Some(value()?),
            "--public-url" => options.public_url = Some(value()?),
            "--mode" => {
                options.mode = match value()?.as_str() {
                    "dynamic" => ExposureMode::Dynamic,
                    "dispatcher" => ExposureMode::Dispatcher,
                    other => return Err(format!("unknown mode `{other}`: dynamic or dispatcher\n{USAGE}")),
                }
            }
            "-h" | "--help" => return Err(USAGE.to_owned()),
            other => return Err(format!("unexpected argument `{other}`\n{USAGE}")),
        }
    }
    Ok(options)
}

/// Refuses calls that would write files: an MCP client is not trusted with the file system.
struct NoFileWrites;

impl Hook for NoFileWrites {
    fn before(&self, call: &CallInfo<'_>) -> Before {
        if call.tool == "visualizeData" && call.arguments.get("path").is_some_and(|p| !p.is_null()) {
            Before::Deny("this server does not write files: call `visualizeData` without `path`".to_owned())
        } else {
            Before::Continue
        }
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let carnet = Carnet::new(&MANIFEST, tools::toolsets())
        .hook(NoFileWrites)
        .mode(options.mode)
        .build()
        .expect("every toolset is bound");
    let mut server = match Server::new(&carnet, &options.agent) {
        Ok(server) => server.named("research-agent", env!("CARGO_PKG_VERSION")),
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    match SessionKeys::from_env() {
        Ok(Some(keys)) => server = server.session_keys(keys),
        Ok(None) => {}
        Err(e) => {
            eprintln!("mcp-server: CARNET_SESSION_KEY: {e}");
            return ExitCode::from(2);
        }
    }
    let outcome = match options.http {
        None => server.serve_stdio().await,
        Some(addr) => match server.bind_http(addr).await {
            Ok(mut http) => {
                println!("{}", http.url());
                if let Some(url) = options.public_url {
                    http = http.public_url(url);
                }
                http.run_until(async {
                    let _ = tokio::signal::ctrl_c().await;
                })
                .await
            }
            Err(e) => Err(e),
        },
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-server: {e}");
            ExitCode::FAILURE
        }
    }
}
