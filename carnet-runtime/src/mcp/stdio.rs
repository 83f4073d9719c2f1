//! Newline-delimited JSON-RPC over a byte stream (the MCP stdio transport), served by carnet
//! itself: the lifecycle, each request on a task of its own, cancellation, and an answer to
//! every line it cannot read instead of dropping it.
//!
//! The lifecycle is either a revision with sessions, opened by `initialize`, or the stateless
//! revision (`2026-07-28`), opened by its first request whose `_meta` names the revision (a
//! `server/discover` is answered without opening one). Until one is open, requests other than
//! `ping` and those are answered with an error and notifications are ignored.
//!
//! Requests run side by side; the ones that read or change the session (`tools/call`,
//! `tools/list`, `prompts/get`) take it in the order they were read, so a tool called right
//! after the `loadSkill` that exposes it finds it loaded. A request the client cancels
//! (`notifications/cancelled`) stops and gets no answer. At the end of the input every request
//! read is answered before the connection ends, for at most [`DRAIN_LIMIT`].

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex as StdMutex, PoisonError, Weak};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::sync::{Mutex, oneshot};
use tokio::task::JoinSet;

use super::completion::{self, CompleteParams};
use super::host::{LogLevel, Pending, SendLine, StreamHost};
use super::incoming::{Message, classify};
use super::lines::{Line, Lines};
use super::listener::SessionListener;
use super::messages;
use super::methods::{self, CallParams, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, PromptParams, UriParams};
use super::passthrough;
use super::rpc::{self, RpcError, code};
use super::shared::{Shared, passes_through};
use crate::Session;
use crate::relay::{self, Host, Listener};

/// How long the end of the input waits for the answers still due (a tool still running): the
/// connection then ends, and the calls still running are dropped.
pub(super) const DRAIN_LIMIT: Duration = Duration::from_mins(1);

/// The methods whose handlers read or change the session, in the order they arrive.
const ORDERED: [&str; 3] = ["tools/call", "tools/list", "prompts/get"];

/// The output: whole lines, one writer at a time.
struct Out<W> {
    write: Mutex<W>,
}

impl<W: AsyncWrite + Unpin> Out<W> {
    async fn send(&self, line: &[u8]) {
        let mut write = self.write.lock().await;
        // A peer gone away ends the connection at the next read; nothing to answer here.
        let _ = write.write_all(line).await;
        let _ = write.flush().await;
    }

    async fn result(&self, id: &Value, result: &Value) {
        self.send(&rpc::result_line(id, result)).await;
    }

    async fn error(&self, id: &Value, error: &RpcError) {
        self.send(&rpc::error_line(id, error)).await;
    }
}

/// The lifecycle the connection opened.
#[derive(Clone, Copy, PartialEq)]
enum Lifecycle {
    /// Nothing yet: `ping`, `initialize` and stateless requests only.
    None,
    /// `initialize` agreed to this revision.
    Sessions(&'static str),
    /// The stateless revision: every request carries its `_meta`.
    Stateless,
}

/// What a request of the stateless revision says of itself in `_meta`.
struct Meta {
    /// `io.modelcontextprotocol/protocolVersion`, when it is a string.
    version: Option<String>,
    /// The required keys that are missing or malformed.
    missing: Vec<&'static str>,
}

fn meta(params: Option<&Value>) -> Meta {
    let meta = params.and_then(|p| p.get("_meta")).and_then(Value::as_object);
    let version = meta
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut missing = Vec::new();
    if version.is_none() {
        missing.push(META_PROTOCOL_VERSION);
    }
    if !meta
        .and_then(|m| m.get(META_CLIENT_CAPABILITIES))
        .is_some_and(Value::is_object)
    {
        missing.push(META_CLIENT_CAPABILITIES);
    }
    Meta { version, missing }
}

/// One connection's state, shared with its request tasks.
struct Connection<W> {
    shared: Arc<Shared>,
    session: Mutex<Session>,
    out: Out<W>,
    /// The requests running, by id, each with what cancels it.
    running: StdMutex<HashMap<String, oneshot::Sender<()>>>,
    /// The requests this server sent the client (relayed ones), awaiting answers.
    pending: Arc<Pending>,
    /// The client's capabilities, as `initialize` declared them.
    capabilities: StdMutex<Value>,
    /// The level of the log messages relayed to the client (`logging/setLevel`).
    log_level: LogLevel,
    /// The client's session as remote toolsets' servers see it, where they are passed through.
    listener: Option<Arc<SessionListener>>,
}

impl<W> Connection<W> {
    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<()>>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The host session a request at the revision `stateless` or not is passed through for:
    /// none at the stateless revision.
    fn host_session(&self, stateless: bool) -> Option<Arc<dyn Listener>> {
        let listener = self.listener.as_ref().filter(|_| !stateless)?;
        Some(Arc::clone(listener) as Arc<dyn Listener>)
    }
}

/// A request's place among the ordered ones: it waits for the one before it to have taken the
/// session, and lets the next one go once it has.
struct Turn {
    after: Option<oneshot::Receiver<()>>,
    before_next: Option<oneshot::Sender<()>>,
}

impl Turn {
    async fn wait(&mut self) {
        if let Some(after) = self.after.take() {
            // Sent, or the one before ended without taking the session: either way, go.
            let _ = after.await;
        }
    }

    fn pass(&mut self) {
        if let Some(next) = self.before_next.take() {
            let _ = next.send(());
        }
    }
}

/// Serves one connection on `read` and `write` (see the module docs).
pub(super) async fn serve<R, W>(shared: Arc<Shared>, read: R, write: W) -> io::Result<()>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    // Generic, so compiled in the caller's crate: it only erases the types. The loop is
    // compiled once, in carnet, behind a boxed future (a future is compiled where it is
    // polled, so an `async fn` alone would still be compiled in every program).
    serve_erased(shared, Box::new(read), Box::new(write)).await
}

type Reader = Box<dyn AsyncRead + Send + Unpin>;
type Writer = Box<dyn AsyncWrite + Send + Unpin>;

fn serve_erased(shared: Arc<Shared>, read: Reader, write: Writer) -> crate::BoxFuture<'static, io::Result<()>> {
    Box::pin(serve_loop(shared, read, write))
}

async fn serve_loop(shared: Arc<Shared>, read: Reader, write: Writer) -> io::Result<()> {
    let mut lines = Lines {
        read: BufReader::new(read),
        line: Vec::new(),
        discarding: false,
        max: shared.max_message_bytes,
    };
    let connection = Arc::new_cyclic(|me: &Weak<Connection<Writer>>| {
        let session = shared.session();
        let listener = passes_through(shared.carnet.manifest()).then(|| {
            // Weak: the session's listener lives in the connection.
            let me = me.clone();
            let send: SendLine = Arc::new(move |line: Vec<u8>| {
                let me = me.clone();
                Box::pin(async move {
                    if let Some(connection) = me.upgrade() {
                        connection.out.send(&line).await;
                    }
                })
            });
            SessionListener::lines(send, &shared, &session.state())
        });
        Connection {
            session: Mutex::new(session),
            shared,
            out: Out {
                write: Mutex::new(write),
            },
            running: StdMutex::default(),
            pending: Arc::default(),
            capabilities: StdMutex::new(Value::Null),
            log_level: LogLevel::default(),
            listener,
        }
    });
    let mut lifecycle = Lifecycle::None;
    let mut last_turn: Option<oneshot::Receiver<()>> = None;
    let mut tasks = JoinSet::new();
    loop {
        while tasks.try_join_next().is_some() {}
        match lines.next().await {
            Ok(Line::Complete) => {}
            Ok(Line::Oversized) => {
                let error = messages::too_large(connection.shared.max_message_bytes);
                connection.out.error(&Value::Null, &error).await;
                continue;
            }
            Ok(Line::Eof) | Err(_) => break,
        }
        let line = std::mem::take(&mut lines.line);
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let value = match serde_json::from_slice::<Value>(text) {
            Ok(value) => value,
            Err(e) => {
                connection.out.error(&Value::Null, &messages::not_json(e)).await;
                continue;
            }
        };
        let (id, method, params) = match classify(value) {
            Message::Request { id, method, params } => (id, method, params),
            Message::Notification { method, params } => {
                let cancelled = params.as_ref().and_then(|p| p.get("requestId"));
                if method == "notifications/cancelled"
                    && let Some(id) = cancelled
                {
                    let cancel = connection.running().remove(&id.to_string());
                    if let Some(cancel) = cancel {
                        let _ = cancel.send(());
                    }
                }
                continue;
            }
            Message::Response { id, result, error } => {
                connection.pending.answer(&id, result, error.as_ref());
                continue;
            }
            Message::Invalid { id, reason } => {
                connection.out.error(&id, &messages::not_a_message(reason)).await;
                continue;
            }
        };
        let stateless = match negotiate(&connection.shared, &mut lifecycle, &method, params.as_ref()) {
            Ok(Answer::Run { stateless }) => stateless,
            Ok(Answer::Now(result)) => {
                if method == "initialize" {
                    if let Some(capabilities) = params.as_ref().and_then(|p| p.get("capabilities")) {
                        *connection.capabilities.lock().unwrap_or_else(PoisonError::into_inner) = capabilities.clone();
                    }
                    // A session: the servers in reach tell it of their list changes.
                    if let Some(listener) = &connection.listener {
                        listener.watch_reach(&connection.shared);
                    }
                }
                connection.out.result(&id, &result).await;
                continue;
            }
            Err(error) => {
                connection.out.error(&id, &error).await;
                continue;
            }
        };
        let key = id.to_string();
        let (cancel, cancelled) = oneshot::channel();
        let refused = {
            let mut running = connection.running();
            if running.contains_key(&key) {
                Some(messages::id_in_use(&id))
            } else if running.len() >= MAX_RUNNING {
                Some(messages::too_many_running(MAX_RUNNING))
            } else {
                running.insert(key.clone(), cancel);
                None
            }
        };
        if let Some(error) = refused {
            connection.out.error(&id, &error).await;
            continue;
        }
        let turn = if ORDERED.contains(&method.as_str()) {
            let (pass, next) = oneshot::channel();
            Turn {
                after: last_turn.replace(next),
                before_next: Some(pass),
            }
        } else {
            Turn {
                after: None,
                before_next: None,
            }
        };
        let connection = connection.clone();
        tasks.spawn(async move {
            let request = Request {
                id: &id,
                method: &method,
                stateless,
            };
            // A remote tool's server sends its progress, logs and requests for the call to
            // this client (`crate::relay`).
            let host = (method == "tools/call").then(|| stream_host(&connection, params.as_ref(), stateless));
            let answering = request.answer(&connection, params, turn);
            let answer = match host {
                Some(host) => crate::cancel::unless(cancelled, relay::HOST.scope(host, answering)).await,
                None => crate::cancel::unless(cancelled, answering).await,
            };
            // Gone from `running` when the client cancelled it: then it gets no answer.
            let still_wanted = connection.running().remove(&key).is_some();
            if still_wanted && let Some(answer) = answer {
                match answer {
                    Ok(Reply::Line(line)) => connection.out.send(&line).await,
                    Ok(Reply::Value(result)) => {
                        connection
                            .out
                            .result(&id, &methods::finish(&method, result, stateless))
                            .await;
                    }
                    Err(mut error) => {
                        // The stateless revision answers a missing resource as invalid params.
                        if stateless && error.code == code::RESOURCE_NOT_FOUND {
                            error.code = code::INVALID_PARAMS;
                        }
                        connection.out.error(&id, &error).await;
                    }
                }
            }
        });
    }
    // Every request read is answered before the connection ends.
    let _ = tokio::time::timeout(DRAIN_LIMIT, async { while tasks.join_next().await.is_some() {} }).await;
    tasks.shutdown().await;
    let mut write = connection.out.write.lock().await;
    let _ = write.shutdown().await;
    if lifecycle == Lifecycle::None {
        return Err(io::Error::new(
            io::ErrorKind::ConnectionAborted,
            "the input ended before the protocol's lifecycle started (no `initialize`, no request of the stateless revision)",
        ));
    }
    Ok(())
}

/// The client of `connection` as the relay sees it during one `tools/call` with `params`.
fn stream_host(connection: &Arc<Connection<Writer>>, params: Option<&Value>, stateless: bool) -> Arc<dyn Host> {
    let meta = params.and_then(|p| p.get("_meta"));
    let out = Arc::clone(connection);
    let send: SendLine = Arc::new(move |line: Vec<u8>| {
        let out = Arc::clone(&out);
        Box::pin(async move { out.out.send(&line).await })
    });
    let (capabilities, level) = if stateless {
        let level = meta
            .and_then(|m| m.get("io.modelcontextprotocol/logLevel"))
            .and_then(Value::as_str)
            .and_then(crate::relay::log_rank);
        (Value::Null, level)
    } else {
        let capabilities = connection
            .capabilities
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        (capabilities, connection.log_level.get())
    };
    Arc::new(StreamHost {
        send,
        pending: Arc::clone(&connection.pending),
        token: meta.and_then(|m| m.get("progressToken")).cloned(),
        capabilities,
        stateless,
        level,
    })
}

/// How many requests of one connection may run at once: one more is refused until an answer
/// goes out (memory stays bounded whatever a client sends, and the input is still read, so
/// a cancellation always gets through).
const MAX_RUNNING: usize = 256;

/// What the lifecycle makes of a request before it runs.
enum Answer {
    /// Run it, at the stateless revision or not.
    Run { stateless: bool },
    /// Answered already: `initialize` and `server/discover`.
    Now(Value),
}

/// The revision `method` runs at, opening the lifecycle if it does; or the answer it gets
/// without running.
fn negotiate(
    shared: &Shared,
    lifecycle: &mut Lifecycle,
    method: &str,
    params: Option<&Value>,
) -> Result<Answer, RpcError> {
    let mode = shared.carnet.mode();
    let supported = methods::supported_versions(mode);
    if method == "initialize" {
        // A request carrying the stateless revision's `_meta` is of that revision, which has
        // no `initialize` (a dual-era server serves such requests statelessly).
        if meta(params).version.as_deref().is_some_and(methods::is_stateless) {
            return Err(messages::initialize_removed(supported, methods::session_versions(mode)));
        }
        let request: methods::InitializeParams = methods::params(method, params.cloned())?;
        let version = methods::negotiate(&request.protocol_version, mode);
        if *lifecycle == Lifecycle::None {
            *lifecycle = Lifecycle::Sessions(version);
        }
        return Ok(Answer::Now(shared.info.initialize_result(version)));
    }
    if *lifecycle == Lifecycle::None && method == "ping" {
        // MCP allows a ping before the lifecycle starts.
        return Ok(Answer::Run { stateless: false });
    }
    let meta = meta(params);
    let inline = method == "server/discover"
        || !matches!(lifecycle, Lifecycle::Sessions(_))
        || meta.version.as_deref().is_some_and(methods::is_stateless);
    // Before the lifecycle starts, a request must carry the whole `_meta` before its revision
    // is looked at; after, an unsupported revision is the first thing said.
    if *lifecycle == Lifecycle::None && !meta.missing.is_empty() {
        return Err(messages::missing_metadata(&meta.missing));
    }
    if let Some(version) = &meta.version
        && !supported.contains(&version.as_str())
    {
        return Err(messages::unsupported_version(version, supported));
    }
    if inline && !meta.missing.is_empty() {
        return Err(messages::missing_metadata(&meta.missing));
    }
    if method == "server/discover" {
        return Ok(Answer::Now(shared.info.discover_result(supported)));
    }
    if *lifecycle == Lifecycle::None && inline {
        *lifecycle = Lifecycle::Stateless;
    }
    let version = meta.version.or_else(|| match lifecycle {
        Lifecycle::Sessions(version) => Some((*version).to_owned()),
        _ => None,
    });
    let stateless = version.as_deref().is_some_and(methods::is_stateless);
    // A request on a stateless lifecycle is one, whatever revision its `_meta` names.
    let legacy = !inline && !stateless;
    if method == "ping" && !legacy {
        return Err(RpcError::not_served(method));
    }
    Ok(Answer::Run { stateless })
}

/// What a request answers.
enum Reply {
    /// A result, shaped for the revision when it is sent ([`methods::finish`]).
    Value(Value),
    /// The whole response line, written in the revision's shape.
    Line(Vec<u8>),
}

/// One request, on its own task.
struct Request<'a> {
    id: &'a Value,
    method: &'a str,
    /// Whether it runs at the stateless revision.
    stateless: bool,
}

impl Request<'_> {
    async fn answer<W: AsyncWrite + Unpin>(
        &self,
        connection: &Connection<W>,
        params: Option<Value>,
        mut turn: Turn,
    ) -> Result<Reply, RpcError> {
        let shared = &*connection.shared;
        let method = self.method;
        let host = connection.host_session(self.stateless);
        let host = host.as_ref();
        let value = match method {
            "ping" => Ok(Value::Object(Map::new())),
            "tools/list" => {
                no_params(method, params.as_ref())?;
                turn.wait().await;
                let session = connection.session.lock().await;
                turn.pass();
                let mut line = rpc::result_start(self.id);
                if self.stateless {
                    let list = shared.stateless_list.get_or_init(|| {
                        let tools = methods::stateless_tools(shared, &session)?;
                        let result = methods::finish(method, serde_json::json!({ "tools": tools }), true);
                        serde_json::to_vec(&result).map_err(|e| messages::unencodable("the tool list", e))
                    });
                    line.extend_from_slice(list.as_ref().map_err(Clone::clone)?);
                } else {
                    let tools = methods::list_tools(shared, &session)?;
                    serde_json::to_writer(&mut line, &serde_json::json!({ "tools": tools }))
                        .map_err(|e| messages::unencodable("the tool list", e))?;
                }
                rpc::result_end(&mut line);
                return Ok(Reply::Line(line));
            }
            "tools/call" => {
                let request: CallParams = methods::params(method, params)?;
                let call_id = self.id.to_string();
                // Never cancelled from here: the task running this future is dropped instead.
                let cancelled = std::future::pending();
                turn.wait().await;
                let output = if self.stateless {
                    let mut arguments = request.arguments.unwrap_or_default();
                    let opened = methods::session_of(shared, Some(&connection.session), &mut arguments).await;
                    turn.pass();
                    let held = Some(&connection.session);
                    methods::call_opened(shared, held, opened, &request.name, arguments, &call_id, cancelled).await?
                } else {
                    let session = connection.session.lock().await;
                    turn.pass();
                    let listener = connection.listener.as_ref();
                    let (output, changed) =
                        methods::call_in_session(shared, session, request, &call_id, cancelled, listener).await?;
                    // Sent before the result, so a client has them when the call returns.
                    if changed.tools {
                        let line = rpc::notification_line("notifications/tools/list_changed");
                        connection.out.send(&line).await;
                    }
                    if let Some(listener) = listener.filter(|_| changed.lists) {
                        listener.lists_changed().await;
                    }
                    output
                };
                let mut line = rpc::result_start(self.id);
                methods::write_tool_result(&mut line, &output, self.stateless)?;
                rpc::result_end(&mut line);
                return Ok(Reply::Line(line));
            }
            "prompts/get" => {
                let request: PromptParams = methods::params(method, params.clone())?;
                let theirs = request.name != shared.agent;
                turn.wait().await;
                let session = connection.session.lock().await;
                turn.pass();
                let (own, state) = (methods::get_prompt(shared, &session, request), session.state());
                drop(session);
                passthrough::or_forward(shared, &state, host, "prompts/get", params.as_ref(), theirs, own).await
            }
            "prompts/list" | "resources/list" | "resources/templates/list" => {
                no_params(method, params.as_ref())?;
                let own = match method {
                    "prompts/list" => methods::list_prompts(shared),
                    "resources/list" => methods::list_resources(shared),
                    _ => serde_json::json!({ "resourceTemplates": [] }),
                };
                let state = connection.session.lock().await.state();
                Ok(passthrough::list(shared, &state, host, method, own).await)
            }
            "resources/read" => {
                let own = methods::read_resource(shared, &methods::params::<UriParams>(method, params.clone())?);
                let state = connection.session.lock().await.state();
                passthrough::or_forward(shared, &state, host, "resources/read", params.as_ref(), true, own).await
            }
            "skills/list" => no_params(method, params.as_ref()).map(|()| methods::list_skills(shared)),
            "skills/get" => methods::get_skill(shared, &methods::params::<UriParams>(method, params)?),
            "completion/complete" => {
                let request = methods::params::<CompleteParams>(method, params.clone())?;
                let theirs = !request.is_for(&shared.agent);
                let own = completion::complete(shared, &request);
                let state = connection.session.lock().await.state();
                let method = "completion/complete";
                passthrough::or_forward(shared, &state, host, method, params.as_ref(), theirs, own).await
            }
            "logging/setLevel" if shared.info.capabilities.get("logging").is_some() => {
                let level = params.as_ref().and_then(|p| p.get("level")).and_then(Value::as_str);
                match level {
                    Some(level) if connection.log_level.set(level) => Ok(Value::Object(Map::new())),
                    _ => Err(messages::invalid_params(method, "`level` is not a log level")),
                }
            }
            "resources/subscribe" | "resources/unsubscribe" => {
                let subscribe = method == "resources/subscribe";
                let request = params.unwrap_or(Value::Null);
                let state = connection.session.lock().await.state();
                passthrough::subscription(shared, &state, host, subscribe, &request).await
            }
            // Known to MCP, not offered here (tasks, directories; logging where there is
            // nothing to relay).
            "logging/setLevel"
            | "subscriptions/listen"
            | "tasks/get"
            | "tasks/update"
            | "tasks/cancel"
            | "resources/directory/read" => Err(RpcError::not_served(method)),
            _ => Err(messages::unknown_method(method)),
        };
        value.map(Reply::Value)
    }
}

/// The params of a method that takes none but `_meta` and a page cursor: an object or nothing,
/// with no cursor (this server never gives one).
fn no_params(method: &str, params: Option<&Value>) -> Result<(), RpcError> {
    match params {
        None => Ok(()),
        Some(Value::Object(fields)) => match fields.get("cursor") {
            None | Some(Value::Null) => Ok(()),
            Some(Value::String(cursor)) => methods::check_cursor(method, Some(cursor)),
            Some(_) => Err(messages::invalid_params(method, "`cursor` is not a string")),
        },
        Some(_) => Err(messages::invalid_params(method, "expected an object or nothing")),
    }
}
