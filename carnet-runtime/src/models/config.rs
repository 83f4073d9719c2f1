//! What the clients share: their HTTP options (timeouts, retries, body limits), API keys that
//! never print, `tool_choice`, and reading the endpoint and key from the environment.

use std::time::Duration;

use hyper::Uri;

use crate::chat::ModelError;

/// Whether the model must call a tool (`tool_choice`), sent in each API's own form. In
/// [`ExposureMode::AllowedTools`](crate::ExposureMode::AllowedTools), `Required` makes the
/// allow-list's mode `required`; `Tool` replaces the allow-list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolChoice {
    /// The model decides (the APIs' default: nothing is sent).
    #[default]
    Auto,
    /// The model may not call tools.
    None,
    /// The model must call a tool (Anthropic: `any`; Gemini: mode `ANY`).
    Required,
    /// The model must call this tool (canonical name; sent under its alias).
    Tool(String),
}

impl ToolChoice {
    /// The tool's wire name.
    pub(super) fn alias(name: &str) -> String {
        crate::names::alias(name).map_or_else(|_| name.to_owned(), std::borrow::Cow::into_owned)
    }

    #[cfg(feature = "openai")]
    /// `tool_choice` for Chat Completions (`responses = false`) or Responses, given the
    /// body's own (the allow-list of `AllowedTools`), if any.
    pub(super) fn openai(&self, current: Option<&serde_json::Value>, responses: bool) -> Option<serde_json::Value> {
        use serde_json::json;
        match self {
            ToolChoice::Auto => None,
            ToolChoice::None => Some(json!("none")),
            ToolChoice::Required => Some(match current {
                Some(allowed) if responses => {
                    let mut allowed = allowed.clone();
                    allowed["mode"] = json!("required");
                    allowed
                }
                Some(allowed) => {
                    let mut allowed = allowed.clone();
                    allowed["allowed_tools"]["mode"] = json!("required");
                    allowed
                }
                None => json!("required"),
            }),
            ToolChoice::Tool(name) if responses => Some(json!({"type": "function", "name": Self::alias(name)})),
            ToolChoice::Tool(name) => Some(json!({"type": "function", "function": {"name": Self::alias(name)}})),
        }
    }

    /// Gemini's `toolConfig`, given the body's own (the allow-list of `AllowedTools`), if
    /// any: `functionCallingConfig.mode` `NONE`, or `ANY` (over the allow-list when there is
    /// one), or `ANY` with the one tool in `allowedFunctionNames`.
    #[cfg(feature = "gemini")]
    pub(super) fn gemini(&self, current: Option<&serde_json::Value>) -> Option<serde_json::Value> {
        use serde_json::json;
        match self {
            ToolChoice::Auto => None,
            ToolChoice::None => Some(json!({"functionCallingConfig": {"mode": "NONE"}})),
            ToolChoice::Required => Some(match current {
                Some(allowed) => {
                    let mut allowed = allowed.clone();
                    allowed["functionCallingConfig"]["mode"] = json!("ANY");
                    allowed
                }
                None => json!({"functionCallingConfig": {"mode": "ANY"}}),
            }),
            ToolChoice::Tool(name) => Some(json!({"functionCallingConfig": {
                "allowedFunctionNames": [Self::alias(name)],
                "mode": "ANY",
            }})),
        }
    }

    /// `tool_choice` for Anthropic Messages.
    #[cfg(feature = "anthropic")]
    pub(super) fn anthropic(&self) -> Option<serde_json::Value> {
        use serde_json::json;
        match self {
            ToolChoice::Auto => None,
            ToolChoice::None => Some(json!({"type": "none"})),
            ToolChoice::Required => Some(json!({"type": "any"})),
            ToolChoice::Tool(name) => Some(json!({"type": "tool", "name": Self::alias(name)})),
        }
    }
}

/// Timeouts, retries and bounds of a client's HTTP calls. The defaults follow the official
/// SDKs: two retries, backoff from 0.5 s to 8 s, `retry-after` honoured up to 60 s.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpOptions {
    /// Time to open a connection (TCP and TLS). Default 10 s.
    pub connect_timeout: Duration,
    /// Time for one attempt, from sending the request to the last byte of the answer
    /// (streamed answers included). Default 600 s.
    pub timeout: Duration,
    /// Attempts after the first. Default 2.
    pub max_retries: u32,
    /// The first retry's delay; it doubles with each retry. Default 0.5 s.
    pub initial_backoff: Duration,
    /// The longest delay between attempts. Default 8 s.
    pub max_backoff: Duration,
    /// The longest `retry-after` honoured; a longer one gets the backoff instead. Default 60 s.
    pub max_retry_after: Duration,
    /// The largest answer read, in bytes. Default 32 MiB.
    pub max_body_bytes: usize,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_mins(10),
            max_retries: 2,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
            max_retry_after: Duration::from_mins(1),
            max_body_bytes: 32 << 20,
        }
    }
}

impl HttpOptions {
    /// With this overall timeout per attempt.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// With this connect timeout.
    #[must_use]
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// With this many retries.
    #[must_use]
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// With this backoff: the first delay and the longest.
    #[must_use]
    pub fn backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.initial_backoff = initial;
        self.max_backoff = max;
        self
    }

    /// The delay before retry `n` (1-based): the backoff doubled `n - 1` times, capped, less
    /// up to a quarter at random (so that clients that failed together do not retry
    /// together).
    pub(super) fn backoff_delay(&self, n: u32) -> Duration {
        let doubled = self
            .initial_backoff
            .saturating_mul(1 << n.saturating_sub(1).min(20))
            .min(self.max_backoff);
        doubled.mul_f64(1.0 - 0.25 * jitter())
    }
}

/// A number in `[0, 1)`, different on every call (from the standard library's random hash
/// keys: no random-number crate for one jitter).
fn jitter() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(u64::from(std::process::id()));
    #[allow(clippy::cast_precision_loss)] // 53 bits are kept on purpose
    let unit = (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64;
    unit
}

/// An API key. It prints as `ApiKey(<redacted>)` and is never part of an error.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// The key `key`.
    #[must_use]
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    /// The key in the environment variable `variable`, if set and not empty.
    #[must_use]
    pub fn from_env(variable: &str) -> Option<Self> {
        std::env::var(variable)
            .ok()
            .filter(|key| !key.trim().is_empty())
            .map(|key| ApiKey(key.trim().to_owned()))
    }

    pub(super) fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// A base URL and the endpoint under it (`https://api.openai.com/v1` + `chat/completions`).
pub(super) fn endpoint(base: &str, what: &str, path: &str) -> Result<Uri, ModelError> {
    let bad = |message: String| ModelError::Config {
        what: what.to_owned(),
        message,
    };
    let base = base.trim().trim_end_matches('/');
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(bad(format!("`{base}` is not an http:// or https:// URL")));
    }
    let uri: Uri = format!("{base}/{path}")
        .parse()
        .map_err(|e| bad(format!("`{base}` is not a URL: {e}")))?;
    if uri.query().is_some() {
        return Err(bad(format!("`{base}` has a query; give the base URL only")));
    }
    Ok(uri)
}

/// The base URL from `variable`, else `default`; the key from `key_variable`, which may be
/// missing only when the base URL is not `default` (a local server). Gemini, which reads
/// two variables of each, has its own.
#[cfg(any(feature = "openai", feature = "anthropic"))]
pub(super) fn from_env(
    variable: &'static str,
    default: &str,
    key_variable: &'static str,
) -> Result<(String, Option<ApiKey>), ModelError> {
    let base = std::env::var(variable)
        .ok()
        .filter(|b| !b.trim().is_empty())
        .unwrap_or_else(|| default.to_owned());
    let key = ApiKey::from_env(key_variable);
    if key.is_none() && base.trim().trim_end_matches('/') == default {
        return Err(ModelError::MissingKey { variable: key_variable });
    }
    Ok((base, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_do_not_print() {
        let key = ApiKey::new("sk-secret");
        assert_eq!(format!("{key:?}"), "ApiKey(<redacted>)");
        assert_eq!(key.expose(), "sk-secret");
    }

    #[test]
    fn endpoints() {
        assert_eq!(
            endpoint("https://api.openai.com/v1/", "OPENAI_BASE_URL", "chat/completions")
                .unwrap()
                .to_string(),
            "https://api.openai.com/v1/chat/completions"
        );
        let err = endpoint("localhost:8080", "OPENAI_BASE_URL", "responses").unwrap_err();
        assert_eq!(
            err.to_string(),
            "OPENAI_BASE_URL: `localhost:8080` is not an http:// or https:// URL"
        );
        assert!(endpoint("http://a b", "X", "y").is_err());
    }

    #[test]
    fn backoff_doubles_up_to_its_cap_with_jitter() {
        let options = HttpOptions::default();
        for (n, full) in [(1, 500), (2, 1000), (3, 2000), (5, 8000), (40, 8000)] {
            let delay = options.backoff_delay(n).as_millis();
            assert!(delay <= full && delay >= full * 3 / 4, "retry {n}: {delay} ms");
        }
    }
}
