//! Whole request bodies: a [`ChatRequest`](crate::chat::ChatRequest) (system prompt,
//! conversation, tools, exposure mode) in each provider's wire format, for clients to send as
//! they are.
//!
//! See the module docs of [`super`] for how each exposure mode is sent to each API.
//!
//! One file per API's bodies ([`anthropic`], [`openai`], [`gemini`]), beside what they and
//! the byte writers of [`history`](super::history) share: the options of each request
//! ([`options`]), the calls' ids and arguments ([`calls`]), the provider's own items sent
//! back ([`hosted`]) and `OpenAI`'s namespaces of deferred tools ([`namespaces`]).

mod anthropic;
pub(super) mod calls;
mod gemini;
pub(super) mod hosted;
pub(super) mod namespaces;
mod openai;
pub(super) mod options;

pub(crate) use anthropic::anthropic_body;
pub use anthropic::anthropic_request;
pub(crate) use gemini::gemini_body;
pub use gemini::{gemini_request, gemini_tool_config};
pub(crate) use openai::{openai_chat_body, openai_responses_body};
pub use openai::{openai_chat_request, openai_responses_request};
pub use options::{AnthropicOptions, GeminiOptions, OpenAiOptions};

#[cfg(test)]
mod tests;
