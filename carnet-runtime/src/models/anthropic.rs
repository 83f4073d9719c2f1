//! The Anthropic client: Messages.

use hyper::Uri;
use hyper::header::{self, HeaderMap, HeaderName};
use serde_json::Value;

use super::config::{ApiKey, HttpOptions, ToolChoice, endpoint, from_env};
use super::http::{Transport, body_bytes, secret_header, write_body};
use crate::chat::{ChatModel, ChatRequest, ChatResponse, Delta, ModelError};
use crate::dispatch::BoxFuture;
use crate::providers::conversation;
use crate::providers::history::Spliced;
use crate::providers::{Aliases, ProviderSearch, StreamFormat, anthropic};

const PROVIDER: &str = "anthropic";
const KEY: &str = "ANTHROPIC_API_KEY";
const BASE: &str = "ANTHROPIC_BASE_URL";
const DEFAULT_BASE: &str = "https://api.anthropic.com";
/// The `anthropic-version` header: the API version the bodies are written for, the one the
/// official SDKs send since their 2026-10-21 majors (`anthropic` 2.0.0; 2.12.0 judges the
/// bodies here). Its breaking changes are all about what carnet never sends: sampling
/// parameters (`temperature`, `top_p`, `top_k`), document blocks in assistant messages,
/// citations on a user's text blocks. The key stays in `x-api-key`, as the version's own
/// migration guide sends it (the SDKs moved to `Authorization: Bearer`; the API takes both).
const VERSION: &str = "2026-10-21";

/// Models that answer a forced `tool_choice` (`any`, or a named tool) with a 400: Claude
/// Fable 5.1 and Claude Mythos 5.1 (Anthropic's release notes of 2026-09-01), matched
/// anywhere in the model name (`claude-fable-5-1`, a platform's `anthropic.claude-fable-5-1`).
const NO_FORCED_TOOL_CHOICE: [&str; 2] = ["claude-fable-5-1", "claude-mythos-5-1"];

/// A client for Anthropic's Messages API (`POST {base}/v1/messages`).
///
/// # Examples
///
/// ```no_run
/// use carnet_runtime::models::Anthropic;
///
/// // ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL, as the official SDKs read them.
/// let model = Anthropic::from_env("claude-sonnet-4-5")?.max_tokens(2048);
/// # Ok::<(), carnet_runtime::chat::ModelError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Anthropic {
    transport: Transport,
    key: Option<ApiKey>,
    base: String,
    options: anthropic::RequestOptions,
    tool_choice: ToolChoice,
    /// Whether the model takes a forced `tool_choice` (see [`Anthropic::forced_tool_choice`]).
    forced_tool_choice: bool,
    search: ProviderSearch,
    /// `anthropic-beta` values, comma-joined into one header.
    betas: Vec<String>,
    /// The `anthropic-version` header.
    version: String,
}

impl Anthropic {
    /// A client for `model`, configured from `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL`;
    /// `max_tokens` 4096.
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingKey`] when `ANTHROPIC_API_KEY` is unset and the base URL is
    /// Anthropic's; [`ModelError::Config`] when `ANTHROPIC_BASE_URL` is not a URL.
    pub fn from_env(model: impl Into<String>) -> Result<Self, ModelError> {
        Self::from_env_for(model.into())
    }

    /// [`Anthropic::from_env`]'s body, compiled once here rather than in each program.
    fn from_env_for(model: String) -> Result<Self, ModelError> {
        let (base, key) = from_env(BASE, DEFAULT_BASE, KEY)?;
        Anthropic::with(key, base, model)
    }

    /// A client for `model` at `base_url` (`https://api.anthropic.com`), with `key`.
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] when `base_url` is not an `http(s)://` URL.
    pub fn new(key: Option<ApiKey>, base_url: impl Into<String>, model: impl Into<String>) -> Result<Self, ModelError> {
        Self::with(key, base_url.into(), model.into())
    }

    /// [`Anthropic::new`]'s body, compiled once here rather than in each program.
    fn with(key: Option<ApiKey>, base: String, model: String) -> Result<Self, ModelError> {
        endpoint(&base, BASE, "v1/messages")?;
        let forced_tool_choice = !NO_FORCED_TOOL_CHOICE.iter().any(|name| model.contains(name));
        Ok(Anthropic {
            transport: Transport::new(PROVIDER, KEY, HttpOptions::default())?,
            key,
            base,
            options: anthropic::RequestOptions {
                model,
                max_tokens: 4096,
            },
            tool_choice: ToolChoice::Auto,
            forced_tool_choice,
            search: ProviderSearch::Off,
            betas: Vec::new(),
            version: VERSION.to_owned(),
        })
    }

    /// Whether the model takes a forced `tool_choice`. When it does not,
    /// [`ToolChoice::Required`] and [`ToolChoice::Tool`] are sent as `auto` (no
    /// `tool_choice`): the request the model accepts, the choice left to it. By default
    /// `false` for the models that refuse one (Claude Fable 5.1, Claude Mythos 5.1), `true`
    /// for the others.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use carnet_runtime::models::{Anthropic, ToolChoice};
    ///
    /// let mut model = Anthropic::from_env("claude-fable-5-1")?;
    /// model.set_tool_choice(ToolChoice::Required); // sent as `auto`: Fable 5.1 refuses `any`
    /// let mut model = Anthropic::from_env("my-proxy-alias")?.forced_tool_choice(false);
    /// # Ok::<(), carnet_runtime::chat::ModelError>(())
    /// ```
    #[must_use]
    pub fn forced_tool_choice(mut self, accepted: bool) -> Self {
        self.forced_tool_choice = accepted;
        self
    }

    /// Sends another `anthropic-version` than `2026-10-21` (`2023-06-01`, for an endpoint
    /// that knows only that one). The bodies stay the same.
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] when `version` cannot be a header value.
    pub fn api_version(mut self, version: impl Into<String>) -> Result<Self, ModelError> {
        let version = version.into();
        if version.is_empty() || header::HeaderValue::from_str(&version).is_err() {
            return Err(ModelError::Config {
                what: "anthropic-version".to_owned(),
                message: format!("`{version}` is not an API version (`2026-10-21`)"),
            });
        }
        self.version = version;
        Ok(self)
    }

    /// Declares Anthropic's server-side tool search over the deferred tools, in
    /// [`ExposureMode::Deferred`](crate::ExposureMode::Deferred) (see [`ProviderSearch`] and
    /// [`anthropic::declare_tool_search`]); off by default. In the other modes nothing is
    /// deferred and the body stays as it is.
    ///
    /// No beta header is sent for it: the tool search types are part of the Messages API
    /// proper in the official SDK (`anthropic` 2.12.0), which no longer lists the
    /// `advanced-tool-use-2025-11-20` beta. An endpoint that still asks for it gets it with
    /// [`Anthropic::beta`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use carnet_runtime::models::Anthropic;
    /// use carnet_runtime::providers::ProviderSearch;
    ///
    /// let model = Anthropic::from_env("claude-sonnet-4-5")?.tool_search(ProviderSearch::Bm25);
    /// # Ok::<(), carnet_runtime::chat::ModelError>(())
    /// ```
    #[must_use]
    pub fn tool_search(mut self, search: ProviderSearch) -> Self {
        self.search = search;
        self
    }

    /// Sends `name` in the `anthropic-beta` header of every request (several are joined
    /// with commas, in the order given; a repeat is sent once).
    #[must_use]
    pub fn beta(mut self, name: impl Into<String>) -> Self {
        let name = name.into();
        if !self.betas.contains(&name) {
            self.betas.push(name);
        }
        self
    }

    /// Bounds each answer (`max_tokens`, which the API requires; 4096 by default).
    #[must_use]
    pub fn max_tokens(mut self, tokens: u32) -> Self {
        self.options.max_tokens = tokens;
        self
    }

    /// Whether the model must call a tool, from the next request on (to a model that refuses
    /// a forced choice, `auto`: see [`Anthropic::forced_tool_choice`]).
    pub fn set_tool_choice(&mut self, choice: ToolChoice) {
        self.tool_choice = choice;
    }

    /// With these timeouts, retries and bounds.
    ///
    /// # Errors
    ///
    /// When the TLS configuration cannot be built.
    pub fn http(mut self, options: HttpOptions) -> Result<Self, ModelError> {
        self.transport = Transport::new(PROVIDER, KEY, options)?;
        Ok(self)
    }

    /// The exact body sent for `request` (`stream` adds `"stream": true`).
    ///
    /// # Errors
    ///
    /// When the tools cannot be sent (see [`crate::providers::ProviderError`]).
    pub fn request_body(&self, request: &ChatRequest<'_>, stream: bool) -> Result<Value, ModelError> {
        Ok(self.body(request, stream, false)?.body)
    }

    /// Writes the exact body sent for `request` into `out`: the bytes of
    /// [`Anthropic::request_body`] serialized, written without building that `Value` (see
    /// [`crate::providers`], *Bytes*). This is what the client sends.
    ///
    /// # Errors
    ///
    /// When the tools cannot be sent, or `out` fails.
    pub fn write_request_body<W: std::io::Write + ?Sized>(
        &self,
        request: &ChatRequest<'_>,
        stream: bool,
        out: &mut W,
    ) -> Result<(), ModelError> {
        write_body(&self.body(request, stream, true)?, out)
    }

    fn body<'a>(&self, request: &ChatRequest<'a>, stream: bool, splice: bool) -> Result<Spliced<'a>, ModelError> {
        let mut spliced = conversation::anthropic_body(request, &self.options, splice)
            .map_err(|e| ModelError::other(format!("the tools cannot be sent to Anthropic: {e}")))?;
        let body = &mut spliced.body;
        anthropic::declare_tool_search(body, self.search)
            .map_err(|e| ModelError::other(format!("the tools cannot be sent to Anthropic: {e}")))?;
        let forced = matches!(self.tool_choice, ToolChoice::Required | ToolChoice::Tool(_));
        if !request.tools.is_empty()
            && (self.forced_tool_choice || !forced)
            && let Some(choice) = self.tool_choice.anthropic()
        {
            body["tool_choice"] = choice;
        }
        if stream {
            body["stream"] = Value::Bool(true);
        }
        Ok(spliced)
    }

    fn uri(&self) -> Result<Uri, ModelError> {
        endpoint(&self.base, BASE, "v1/messages")
    }

    fn headers(&self, stream: bool) -> Result<HeaderMap, ModelError> {
        let mut headers = HeaderMap::new();
        let version = header::HeaderValue::from_str(&self.version).map_err(|_| ModelError::Config {
            what: "anthropic-version".to_owned(),
            message: format!("`{}` is not a header value", self.version),
        })?;
        headers.insert(HeaderName::from_static("anthropic-version"), version);
        if let Some(key) = &self.key {
            headers.insert(HeaderName::from_static("x-api-key"), secret_header(key.expose())?);
        }
        if !self.betas.is_empty() {
            let betas = self.betas.join(",");
            let value = header::HeaderValue::from_str(&betas).map_err(|_| ModelError::Config {
                what: "anthropic-beta".to_owned(),
                message: format!("`{betas}` is not a header value"),
            })?;
            headers.insert(HeaderName::from_static("anthropic-beta"), value);
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
        let (uri, headers) = (self.uri()?, self.headers(stream)?);
        self.transport
            .exchange(&uri, &headers, body, StreamFormat::Anthropic, aliases, on_delta)
            .await
    }
}

impl ChatModel for Anthropic {
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
        &self.options.model
    }
}
