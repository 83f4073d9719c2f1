//! One connection's state, shared by its loop and its request tasks: the output, the
//! requests running, the client's capabilities and the session.

use std::collections::HashMap;
use std::sync::{Arc, Mutex as StdMutex, PoisonError, Weak};

use serde_json::Value;
use tokio::io::{AsyncWrite, AsyncWriteExt as _};
use tokio::sync::{Mutex, oneshot};

use crate::Session;
use crate::mcp::host::{LogLevel, Pending, SendLine, StreamHost};
use crate::mcp::listener::SessionListener;
use crate::mcp::rpc::{self, RpcError};
use crate::mcp::shared::{Shared, passes_through};
use crate::relay::{Host, Listener};

/// The output of a connection, its type erased.
pub(super) type Writer = Box<dyn AsyncWrite + Send + Unpin>;

/// The output: whole lines, one writer at a time.
pub(super) struct Out<W> {
    pub(super) write: Mutex<W>,
}

impl<W: AsyncWrite + Unpin> Out<W> {
    pub(super) async fn send(&self, line: &[u8]) {
        let mut write = self.write.lock().await;
        // A peer gone away ends the connection at the next read; nothing to answer here.
        let _ = write.write_all(line).await;
        let _ = write.flush().await;
    }

    pub(super) async fn result(&self, id: &Value, result: &Value) {
        self.send(&rpc::result_line(id, result)).await;
    }

    pub(super) async fn error(&self, id: &Value, error: &RpcError) {
        self.send(&rpc::error_line(id, error)).await;
    }
}

/// One connection's state, shared with its request tasks.
pub(super) struct Connection<W> {
    pub(super) shared: Arc<Shared>,
    pub(super) session: Mutex<Session>,
    pub(super) out: Out<W>,
    /// The requests running, by id, each with what cancels it.
    pub(super) running: StdMutex<HashMap<String, oneshot::Sender<()>>>,
    /// The requests this server sent the client (relayed ones), awaiting answers.
    pub(super) pending: Arc<Pending>,
    /// The client's capabilities, as `initialize` declared them.
    pub(super) capabilities: StdMutex<Value>,
    /// The level of the log messages relayed to the client (`logging/setLevel`).
    pub(super) log_level: LogLevel,
    /// The client's session as remote toolsets' servers see it, where they are passed through.
    pub(super) listener: Option<Arc<SessionListener>>,
}

impl<W> Connection<W> {
    pub(super) fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<()>>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The host session a request at the revision `stateless` or not is passed through for:
    /// none at the stateless revision.
    pub(super) fn host_session(&self, stateless: bool) -> Option<Arc<dyn Listener>> {
        let listener = self.listener.as_ref().filter(|_| !stateless)?;
        Some(Arc::clone(listener) as Arc<dyn Listener>)
    }
}

/// A request's place among the ordered ones: it waits for the one before it to have taken the
/// session, and lets the next one go once it has.
pub(super) struct Turn {
    pub(super) after: Option<oneshot::Receiver<()>>,
    pub(super) before_next: Option<oneshot::Sender<()>>,
}

impl Turn {
    pub(super) async fn wait(&mut self) {
        if let Some(after) = self.after.take() {
            // Sent, or the one before ended without taking the session: either way, go.
            let _ = after.await;
        }
    }

    pub(super) fn pass(&mut self) {
        if let Some(next) = self.before_next.take() {
            let _ = next.send(());
        }
    }
}

impl Connection<Writer> {
    /// The state of a connection of `shared` writing to `write`, its session new.
    pub(super) fn open(shared: Arc<Shared>, write: Writer) -> Arc<Self> {
        Arc::new_cyclic(|me: &Weak<Self>| {
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
        })
    }

    /// The client as the relay sees it during one `tools/call` with `params`.
    pub(super) fn stream_host(self: &Arc<Self>, params: Option<&Value>, stateless: bool) -> Arc<dyn Host> {
        let meta = params.and_then(|p| p.get("_meta"));
        let out = Arc::clone(self);
        let send: SendLine = Arc::new(move |line: Vec<u8>| {
            let out = Arc::clone(&out);
            Box::pin(async move { out.out.send(&line).await })
        });
        let (capabilities, level) = if stateless {
            let level = meta
                .and_then(|m| m.get("io.modelcontextprotocol/logLevel"))
                .and_then(Value::as_str)
                .and_then(crate::relay::log_rank);
            let capabilities = meta
                .and_then(|m| m.get("io.modelcontextprotocol/clientCapabilities"))
                .cloned()
                .unwrap_or(Value::Null);
            (capabilities, level)
        } else {
            let capabilities = self.capabilities.lock().unwrap_or_else(PoisonError::into_inner).clone();
            (capabilities, self.log_level.get())
        };
        Arc::new(StreamHost {
            send,
            pending: Arc::clone(&self.pending),
            token: meta.and_then(|m| m.get("progressToken")).cloned(),
            capabilities,
            stateless,
            level,
        })
    }
}
