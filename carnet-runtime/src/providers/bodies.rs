//! Whole request bodies written as bytes (see [`super`]'s docs, *Bytes*): each the bytes
//! of its `Value` renderer's body serialized, written without building it.

use std::io::Write;

use super::common::ProviderError;
use super::conversation::{self, AnthropicOptions, GeminiOptions, OpenAiOptions};
use crate::chat::ChatRequest;

/// Writes the body of `POST /v1/chat/completions` into `out`: the bytes of
/// [`openai::chat_request`](super::openai::chat_request)'s `Value` serialized, written
/// without building it (see [`super`]'s docs, *Bytes*).
///
/// # Errors
///
/// As [`openai::chat_request`](super::openai::chat_request), and when `out` fails
/// ([`ProviderError::Write`]).
///
/// # Examples
///
/// ```
/// use carnet_runtime::chat::{ChatRequest, Message};
/// use carnet_runtime::providers::openai;
/// use carnet_runtime::ExposureMode;
///
/// let messages = [Message::User("Hi".into())];
/// let request = ChatRequest { system: "Be brief.", messages: &messages, tools: &[],
///     mode: ExposureMode::Dynamic, callable: &[] };
/// let options = openai::RequestOptions { model: "gpt-4.1".into(), ..Default::default() };
/// let mut body = Vec::new();
/// openai::write_chat_request(&request, &options, &mut body)?;
/// assert_eq!(body, openai::chat_request(&request, &options)?.to_string().into_bytes());
/// # Ok::<(), carnet_runtime::providers::ProviderError>(())
/// ```
pub fn write_openai_chat_request<W: Write + ?Sized>(
    request: &ChatRequest<'_>,
    options: &OpenAiOptions,
    out: &mut W,
) -> Result<(), ProviderError> {
    conversation::openai_chat_body(request, options, true)?.write(out)
}

/// Writes the body of `POST /v1/responses` into `out`: the bytes of
/// [`openai::responses_request`](super::openai::responses_request)'s `Value` serialized.
///
/// # Errors
///
/// As [`openai::responses_request`](super::openai::responses_request), and when `out` fails.
pub fn write_openai_responses_request<W: Write + ?Sized>(
    request: &ChatRequest<'_>,
    options: &OpenAiOptions,
    out: &mut W,
) -> Result<(), ProviderError> {
    conversation::openai_responses_body(request, options, true)?.write(out)
}

/// Writes the body of `POST /v1/messages` into `out`: the bytes of
/// [`anthropic::request`](super::anthropic::request)'s `Value` serialized.
///
/// # Errors
///
/// As [`anthropic::request`](super::anthropic::request), and when `out` fails.
pub fn write_anthropic_request<W: Write + ?Sized>(
    request: &ChatRequest<'_>,
    options: &AnthropicOptions,
    out: &mut W,
) -> Result<(), ProviderError> {
    conversation::anthropic_body(request, options, true)?.write(out)
}

/// Writes the body of `POST /v1beta/models/{model}:generateContent` into `out`: the bytes of
/// [`gemini::request`](super::gemini::request)'s `Value` serialized.
///
/// # Errors
///
/// As [`gemini::request`](super::gemini::request), and when `out` fails.
///
/// # Examples
///
/// ```
/// use carnet_runtime::chat::{ChatRequest, Message};
/// use carnet_runtime::providers::gemini;
/// use carnet_runtime::ExposureMode;
///
/// let messages = [Message::User("Hi".into())];
/// let request = ChatRequest { system: "Be brief.", messages: &messages, tools: &[],
///     mode: ExposureMode::Dynamic, callable: &[] };
/// let options = gemini::RequestOptions::default();
/// let mut body = Vec::new();
/// gemini::write_request(&request, &options, &mut body)?;
/// assert_eq!(body, gemini::request(&request, &options)?.to_string().into_bytes());
/// # Ok::<(), carnet_runtime::providers::ProviderError>(())
/// ```
pub fn write_gemini_request<W: Write + ?Sized>(
    request: &ChatRequest<'_>,
    options: &GeminiOptions,
    out: &mut W,
) -> Result<(), ProviderError> {
    conversation::gemini_body(request, options, true)?.write(out)
}
