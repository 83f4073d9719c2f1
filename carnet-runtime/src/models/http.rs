//! The clients' transport: one HTTP/1.1 connection pool over rustls, JSON posts with
//! timeouts and bounded retries, and error statuses turned into [`ModelError`]s; and what
//! both clients do around it: a request's body written into one buffer, the answer read
//! whole or streamed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

use super::config::HttpOptions;
use crate::chat::{ChatRequest, ChatResponse, Delta, ModelError};
use crate::providers::history::Spliced;
use crate::providers::{Aliases, ProviderError, ResponseStream, StreamFormat, anthropic, gemini, openai};

/// A pool of connections to one provider, with its retry policy.
#[derive(Clone)]
pub(super) struct Transport {
    client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
    pub(super) options: HttpOptions,
    /// `openai`, `anthropic`: named in errors.
    provider: &'static str,
    /// Where the key comes from (`OPENAI_API_KEY`): named when the provider refuses it.
    key_variable: &'static str,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport")
            .field("provider", &self.provider)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// An attempt's failure, and whether another attempt may succeed.
struct Failure {
    error: ModelError,
    retry: bool,
    /// What the server asked for (`retry-after`), if it did.
    retry_after: Option<Duration>,
}

impl Transport {
    pub(super) fn new(
        provider: &'static str,
        key_variable: &'static str,
        options: HttpOptions,
    ) -> Result<Self, ModelError> {
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_nodelay(true);
        http.set_connect_timeout(Some(options.connect_timeout));
        let roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        let tls = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| ModelError::Config {
                what: "TLS".to_owned(),
                message: e.to_string(),
            })?
            .with_root_certificates(roots)
            .with_no_client_auth();
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_mins(1))
            .build(https);
        Ok(Transport {
            client,
            options,
            provider,
            key_variable,
        })
    }

    /// Posts `body` to `uri` and returns the whole response body, retrying as
    /// [`HttpOptions`] says on timeouts, dropped connections, 408, 409, 429 and 5xx.
    pub(super) async fn post(&self, uri: &Uri, headers: &HeaderMap, body: Bytes) -> Result<Bytes, ModelError> {
        self.with_retries(|| async {
            let response = self.send(uri, headers, body.clone()).await?;
            let deadline = tokio::time::Instant::now() + self.options.timeout;
            self.read_body(response, deadline).await
        })
        .await
    }

    /// Posts `body` and returns the response once its status is a success, for the caller
    /// to read as a stream. Retries as [`Transport::post`] until the status arrives; a
    /// stream that breaks later is not retried (its deltas were already reported).
    pub(super) async fn post_streaming(
        &self,
        uri: &Uri,
        headers: &HeaderMap,
        body: Bytes,
    ) -> Result<Response<Incoming>, ModelError> {
        self.with_retries(|| self.send(uri, headers, body.clone())).await
    }

    /// Reads the next chunk of a streamed body, `None` at its end, within the overall
    /// timeout (measured from `started`) and the size bound (`received` so far).
    pub(super) async fn next_chunk(
        &self,
        body: &mut Incoming,
        started: Instant,
        received: &mut usize,
    ) -> Result<Option<Bytes>, ModelError> {
        loop {
            let left = self.options.timeout.saturating_sub(started.elapsed());
            let frame = match tokio::time::timeout(left, body.frame()).await {
                Err(_) => return Err(self.timeout(1)),
                Ok(None) => return Ok(None),
                Ok(Some(Err(e))) => return Err(self.connection(1, &format!("the stream broke: {e}"))),
                Ok(Some(Ok(frame))) => frame,
            };
            if let Ok(data) = frame.into_data() {
                *received += data.len();
                if *received > self.options.max_body_bytes {
                    return Err(self.too_large());
                }
                return Ok(Some(data));
            }
        }
    }

    async fn with_retries<T, F, Fut>(&self, mut attempt: F) -> Result<T, ModelError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let attempts = self.options.max_retries + 1;
        for n in 1..=attempts {
            let failure = match attempt().await {
                Ok(value) => return Ok(value),
                Err(failure) => failure,
            };
            if !failure.retry || n == attempts {
                return Err(with_attempts(failure.error, n));
            }
            let delay = match failure.retry_after {
                Some(asked) if asked <= self.options.max_retry_after => asked,
                _ => self.options.backoff_delay(n),
            };
            tokio::time::sleep(delay).await;
        }
        unreachable!("the last attempt returns")
    }

    /// One request, up to its status and headers; error statuses are read and turned into
    /// failures here.
    async fn send(&self, uri: &Uri, headers: &HeaderMap, body: Bytes) -> Result<Response<Incoming>, Failure> {
        let mut request = Request::builder().method(Method::POST).uri(uri.clone());
        if let Some(all) = request.headers_mut() {
            all.extend(headers.iter().map(|(k, v)| (k.clone(), v.clone())));
            all.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            all.insert(header::USER_AGENT, HeaderValue::from_static(USER_AGENT));
        }
        let request = request.body(Full::new(body)).map_err(|e| Failure {
            error: ModelError::Config {
                what: "the request".to_owned(),
                message: e.to_string(),
            },
            retry: false,
            retry_after: None,
        })?;
        let deadline = tokio::time::Instant::now() + self.options.timeout;
        let response = match tokio::time::timeout_at(deadline, self.client.request(request)).await {
            Err(_) => return Err(retryable(self.timeout(1), None)),
            Ok(Err(e)) => return Err(retryable(self.connection(1, &error_chain(&e)), None)),
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry_after = retry_after(response.headers());
        let body = self.read_body(response, deadline).await.unwrap_or_default();
        let retry_after = retry_after.or_else(|| retry_delay(&body));
        let message = provider_message(status, &body);
        let error = match status.as_u16() {
            401 | 403 => ModelError::Unauthorized {
                provider: self.provider,
                status: status.as_u16(),
                message,
                variable: self.key_variable,
            },
            408 | 409 | 429 | 500..=599 => ModelError::Unavailable {
                provider: self.provider,
                status: status.as_u16(),
                attempts: 1,
                message,
            },
            code => ModelError::Rejected {
                provider: self.provider,
                status: code,
                message,
            },
        };
        let retry = matches!(error, ModelError::Unavailable { .. });
        Err(Failure {
            error,
            retry,
            retry_after,
        })
    }

    /// The whole body, bounded in size and time; a body cut short is a retryable failure.
    async fn read_body(&self, response: Response<Incoming>, deadline: tokio::time::Instant) -> Result<Bytes, Failure> {
        let limited = Limited::new(response.into_body(), self.options.max_body_bytes);
        match tokio::time::timeout_at(deadline, limited.collect()).await {
            Err(_) => Err(retryable(self.timeout(1), None)),
            Ok(Ok(collected)) => Ok(collected.to_bytes()),
            Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(Failure {
                error: self.too_large(),
                retry: false,
                retry_after: None,
            }),
            Ok(Err(e)) => Err(retryable(
                self.connection(1, &format!("the response was cut short: {e}")),
                None,
            )),
        }
    }

    fn timeout(&self, attempts: u32) -> ModelError {
        ModelError::Timeout {
            provider: self.provider,
            seconds: self.options.timeout.as_secs(),
            attempts,
        }
    }

    fn connection(&self, attempts: u32, message: &str) -> ModelError {
        ModelError::Connection {
            provider: self.provider,
            attempts,
            message: message.to_owned(),
        }
    }

    fn too_large(&self) -> ModelError {
        ModelError::InvalidResponse {
            provider: self.provider,
            message: format!("the response is larger than {} bytes", self.options.max_body_bytes),
        }
    }
}

/// A chat request's body written by `write` into one buffer, with room for the prompt (most
/// of a body) and some tools and messages: few regrowths.
pub(super) fn body_bytes(
    request: &ChatRequest<'_>,
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), ModelError>,
) -> Result<Bytes, ModelError> {
    let mut body = Vec::with_capacity(request.system.len() + 16 * 1024);
    write(&mut body)?;
    Ok(Bytes::from(body))
}

/// Writes a client's rendered body into `out`: what its `write_request_body` does once the
/// body is rendered.
pub(super) fn write_body<W: std::io::Write + ?Sized>(body: &Spliced<'_>, out: &mut W) -> Result<(), ModelError> {
    body.write(out)
        .map_err(|e| ModelError::other(format!("the body cannot be written: {e}")))
}

impl Transport {
    /// Posts a chat request's `body` and reads the answer of the API `format` names: whole,
    /// or as server-sent events given to `on_delta` as they come. Tool names are mapped back
    /// through `aliases`; an answer that cannot be read is [`ModelError::InvalidResponse`].
    pub(super) async fn exchange(
        &self,
        uri: &Uri,
        headers: &HeaderMap,
        body: Bytes,
        format: StreamFormat,
        aliases: Aliases,
        on_delta: Option<&mut (dyn FnMut(Delta<'_>) + Send)>,
    ) -> Result<ChatResponse, ModelError> {
        let Some(on_delta) = on_delta else {
            let bytes = self.post(uri, headers, body).await?;
            let value: Value = serde_json::from_slice(&bytes).map_err(|e| self.invalid(format!("not JSON: {e}")))?;
            let parsed = match format {
                StreamFormat::OpenAiChat => openai::parse_chat_response(&value, &aliases),
                StreamFormat::OpenAiResponses => openai::parse_responses_response(&value, &aliases),
                StreamFormat::Anthropic => anthropic::parse_response(&value, &aliases),
                StreamFormat::Gemini => gemini::parse_response(&value, &aliases),
            };
            return parsed.map_err(|e| self.unread(e));
        };
        self.read_stream(uri, headers, body, ResponseStream::new(format, aliases), on_delta)
            .await
    }

    /// Posts `body` and reads the answer as a stream of server-sent events.
    async fn read_stream(
        &self,
        uri: &Uri,
        headers: &HeaderMap,
        body: Bytes,
        mut stream: ResponseStream,
        on_delta: &mut (dyn FnMut(Delta<'_>) + Send),
    ) -> Result<ChatResponse, ModelError> {
        let started = Instant::now();
        let response = self.post_streaming(uri, headers, body).await?;
        let mut body = response.into_body();
        let mut received = 0;
        while let Some(chunk) = self.next_chunk(&mut body, started, &mut received).await? {
            stream.feed(&chunk, on_delta).map_err(|e| self.unread(e))?;
        }
        stream.finish().map_err(|e| self.unread(e))
    }

    /// Why an answer could not be read: a prompt the provider blocked is its refusal of the
    /// request (the status was 200), anything else an unreadable response.
    fn unread(&self, error: ProviderError) -> ModelError {
        match error {
            ProviderError::Blocked { .. } => ModelError::Rejected {
                provider: self.provider,
                status: 200,
                message: error.to_string(),
            },
            other => self.invalid(other),
        }
    }

    fn invalid(&self, message: impl std::fmt::Display) -> ModelError {
        ModelError::InvalidResponse {
            provider: self.provider,
            message: message.to_string(),
        }
    }
}

const USER_AGENT: &str = concat!("carnet/", env!("CARGO_PKG_VERSION"));

fn retryable(error: ModelError, retry_after: Option<Duration>) -> Failure {
    Failure {
        error,
        retry: true,
        retry_after,
    }
}

/// `error` with the number of attempts made.
fn with_attempts(mut error: ModelError, n: u32) -> ModelError {
    match &mut error {
        ModelError::Unavailable { attempts, .. }
        | ModelError::Timeout { attempts, .. }
        | ModelError::Connection { attempts, .. } => *attempts = n,
        _ => {}
    }
    error
}

/// An error and its sources, as one line (hyper's own message alone says little).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The delay a server asked for: `retry-after-ms` (`OpenAI`), else `retry-after` in seconds
/// or as an HTTP date.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return Duration::try_from_secs_f64(ms / 1000.0).ok();
    }
    let value = text("retry-after")?;
    if let Ok(seconds) = value.parse::<f64>() {
        return Duration::try_from_secs_f64(seconds).ok();
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// The delay Google asks for in an error body rather than a header (Gemini's 429 and 503):
/// the `retryDelay` of its `google.rpc.RetryInfo` detail, a protobuf duration (`"37s"`,
/// `"0.5s"`).
fn retry_delay(body: &[u8]) -> Option<Duration> {
    let json: Value = serde_json::from_slice(body).ok()?;
    json.pointer("/error/details")?
        .as_array()?
        .iter()
        .filter_map(|detail| detail.get("retryDelay")?.as_str())
        .find_map(|delay| {
            let seconds: f64 = delay.strip_suffix('s')?.parse().ok()?;
            Duration::try_from_secs_f64(seconds).ok()
        })
}

/// The provider's own message in an error body (`{"error": {"message": ...}}`, which both
/// `OpenAI` and Anthropic send), else the body's text, shortened, else the status.
fn provider_message(status: StatusCode, body: &[u8]) -> String {
    let json: Option<Value> = serde_json::from_slice(body).ok();
    let message = json.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("message"))
            .or_else(|| v.get("error"))
            .and_then(Value::as_str)
    });
    match message {
        Some(message) => message.to_owned(),
        None if body.iter().all(u8::is_ascii_whitespace) => {
            status.canonical_reason().unwrap_or("no message").to_owned()
        }
        None => {
            let text = String::from_utf8_lossy(body);
            let mut short: String = text.chars().take(300).collect();
            if text.chars().count() > 300 {
                short.push('…');
            }
            short
        }
    }
}

/// A header value that is never printed (`Authorization`, `x-api-key`).
pub(super) fn secret_header(value: &str) -> Result<HeaderValue, ModelError> {
    let mut value = HeaderValue::from_str(value).map_err(|_| ModelError::Config {
        what: "the API key".to_owned(),
        message: "it holds characters an HTTP header cannot carry".to_owned(),
    })?;
    value.set_sensitive(true);
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_in_every_form() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        headers.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(250)));
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"));
        assert_eq!(retry_after(&headers), Some(Duration::ZERO), "a date in the past");
        headers.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&headers), None);
        headers.insert("retry-after", HeaderValue::from_static("-1"));
        assert_eq!(retry_after(&headers), None);
    }

    #[test]
    fn googles_retry_delay_in_the_body() {
        let body = br#"{"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []},
                        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s"}]}}"#;
        assert_eq!(retry_delay(body), Some(Duration::from_secs(37)));
        let half = br#"{"error": {"details": [{"retryDelay": "0.5s"}]}}"#;
        assert_eq!(retry_delay(half), Some(Duration::from_millis(500)));
        for none in [
            &br#"{"error": {"details": [{"retryDelay": "soon"}]}}"#[..],
            b"{}",
            b"<html>",
            br#"{"error": {"details": [{"retryDelay": "-1s"}]}}"#,
        ] {
            assert_eq!(retry_delay(none), None, "{}", String::from_utf8_lossy(none));
        }
    }

    #[test]
    fn provider_messages() {
        let openai = br#"{"error": {"message": "Invalid 'tools[0].function.name'", "type": "invalid_request_error"}}"#;
        assert_eq!(
            provider_message(StatusCode::BAD_REQUEST, openai),
            "Invalid 'tools[0].function.name'"
        );
        let anthropic = br#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#;
        assert_eq!(provider_message(StatusCode::BAD_GATEWAY, anthropic), "Overloaded");
        assert_eq!(provider_message(StatusCode::BAD_GATEWAY, b""), "Bad Gateway");
        assert_eq!(provider_message(StatusCode::BAD_GATEWAY, b"<html>"), "<html>");
    }
}
