//! Streamed responses read back: server-sent events decoded as the bytes arrive, text
//! deltas and tool calls assembled from their fragments, and the same [`ChatResponse`] a
//! whole response gives.

use serde_json::Value;

use super::common::{Aliases, ProviderError};
use super::response::{anthropic_hosted, anthropic_usage, gemini_signed, openai_responses_response, shorten};
pub use super::sse::MAX_EVENT_BYTES;
use super::sse::SseDecoder;
use crate::chat::{ChatResponse, Delta, Usage};
use crate::tool::ToolCall;

/// Which API's events a [`ResponseStream`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StreamFormat {
    /// `OpenAI` Chat Completions with `"stream": true`: `chat.completion.chunk` objects, then
    /// `[DONE]`.
    OpenAiChat,
    /// `OpenAI` Responses with `"stream": true`: `response.*` events, ending with
    /// `response.completed` (or `response.incomplete`).
    OpenAiResponses,
    /// Anthropic Messages with `"stream": true`: `message_start` ... `message_stop`.
    Anthropic,
    /// Gemini's `streamGenerateContent?alt=sse`: each event a `GenerateContentResponse`
    /// chunk (text parts as they come, each `functionCall` whole), the last one with the
    /// candidate's `finishReason`.
    Gemini,
}

/// A tool call being assembled.
#[derive(Debug, Default)]
struct Partial {
    id: String,
    /// The wire name (an alias), as far as it has come.
    name: String,
    arguments: String,
    /// Its [`Delta::ToolCall`] was reported.
    announced: bool,
}

/// A streamed response, read as its bytes arrive.
///
/// # Examples
///
/// ```
/// use carnet_runtime::chat::Delta;
/// use carnet_runtime::providers::{Aliases, ResponseStream, StreamFormat};
///
/// let mut stream = ResponseStream::new(StreamFormat::OpenAiChat, Aliases::default());
/// let mut text = String::new();
/// let mut on_delta = |delta: Delta<'_>| if let Delta::Text(t) = delta { text.push_str(t) };
/// stream.feed(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n", &mut on_delta)?;
/// stream.feed(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", &mut on_delta)?;
/// let response = stream.finish()?;
/// assert_eq!(response.text.as_deref(), Some("Hello"));
/// assert_eq!(text, "Hello");
/// # Ok::<(), carnet_runtime::providers::ProviderError>(())
/// ```
#[derive(Debug)]
pub struct ResponseStream {
    format: StreamFormat,
    pub(super) aliases: Aliases,
    sse: SseDecoder,
    text: String,
    calls: Vec<Partial>,
    /// The place in `calls` of each provider key (a hostile stream may send many).
    by_key: std::collections::HashMap<u64, usize>,
    /// Anthropic's server tool blocks (its tool search), by index, with the `input` JSON
    /// still arriving in fragments.
    hosted: std::collections::BTreeMap<u64, (Value, String)>,
    /// Gemini's parts of the model's turn, a text part's pieces joined (see
    /// `gemini::stream`): kept when one is signed.
    pub(super) parts: Vec<Value>,
    pub(super) usage: Option<Usage>,
    pub(super) finish_reason: Option<String>,
    /// The whole response, once the stream gave it (Responses' `response.completed`).
    completed: Option<ChatResponse>,
    /// The stream said it was done (`[DONE]`, `message_stop`, `response.completed`).
    done: bool,
}

impl ResponseStream {
    /// A stream of `format` events; tool names are mapped back through `aliases`.
    #[must_use]
    pub fn new(format: StreamFormat, aliases: Aliases) -> Self {
        ResponseStream {
            format,
            aliases,
            sse: SseDecoder::default(),
            text: String::new(),
            calls: Vec::new(),
            by_key: std::collections::HashMap::new(),
            hosted: std::collections::BTreeMap::new(),
            parts: Vec::new(),
            usage: None,
            finish_reason: None,
            completed: None,
            done: false,
        }
    }

    /// Reads `bytes` (any chunk of the body); `on_delta` sees the text and the tool calls as
    /// they arrive.
    ///
    /// # Errors
    ///
    /// An event that is not what the API documents, an error event (with the provider's
    /// message), or an event over [`MAX_EVENT_BYTES`].
    pub fn feed(&mut self, bytes: &[u8], on_delta: &mut dyn FnMut(Delta<'_>)) -> Result<(), ProviderError> {
        let mut sse = std::mem::take(&mut self.sse);
        let result = sse.feed(bytes, &mut |event, data| self.event(event, data, on_delta));
        self.sse = sse;
        result
    }

    /// The whole response, once the body has ended.
    ///
    /// # Errors
    ///
    /// When the stream ended before the API's last event: a truncated response.
    pub fn finish(self) -> Result<ChatResponse, ProviderError> {
        if let Some(completed) = self.completed {
            return Ok(completed);
        }
        let complete = match self.format {
            StreamFormat::OpenAiChat => self.done || self.finish_reason.is_some(),
            StreamFormat::Anthropic => self.done,
            // Gemini's stream has no last event of its own: the chunk with `finishReason` is.
            StreamFormat::Gemini => self.finish_reason.is_some(),
            StreamFormat::OpenAiResponses => false,
        };
        if !complete {
            return Err(ProviderError::Response {
                message: "the stream ended before the response was complete (truncated)".to_owned(),
            });
        }
        let aliases = &self.aliases;
        // Gemini names no call unless asked: no id is `None`, not `""`.
        let gemini = self.format == StreamFormat::Gemini;
        let calls = self
            .calls
            .into_iter()
            .map(|call| ToolCall {
                id: (!gemini || !call.id.is_empty()).then_some(call.id),
                name: aliases.canonical(&call.name).to_owned(),
                arguments: arguments(call.arguments),
            })
            .collect();
        let text = (!self.text.is_empty()).then_some(self.text);
        let mut response = ChatResponse::tool_calls(text, calls);
        response.usage = self.usage;
        response.finish_reason = self.finish_reason;
        response.hosted = self.hosted.into_values().map(hosted_block).collect();
        if gemini && gemini_signed(&self.parts) {
            response.hosted = self.parts;
        }
        Ok(response)
    }

    fn event(&mut self, event: &str, data: &str, on_delta: &mut dyn FnMut(Delta<'_>)) -> Result<(), ProviderError> {
        if self.format == StreamFormat::OpenAiChat && data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let value: Value = serde_json::from_str(data).map_err(|e| ProviderError::Response {
            message: format!("a streamed event is not JSON ({e}): {}", shorten(data, 200)),
        })?;
        match self.format {
            StreamFormat::OpenAiChat => self.chat_chunk(&value, on_delta),
            StreamFormat::OpenAiResponses => self.responses_event(&value, on_delta),
            StreamFormat::Anthropic => self.anthropic_event(event, &value, on_delta),
            StreamFormat::Gemini => self.gemini_chunk(&value, on_delta),
        }
    }

    /// Adds a call that came whole, in one piece (Gemini's), as a call of its own, and
    /// reports it.
    pub(super) fn whole_call(
        &mut self,
        id: Option<&str>,
        name: &str,
        arguments: &str,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) {
        let key = self.calls.len() as u64;
        self.call_fragment(key, id, Some(name), Some(arguments), on_delta);
    }

    /// Adds fragments to the call with `key` and reports them.
    fn call_fragment(
        &mut self,
        key: u64,
        id: Option<&str>,
        name: Option<&str>,
        arguments: Option<&str>,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) {
        let next = self.calls.len();
        let index = *self.by_key.entry(key).or_insert(next);
        if index == next {
            self.calls.push(Partial::default());
        }
        let call = &mut self.calls[index];
        // `OpenAI` sends the id and name once, in pieces if ever; some compatible servers
        // (llama.cpp's) repeat them whole in every chunk: a repeat is not appended.
        for (field, fragment) in [(&mut call.id, id), (&mut call.name, name)] {
            if let Some(fragment) = fragment
                && *field != fragment
            {
                field.push_str(fragment);
            }
        }
        if !call.announced && !call.name.is_empty() {
            call.announced = true;
            on_delta(Delta::ToolCall {
                index,
                name: self.aliases.canonical(&call.name),
            });
        }
        if let Some(fragment) = arguments.filter(|f| !f.is_empty()) {
            call.arguments.push_str(fragment);
            on_delta(Delta::Arguments { index, fragment });
        }
    }

    pub(super) fn text_fragment(&mut self, text: Option<&str>, on_delta: &mut dyn FnMut(Delta<'_>)) {
        if let Some(text) = text.filter(|t| !t.is_empty()) {
            self.text.push_str(text);
            on_delta(Delta::Text(text));
        }
    }

    fn chat_chunk(&mut self, chunk: &Value, on_delta: &mut dyn FnMut(Delta<'_>)) -> Result<(), ProviderError> {
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(stream_error(error));
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            let n = |path: &str| usage.pointer(path).and_then(Value::as_u64).unwrap_or(0);
            self.usage = Some(Usage {
                input: n("/prompt_tokens"),
                cached_input: n("/prompt_tokens_details/cached_tokens"),
                output: n("/completion_tokens"),
            });
        }
        let Some(choice) = chunk.get("choices").and_then(|c| c.get(0)) else {
            return Ok(());
        };
        let delta = choice.get("delta").unwrap_or(&Value::Null);
        self.text_fragment(delta.get("content").and_then(Value::as_str), on_delta);
        self.text_fragment(delta.get("refusal").and_then(Value::as_str), on_delta);
        for (position, call) in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let key = call.get("index").and_then(Value::as_u64).unwrap_or(position as u64);
            let function = call.get("function").unwrap_or(&Value::Null);
            self.call_fragment(
                key,
                call.get("id").and_then(Value::as_str),
                function.get("name").and_then(Value::as_str),
                function.get("arguments").and_then(Value::as_str),
                on_delta,
            );
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_owned());
        }
        Ok(())
    }

    fn responses_event(&mut self, event: &Value, on_delta: &mut dyn FnMut(Delta<'_>)) -> Result<(), ProviderError> {
        let key = event.get("output_index").and_then(Value::as_u64).unwrap_or(0);
        match event.get("type").and_then(Value::as_str).unwrap_or_default() {
            "response.output_text.delta" | "response.refusal.delta" => {
                self.text_fragment(event.get("delta").and_then(Value::as_str), on_delta);
            }
            "response.output_item.added" => {
                let item = event.get("item").unwrap_or(&Value::Null);
                if item.get("type").and_then(Value::as_str) == Some("function_call") {
                    self.call_fragment(
                        key,
                        item.get("call_id").and_then(Value::as_str),
                        item.get("name").and_then(Value::as_str),
                        None,
                        on_delta,
                    );
                }
            }
            "response.function_call_arguments.delta" => {
                self.call_fragment(key, None, None, event.get("delta").and_then(Value::as_str), on_delta);
            }
            "response.completed" | "response.incomplete" => {
                let response = event.get("response").ok_or_else(|| ProviderError::MissingField {
                    location: "the `response.completed` event".to_owned(),
                    field: "response",
                })?;
                self.completed = Some(openai_responses_response(response, &self.aliases)?);
                self.done = true;
            }
            "response.failed" => {
                let error = event.pointer("/response/error").unwrap_or(event);
                return Err(stream_error(error));
            }
            "error" => return Err(stream_error(event)),
            _ => {}
        }
        Ok(())
    }

    fn anthropic_event(
        &mut self,
        name: &str,
        event: &Value,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) -> Result<(), ProviderError> {
        let kind = event.get("type").and_then(Value::as_str).unwrap_or(name);
        let key = event.get("index").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "message_start" => {
                if let Some(usage) = event.pointer("/message/usage") {
                    self.usage = Some(anthropic_usage(usage));
                }
            }
            "content_block_start" => {
                let block = event.get("content_block").unwrap_or(&Value::Null);
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => self.text_fragment(block.get("text").and_then(Value::as_str), on_delta),
                    Some("tool_use") => self.call_fragment(
                        key,
                        block.get("id").and_then(Value::as_str),
                        block.get("name").and_then(Value::as_str),
                        None,
                        on_delta,
                    ),
                    _ if anthropic_hosted(block) => {
                        self.hosted.insert(key, (block.clone(), String::new()));
                    }
                    _ => {}
                }
            }
            "content_block_delta" => {
                let delta = event.get("delta").unwrap_or(&Value::Null);
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => self.text_fragment(delta.get("text").and_then(Value::as_str), on_delta),
                    Some("input_json_delta") if self.hosted.contains_key(&key) => {
                        if let (Some((_, input)), Some(fragment)) = (
                            self.hosted.get_mut(&key),
                            delta.get("partial_json").and_then(Value::as_str),
                        ) {
                            input.push_str(fragment);
                        }
                    }
                    Some("input_json_delta") => self.call_fragment(
                        key,
                        None,
                        None,
                        delta.get("partial_json").and_then(Value::as_str),
                        on_delta,
                    ),
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(reason) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.finish_reason = Some(reason.to_owned());
                }
                if let Some(output) = event.pointer("/usage/output_tokens").and_then(Value::as_u64) {
                    self.usage.get_or_insert_with(Usage::default).output = output;
                }
            }
            "message_stop" => self.done = true,
            "error" => return Err(stream_error(event.get("error").unwrap_or(event))),
            _ => {} // ping, content_block_stop, and events added later
        }
        Ok(())
    }
}

pub(super) fn stream_error(error: &Value) -> ProviderError {
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map_or_else(|| shorten(&error.to_string(), 500), str::to_owned);
    ProviderError::Response {
        message: format!("the stream reported an error: {message}"),
    }
}

/// A server tool block with its streamed `input` in place: the assembled object when it
/// parses as one, else the block as it started.
fn hosted_block((mut block, input): (Value, String)) -> Value {
    if let Ok(object @ Value::Object(_)) = serde_json::from_str::<Value>(&input)
        && let Some(fields) = block.as_object_mut()
    {
        fields.insert("input".to_owned(), object);
    }
    block
}

/// Assembled arguments: `{}` when none came, the object when they parse as one, else the
/// text as it came (answered by the chat loop with an error).
fn arguments(raw: String) -> Value {
    if raw.trim().is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    match serde_json::from_str::<Value>(&raw) {
        Ok(object @ Value::Object(_)) => object,
        _ => Value::String(raw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(bytes: &[u8], chunk: usize) -> Vec<(String, String)> {
        let mut decoder = SseDecoder::default();
        let mut seen = Vec::new();
        for piece in bytes.chunks(chunk) {
            decoder
                .feed(piece, &mut |e, d| {
                    seen.push((e.to_owned(), d.to_owned()));
                    Ok(())
                })
                .unwrap();
        }
        seen
    }

    #[test]
    fn sse_in_any_chunking_and_line_ending() {
        let body = b": comment\r\nevent: a\r\ndata: 1\r\ndata:2\r\n\r\ndata: x\n\nid: 7\n\nevent: b\rdata: y\r\r";
        let expected = [("a", "1\n2"), ("", "x"), ("b", "y")].map(|(e, d)| (e.to_owned(), d.to_owned()));
        for chunk in [1, 2, 3, 7, body.len()] {
            assert_eq!(events(body, chunk), expected, "chunks of {chunk}");
        }
    }

    #[test]
    fn an_endless_event_is_refused() {
        let mut decoder = SseDecoder::default();
        let line = vec![b'a'; 1 << 20];
        let mut result = Ok(());
        for _ in 0..20 {
            result = decoder.feed(&line, &mut |_, _| Ok(()));
            if result.is_err() {
                break;
            }
        }
        assert!(result.unwrap_err().to_string().contains("larger than"));
    }

    #[test]
    fn ids_and_names_repeated_in_every_chunk_are_kept_once() {
        let mut stream = ResponseStream::new(StreamFormat::OpenAiChat, Aliases::default());
        let chunk = |args: &str| {
            format!(
                "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{{\"name\":\"loadSkill\",\"arguments\":\"{args}\"}}}}]}}}}]}}\n\n"
            )
        };
        for piece in ["{", "\\\"skillName\\\": ", "\\\"math\\\"}"] {
            stream.feed(chunk(piece).as_bytes(), &mut |_| {}).unwrap();
        }
        stream
            .feed(
                b"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
                &mut |_| {},
            )
            .unwrap();
        let response = stream.finish().unwrap();
        assert_eq!(response.calls[0].name, "loadSkill");
        assert_eq!(response.calls[0].id.as_deref(), Some("call_1"));
        assert_eq!(response.calls[0].arguments, serde_json::json!({"skillName": "math"}));
    }

    #[test]
    fn a_truncated_stream_is_an_error() {
        let mut stream = ResponseStream::new(StreamFormat::Anthropic, Aliases::default());
        stream
            .feed(
                b"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3}}}\n\n",
                &mut |_| {},
            )
            .unwrap();
        assert!(stream.finish().unwrap_err().to_string().contains("truncated"));
    }
}
