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
//!
//! This module reads the lines and dispatches them; `connection` holds a connection's state,
//! `lifecycle` decides the revision a request runs at, `request` answers each method.

mod connection;
mod lifecycle;
mod request;

use std::io;
use std::sync::{Arc, PoisonError};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::sync::oneshot;
use tokio::task::JoinSet;

use self::connection::{Connection, Turn, Writer};
use self::lifecycle::{Answer, Lifecycle, negotiate};
use self::request::{Reply, Request};
use super::incoming::{Message, classify};
use super::lines::{Line, Lines};
use super::messages;
use super::methods;
use super::rpc::code;
use super::shared::Shared;
use crate::relay;

/// How long the end of the input waits for the answers still due (a tool still running): the
/// connection then ends, and the calls still running are dropped.
pub(super) const DRAIN_LIMIT: Duration = Duration::from_mins(1);

/// The methods whose handlers read or change the session, in the order they arrive.
const ORDERED: [&str; 3] = ["tools/call", "tools/list", "prompts/get"];

/// How many requests of one connection may run at once: one more is refused until an answer
/// goes out (memory stays bounded whatever a client sends, and the input is still read, so
/// a cancellation always gets through).
const MAX_RUNNING: usize = 256;

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
    let connection = Connection::open(shared, write);
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
        let Some(text) = payload(&line) else {
            continue;
        };
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
            // this client (`crate::relay`), and so does a server answering a prompt or a
            // resource passed through.
            let relayed = matches!(&*method, "tools/call" | "prompts/get" | "resources/read");
            let host = relayed.then(|| connection.stream_host(params.as_ref(), stateless));
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

/// The JSON text of one line read: without its line ending and a leading byte order mark;
/// `None` for a blank line, which is skipped.
fn payload(line: &[u8]) -> Option<&[u8]> {
    let text = line.strip_suffix(b"\n").unwrap_or(line);
    let text = text.strip_suffix(b"\r").unwrap_or(text);
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    (!text.iter().all(u8::is_ascii_whitespace)).then_some(text)
}
