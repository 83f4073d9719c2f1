//! The Gemini client: `generateContent` and `streamGenerateContent` (Gemini API, AI Studio
//! keys).

use hyper::Uri;
use hyper::header::{self, HeaderMap, HeaderName};
use serde_json::{Value, json};

use super::config::{ApiKey, HttpOptions, ToolChoice, endpoint};
use super::http::{Transport, body_bytes, secret_header, write_body};
use crate::chat::{ChatModel, ChatRequest, ChatResponse, Delta, ModelError};
use crate::dispatch::BoxFuture;
use crate::providers::conversation;
use crate::providers::history::Spliced;
use crate::providers::{Aliases, StreamFormat, gemini};

const PROVIDER: &str = "gemini";
/// The key's variables, in google-genai's order: `GOOGLE_API_KEY` wins when both are set.
const KEYS: [&str; 2] = ["GOOGLE_API_KEY", "GEMINI_API_KEY"];
/// The base URL's variables: google-genai's, then the short form.
const BASES: [&str; 2] = ["GOOGLE_GEMINI_BASE_URL", "GEMINI_BASE_URL"];
const DEFAULT_BASE: &str = "https://generativelanguage.googleapis.com";
/// The API version the bodies are written for: `v1beta` has every field sent here
/// (`parametersJsonSchema`, the `VALIDATED` mode, thought signatures).
const VERSION: &str = "v1beta";

/// A client for the Gemini API: `POST {base}/v1beta/models/{model}:generateContent`, and
/// `:streamGenerateContent?alt=sse` for streamed answers, the key in the `x-goog-api-key`
/// header.
///
/// The body is [`gemini::request`]'s (see there how the conversation becomes `contents`).
/// Gemini names its function calls only sometimes: a call without id is answered by name,
/// in order, as Gemini expects. Its thought signatures (Gemini 3 refuses a history of calls
/// without them) are kept with the answer ([`ChatResponse::hosted`]) and go back unchanged.
/// [`ExposureMode::Deferred`](crate::ExposureMode::Deferred) has no Gemini form: every tool
/// is sent; [`ExposureMode::AllowedTools`](crate::ExposureMode::AllowedTools) restricts the
/// model with `allowedFunctionNames`.
///
/// # Examples
///
/// ```no_run
/// use carnet_runtime::models::{Gemini, HttpOptions};
///
/// // GOOGLE_API_KEY or GEMINI_API_KEY, and GOOGLE_GEMINI_BASE_URL (or GEMINI_BASE_URL).
/// let model = Gemini::from_env("gemini-2.5-flash")?
///     .max_output_tokens(2048)
///     .http(HttpOptions::default().max_retries(4))?;
/// # Ok::<(), carnet_runtime::chat::ModelError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Gemini {
    transport: Transport,
    key: Option<ApiKey>,
    /// Where the key came from, named when Gemini refuses it.
    key_variable: &'static str,
    /// Where the base URL came from, named when it is not one.
    base_variable: &'static str,
    base: String,
    version: String,
    /// `models/{name}` (or `tunedModels/{name}`), as the URL holds it.
    path: String,
    model: String,
    options: gemini::RequestOptions,
    max_output_tokens: Option<u32>,
    tool_choice: ToolChoice,
}

impl Gemini {
    /// A client for `model` (`gemini-2.5-flash`, or `models/...`, `tunedModels/...`),
    /// configured from the environment as google-genai reads it: the key from
    /// `GOOGLE_API_KEY`, else `GEMINI_API_KEY`; the base URL from `GOOGLE_GEMINI_BASE_URL`,
    /// else `GEMINI_BASE_URL`, else `https://generativelanguage.googleapis.com`.
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingKey`] when neither key is set and the base URL is Google's;
    /// [`ModelError::Config`] when the base URL is not a URL or the model name cannot be part
    /// of one.
    pub fn from_env(model: impl Into<String>) -> Result<Self, ModelError> {
        Self::from_env_for(model.into())
    }

    /// [`Gemini::from_env`]'s body, compiled once here rather than in each program.
    fn from_env_for(model: String) -> Result<Self, ModelError> {
        let (variable, base) = BASES
            .iter()
            .find_map(|v| {
                let base = std::env::var(v).ok().filter(|b| !b.trim().is_empty())?;
                Some((*v, base))
            })
            .unwrap_or((BASES[0], DEFAULT_BASE.to_owned()));
        let (key_variable, key) = KEYS
            .iter()
            .find_map(|v| Some((*v, ApiKey::from_env(v)?)))
            .map_or((KEYS[1], None), |(v, key)| (v, Some(key)));
        if key.is_none() && base.trim().trim_end_matches('/') == DEFAULT_BASE {
            return Err(ModelError::MissingKey { variable: KEYS[1] });
        }
        Gemini::with(key, base, model, (variable, key_variable))
    }

    /// A client for `model` at `base_url` (`https://generativelanguage.googleapis.com`),
    /// with `key` (none for a local server or a proxy that adds it).
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] when `base_url` is not an `http(s)://` URL, or the model name
    /// cannot be part of one.
    pub fn new(key: Option<ApiKey>, base_url: impl Into<String>, model: impl Into<String>) -> Result<Self, ModelError> {
        Self::with(key, base_url.into(), model.into(), (BASES[0], KEYS[1]))
    }

    /// [`Gemini::new`]'s body, compiled once here rather than in each program; `variables`
    /// name the base URL and the key in errors.
    fn with(
        key: Option<ApiKey>,
        base: String,
        model: String,
        variables: (&'static str, &'static str),
    ) -> Result<Self, ModelError> {
        let (base_variable, key_variable) = variables;
        let path = model_path(&model)?;
        endpoint(&base, base_variable, &format!("{VERSION}/{path}:generateContent"))?;
        Ok(Gemini {
            transport: Transport::new(PROVIDER, key_variable, HttpOptions::default())?,
            key,
            key_variable,
            base_variable,
            base,
            version: VERSION.to_owned(),
            path,
            model,
            options: gemini::RequestOptions::default(),
            max_output_tokens: None,
            tool_choice: ToolChoice::Auto,
        })
    }

    /// Calls another API version than `v1beta` (`v1`, which google-genai 3 defaults to, or
    /// `v1alpha`). The bodies stay the same: a version without a field sent here refuses it.
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] when `version` cannot be part of a URL path.
    pub fn api_version(mut self, version: impl Into<String>) -> Result<Self, ModelError> {
        let version = version.into();
        if version.is_empty() || !version.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(ModelError::Config {
                what: "the API version".to_owned(),
                message: format!("`{version}` is not an API version (`v1beta`, `v1`)"),
            });
        }
        self.version = version;
        Ok(self)
    }

    /// Sends each tool's input schema unchanged as `parametersJsonSchema` rather than
    /// converted to `parameters` (see [`gemini::RequestOptions::json_schema`]): for schemas
    /// `parameters` cannot express (recursive types), with models that accept it.
    #[must_use]
    pub fn json_schema(mut self, json_schema: bool) -> Self {
        self.options.json_schema = json_schema;
        self
    }

    /// Bounds each answer (`generationConfig.maxOutputTokens`; thoughts count against it).
    #[must_use]
    pub fn max_output_tokens(mut self, tokens: u32) -> Self {
        self.max_output_tokens = Some(tokens);
        self
    }

    /// Whether the model must call a tool, from the next request on (Gemini's
    /// `functionCallingConfig.mode`: `NONE`, `ANY`, or `ANY` with one allowed function).
    pub fn set_tool_choice(&mut self, choice: ToolChoice) {
        self.tool_choice = choice;
    }

    /// With these timeouts, retries and bounds.
    ///
    /// # Errors
    ///
    /// When the TLS configuration cannot be built.
    pub fn http(mut self, options: HttpOptions) -> Result<Self, ModelError> {
        self.transport = Transport::new(PROVIDER, self.key_variable, options)?;
        Ok(self)
    }

    /// The exact body sent for `request`. Streamed or not, Gemini's body is the same (the
    /// URL differs); `stream` is there to match the other clients.
    ///
    /// # Errors
    ///
    /// When the tools cannot be sent (see [`crate::providers::ProviderError`]).
    pub fn request_body(&self, request: &ChatRequest<'_>, _stream: bool) -> Result<Value, ModelError> {
        Ok(self.body(request, false)?.body)
    }

    /// Writes the exact body sent for `request` into `out`: the bytes of
    /// [`Gemini::request_body`] serialized, written without building that `Value` (see
    /// [`crate::providers`], *Bytes*). This is what the client sends.
    ///
    /// # Errors
    ///
    /// When the tools cannot be sent, or `out` fails.
    pub fn write_request_body<W: std::io::Write + ?Sized>(
        &self,
        request: &ChatRequest<'_>,
        _stream: bool,
        out: &mut W,
    ) -> Result<(), ModelError> {
        write_body(&self.body(request, true)?, out)
    }

    fn body<'a>(&self, request: &ChatRequest<'a>, splice: bool) -> Result<Spliced<'a>, ModelError> {
        let mut spliced = conversation::gemini_body(request, &self.options, splice)
            .map_err(|e| ModelError::other(format!("the tools cannot be sent to Gemini: {e}")))?;
        let body = &mut spliced.body;
        if let Some(tokens) = self.max_output_tokens {
            body["generationConfig"] = json!({"maxOutputTokens": tokens});
        }
        if !request.tools.is_empty()
            && let Some(config) = self.tool_choice.gemini(body.get("toolConfig"))
        {
            body["toolConfig"] = config;
        }
        Ok(spliced)
    }

    fn uri(&self, stream: bool) -> Result<Uri, ModelError> {
        let method = if stream {
            "streamGenerateContent"
        } else {
            "generateContent"
        };
        let path = format!("{}/{}:{method}", self.version, self.path);
        let uri = endpoint(&self.base, self.base_variable, &path)?;
        if !stream {
            return Ok(uri);
        }
        format!("{uri}?alt=sse").parse().map_err(|e| ModelError::Config {
            what: self.base_variable.to_owned(),
            message: format!("`{uri}?alt=sse` is not a URL: {e}"),
        })
    }

    fn headers(&self, stream: bool) -> Result<HeaderMap, ModelError> {
        let mut headers = HeaderMap::new();
        if let Some(key) = &self.key {
            headers.insert(HeaderName::from_static("x-goog-api-key"), secret_header(key.expose())?);
        }
        if stream {
            headers.insert(header::ACCEPT, header::HeaderValue::from_static("text/event-stream"));
        }
        Ok(headers)
    }

    async fn call(
        &self,
        request: ChatRequest<'_>,
        on_delta: Option<&mut (dyn FnMut(Delta<'_>) + Send)>,
    ) -> Result<ChatResponse, ModelError> {
        let aliases = Aliases::new(request.tools).map_err(|e| ModelError::other(e.to_string()))?;
        let stream = on_delta.is_some();
        let body = body_bytes(&request, |out| self.write_request_body(&request, stream, out))?;
        let (uri, headers) = (self.uri(stream)?, self.headers(stream)?);
        self.transport
            .exchange(&uri, &headers, body, StreamFormat::Gemini, aliases, on_delta)
            .await
    }
}

/// The model's place in the URL: `models/{name}` for a bare name, a `models/...` or
/// `tunedModels/...` name as it is (as google-genai does).
fn model_path(model: &str) -> Result<String, ModelError> {
    let name = model
        .strip_prefix("models/")
        .or_else(|| model.strip_prefix("tunedModels/"));
    let name_ok = |name: &str| {
        !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
    };
    match name {
        Some(name) if name_ok(name) => Ok(model.to_owned()),
        None if name_ok(model) => Ok(format!("models/{model}")),
        _ => Err(ModelError::Config {
            what: "the model".to_owned(),
            message: format!("`{model}` is not a Gemini model name (`gemini-2.5-flash`, `models/...`)"),
        }),
    }
}

impl ChatModel for Gemini {
    fn complete<'a>(&'a mut self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        Box::pin(self.call(request, None))
    }

    fn stream<'a>(
        &'a mut self,
        request: ChatRequest<'a>,
        on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    ) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        Box::pin(self.call(request, Some(on_delta)))
    }

    fn provider(&self) -> &str {
        PROVIDER
    }

    fn model(&self) -> &str {
        &self.model
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_names_become_paths() {
        assert_eq!(model_path("gemini-2.5-flash").unwrap(), "models/gemini-2.5-flash");
        assert_eq!(model_path("models/gemini-3-pro").unwrap(), "models/gemini-3-pro");
        assert_eq!(model_path("tunedModels/mine-1").unwrap(), "tunedModels/mine-1");
        for bad in ["", "models/", "a b", "x?alt=json", "../v1/files", "models/a/b"] {
            assert!(model_path(bad).is_err(), "{bad:?}");
        }
    }
}
