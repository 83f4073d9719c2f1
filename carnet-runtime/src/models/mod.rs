//! Clients for real models: [`OpenAi`] (feature `openai`: Chat Completions and Responses,
//! and every server that speaks them), [`Anthropic`] (feature `anthropic`: Messages) and
//! [`Gemini`] (feature `gemini`: `generateContent` and `streamGenerateContent`). Each
//! implements [`ChatModel`](crate::chat::ChatModel), so [`crate::chat::run`] drives them
//! like any model.
//!
//! # What they do
//!
//! - **Configuration from the environment**, as the official SDKs read it:
//!   `OPENAI_API_KEY` and `OPENAI_BASE_URL` (default `https://api.openai.com/v1`),
//!   `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL` (default `https://api.anthropic.com`),
//!   `GOOGLE_API_KEY` or `GEMINI_API_KEY` (google-genai's order) and
//!   `GOOGLE_GEMINI_BASE_URL` or `GEMINI_BASE_URL` (default
//!   `https://generativelanguage.googleapis.com`, API version `v1beta`).
//!   With another base URL (Ollama, vLLM, llama.cpp, LM Studio), the key may be left unset.
//! - **The request bodies of [`crate::providers`]**, one renderer for every client: tools
//!   under their provider-safe aliases (mapped back in the answers), every exposure mode
//!   ([`ExposureMode::Deferred`](crate::ExposureMode::Deferred),
//!   [`ExposureMode::AllowedTools`](crate::ExposureMode::AllowedTools)) in the provider's own
//!   form. The body is [`OpenAi::request_body`] / [`Anthropic::request_body`] /
//!   [`Gemini::request_body`], byte for byte.
//! - **Streaming** ([`ChatModel::stream`](crate::chat::ChatModel::stream)): server-sent
//!   events, text and tool calls reported as they arrive, assembled into the same answer.
//! - **Usage**: the provider's input, cached input and output tokens (Gemini's thoughts
//!   counted as output), on every answer.
//! - **Faults**: a connect timeout and an overall timeout per attempt; retries with
//!   exponential backoff and jitter on timeouts, dropped connections, 408, 409, 429 and 5xx,
//!   honouring `retry-after` (and `retry-after-ms`, and the `retryDelay` of Google's error
//!   bodies) up to [`HttpOptions::max_retry_after`];
//!   typed [`ModelError`](crate::chat::ModelError)s that say what to do. A body is bounded in size
//!   ([`HttpOptions::max_body_bytes`]); a malformed or truncated one is an error. A streamed
//!   answer is retried until its status arrives, not after (its deltas were reported).
//! - **Keys stay secret**: [`ApiKey`] prints as `ApiKey(<redacted>)`, the header is marked
//!   sensitive, and no error holds the key.
//!
//! The clients need a Tokio runtime (they use hyper's client). TLS is rustls with the
//! `ring` provider and Mozilla's root certificates (`webpki-roots`): no C TLS library and
//! no system certificate store.
//!
//! # Examples
//!
//! ```no_run
//! # async fn demo(carnet: carnet_runtime::Carnet) -> Result<(), Box<dyn std::error::Error>> {
//! use carnet_runtime::chat::{self, Message};
//! use carnet_runtime::models::OpenAi;
//!
//! // OPENAI_API_KEY, and OPENAI_BASE_URL for another server (http://localhost:11434/v1).
//! let mut model = OpenAi::from_env("gpt-4.1-mini")?;
//! let mut session = carnet.session("researcher")?;
//! let mut messages = vec![Message::User("What is new about battery storage?".into())];
//! let outcome = chat::run(&mut session, &mut model, &mut messages, 10, |step| {
//!     println!("{} calls, {:?}", step.calls.len(), step.usage);
//! })
//! .await?;
//! println!("{}", outcome.answer.unwrap_or_default());
//! # Ok(())
//! # }
//! ```

#[cfg(feature = "anthropic")]
mod anthropic;
mod config;
#[cfg(feature = "gemini")]
mod gemini;
mod http;
#[cfg(feature = "openai")]
mod openai;

#[cfg(feature = "anthropic")]
pub use anthropic::Anthropic;
#[cfg(feature = "gemini")]
pub use gemini::Gemini;
#[cfg(feature = "openai")]
pub use openai::{OpenAi, OpenAiApi};

pub use config::{ApiKey, HttpOptions, ToolChoice};
