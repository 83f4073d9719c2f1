//! The `OpenAI` client: Chat Completions and Responses.

use hyper::Uri;
use hyper::header::{self, HeaderMap};
use serde_json::{Value, json};

use super::config::{ApiKey, HttpOptions, ToolChoice, endpoint, from_env};
use super::http::{Transport, body_bytes, secret_header, write_body};
use crate::chat::{ChatModel, ChatRequest, ChatResponse, Delta, ModelError};
use crate::dispatch::BoxFuture;
use crate::providers::conversation;
use crate::providers::history::Spliced;
use crate::providers::{Aliases, ProviderSearch, StreamFormat, openai};

const PROVIDER: &str = "openai";
const KEY: &str = "OPENAI_API_KEY";
const BASE: &str = "OPENAI_BASE_URL";
const DEFAULT_BASE: &str = "https://api.openai.com/v1";

/// Which `OpenAI` API a client calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum OpenAiApi {
    /// `POST {base}/chat/completions`: what every `OpenAI`-compatible server speaks.
    #[default]
    ChatCompletions,
    /// `POST {base}/responses`, stateless (the whole conversation in `input`): `OpenAI`'s
    /// newer API, with namespaces of deferred tools in
    /// [`ExposureMode::Deferred`](crate::ExposureMode::Deferred).
    Responses,
}

/// A client for `OpenAI`'s Chat Completions or Responses API, and every server that speaks
/// them (Ollama, vLLM, llama.cpp, LM Studio, `OpenRouter`: set `OPENAI_BASE_URL`).
///
/// # Examples
///
/// ```no_run
/// use carnet_runtime::models::{HttpOptions, OpenAi, OpenAiApi};
///
/// // OPENAI_API_KEY and OPENAI_BASE_URL, as the official SDKs read them.
/// let model = OpenAi::from_env("gpt-4.1-mini")?
///     .api(OpenAiApi::Responses)
///     .http(HttpOptions::default().max_retries(4))?;
/// # Ok::<(), carnet_runtime::chat::ModelError>(())
/// ```
#[derive(Debug, Clone)]
pub struct OpenAi {
    transport: Transport,
    key: Option<ApiKey>,
    base: String,
    api: OpenAiApi,
    options: openai::RequestOptions,
    max_output_tokens: Option<u32>,
    tool_choice: ToolChoice,
    search: ProviderSearch,
}

impl OpenAi {
    /// A client for `model`, configured from `OPENAI_API_KEY` and `OPENAI_BASE_URL`.
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingKey`] when `OPENAI_API_KEY` is unset and the base URL is
    /// `OpenAI`'s; [`ModelError::Config`] when `OPENAI_BASE_URL` is not a URL.
    pub fn from_env(model: impl Into<String>) -> Result<Self, ModelError> {
        Self::from_env_for(model.into())
    }

    /// [`OpenAi::from_env`]'s body, compiled once here rather than in each program.
    fn from_env_for(model: String) -> Result<Self, ModelError> {
        let (base, key) = from_env(BASE, DEFAULT_BASE, KEY)?;
        OpenAi::with(key, base, model)
    }

    /// A client for `model` at `base_url` (`https://api.openai.com/v1`), with `key` (none
    /// for a local server that asks for none).
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] when `base_url` is not an `http(s)://` URL.
    pub fn new(key: Option<ApiKey>, base_url: impl Into<String>, model: impl Into<String>) -> Result<Self, ModelError> {
        Self::with(key, base_url.into(), model.into())
    }

    /// [`OpenAi::new`]'s body, compiled once here rather than in each program.
    fn with(key: Option<ApiKey>, base: String, model: String) -> Result<Self, ModelError> {
        endpoint(&base, BASE, "chat/completions")?;
        Ok(OpenAi {
            transport: Transport::new(PROVIDER, KEY, HttpOptions::default())?,
            key,
            base,
            api: OpenAiApi::default(),
            options: openai::RequestOptions {
                model,
                ..openai::RequestOptions::default()
            },
            max_output_tokens: None,
            tool_choice: ToolChoice::Auto,
            search: ProviderSearch::Off,
        })
    }

    /// Calls `api` (Chat Completions by default).
    #[must_use]
    pub fn api(mut self, api: OpenAiApi) -> Self {
        self.api = api;
        self
    }

    /// Sends tools in strict mode (see [`openai::Options::strict`]).
    #[must_use]
    pub fn strict(mut self, strict: bool) -> Self {
        self.options.strict = strict;
        self
    }

    /// Describes the Responses namespaces of [`ExposureMode::Deferred`](crate::ExposureMode::Deferred)
    /// (toolset name → description; a toolset missing here is described by its name).
    #[must_use]
    pub fn namespaces(mut self, descriptions: std::collections::BTreeMap<String, String>) -> Self {
        self.options.namespaces = descriptions;
        self
    }

    /// Declares `OpenAI`'s hosted tool search over the namespaces of deferred functions, with
    /// the Responses API in [`ExposureMode::Deferred`](crate::ExposureMode::Deferred) (see
    /// [`ProviderSearch`] and [`openai::declare_tool_search`]; `gpt-5.4` and later); off by
    /// default. Chat Completions has no such tool: its bodies stay as they are.
    #[must_use]
    pub fn tool_search(mut self, search: ProviderSearch) -> Self {
        self.search = search;
        self
    }

    /// Whether the model must call a tool, from the next request on.
    pub fn set_tool_choice(&mut self, choice: ToolChoice) {
        self.tool_choice = choice;
    }

    /// Bounds each answer (`max_completion_tokens` for Chat Completions, `max_output_tokens`
    /// for Responses). Compatible servers that know only the older `max_tokens` (llama.cpp's)
    /// ignore it.
    #[must_use]
    pub fn max_output_tokens(mut self, tokens: u32) -> Self {
        self.max_output_tokens = Some(tokens);
        self
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

    /// The API called.
    #[must_use]
    pub fn api_kind(&self) -> OpenAiApi {
        self.api
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
    /// [`OpenAi::request_body`] serialized, written without building that `Value` (see
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
        let rendered = match self.api {
            OpenAiApi::ChatCompletions => conversation::openai_chat_body(request, &self.options, splice),
            OpenAiApi::Responses => conversation::openai_responses_body(request, &self.options, splice),
        };
        let mut spliced =
            rendered.map_err(|e| ModelError::other(format!("the tools cannot be sent to OpenAI: {e}")))?;
        let body = &mut spliced.body;
        if self.api == OpenAiApi::Responses {
            openai::declare_tool_search(body, self.search);
        }
        if let Some(tokens) = self.max_output_tokens {
            let key = match self.api {
                OpenAiApi::ChatCompletions => "max_completion_tokens",
                OpenAiApi::Responses => "max_output_tokens",
            };
            body[key] = json!(tokens);
        }
        if !request.tools.is_empty()
            && let Some(choice) = self
                .tool_choice
                .openai(body.get("tool_choice"), self.api == OpenAiApi::Responses)
        {
            body["tool_choice"] = choice;
        }
        if stream {
            body["stream"] = Value::Bool(true);
            if self.api == OpenAiApi::ChatCompletions {
                body["stream_options"] = json!({"include_usage": true});
            }
        }
        Ok(spliced)
    }

    fn uri(&self) -> Result<Uri, ModelError> {
        let path = match self.api {
            OpenAiApi::ChatCompletions => "chat/completions",
            OpenAiApi::Responses => "responses",
        };
        endpoint(&self.base, BASE, path)
    }

    fn headers(&self, stream: bool) -> Result<HeaderMap, ModelError> {
        let mut headers = HeaderMap::new();
        if let Some(key) = &self.key {
            headers.insert(
                header::AUTHORIZATION,
                secret_header(&format!("Bearer {}", key.expose()))?,
            );
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
        let format = match self.api {
            OpenAiApi::ChatCompletions => StreamFormat::OpenAiChat,
            OpenAiApi::Responses => StreamFormat::OpenAiResponses,
        };
        self.transport
            .exchange(&uri, &headers, body, format, aliases, on_delta)
            .await
    }
}

impl ChatModel for OpenAi {
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
