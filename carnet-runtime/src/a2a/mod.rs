//! Any carnet agent as an [A2A](https://a2a-protocol.org) 1.0 agent (feature `a2a`): agents
//! in other stacks (Google ADK, `LangGraph`, the official SDKs) send it messages and get
//! tasks back.
//!
//! ```no_run
//! # async fn serve(carnet: carnet_runtime::Carnet) -> std::io::Result<()> {
//! use carnet_runtime::a2a::{Limits, Server};
//! use carnet_runtime::chat::ChatModel;
//! # fn my_model() -> Box<dyn ChatModel> { unimplemented!() }
//!
//! // One model per A2A context (a client from the environment, say).
//! let server = Server::new(&carnet, "researcher", |_context| Ok(my_model()))
//!     .expect("the agent exists")
//!     .limits(Limits::default().with_max_contexts(100));
//! let http = server.bind("127.0.0.1:8080").await?;
//! println!("card at {}/.well-known/agent-card.json", http.url());
//! http.run().await
//! # }
//! ```
//!
//! # What is served
//!
//! | request | answer |
//! | --- | --- |
//! | `GET /.well-known/agent-card.json` | the [`agent_card`]: both bindings at the server's URL, `streaming: true`, the agent's skills |
//! | `POST /` (JSON-RPC) | `SendMessage`, `SendStreamingMessage` (SSE), `GetTask`, `ListTasks`, `CancelTask`, `SubscribeToTask` (SSE) |
//! | `POST /message:send`, `POST /message:stream`, `GET /tasks/{id}`, `GET /tasks`, `POST /tasks/{id}:cancel`, `POST /tasks/{id}:subscribe` | the same, in the HTTP+JSON binding |
//!
//! - **Conversations.** Each A2A `contextId` is one carnet [`Session`](crate::Session) with
//!   its messages and its model: a skill the first message loaded is still loaded for the
//!   second. Messages of one context run one after the other.
//! - **Tasks.** Each message is a task: `TASK_STATE_SUBMITTED`, `WORKING` (one status
//!   update per model step that called tools, the calls in `metadata.carnet.calls`: name,
//!   arguments, `isError`, and for a load the tools it exposed), then `COMPLETED` (the answer
//!   as an artifact named `answer` and as the status message), `INPUT_REQUIRED` (the step
//!   limit came first: a message with the task's `taskId` goes on), `FAILED` (the model's
//!   error, or the task timeout) or `CANCELED`. The task's `metadata.carnet.loadedSkills`
//!   lists the session's skills at its end. A task that fails or is canceled leaves the
//!   conversation as it was before its message (skills it loaded stay loaded).
//! - **Cancellation.** `CancelTask` drops the model call and every tool call in flight;
//!   tools see their [`Cancellation`](crate::Cancellation) fire.
//! - **Versions.** `A2A-Version: 1.x` is served; a request without the header is A2A 0.3
//!   (§3.6), answered with `VersionNotSupportedError` (-32009), as the reference SDKs do.
//! - **Errors.** Every A2A error where it applies: `TaskNotFoundError` (-32001),
//!   `TaskNotCancelableError` (-32002, a finished task), `PushNotificationNotSupportedError`
//!   (-32003, the push-config methods: the card does not declare them),
//!   `UnsupportedOperationError` (-32004: a message or subscription to a finished task;
//!   `GetExtendedAgentCard`, which the card does not declare either),
//!   `ContentTypeNotSupportedError` (-32005: file parts, or `acceptedOutputModes` without
//!   text), and JSON-RPC's own (-32700, -32600, -32601, -32602). The HTTP+JSON binding sends
//!   them as `google.rpc.Status` bodies whose `ErrorInfo` carries the A2A reason.
//! - **Bounds** ([`Limits`]): request bodies (1 MiB) and message text (100,000 characters),
//!   header and body time limits (slow clients cut off), tasks held (10,000; finished ones
//!   kept an hour), conversations held (1,000, of at most 2,000 chat messages each; ended
//!   after 30 idle minutes), a time limit per message (10 min) and a step limit (12 model
//!   calls), an `Origin` allow-list (loopback by default; CORS for those origins on
//!   request). The server binds loopback addresses only: it has no authentication of its
//!   own. A request refused for now (the task store full or, shared, out of reach; every
//!   conversation it may hold busy) is one a client can retry: `503 Service Unavailable`
//!   with `Retry-After: 5` and the status `UNAVAILABLE` over HTTP+JSON, and over JSON-RPC an
//!   internal error (-32603) whose `data` carries a `google.rpc.RetryInfo` (`retryDelay: 5s`).
//! - **Secrets.** A failed task says what failed, never a remote toolset's resolved URL or
//!   headers: its tools name their server as written (`${VAR}` unresolved), so a model
//!   quoting them or failing on them shows the client no secret.
//! - **Tasks are kept** in a [`TaskStore`]: [`MemoryStore`] by default; what runs a task
//!   (its conversation, model call and events) stays in the process that runs it.
//!
//! # Several replicas
//!
//! Replicas behind a load balancer share a `RedisStore` (feature `a2a-redis`, whose docs
//! have the example; `carnet serve-a2a --store redis://HOST:PORT`), and then any replica
//! answers any request of any task or context:
//!
//! - **Tasks**, their history and artifacts are in Redis: `GetTask` and `ListTasks` (its
//!   filters and pages as in one process) read them through any replica.
//! - **Events** of a running task go through a Redis stream: `SubscribeToTask` on another
//!   replica sends the task, then every status and artifact update of the run, then its end.
//! - **`CancelTask`** through another replica is read by the running one within a second
//!   (at its lease renewal): it stops the model call and tools as a local cancel does, and
//!   the answer is the canceled task.
//! - **A replica that dies** mid-task stops renewing its lease on the task (10 s by
//!   default, renewed every second); once the lease lapses, the first read (`GetTask`,
//!   `ListTasks`, a subscriber's check) or the sweeper every other replica runs every 5 s,
//!   whichever comes first, makes the task `TASK_STATE_FAILED`, its message naming the lost
//!   replica, atomically (a Lua compare-and-set: a task that finished meanwhile stays
//!   finished), so a task is never left `working`. The client sends the message again.
//! - **Conversations** follow their context: after each message the session's state and
//!   the chat messages ([`Transcript`](crate::chat::Transcript)) are saved, versioned, and
//!   the replica that gets the context's next message resumes them when its own copy is
//!   older, so skills loaded on one replica are loaded on the next. Two messages of one
//!   context sent at the same moment to two replicas run side by side, the later end
//!   winning; send a context's messages one after the other (as A2A clients do) or pin
//!   contexts to replicas in the balancer.
//!
//! Redis is reached with a RESP2 client written here (no new crate: the `redis` crate with
//! only `tokio-comp` costs 24 s of CPU to build, `url` and its IDNA tables included), every
//! exchange bounded in time (5 s) and every reply in size; a Redis that hangs, closes or
//! answers garbage is an internal error naming it, never a hang.
//!
//! # Why the A2A project's `a2a-lf` types
//!
//! The wire types ([`types`]: `Task`, `Message`, `Part`, `StreamResponse`, `A2AError`, the
//! JSON-RPC envelope) are those of `a2a-lf`, the official Rust SDK's types crate, not
//! written here: they are kept in step with the specification by the A2A project and
//! checked against its other SDKs, and they are only types (serde, chrono, uuid, base64,
//! thiserror). Measured on a 2-core machine (cold, `line-tables-only`), `a2a` over `mcp`
//! adds 13.5 s of build (13.8 s of CPU): about 8 s for the types and what they bring
//! (`a2a-lf` 1.7 s, chrono 2.1 s, thiserror's derive 1.5 s, num-traits, base64 0.23,
//! uuid, iana-time-zone), 4 s for hyper's server (shared with `mcp-http`), the rest this
//! module. A program that builds `mcp-http` or `remote` already has chrono and uuid (rmcp
//! brings them).
//!
//! The SDK's server crate (`a2a-server-lf`) is not used: it is built on axum with tokio's
//! `full` features and reqwest; this server runs on the hyper server `mcp-http` uses.

mod card;
mod http;
mod jsonrpc;
mod limits;
mod methods;
#[cfg(feature = "a2a-redis")]
mod redis;
#[cfg(feature = "a2a-redis")]
mod resp;
mod rest;
mod retry;
mod server;
mod shared;
mod store;
mod worker;

/// The A2A 1.0 wire types (the A2A project's `a2a-lf` crate).
pub use a2a_types as types;
pub use card::{PROTOCOL_VERSION, agent_card};
pub use http::{AGENT_CARD_PATH, HttpServer};
pub use limits::Limits;
#[cfg(feature = "a2a-redis")]
pub use redis::RedisStore;
pub use server::Server;
pub use shared::ModelFactory;
pub use store::{MemoryStore, StoreError, TaskEvents, TaskPage, TaskQuery, TaskStore};
pub use worker::METADATA_KEY;
