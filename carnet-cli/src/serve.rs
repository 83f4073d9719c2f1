//! `carnet serve-mcp`: any carnet directory as an MCP server, with the meta-tools; `carnet
//! card`: the A2A agent card it serves.
//!
//! Replicas: run several `serve-mcp --http --mode dispatcher` processes with the same
//! `CARNET_SESSION_KEY` behind a load balancer; a `2026-07-28` conversation travels as its
//! sealed `session` handle and any replica serves it. Sessions of the 2025 revisions live in
//! one process: route them by `Mcp-Session-Id` (sticky sessions, see the README).

use std::time::Duration;

use carnet_runtime::mcp::{HttpLimits, InputWait, SESSION_KEY_ENV, Server, SessionKeys};
use carnet_runtime::{Carnet, ExposureMode, Manifest};

use crate::Failure;
use crate::tools::Mode;
use crate::unseen::{Source, Unseen};

/// Serves `agent` over stdio, or over streamable HTTP at `http` (a loopback address), until
/// the client disconnects (stdio) or the process is interrupted (HTTP).
///
/// Content read at run time has no Rust functions behind its domain tools: they are listed
/// and can be loaded, but calling one returns an error result saying so (and stderr says it
/// when the server starts, with the command serving them from the author's program).
/// Skills, toolsets, tools and skill files load as usual.
// One parameter per flag of `carnet serve-mcp`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    manifest: &Manifest,
    dir: Option<&std::path::Path>,
    agent: &str,
    mode: Mode,
    preset: crate::tools::PresetArg,
    http: Option<&str>,
    vars: &[(String, String)],
    options: &HttpOptions,
) -> Result<(), Failure> {
    // Built with `--features otel` and given `OTEL_EXPORTER_OTLP_ENDPOINT`: the tool calls'
    // spans go to that collector, flushed when the server stops.
    #[cfg(feature = "otel")]
    let _otel = carnet_runtime::telemetry::otlp::init_from_env("carnet-serve-mcp")
        .map_err(|e| Failure::usage(format!("error: {e}")))?;
    let mode = ExposureMode::from(mode);
    let carnet = Carnet::builder(manifest)
        .allow_unimplemented()
        .variables(vars.iter().cloned())
        .mode(mode)
        .preset(preset.into())
        .build()
        .map_err(|e| Failure::content(format!("error: {e}")))?;
    if let Some(a) = manifest.agent(agent) {
        let unseen = Unseen::reachable(manifest, Source::Markdown(dir), a);
        let mut args = vec!["serve-mcp", agent];
        if let Some(http) = http {
            args.extend(["--http", http]);
        }
        unseen.warn(
            "this server lists them with the schema `{\"type\": \"object\", \"additionalProperties\": true}`, \
             and calling one returns an error result",
            &unseen.command(&args),
        );
    }
    let note = "remote toolsets' tools are called on their MCP servers; tools implemented in Rust can be \
                loaded, not run";
    serve_on(&carnet, agent, http, options, note)
}

/// Serves `agent` of `carnet` as [`run`] does, `note` said on stderr when it starts.
pub(crate) fn serve_on(
    carnet: &Carnet,
    agent: &str,
    http: Option<&str>,
    options: &HttpOptions,
    note: &str,
) -> Result<(), Failure> {
    let manifest = carnet.manifest();
    let mode = carnet.mode();
    let mode_name = mode.name();
    let keys = SessionKeys::from_env().map_err(|e| Failure::usage(format!("error: {SESSION_KEY_ENV}: {e}")))?;
    let shared_key = keys.is_some();
    let mut server = Server::new(carnet, agent)
        .map_err(|_| crate::unknown("agent", agent, manifest.agents.iter().map(|a| &a.name)))?
        .http_limits(options.limits())
        .input_wait(options.input_wait());
    if let Some(keys) = keys {
        server = server.session_keys(keys);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::content(format!("error: cannot start the async runtime: {e}")))?;
    let outcome = runtime.block_on(async {
        match http {
            // stdout is the protocol's channel: everything else goes to stderr.
            None => {
                eprintln!("carnet: serving agent `{agent}` over MCP on stdio ({mode_name} mode); {note}");
                server.serve_stdio().await
            }
            Some(addr) => {
                let mut http = server.bind_http(addr).await?;
                if let Some(url) = &options.public_url {
                    http = http.public_url(url);
                }
                if !shared_key && mode == ExposureMode::Dispatcher {
                    eprintln!(
                        "carnet: {SESSION_KEY_ENV} is not set: session handles are sealed with a key of this \
                         process, so other replicas and a restart cannot open them"
                    );
                }
                outln!("{}", http.url());
                eprintln!(
                    "carnet: serving agent `{agent}` over MCP at {} ({mode_name} mode); {note}",
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

/// The options of `serve-mcp --http`.
#[derive(Debug, clap::Args)]
pub(crate) struct HttpOptions {
    /// The endpoint URL the agent card names, when clients reach it elsewhere (a load
    /// balancer in front of replicas); default: the bound address.
    #[arg(long, value_name = "URL")]
    public_url: Option<String>,
    /// A browser origin allowed to call the endpoint (repeatable; `scheme://host[:port]`,
    /// `:*` for any port); default: `localhost`, `127.0.0.1` and `[::1]` on any port.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origins: Vec<String>,
    /// Answer CORS preflights for the allowed origins (browser clients).
    #[arg(long)]
    cors: bool,
    /// Sessions of the 2025 revisions held at once.
    #[arg(long, value_name = "N", default_value_t = HttpLimits::default().max_sessions)]
    max_sessions: usize,
    /// Seconds after which an unused session of the 2025 revisions ends.
    #[arg(long, value_name = "SECS", default_value_t = HttpLimits::default().session_idle.as_secs())]
    session_idle: u64,
    /// Calls of the stateless revision (2026-07-28) waiting at once for their client's input
    /// (a remote toolset's server asking for elicitation or sampling during a call).
    #[arg(long, value_name = "N", default_value_t = InputWait::default().max_calls)]
    max_waiting_calls: usize,
    /// Seconds a call of the stateless revision waits for its client's input before it is
    /// stopped.
    #[arg(long, value_name = "SECS", default_value_t = InputWait::default().wait.as_secs())]
    input_wait: u64,
}

impl HttpOptions {
    fn limits(&self) -> HttpLimits {
        let mut limits = HttpLimits::default()
            .with_cors(self.cors)
            .with_max_sessions(self.max_sessions)
            .with_session_idle(Duration::from_secs(self.session_idle));
        if !self.allow_origins.is_empty() {
            limits = limits.with_allowed_origins(self.allow_origins.iter().cloned());
        }
        limits
    }

    fn input_wait(&self) -> InputWait {
        InputWait::default()
            .with_max_calls(self.max_waiting_calls)
            .with_wait(Duration::from_secs(self.input_wait))
    }
}

/// Prints the A2A agent card of `agent` naming the endpoint `url`.
pub(crate) fn card(manifest: &Manifest, agent: &str, url: &str) -> Result<(), Failure> {
    let card = carnet_runtime::mcp::agent_card(manifest, agent, url, env!("CARGO_PKG_VERSION"))
        .ok_or_else(|| crate::unknown("agent", agent, manifest.agents.iter().map(|a| &a.name)))?;
    outln!(
        "{}",
        serde_json::to_string_pretty(&card).expect("JSON values serialise")
    );
    Ok(())
}
