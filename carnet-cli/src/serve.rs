//! `carnet serve-mcp`: any carnet directory as an MCP server, with the meta-tools.

use carnet_runtime::mcp::Server;
use carnet_runtime::{Carnet, ExposureMode, Manifest};

use crate::Failure;
use crate::tools::Mode;

/// Serves `agent` over stdio, or over streamable HTTP at `http` (a loopback address), until
/// the client disconnects (stdio) or the process is interrupted (HTTP).
///
/// Content read at run time has no Rust functions behind its domain tools: they are listed
/// and can be loaded, but calling one returns an error result saying so. Skills, toolsets,
/// tools and skill files load as usual.
pub(crate) fn run(
    manifest: &Manifest,
    agent: &str,
    mode: Mode,
    http: Option<&str>,
    vars: &[(String, String)],
) -> Result<(), Failure> {
    let mode = ExposureMode::from(mode);
    let carnet = Carnet::builder(manifest)
        .allow_unimplemented()
        .variables(vars.iter().cloned())
        .mode(mode)
        .build()
        .map_err(|e| Failure::content(format!("error: {e}")))?;
    let server = Server::new(&carnet, agent)
        .map_err(|_| crate::unknown("agent", agent, manifest.agents.iter().map(|a| &a.name)))?
        .named("carnet", env!("CARGO_PKG_VERSION"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::content(format!("error: cannot start the async runtime: {e}")))?;
    let note = "domain tools have no Rust implementation here: they can be loaded, and calling one \
                returns an error result; bind them with `#[carnet::toolset]` and `carnet::mcp` to run them";
    let outcome = runtime.block_on(async {
        match http {
            // stdout is the protocol's channel: everything else goes to stderr.
            None => {
                eprintln!("carnet: serving agent `{agent}` over MCP on stdio ({mode:?} mode); {note}");
                server.serve_stdio().await
            }
            Some(addr) => {
                let http = server.bind_http(addr).await?;
                outln!("{}", http.url());
                eprintln!(
                    "carnet: serving agent `{agent}` over MCP at {} ({mode:?} mode); {note}",
                    http.url()
                );
                http.run_until(async {
                    let _ = tokio::signal::ctrl_c().await;
                })
                .await
            }
        }
    });
    // Returning ends the process even while a client's stream is still open.
    runtime.shutdown_background();
    // An address that is not loopback, or taken, is the user's to change.
    outcome.map_err(|e| Failure::usage(format!("error: {e}")))
}
