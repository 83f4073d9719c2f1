//! What a model is to the loop: the request it receives, the answer it gives, what the call
//! cost, how it fails, and the [`ChatModel`] trait.

use crate::dispatch::BoxFuture;
use crate::engine::ExposureMode;
use crate::tool::{ToolCall, ToolSpec};

use super::conversation::Message;

/// What the model receives at each step.
#[derive(Debug, Clone, Copy)]
pub struct ChatRequest<'a> {
    /// The session's system prompt, as of this step.
    pub system: &'a str,
    /// The conversation so far.
    pub messages: &'a [Message],
    /// The tools offered, as of this step.
    pub tools: &'a [ToolSpec],
    /// How the session discloses tools: renderers mark deferred tools
    /// ([`ExposureMode::Deferred`]) or restrict the model ([`ExposureMode::AllowedTools`]).
    pub mode: ExposureMode,
    /// The tools the model may call now (meta-tools and exposed domain tools).
    pub callable: &'a [String],
}

/// What the model answers: text, tool calls, or both, with what the call cost.
///
/// # Examples
///
/// ```
/// use carnet_runtime::chat::{self, ChatResponse, Usage};
///
/// let answer = ChatResponse::answer("4").with_usage(Usage { input: 120, cached_input: 100, output: 1 });
/// assert!(answer.calls.is_empty());
/// let calls = ChatResponse::tool_calls(None, vec![chat::call(1, "loadSkill", serde_json::json!({"skillName": "math"}))]);
/// assert_eq!(calls.calls[0].name, "loadSkill");
/// ```
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct ChatResponse {
    /// What the model said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The tools it called: loads in order, the domain calls between them side by side;
    /// results in this order. Empty: the text is the final answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<ToolCall>,
    /// The provider's token counts for this call, when it reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Why the model stopped, in the provider's own words (`stop`, `tool_calls`, `end_turn`,
    /// `length`, `max_tokens`, `refusal`, ...).
    #[serde(default, rename = "finishReason", skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// What the provider ran itself during this answer (its tool search), as it wrote it, in
    /// order, or Gemini's parts of an answer with thought signatures: the chat loop keeps it
    /// in the conversation as a [`Message::Hosted`] before the answer, so the next request
    /// carries it back. None of it is a call to run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosted: Vec<serde_json::Value>,
}

impl ChatResponse {
    /// A final answer.
    #[must_use]
    pub fn answer(text: impl Into<String>) -> Self {
        ChatResponse {
            text: Some(text.into()),
            ..ChatResponse::default()
        }
    }

    /// Tool calls to run, with optional text alongside.
    #[must_use]
    pub fn tool_calls(text: Option<String>, calls: Vec<ToolCall>) -> Self {
        ChatResponse {
            text,
            calls,
            ..ChatResponse::default()
        }
    }

    /// With the provider's token counts.
    #[must_use]
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = Some(usage);
        self
    }

    /// With the provider's stop reason.
    #[must_use]
    pub fn with_finish_reason(mut self, reason: impl Into<String>) -> Self {
        self.finish_reason = Some(reason.into());
        self
    }
}

/// A model call's token counts, as the provider reports them.
///
/// `input` counts every input token, cached ones included (`OpenAI`'s `prompt_tokens`;
/// Anthropic's `input_tokens` + `cache_read_input_tokens` + `cache_creation_input_tokens`);
/// `cached_input` is the part read from the provider's prompt cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Usage {
    /// Input tokens, cached ones included.
    pub input: u64,
    /// Input tokens read from the prompt cache.
    pub cached_input: u64,
    /// Output tokens.
    pub output: u64,
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input += other.input;
        self.cached_input += other.cached_input;
        self.output += other.output;
    }
}

/// Why a model call failed. Each variant says what to do about it; none holds an API key.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ModelError {
    /// The API key's variable is not set.
    MissingKey {
        /// The environment variable (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`).
        variable: &'static str,
    },
    /// A configuration value is unusable (a base URL that is not `http(s)://...`).
    Config {
        /// What was configured (`OPENAI_BASE_URL`, ...).
        what: String,
        /// What is wrong with it.
        message: String,
    },
    /// The provider refused the key (401) or its permissions (403).
    Unauthorized {
        /// `openai`, `anthropic`.
        provider: &'static str,
        /// 401 or 403.
        status: u16,
        /// The provider's own message.
        message: String,
        /// The variable the key comes from.
        variable: &'static str,
    },
    /// The provider rejected the request (400, 404, 422, ...): its own message says why.
    Rejected {
        /// `openai`, `anthropic`.
        provider: &'static str,
        /// The HTTP status.
        status: u16,
        /// The provider's own message.
        message: String,
    },
    /// Still rate limited (429) or overloaded (5xx, 529) after every retry.
    Unavailable {
        /// `openai`, `anthropic`.
        provider: &'static str,
        /// The last HTTP status.
        status: u16,
        /// Attempts made.
        attempts: u32,
        /// The provider's own message.
        message: String,
    },
    /// No (complete) response in time, after every retry.
    Timeout {
        /// `openai`, `anthropic`.
        provider: &'static str,
        /// The timeout, in seconds.
        seconds: u64,
        /// Attempts made.
        attempts: u32,
    },
    /// The connection failed or dropped, after every retry.
    Connection {
        /// `openai`, `anthropic`.
        provider: &'static str,
        /// Attempts made.
        attempts: u32,
        /// What failed.
        message: String,
    },
    /// The response could not be read: malformed, truncated, too large, or not what the API
    /// documents.
    InvalidResponse {
        /// `openai`, `anthropic`.
        provider: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// Any other failure (a scripted model's, a user's own client's).
    Other(String),
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::MissingKey { variable } => write!(
                f,
                "{variable} is not set: export it with your API key (or pass a key to the client)"
            ),
            Self::Config { what, message } => write!(f, "{what}: {message}"),
            Self::Unauthorized {
                provider,
                status,
                message,
                variable,
            } => write!(
                f,
                "{provider} refused the API key ({status}): {message}; check {variable}"
            ),
            Self::Rejected {
                provider,
                status,
                message,
            } => write!(f, "{provider} rejected the request ({status}): {message}"),
            Self::Unavailable {
                provider,
                status,
                attempts,
                message,
            } => write!(
                f,
                "{provider} kept failing ({status}) after {attempts} attempts: {message}; try again later"
            ),
            Self::Timeout {
                provider,
                seconds,
                attempts,
            } => write!(
                f,
                "{provider}: no response within {seconds} s after {attempts} attempts; raise the timeout or check the server"
            ),
            Self::Connection {
                provider,
                attempts,
                message,
            } => write!(
                f,
                "{provider}: connection failed after {attempts} attempts: {message}; check the base URL and the network"
            ),
            Self::InvalidResponse { provider, message } => write!(f, "{provider}: unreadable response: {message}"),
            Self::Other(inner) => write!(f, "{inner}"),
        }
    }
}

impl std::error::Error for ModelError {}

impl ModelError {
    /// [`ModelError::Other`] with `message`.
    #[must_use]
    pub fn other(message: impl Into<String>) -> Self {
        ModelError::Other(message.into())
    }
}

/// A fragment of a streamed model answer ([`ChatModel::stream`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Delta<'a> {
    /// More of the model's text.
    Text(&'a str),
    /// The model started a tool call (`index` is its place in the answer).
    ToolCall {
        /// The call's place in the answer.
        index: usize,
        /// The tool's canonical name.
        name: &'a str,
    },
    /// More of a tool call's arguments (JSON text, not yet parseable).
    Arguments {
        /// The call's place in the answer.
        index: usize,
        /// The fragment.
        fragment: &'a str,
    },
}

/// A chat model: messages and tool specs in, text or tool calls out.
///
/// carnet's clients (the `models` module, features `openai` and `anthropic`) implement it;
/// so can any other client: render the request with [`crate::providers`] (`openai::chat_request`, `anthropic::request`, ...),
/// parse the answer back, and nothing else changes.
pub trait ChatModel: Send {
    /// One completion.
    fn complete<'a>(&'a mut self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>>;

    /// One completion, streamed: `on_delta` sees the text and the tool calls as they
    /// arrive; the result is the whole answer, as [`ChatModel::complete`] gives it. By
    /// default, the completion and then its text as one delta.
    fn stream<'a>(
        &'a mut self,
        request: ChatRequest<'a>,
        on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    ) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        Box::pin(async move {
            let response = self.complete(request).await?;
            if let Some(text) = &response.text {
                on_delta(Delta::Text(text));
            }
            for (index, call) in response.calls.iter().enumerate() {
                on_delta(Delta::ToolCall {
                    index,
                    name: &call.name,
                });
            }
            Ok(response)
        })
    }

    /// The provider, as the `OpenTelemetry` `GenAI` conventions name it (`openai`,
    /// `anthropic`, ...).
    #[allow(clippy::unnecessary_literal_bound)] // implementations return their own fields
    fn provider(&self) -> &str {
        "custom"
    }

    /// The model requested.
    #[allow(clippy::unnecessary_literal_bound)]
    fn model(&self) -> &str {
        ""
    }
}
