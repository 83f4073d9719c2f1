//! HTTP to an A2A agent: its card, a JSON-RPC request, and a JSON-RPC stream (SSE), every
//! answer bounded in bytes and, for streams, in events.

use std::collections::BTreeMap;

use serde_json::{Value, json};

/// The A2A version carnet speaks (the `A2A-Version` header of every request).
pub(crate) const A2A_VERSION: &str = "1.0";

/// The most events one stream may send: past this, the call ends with an error.
pub(crate) const MAX_STREAM_EVENTS: usize = 10_000;

/// Why a request to the agent failed, and the code the model reads.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) message: String,
    pub(crate) code: &'static str,
}

impl Failure {
    pub(crate) fn unreachable(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            code: "upstream_unavailable",
        }
    }

    pub(crate) fn broken(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            code: "upstream_crashed",
        }
    }

    pub(crate) fn garbage(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            code: "upstream_error",
        }
    }
}

/// An agent's address: where its card is, and the headers sent with every request.
#[derive(Clone)]
pub(crate) struct Endpoint {
    pub(crate) url: String,
    pub(crate) headers: BTreeMap<String, String>,
}

impl Endpoint {
    /// Where the agent card is: the URL itself when it names a `.json` file, else the
    /// well-known path under it.
    pub(crate) fn card_url(&self) -> String {
        let url = self.url.trim_end_matches('/');
        if std::path::Path::new(url)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        {
            url.to_owned()
        } else {
            format!("{url}/.well-known/agent-card.json")
        }
    }
}

/// One HTTP client per agent (its connection pool), answers cut at `max_bytes`.
pub(crate) struct Client {
    http: reqwest::Client,
    max_bytes: usize,
}

impl Client {
    pub(crate) fn new(connect_timeout: std::time::Duration, max_bytes: usize) -> Result<Self, Failure> {
        let http = crate::remote::tls::builder()
            .connect_timeout(connect_timeout)
            .build()
            .map_err(|e| Failure::unreachable(format!("no HTTP client: {e}")))?;
        Ok(Client { http, max_bytes })
    }

    /// A request to `url` (refused when it is HTTPS and this build has no TLS).
    fn request(
        &self,
        method: reqwest::Method,
        url: &str,
        headers: &BTreeMap<String, String>,
    ) -> Result<reqwest::RequestBuilder, Failure> {
        crate::remote::tls::check(url, &"the agent").map_err(Failure::unreachable)?;
        let mut request = self.http.request(method, url).header("A2A-Version", A2A_VERSION);
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        Ok(request)
    }

    /// The agent card, as JSON (checked by the caller).
    pub(crate) async fn card(&self, endpoint: &Endpoint) -> Result<Value, Failure> {
        let url = endpoint.card_url();
        let response = self
            .request(reqwest::Method::GET, &url, &endpoint.headers)?
            .header("Accept", "application/json")
            .send()
            .await
            .map_err(|e| Failure::unreachable(format!("its card could not be read: {}", describe(e))))?;
        let status = response.status();
        let body = self.body(response).await?;
        if !status.is_success() {
            return Err(Failure::unreachable(format!(
                "its card could not be read: HTTP {status}"
            )));
        }
        serde_json::from_slice(&body).map_err(|e| Failure::garbage(format!("its card is not JSON: {e}")))
    }

    /// A JSON-RPC request's `result`.
    pub(crate) async fn call(
        &self,
        url: &str,
        headers: &BTreeMap<String, String>,
        method: &str,
        params: Value,
    ) -> Result<Value, Failure> {
        let response = self
            .request(reqwest::Method::POST, url, headers)?
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .body(envelope(method, &params))
            .send()
            .await
            .map_err(|e| Failure::unreachable(format!("`{method}` could not be sent: {}", describe(e))))?;
        let status = response.status();
        let body = self.body(response).await?;
        let answer: Value = serde_json::from_slice(&body).map_err(|_| {
            Failure::garbage(format!(
                "it answered `{method}` with HTTP {status} and something that is not JSON"
            ))
        })?;
        result(method, answer)
    }

    /// A JSON-RPC stream: `on_event` gets each event's `result` until it returns `true`
    /// (the task is done) or the stream ends; returns whether `on_event` finished it.
    pub(crate) async fn stream(
        &self,
        url: &str,
        headers: &BTreeMap<String, String>,
        method: &str,
        params: Value,
        on_event: &mut (dyn FnMut(Value) -> Result<bool, Failure> + Send),
    ) -> Result<bool, Failure> {
        let mut response = self
            .request(reqwest::Method::POST, url, headers)?
            .header("Content-Type", "application/json")
            .header("Accept", "text/event-stream")
            .body(envelope(method, &params))
            .send()
            .await
            .map_err(|e| Failure::unreachable(format!("`{method}` could not be sent: {}", describe(e))))?;
        let is_stream = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !is_stream {
            // An error answers a stream request with plain JSON.
            let status = response.status();
            let body = self.body(response).await?;
            let answer: Value = serde_json::from_slice(&body).map_err(|_| {
                Failure::garbage(format!("it answered `{method}` with HTTP {status} and no event stream"))
            })?;
            return on_event(result(method, answer)?);
        }
        let mut buffer: Vec<u8> = Vec::new();
        let mut events = 0usize;
        // Where the search for the end of an event resumes (the bytes before hold none).
        let mut scanned = 0;
        loop {
            while let Some((end, skip)) = event_end(&buffer, scanned) {
                let event: Vec<u8> = buffer.drain(..end + skip).take(end).collect();
                scanned = 0;
                let Some(data) = event_data(&event) else { continue };
                events += 1;
                if events > MAX_STREAM_EVENTS {
                    return Err(Failure::garbage(format!(
                        "its stream sent more than {MAX_STREAM_EVENTS} events"
                    )));
                }
                let answer: Value = serde_json::from_str(&data).map_err(|_| {
                    Failure::garbage(format!("its stream sent an event that is not JSON: {}", cut(&data)))
                })?;
                if on_event(result(method, answer)?)? {
                    return Ok(true);
                }
            }
            if buffer.len() > self.max_bytes {
                return Err(Failure::garbage(format!(
                    "its stream sent an event over {} bytes",
                    self.max_bytes
                )));
            }
            scanned = buffer.len().saturating_sub(3);
            match response.chunk().await {
                Ok(Some(chunk)) => buffer.extend_from_slice(&chunk),
                Ok(None) => return Ok(false),
                Err(e) => return Err(Failure::broken(format!("its stream broke: {}", describe(e)))),
            }
        }
    }

    /// A response's body, refused past `max_bytes`.
    async fn body(&self, mut response: reqwest::Response) -> Result<Vec<u8>, Failure> {
        let mut body = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if body.len() + chunk.len() > self.max_bytes {
                        return Err(Failure::garbage(format!(
                            "it answered with over {} bytes",
                            self.max_bytes
                        )));
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => return Ok(body),
                Err(e) => return Err(Failure::broken(format!("its answer broke off: {}", describe(e)))),
            }
        }
    }
}

fn envelope(method: &str, params: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string()
}

/// A JSON-RPC answer's `result`, or its `error` as a failure.
fn result(method: &str, mut answer: Value) -> Result<Value, Failure> {
    if let Some(error) = answer.get("error").filter(|e| !e.is_null()) {
        let code = error["code"].as_i64().map_or_else(String::new, |c| format!(" {c}"));
        let message = error["message"].as_str().unwrap_or("no message");
        return Err(Failure::garbage(format!(
            "it refused `{method}` (error{code}: {})",
            cut(message)
        )));
    }
    match answer.get_mut("result") {
        Some(result) if !result.is_null() => Ok(result.take()),
        _ => Err(Failure::garbage(format!(
            "it answered `{method}` with neither a `result` nor an `error`"
        ))),
    }
}

/// Where the first complete event of `buffer` ends (searched from `from`), and the length of
/// the blank line after it.
fn event_end(buffer: &[u8], from: usize) -> Option<(usize, usize)> {
    (from..buffer.len()).find_map(|i| {
        if buffer[i..].starts_with(b"\r\n\r\n") {
            Some((i, 4))
        } else if buffer[i..].starts_with(b"\n\n") {
            Some((i, 2))
        } else {
            None
        }
    })
}

/// The `data:` lines of an event, joined; `None` for an event without data (a comment).
fn event_data(event: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(event);
    let lines: Vec<&str> = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| data.strip_prefix(' ').unwrap_or(data))
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// A reqwest error without the URL (it may carry a token), with its causes (a refused
/// certificate, a refused connection: reqwest's own message says only that sending failed).
fn describe(error: reqwest::Error) -> String {
    if error.is_timeout() {
        "timed out".to_owned()
    } else {
        let error = error.without_url();
        let mut text = error.to_string();
        let mut source = std::error::Error::source(&error);
        while let Some(inner) = source {
            text = format!("{text}: {inner}");
            source = inner.source();
        }
        text
    }
}

/// Text cut to 200 characters, for messages.
pub(crate) fn cut(text: &str) -> String {
    const LIMIT: usize = 200;
    if text.chars().count() > LIMIT {
        format!("{}…", text.chars().take(LIMIT).collect::<String>())
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_split_on_blank_lines() {
        let buffer = b"data: {\"a\":1}\r\n\r\n: comment\n\ndata: x";
        let (end, skip) = event_end(buffer, 0).unwrap();
        assert_eq!(event_data(&buffer[..end]).as_deref(), Some("{\"a\":1}"));
        let rest = &buffer[end + skip..];
        let (end, _) = event_end(rest, 0).unwrap();
        assert_eq!(event_data(&rest[..end]), None);
    }

    #[test]
    fn errors_name_the_method() {
        let error = result("SendMessage", json!({"error": {"code": -32001, "message": "no"}})).unwrap_err();
        assert_eq!(error.message, "it refused `SendMessage` (error -32001: no)");
        assert!(result("GetTask", json!({"id": 1})).is_err());
    }
}
