//! A carnet agent as a [Model Context Protocol](https://modelcontextprotocol.io) server
//! (feature `mcp` for stdio and any byte stream, `mcp-http` for streamable HTTP besides).
//!
//! Over a byte stream ([`Server::serve`], [`Server::serve_stdio`]) carnet speaks JSON-RPC
//! itself: the feature `mcp` needs no MCP SDK. `mcp-http` serves HTTP through
//! [rmcp](https://crates.io/crates/rmcp) 3.9 and gives rmcp's `ServerHandler` for a connection
//! (`Connection`, for rmcp's other transports); to name the rmcp types it takes or gives
//! (`Connection`, `Server::http_service`'s config), depend on `rmcp = "3.9"` too.
//!
//! [`Server`] serves one agent of a [`Carnet`](crate::Carnet); every MCP connection gets its own
//! [`Session`](crate::Session), so what one client loads is invisible to the others.
//!
//! | MCP | carnet |
//! | --- | --- |
//! | `tools/list` | the session's tools ([`Session::tools`](crate::Session::tools)), names as [`providers::mcp`](crate::providers::mcp) writes them |
//! | `tools/call` | [`Session::call`](crate::Session::call): bad arguments, unknown or unexposed tools and tool failures are results with `isError: true` the model can read; domain calls run side by side ([`Session::call_detached`](crate::Session::call_detached)) |
//! | `notifications/tools/list_changed` | sent after a call changed the tool list ([`ExposureMode::Dynamic`](crate::ExposureMode::Dynamic) only) |
//! | `prompts/list`, `prompts/get` | the agent's system prompt, as it stands for this connection; the manifest's variables are the prompt's optional arguments |
//! | `resources/list`, `resources/read` | every skill the agent can reach: its `SKILL.md` and its files (`skill://<skill>/<path>`), binary files as blobs |
//! | `skills/list`, `skills/get` | the same skills through the Skills extension (SEP-2640), each file with its size and `sha256` digest |
//! | `completion/complete` | values for the prompt's arguments: the engine's value of the variable and its default (capability `completions`) |
//! | `resources/subscribe`, `resources/unsubscribe` | with remote MCP toolsets in the manifest (feature `remote`), the resources of the servers in reach of the session, subscribed to at their server; `notifications/resources/updated` from a server reaches only the sessions subscribed to the URI, and a session's subscriptions end with it (carnet's own resources never change: subscribing succeeds and nothing is sent) |
//! | `notifications/resources/list_changed`, `notifications/prompts/list_changed` | with remote MCP toolsets: sent when a call changed the remote toolsets in reach (their servers' resources and prompts join or leave the lists), and when a server in reach of the session sends one (see `docs/mcp-gateway.md`) |
//! | `initialize` | the agent's initial system prompt as the server's `instructions`; `serverInfo` names the agent and its version (its frontmatter's `version`, else the content's fingerprint) |
//! | `GET /.well-known/agent-card.json` | the agent as an A2A 1.0 `AgentCard` ([`agent_card`]) |
//!
//! Every list is whole, on one page: a request with a `cursor` is refused (`-32602`), since
//! this server never gave one. `tools/list` items carry hints for hosts that defer tools behind
//! a search of their own: `_meta` `anthropic/alwaysLoad` on the meta-tools (a host must not
//! hide `loadSkill`), `anthropic/searchHint` on domain tools (from the skills that bring
//! them; see `docs/mcp-gateway.md`).
//!
//! Over stdio, stdout is the protocol's channel: tools must not print to it (write logs to
//! stderr), or the client reads a line that is no message.
//!
//! # Which exposure mode for which host
//!
//! - [`ExposureMode::Dynamic`](crate::ExposureMode::Dynamic) (the default): loading a skill adds its tools to `tools/list`
//!   and the server sends `notifications/tools/list_changed`. Use it with hosts that refetch
//!   the list on that notification (Claude Code, Claude Desktop, VS Code, the official SDKs'
//!   clients): the model then calls domain tools directly, with their real schemas.
//! - [`ExposureMode::Dispatcher`](crate::ExposureMode::Dispatcher): `tools/list` never changes — the meta-tools and `callTool
//!   {name, arguments}` — and loaded tools' schemas arrive in `loadSkill` / `loadToolset`
//!   results. Use it with hosts that read the list once and cache it, with hosts that ignore
//!   `list_changed`, or wherever a fixed list keeps a provider's prompt cache warm.
//!
//! # Protocol versions
//!
//! The revisions with an `initialize` handshake and sessions (`2024-11-05`, `2025-06-18`,
//! `2025-11-25`) are served in every mode: a carnet session lives as long as the MCP session
//! (the process over stdio; the `Mcp-Session-Id` over HTTP, in one process).
//!
//! The stateless revision, `2026-07-28`, removed sessions and says `tools/list` "MUST NOT vary
//! ... as a side effect of other requests", so it is offered in [`ExposureMode::Dispatcher`](crate::ExposureMode::Dispatcher)
//! only (dynamic tool lists change as a side effect of calls), over stdio and HTTP alike:
//!
//! - `initialize` is not a method of this revision: one carrying its `_meta` is answered
//!   `-32601` (over HTTP with status 404, as any unknown method), naming the revisions that
//!   have it; without that `_meta`, it opens a session at a 2025 revision as before;
//! - every result carries `resultType: "complete"`, and lists their caching hints;
//! - `tools/list` is the same for every request: the meta-tools and `callTool`, each taking an
//!   optional `session` argument;
//! - the conversation's [`SessionState`](crate::SessionState) travels as a **sealed handle**:
//!   every call that changes it returns the new handle as `"session"` in its result (text and
//!   `structuredContent`), and the client passes it back as the `session` argument of the next
//!   call. The handle is authenticated with HMAC-SHA-256 under [`SessionKeys`] (format in
//!   [`SessionKeys`]' module: agent, manifest fingerprint, expiry and key id are bound); one
//!   that is forged, expired, or made for another agent or manifest is refused with an error
//!   result whose `code` says which (`session_forged`, `session_expired`, ...);
//! - without a handle, a call starts from the agent's initial skills over HTTP (so a domain
//!   tool of a skill not loaded is refused like any other), and continues the connection's
//!   session over a byte stream, where the process is the conversation.
//!
//! Replicas that share the key ([`SessionKeys::from_env`], `CARNET_SESSION_KEY`) serve each
//! other's conversations with no shared store; a restart loses nothing. Sessions of the 2025
//! revisions stay in the process that opened them: route them by `Mcp-Session-Id` (sticky
//! sessions).
//!
//! Over HTTP ([`Server::bind_http`]), the stateless revision's `tools/list` and `tools/call`
//! are answered by carnet itself with the bytes rmcp would send (one SSE event, sent whole
//! with a `Content-Length`): the list serialized once per server, a call's result written
//! straight into the answer, without rmcp's per-request task, channels and message parse.
//! Any other request, and any of these that is not the plain case (an `Mcp-Param-*` or
//! `Origin` header, headers that disagree with the body, fields rmcp reads that carnet does
//! not), is rmcp's to serve or refuse.
//!
//! # HTTP limits
//!
//! With the feature `mcp-http`, [`Server::bind_http`] cuts off a client that sends its
//! headers too slowly ([`HttpLimits::header_timeout`]) and answers 408 to one whose body is too slow
//! ([`HttpLimits::body_timeout`]); holds at most [`HttpLimits::max_sessions`] 2025 sessions
//! (503 beyond) and ends those idle for [`HttpLimits::session_idle`], freeing their memory;
//! refuses (403) requests whose `Origin` is not in [`HttpLimits::allowed_origins`] (loopback
//! by default, as the transport spec asks against DNS rebinding), with CORS for browser
//! clients opt-in ([`HttpLimits::cors`]); answers `DELETE` of an unknown session with 404; and
//! serves the agent's A2A 1.0 card ([`agent_card`]) at [`AGENT_CARD_PATH`].
//!
//! # Notifications over HTTP
//!
//! On stdio, `notifications/tools/list_changed` is written before the `tools/call` result that
//! caused it. Over streamable HTTP, rmcp sends notifications that answer no request on the
//! session's standalone GET stream, as the transport allows: clients that open it (the
//! official SDKs do, right after `initialize`) receive it there, and it is kept until they do.
//!
//! # Malformed input
//!
//! Over stdio ([`Server::serve_stdio`], [`Server::serve`]) a line that is not JSON gets a
//! JSON-RPC parse error (`-32700`, `"id": null`), JSON that is not a JSON-RPC message an
//! invalid request (`-32600`, with its id when it has one), and a line longer than
//! [`Server::max_message_bytes`] an invalid request naming the limit; notifications and
//! responses that cannot be read are ignored, as JSON-RPC asks. Over HTTP
//! ([`Server::bind_http`]) those three come back as the response body, with status 400 or
//! 413, and paths other than `/mcp` are 404. On both, a method this server serves with params
//! it cannot read is an invalid-params error (`-32602`) saying what is wrong, and an unknown
//! method `-32601`. In every case the connection keeps being served.
//!
//! Over stdio, one connection runs at most 256 requests at once: one more is answered with an
//! error (`-32603`) until an answer goes out, and the input is still read meanwhile, so a
//! `notifications/cancelled` always gets through (a cancelled request gets no answer). A
//! request reusing the id of one still running is an invalid request (`-32600`). A
//! notification sent before `initialize` is ignored.
//!
//! # Examples
//!
//! ```no_run
//! # async fn serve(manifest: &carnet_runtime::Manifest) -> std::io::Result<()> {
//! use carnet_runtime::{Carnet, mcp::Server};
//!
//! let carnet = Carnet::builder(manifest).allow_unimplemented().build().expect("valid content");
//! let server = Server::new(&carnet, "researcher").expect("the agent exists");
//! // stdio, for hosts that start the server as a child process:
//! server.serve_stdio().await?;
//! // or, with the feature `mcp-http`, streamable HTTP on a loopback address, one session
//! // per client:
//! # #[cfg(feature = "mcp-http")] {
//! let http = server.bind_http("127.0.0.1:8080").await?;
//! println!("MCP endpoint: {}", http.url());
//! http.run().await?;
//! # }
//! # Ok(())
//! # }
//! ```

// These docs link to the HTTP server, which only the feature `mcp-http` brings (docs.rs
// builds with every feature).
#![cfg_attr(not(feature = "mcp-http"), allow(rustdoc::broken_intra_doc_links))]

pub(crate) mod card;
mod completion;
#[cfg(feature = "mcp-http")]
mod connection;
#[cfg(feature = "mcp-http")]
mod direct;
mod handle;
mod hints;
mod incoming;
// Its hosts are read by the upstream client of `remote` only.
#[cfg_attr(
    not(feature = "remote"),
    allow(dead_code, reason = "nothing relays without `remote`")
)]
mod host;
#[cfg(feature = "mcp-http")]
mod http;
#[cfg(feature = "mcp-http")]
mod limits;
mod lines;
mod listener;
mod messages;
mod methods;
mod passthrough;
mod resources;
mod rpc;
mod server;
mod shared;
mod stdio;
mod waiting;

pub use card::{A2A_PROTOCOL_VERSION, agent_card};
#[cfg(feature = "mcp-http")]
pub use connection::Connection;
pub use handle::{DEFAULT_HANDLE_TTL, KeyError, MIN_KEY_BYTES, PREVIOUS_SESSION_KEY_ENV, SESSION_KEY_ENV, SessionKeys};
#[cfg(feature = "mcp-http")]
pub use http::{AGENT_CARD_PATH, HttpServer};
#[cfg(feature = "mcp-http")]
pub use limits::HttpLimits;
pub use resources::SKILL_URI_SCHEME;
pub use server::Server;
pub use shared::DEFAULT_MAX_MESSAGE_BYTES;
pub use waiting::InputWait;
