//! The `OpenAI` client: Chat Completions and Responses.

use hyper::Uri;
use hyper::header::{self, HeaderMap};
use serde_json::{Value, json};

use super::config::{ApiKey, HttpOptions, ToolChoice, endpoint, from_env};
use super::http::{Transport, body_bytes, secret_header, write_body};
use crate::Carnet;
use crate::chat::{ChatModel, ChatRequest, ChatResponse, Delta, Message, ModelError};
use crate::dispatch::BoxFuture;
use crate::providers::conversation;
use crate::providers::history::Spliced;
use crate::providers::{Aliases, ProviderSearch, StreamFormat, openai};

const PROVIDER: &str = "openai";
const KEY: &str = "OPENAI_API_KEY";
const BASE: &str = "OPENAI_BASE_URL";
const DEFAULT_BASE: &str = "https://api.openai.com/v1";
/// The most client-executed searches answered within one model call, before its answer is
/// returned as it is.
const MAX_CLIENT_SEARCHES: usize = 4;

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
    /// The engine whose search answers the client-executed tool search, when declared.
    searcher: Option<Carnet>,
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
            searcher: None,
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

    /// Declares `OpenAI`'s client-executed tool search instead of the hosted one, with the
    /// Responses API in [`ExposureMode::Deferred`](crate::ExposureMode::Deferred) (see
    /// [`openai::declare_client_tool_search`]), and answers it with `carnet`'s own search
    /// (`searchTools`' ranking, [`openai::tool_search_output`]): when the model asks with a
    /// `tool_search_call`, the client sends the tools found back in a `tool_search_output`
    /// and asks again, within the same model call (up to four times; an answer that also
    /// calls tools is not asked again, the session runs them), and the answer it returns
    /// carries every call and output ([`ChatResponse::hosted`]) for the next requests, its
    /// text what the model said in each, its usage the sum of the requests'.
    /// As with the hosted search, finding a tool does not expose it: the session decides.
    /// Other requests stay as they are.
    ///
    /// # Errors
    ///
    /// [`ModelError::Config`] when `carnet` has no search index: an engine builds one when it
    /// offers `searchTools` ([`Preset::Discovery`](crate::Preset::Discovery)).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn demo(carnet: &carnet_runtime::Carnet) -> Result<(), carnet_runtime::chat::ModelError> {
    /// use carnet_runtime::models::{OpenAi, OpenAiApi};
    ///
    /// let model = OpenAi::from_env("gpt-5.4")?.api(OpenAiApi::Responses).carnet_tool_search(carnet)?;
    /// # Ok(()) }
    /// ```
    pub fn carnet_tool_search(mut self, carnet: &Carnet) -> Result<Self, ModelError> {
        if carnet.search_index().tools() == 0 {
            return Err(ModelError::Config {
                what: "the tool search".to_owned(),
                message: "the engine has no search index: build it with `Preset::Discovery` (or the \
                          `searchTools` meta-tool), whose index answers the search"
                    .to_owned(),
            });
        }
        self.searcher = Some(carnet.clone());
        Ok(self)
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
            if self.searcher.is_some() {
                openai::declare_client_tool_search(body);
            } else {
                openai::declare_tool_search(body, self.search);
            }
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

    /// One model call: one exchange, and with [`OpenAi::carnet_tool_search`] one more for
    /// each client-executed search the model asks for, answered (see there).
    async fn call(
        &self,
        request: ChatRequest<'_>,
        mut on_delta: Option<&mut (dyn FnMut(Delta<'_>) + Send)>,
    ) -> Result<ChatResponse, ModelError> {
        let mut response = self.exchange(&request, reborrow(&mut on_delta)).await?;
        let Some(carnet) = self.searcher.as_ref().filter(|_| self.api == OpenAiApi::Responses) else {
            return Ok(response);
        };
        let mut messages = request.messages.to_vec();
        let (mut hosted, mut text) = (Vec::new(), String::new());
        for round in 0..=MAX_CLIENT_SEARCHES {
            let mut outputs = Vec::new();
            for item in &response.hosted {
                if let Some(output) = openai::tool_search_output(carnet, item, &request, &self.options)
                    .map_err(|e| ModelError::other(format!("the tools cannot be sent to OpenAI: {e}")))?
                {
                    outputs.push(output);
                }
            }
            if outputs.is_empty() {
                break;
            }
            // Every search answered, so the conversation the next requests carry is whole;
            // the model asked again unless it also called tools (the session runs those).
            response.hosted.extend(outputs);
            if !response.calls.is_empty() || round == MAX_CLIENT_SEARCHES {
                break;
            }
            let items = std::mem::take(&mut response.hosted);
            hosted.extend(items.iter().cloned());
            text.push_str(response.text.as_deref().unwrap_or_default());
            messages.push(Message::Hosted(items));
            let next = ChatRequest {
                messages: &messages,
                ..request
            };
            let usage = response.usage;
            response = self.exchange(&next, reborrow(&mut on_delta)).await?;
            response.usage = match (usage, response.usage) {
                (Some(mut sum), Some(more)) => {
                    sum += more;
                    Some(sum)
                }
                (one, other) => one.or(other),
            };
        }
        hosted.append(&mut response.hosted);
        response.hosted = hosted;
        if !text.is_empty() {
            text.push_str(response.text.as_deref().unwrap_or_default());
            response.text = Some(text);
        }
        Ok(response)
    }

    /// One request and its answer.
    async fn exchange(
        &self,
        request: &ChatRequest<'_>,
        on_delta: Option<&mut (dyn FnMut(Delta<'_>) + Send)>,
    ) -> Result<ChatResponse, ModelError> {
        let request = *request;
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

/// `on_delta` for one more exchange (the trait object's lifetime shortened to the borrow).
fn reborrow<'b>(
    on_delta: &'b mut Option<&mut (dyn FnMut(Delta<'_>) + Send)>,
) -> Option<&'b mut (dyn FnMut(Delta<'_>) + Send)> {
    match on_delta {
        Some(f) => Some(&mut **f),
        None => None,
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
