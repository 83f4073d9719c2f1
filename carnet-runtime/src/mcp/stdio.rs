//! Newline-delimited JSON-RPC over a byte stream (the MCP stdio transport), answering what it
//! cannot read instead of dropping it.

use std::io;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::ErrorCode;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::sync::Mutex;

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
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    pub(super) fn new(read: R, write: W, max: usize) -> Self {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            max,
            write: Arc::new(Mutex::new(write)),
        }
    }

    async fn read_line(&mut self) -> io::Result<Line> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(Line::Eof);
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

    /// Writes an error response with a null id, as JSON-RPC asks when the request's id
    /// cannot be read.
    fn reply_error(&self, code: ErrorCode, message: &str) -> impl Future<Output = ()> + Send + 'static {
        // Written here rather than through rmcp's types, which leave a missing id out.
        let mut line = serde_json::to_vec(&serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": { "code": code.0, "message": message },
        }))
        .expect("JSON values serialise");
        line.push(b'\n');
        let write = self.write.clone();
        // The peer may have gone; the next read then ends the connection.
        async move {
            let _ = write_bytes(&write, &line).await;
        }
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
        async move { write_message(&write, &item).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Ok(Line::Complete) => {}
                Ok(Line::Oversized) => {
                    let message = format!("Invalid Request: the message exceeds the limit of {} bytes", self.max);
                    self.reply_error(ErrorCode::INVALID_REQUEST, &message).await;
                    continue;
                }
                Ok(Line::Eof) | Err(_) => return None,
            }
            let line = std::mem::take(&mut self.line);
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text) {
                Ok(message) => return Some(message),
                Err(e) if e.is_syntax() || e.is_eof() => {
                    let message = format!("Parse error: the message is not JSON ({e})");
                    self.reply_error(ErrorCode::PARSE_ERROR, &message).await;
                }
                Err(e) => {
                    // Well-formed JSON that is no message we know. A notification (a method
                    // and no id) gets no answer, as JSON-RPC asks; anything else is an
                    // invalid request.
                    let value: Value = serde_json::from_slice(text).unwrap_or_default();
                    let is_notification = value.get("method").is_some() && value.get("id").is_none();
                    if !is_notification {
                        let message = format!("Invalid Request: not a JSON-RPC 2.0 message ({e})");
                        self.reply_error(ErrorCode::INVALID_REQUEST, &message).await;
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.shutdown().await
    }
}
