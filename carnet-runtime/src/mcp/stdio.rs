//! Newline-delimited JSON-RPC over a byte stream (the MCP stdio transport), answering what it
//! cannot read instead of dropping it.

use std::io;
use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::RoleServer;
use rmcp::model::{ClientNotification, JsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::sync::Mutex;

use super::messages;
use super::order::{Arrivals, DRAIN_LIMIT};

/// What one read produced.
enum Line {
    /// A whole line is in the buffer.
    Complete,
    /// The line was longer than the limit; its bytes were skipped.
    Oversized,
    /// End of stream.
    Eof,
}

/// The stdio transport of [`Server::serve`](super::Server::serve).
///
/// Reading is cancel-safe (rmcp polls `receive` inside a `select!`): the partial line lives
/// in the struct, and bytes are consumed only once copied.
pub(super) struct LineTransport<R, W> {
    read: BufReader<R>,
    line: Vec<u8>,
    discarding: bool,
    max: usize,
    write: Arc<Mutex<W>>,
    /// The requests read and not yet answered, shared with the connection.
    arrivals: Arc<Arrivals>,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    pub(super) fn new(read: R, write: W, max: usize, arrivals: Arc<Arrivals>) -> Self {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            max,
            write: Arc::new(Mutex::new(write)),
            arrivals,
        }
    }

    async fn read_line(&mut self) -> io::Result<Line> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                // A last line without a newline is still a line.
                return Ok(if self.discarding {
                    self.discarding = false;
                    Line::Oversized
                } else if self.line.is_empty() {
                    Line::Eof
                } else {
                    Line::Complete
                });
            }
            let (take, done) = match available.iter().position(|&b| b == b'\n') {
                Some(end) => (end + 1, true),
                None => (available.len(), false),
            };
            if !self.discarding {
                if self.line.len() + take > self.max.saturating_add(1) {
                    self.discarding = true;
                    self.line = Vec::new();
                } else {
                    self.line.extend_from_slice(&available[..take]);
                }
            }
            self.read.consume(take);
            if done {
                return Ok(if std::mem::take(&mut self.discarding) {
                    Line::Oversized
                } else {
                    Line::Complete
                });
            }
        }
    }

    /// Answers a line that is no message rmcp can take. The write runs on its own task:
    /// rmcp drops `receive` whenever another event wins its `select!`, which must not lose
    /// the answer or cut it in half.
    fn reply_error(&self, error: &ErrorData, id: &Value) {
        let mut line = messages::response(error, id);
        line.push(b'\n');
        let write = self.write.clone();
        tokio::spawn(async move {
            // The peer may have gone; the next read then ends the connection.
            let _ = write_bytes(&write, &line).await;
        });
    }
}

async fn write_message<W: AsyncWrite + Unpin>(
    write: &Mutex<W>,
    message: &TxJsonRpcMessage<RoleServer>,
) -> io::Result<()> {
    let mut bytes = serde_json::to_vec(message).map_err(io::Error::other)?;
    bytes.push(b'\n');
    write_bytes(write, &bytes).await
}

async fn write_bytes<W: AsyncWrite + Unpin>(write: &Mutex<W>, bytes: &[u8]) -> io::Result<()> {
    let mut write = write.lock().await;
    write.write_all(bytes).await?;
    write.flush().await
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        let arrivals = self.arrivals.clone();
        async move {
            let answers = match &item {
                JsonRpcMessage::Response(response) => Some(response.id.clone()),
                JsonRpcMessage::Error(error) => error.id.clone(),
                _ => None,
            };
            let written = write_message(&write, &item).await;
            if let Some(id) = answers {
                arrivals.answered(&id);
            }
            written
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Ok(Line::Complete) => {}
                Ok(Line::Oversized) => {
                    self.reply_error(&messages::too_large(self.max), &Value::Null);
                    continue;
                }
                Ok(Line::Eof) | Err(_) => {
                    // Every request read is answered before the connection ends.
                    self.arrivals.drained(DRAIN_LIMIT).await;
                    return None;
                }
            }
            let line = std::mem::take(&mut self.line);
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text) {
                Ok(message) => {
                    match &message {
                        JsonRpcMessage::Request(request) => {
                            self.arrivals.arrived(request.id.clone(), request.request.method());
                        }
                        JsonRpcMessage::Notification(notification) => {
                            if let ClientNotification::CancelledNotification(cancelled) = &notification.notification
                                && let Some(id) = &cancelled.params.request_id
                            {
                                self.arrivals.answered(id);
                            }
                        }
                        _ => {}
                    }
                    return Some(message);
                }
                Err(e) if e.is_syntax() || e.is_eof() => self.reply_error(&messages::not_json(e), &Value::Null),
                Err(e) => {
                    // Well-formed JSON that is no message we know. Notifications (a method, no
                    // id) and responses (no method) get no answer, as JSON-RPC asks; anything
                    // else is an invalid request, answered with its id when it has a usable one.
                    let value: Value = serde_json::from_slice(text).unwrap_or_default();
                    let method = value.get("method").is_some();
                    let id = value.get("id").filter(|id| id.is_string() || id.is_number());
                    let is_notification = method && value.get("id").is_none();
                    let is_response = !method && (value.get("result").is_some() || value.get("error").is_some());
                    if !is_notification && !is_response {
                        self.reply_error(&messages::not_a_message(e), id.unwrap_or(&Value::Null));
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.shutdown().await
    }
}
