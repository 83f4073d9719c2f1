//! A local HTTP server that answers as told, for the model clients' tests: a status and a
//! body, a body in pieces with pauses (server-sent events), or nothing at all; it records
//! every request's head and body.

pub(crate) mod agent;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use carnet_runtime::models::HttpOptions;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// What the server does with one request.
#[derive(Clone)]
pub(crate) enum Reply {
    /// Writes these bytes and closes.
    Raw(Vec<u8>),
    /// Writes each piece after a pause, then closes.
    Slowly(Vec<Vec<u8>>),
    /// Reads the request and says nothing.
    Stall,
}

pub(crate) fn http(status: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let mut out = format!(
        "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str("\r\n");
    out.push_str(body);
    Reply::Raw(out.into_bytes())
}

pub(crate) fn ok(body: &Value) -> Reply {
    http("200 OK", &[("content-type", "application/json")], &body.to_string())
}

/// A streamed answer: one event per piece, each written separately, split mid-event.
pub(crate) fn sse(events: &[String]) -> Reply {
    let mut pieces = vec![b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n".to_vec()];
    for event in events {
        let bytes = event.as_bytes();
        let middle = bytes.len() / 2;
        pieces.push(bytes[..middle].to_vec());
        pieces.push(bytes[middle..].to_vec());
    }
    Reply::Slowly(pieces)
}

/// A request as the server read it.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub(crate) head: String,
    pub(crate) body: Vec<u8>,
}

impl Seen {
    pub(crate) fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
        })
    }
}

/// A server answering with `replies` in turn (the last one again and again), recording the
/// requests. Returns its base URL and the record.
pub(crate) async fn server(replies: Vec<Reply>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    tokio::spawn(async move {
        let mut n = 0;
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let reply = replies[n.min(replies.len() - 1)].clone();
            n += 1;
            let record = Arc::clone(&record);
            tokio::spawn(async move {
                let mut buffer = Vec::new();
                let mut chunk = [0u8; 4096];
                let (head, body_start) = loop {
                    let Ok(read) = socket.read(&mut chunk).await else {
                        return;
                    };
                    if read == 0 {
                        return;
                    }
                    buffer.extend_from_slice(&chunk[..read]);
                    if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                        break (String::from_utf8_lossy(&buffer[..end]).into_owned(), end + 4);
                    }
                };
                let length: usize = head
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse().unwrap())
                    })
                    .unwrap_or(0);
                while buffer.len() < body_start + length {
                    let Ok(read) = socket.read(&mut chunk).await else {
                        return;
                    };
                    if read == 0 {
                        return;
                    }
                    buffer.extend_from_slice(&chunk[..read]);
                }
                let body = buffer[body_start..body_start + length].to_vec();
                record.lock().unwrap().push(Seen { head, body });
                match reply {
                    Reply::Raw(bytes) => {
                        let _ = socket.write_all(&bytes).await;
                    }
                    Reply::Slowly(pieces) => {
                        for piece in pieces {
                            if socket.write_all(&piece).await.is_err() {
                                return;
                            }
                            let _ = socket.flush().await;
                            tokio::time::sleep(Duration::from_millis(5)).await;
                        }
                    }
                    Reply::Stall => tokio::time::sleep(Duration::from_secs(30)).await,
                }
                let _ = socket.shutdown().await;
            });
        }
    });
    (base, seen)
}

pub(crate) fn fast() -> HttpOptions {
    HttpOptions::default()
        .timeout(Duration::from_secs(5))
        .backoff(Duration::from_millis(10), Duration::from_millis(40))
}
