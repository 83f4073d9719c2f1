//! A conversation's messages written as bytes, in each API's format: the part of a body
//! that grows turn after turn, written without a `Value` tree. A tool result's text (its
//! value's JSON text) is escaped once as it is serialized, not made and then escaped again.
//!
//! The bytes are those of the `Value` renderers in [`conversation`](super::conversation)
//! serialized, keys in `serde_json`'s sorted order; the writer tests compare the two on every
//! kind of message. What is rare and free-form (hosted search items, the namespaces of a
//! Responses `additional_tools` item) is made by the renderers' own functions and serialized.

use std::io::Write;

use serde_json::Value;

use super::common::{Aliases, ProviderError, wire_name};
use super::conversation::calls::{call_id, gemini_args, tool_use_index};
use super::conversation::hosted::{responses_input_item, without_nulls};
use super::conversation::namespaces::{call_namespace, loaded_namespaces};
use super::conversation::options::OpenAiOptions;
use super::json_text::{write_str, write_value, write_value_text};
use super::response::{anthropic_hosted, gemini_part, openai_hosted};
use super::tool_bytes::ToolFormat;
use super::writer::{self, Messages, SystemAt};
use crate::chat::{ChatRequest, Message};
use crate::dispatch::ToolOutput;
use crate::engine::ExposureMode;
use crate::tool::{ToolCall, ToolSpec};

/// The API whose format the messages are written in.
#[derive(Debug)]
enum Api {
    Chat,
    Anthropic,
    /// In [`ExposureMode::Deferred`], what the namespaces of `additional_tools` items are
    /// rendered with (other modes have none: nothing cloned).
    Responses(Option<Box<OpenAiOptions>>),
    Gemini,
}

/// A conversation's messages to write into a body, under its top-level key.
#[derive(Debug)]
pub(crate) struct History<'a> {
    /// The body's key the messages go under (`messages`, `input`).
    pub(crate) key: &'static str,
    api: Api,
    messages: &'a [Message],
    tools: &'a [ToolSpec],
    mode: ExposureMode,
    aliases: Aliases,
}

impl<'a> History<'a> {
    /// Chat Completions' `messages`, after the system message the writer puts first.
    pub(crate) fn chat(request: &ChatRequest<'a>, aliases: Aliases) -> Self {
        Self::new("messages", Api::Chat, request, aliases)
    }

    /// Anthropic's `messages`.
    pub(crate) fn anthropic(request: &ChatRequest<'a>, aliases: Aliases) -> Self {
        Self::new("messages", Api::Anthropic, request, aliases)
    }

    /// Responses' `input`.
    pub(crate) fn responses(request: &ChatRequest<'a>, aliases: Aliases, options: &OpenAiOptions) -> Self {
        let deferred = request.mode == ExposureMode::Deferred;
        let options = deferred.then(|| Box::new(options.clone()));
        Self::new("input", Api::Responses(options), request, aliases)
    }

    /// Gemini's `contents`.
    pub(crate) fn gemini(request: &ChatRequest<'a>, aliases: Aliases) -> Self {
        Self::new("contents", Api::Gemini, request, aliases)
    }

    fn new(key: &'static str, api: Api, request: &ChatRequest<'a>, aliases: Aliases) -> Self {
        History {
            key,
            api,
            messages: request.messages,
            tools: request.tools,
            mode: request.mode,
            aliases,
        }
    }

    fn write_chat<W: Write + ?Sized>(&self, items: &mut Items<'_, W>) -> Result<(), ProviderError> {
        for (index, message) in self.messages.iter().enumerate() {
            match message {
                Message::User(text) => write_text_message(items.next()?, text, "user")?,
                Message::Assistant { text, tool_calls } => {
                    let out = items.next()?;
                    out.write_all(b"{\"content\":")?;
                    write_str(out, text.as_deref().unwrap_or_default())?;
                    out.write_all(b",\"role\":\"assistant\"")?;
                    if !tool_calls.is_empty() {
                        out.write_all(b",\"tool_calls\":[")?;
                        for (n, call) in tool_calls.iter().enumerate() {
                            if n > 0 {
                                out.write_all(b",")?;
                            }
                            out.write_all(b"{\"function\":{\"arguments\":")?;
                            write_value_text(out, &call.arguments)?;
                            out.write_all(b",\"name\":")?;
                            write_str(out, &wire_name(&self.aliases, &call.name))?;
                            out.write_all(b"},\"id\":")?;
                            write_str(out, &call_id(call.id.as_ref(), (index, n), "call_"))?;
                            out.write_all(b",\"type\":\"function\"}")?;
                        }
                        out.write_all(b"]")?;
                    }
                    out.write_all(b"}")?;
                }
                Message::Hosted(_) => {}
                Message::Tool { call, output } => {
                    let out = items.next()?;
                    out.write_all(b"{\"content\":")?;
                    write_value_text(out, &output.value)?;
                    out.write_all(b",\"role\":\"tool\",\"tool_call_id\":")?;
                    self.write_result_id(out, call, index, "call_")?;
                    out.write_all(b"}")?;
                }
            }
        }
        Ok(())
    }

    fn write_anthropic<W: Write + ?Sized>(&self, items: &mut Items<'_, W>) -> Result<(), ProviderError> {
        // The server's blocks of the model's turn, which its text and calls then join.
        let mut hosted: Vec<&Value> = Vec::new();
        // Whether the last message is a user message of tool results not closed yet: the
        // results of one step go back together.
        let mut results = false;
        let close = |out: &mut W, results: &mut bool| -> std::io::Result<()> {
            if std::mem::take(results) {
                out.write_all(b"],\"role\":\"user\"}")?;
            }
            Ok(())
        };
        for (index, message) in self.messages.iter().enumerate() {
            match message {
                Message::User(text) => {
                    close(items.out, &mut results)?;
                    write_text_message(items.next()?, text, "user")?;
                }
                Message::Hosted(blocks) => hosted.extend(blocks.iter().filter(|b| anthropic_hosted(b))),
                Message::Assistant { text, tool_calls } => {
                    close(items.out, &mut results)?;
                    let text = text.as_deref().filter(|t| !t.is_empty());
                    self.write_anthropic_turn(items.next()?, &std::mem::take(&mut hosted), text, tool_calls, index)?;
                }
                Message::Tool { call, output } => {
                    if results {
                        items.out.write_all(b",")?;
                    } else {
                        items.next()?.write_all(b"{\"content\":[")?;
                        results = true;
                    }
                    self.write_tool_result(items.out, call, output, index)?;
                }
            }
        }
        close(items.out, &mut results)?;
        if !hosted.is_empty() {
            self.write_anthropic_turn(items.next()?, &hosted, None, &[], 0)?;
        }
        Ok(())
    }

    /// An assistant message: the server's blocks, the text, the calls.
    fn write_anthropic_turn<W: Write + ?Sized>(
        &self,
        out: &mut W,
        hosted: &[&Value],
        text: Option<&str>,
        tool_calls: &[ToolCall],
        index: usize,
    ) -> Result<(), ProviderError> {
        out.write_all(b"{\"content\":[")?;
        let mut first = true;
        let mut block = |out: &mut W| {
            let comma = !std::mem::take(&mut first);
            out.write_all(if comma { b"," } else { b"" })
        };
        for server in hosted {
            block(out)?;
            serde_json::to_writer(&mut *out, &without_nulls(server)).map_err(std::io::Error::from)?;
        }
        if let Some(text) = text {
            block(out)?;
            out.write_all(b"{\"text\":")?;
            write_str(out, text)?;
            out.write_all(b",\"type\":\"text\"}")?;
        }
        for (n, call) in tool_calls.iter().enumerate() {
            block(out)?;
            out.write_all(b"{\"id\":")?;
            write_str(out, &call_id(call.id.as_ref(), (index, n), "toolu_"))?;
            out.write_all(b",\"input\":")?;
            if call.arguments.is_object() {
                write_value(out, &call.arguments)?;
            } else {
                out.write_all(b"{}")?;
            }
            out.write_all(b",\"name\":")?;
            write_str(out, &wire_name(&self.aliases, &call.name))?;
            out.write_all(b",\"type\":\"tool_use\"}")?;
        }
        out.write_all(b"],\"role\":\"assistant\"}")?;
        Ok(())
    }

    /// A `tool_result` block; in [`ExposureMode::Deferred`] a load's tools as
    /// `tool_reference` blocks after its text.
    fn write_tool_result<W: Write + ?Sized>(
        &self,
        out: &mut W,
        call: &ToolCall,
        output: &ToolOutput,
        index: usize,
    ) -> Result<(), ProviderError> {
        out.write_all(b"{\"content\":")?;
        if self.mode == ExposureMode::Deferred && !output.exposes.is_empty() {
            out.write_all(b"[{\"text\":")?;
            write_value_text(out, &output.value)?;
            out.write_all(b",\"type\":\"text\"}")?;
            for tool in &output.exposes {
                out.write_all(b",{\"tool_name\":")?;
                write_str(out, &wire_name(&self.aliases, tool))?;
                out.write_all(b",\"type\":\"tool_reference\"}")?;
            }
            out.write_all(b"]")?;
        } else {
            write_value_text(out, &output.value)?;
        }
        out.write_all(if output.is_error {
            b",\"is_error\":true,\"tool_use_id\":"
        } else {
            b",\"is_error\":false,\"tool_use_id\":"
        })?;
        self.write_result_id(out, call, index, "toolu_")?;
        out.write_all(b",\"type\":\"tool_result\"}")?;
        Ok(())
    }

    fn write_responses<W: Write + ?Sized>(
        &self,
        items: &mut Items<'_, W>,
        options: Option<&OpenAiOptions>,
    ) -> Result<(), ProviderError> {
        let deferred = self.mode == ExposureMode::Deferred;
        for (index, message) in self.messages.iter().enumerate() {
            match message {
                Message::User(text) => write_text_message(items.next()?, text, "user")?,
                Message::Hosted(hosted) => {
                    for item in hosted.iter().filter(|i| openai_hosted(i)) {
                        serde_json::to_writer(&mut *items.next()?, &responses_input_item(item))
                            .map_err(std::io::Error::from)?;
                    }
                }
                Message::Assistant { text, tool_calls } => {
                    if let Some(text) = text.as_deref().filter(|t| !t.is_empty()) {
                        write_text_message(items.next()?, text, "assistant")?;
                    }
                    for (n, call) in tool_calls.iter().enumerate() {
                        let out = items.next()?;
                        out.write_all(b"{\"arguments\":")?;
                        write_value_text(out, &call.arguments)?;
                        out.write_all(b",\"call_id\":")?;
                        write_str(out, &call_id(call.id.as_ref(), (index, n), "call_"))?;
                        out.write_all(b",\"name\":")?;
                        write_str(out, &wire_name(&self.aliases, &call.name))?;
                        if deferred && let Some(namespace) = call_namespace(self.tools, call) {
                            out.write_all(b",\"namespace\":")?;
                            write_str(out, &namespace)?;
                        }
                        out.write_all(b",\"type\":\"function_call\"}")?;
                    }
                }
                Message::Tool { call, output } => {
                    let out = items.next()?;
                    out.write_all(b"{\"call_id\":")?;
                    self.write_result_id(out, call, index, "call_")?;
                    out.write_all(b",\"output\":")?;
                    write_value_text(out, &output.value)?;
                    out.write_all(b",\"type\":\"function_call_output\"}")?;
                    if let Some(options) = options.filter(|_| deferred && !output.exposes.is_empty()) {
                        let tools = loaded_namespaces(self.tools, &output.exposes, &self.aliases, options);
                        let out = items.next()?;
                        out.write_all(b"{\"role\":\"developer\",\"tools\":")?;
                        serde_json::to_writer(&mut *out, &tools).map_err(std::io::Error::from)?;
                        out.write_all(b",\"type\":\"additional_tools\"}")?;
                    }
                }
            }
        }
        Ok(())
    }

    fn write_gemini<W: Write + ?Sized>(&self, items: &mut Items<'_, W>) -> Result<(), ProviderError> {
        // Gemini's own parts of the model's turn (signed), which go back in its place.
        let mut signed: Vec<&Value> = Vec::new();
        // Whether the last content holds the results of the step, not closed yet.
        let mut results = false;
        let close = |out: &mut W, results: &mut bool| -> std::io::Result<()> {
            if std::mem::take(results) {
                out.write_all(b"],\"role\":\"user\"}")?;
            }
            Ok(())
        };
        for message in self.messages {
            match message {
                Message::User(text) => {
                    close(items.out, &mut results)?;
                    let out = items.next()?;
                    out.write_all(b"{\"parts\":[{\"text\":")?;
                    write_str(out, text)?;
                    out.write_all(b"}],\"role\":\"user\"}")?;
                }
                Message::Hosted(parts) => signed.extend(parts.iter().filter(|p| gemini_part(p))),
                Message::Assistant { text, tool_calls } => {
                    close(items.out, &mut results)?;
                    let text = text.as_deref().filter(|t| !t.is_empty());
                    if !signed.is_empty() {
                        write_gemini_parts(items.next()?, &std::mem::take(&mut signed))?;
                    } else if text.is_some() || !tool_calls.is_empty() {
                        self.write_gemini_turn(items.next()?, text, tool_calls)?;
                    }
                }
                Message::Tool { call, output } => {
                    if results {
                        items.out.write_all(b",")?;
                    } else {
                        items.next()?.write_all(b"{\"parts\":[")?;
                        results = true;
                    }
                    self.write_function_response(items.out, call, output)?;
                }
            }
        }
        close(items.out, &mut results)?;
        if !signed.is_empty() {
            write_gemini_parts(items.next()?, &signed)?;
        }
        Ok(())
    }

    /// A `model` content of carnet's own parts: the text, the calls.
    fn write_gemini_turn<W: Write + ?Sized>(
        &self,
        out: &mut W,
        text: Option<&str>,
        tool_calls: &[ToolCall],
    ) -> Result<(), ProviderError> {
        out.write_all(b"{\"parts\":[")?;
        if let Some(text) = text {
            out.write_all(b"{\"text\":")?;
            write_str(out, text)?;
            out.write_all(b"}")?;
        }
        for (n, call) in tool_calls.iter().enumerate() {
            if n > 0 || text.is_some() {
                out.write_all(b",")?;
            }
            out.write_all(b"{\"functionCall\":{\"args\":")?;
            write_value(out, &gemini_args(call))?;
            if let Some(id) = &call.id {
                out.write_all(b",\"id\":")?;
                write_str(out, id)?;
            }
            out.write_all(b",\"name\":")?;
            write_str(out, &wire_name(&self.aliases, &call.name))?;
            out.write_all(b"}}")?;
        }
        out.write_all(b"],\"role\":\"model\"}")?;
        Ok(())
    }

    /// A `functionResponse` part.
    fn write_function_response<W: Write + ?Sized>(
        &self,
        out: &mut W,
        call: &ToolCall,
        output: &ToolOutput,
    ) -> Result<(), ProviderError> {
        out.write_all(b"{\"functionResponse\":{")?;
        if let Some(id) = &call.id {
            out.write_all(b"\"id\":")?;
            write_str(out, id)?;
            out.write_all(b",")?;
        }
        out.write_all(b"\"name\":")?;
        write_str(out, &wire_name(&self.aliases, &call.name))?;
        out.write_all(if output.is_error {
            b",\"response\":{\"error\":"
        } else {
            b",\"response\":{\"output\":"
        })?;
        write_value(out, &output.value)?;
        out.write_all(b"}}}")?;
        Ok(())
    }

    /// The id of the call a result answers: the model's, else the one its call was sent with.
    fn write_result_id<W: Write + ?Sized>(
        &self,
        out: &mut W,
        call: &ToolCall,
        index: usize,
        prefix: &str,
    ) -> std::io::Result<()> {
        write_str(
            out,
            &call_id(call.id.as_ref(), tool_use_index(self.messages, index), prefix),
        )
    }
}

/// A body of carnet's providers: its messages are a [`History`].
pub(crate) type Spliced<'a> = writer::Spliced<'a, History<'a>>;

/// `body` as it is (no `history`), or with the prompt, the history and the tools in
/// `tools`' format to splice in.
pub(crate) fn spliced<'a>(
    body: Value,
    history: Option<History<'a>>,
    at: SystemAt,
    request: &ChatRequest<'a>,
    tools: Option<ToolFormat>,
) -> Spliced<'a> {
    let Some(history) = history else {
        return Spliced::whole(body);
    };
    let tools = tools
        .filter(|_| !request.tools.is_empty())
        .map(|format| (format, request.tools));
    Spliced::new(body, at, request.system, history, tools)
}

impl Messages for History<'_> {
    fn key(&self) -> &str {
        self.key
    }

    fn write_items<W: Write + ?Sized>(&self, out: &mut W, first: bool) -> Result<(), ProviderError> {
        let mut items = Items { out, first };
        match &self.api {
            Api::Chat => self.write_chat(&mut items),
            Api::Anthropic => self.write_anthropic(&mut items),
            Api::Responses(options) => self.write_responses(&mut items, options.as_deref()),
            Api::Gemini => self.write_gemini(&mut items),
        }
    }
}

/// The items of an array as they are written: a comma before each but the first.
struct Items<'o, W: ?Sized> {
    out: &'o mut W,
    first: bool,
}

impl<W: Write + ?Sized> Items<'_, W> {
    /// The output, ready for the next item.
    fn next(&mut self) -> std::io::Result<&mut W> {
        if !std::mem::take(&mut self.first) {
            self.out.write_all(b",")?;
        }
        Ok(self.out)
    }
}

/// A `model` content of Gemini's own parts, as it wrote them.
fn write_gemini_parts<W: Write + ?Sized>(out: &mut W, parts: &[&Value]) -> Result<(), ProviderError> {
    out.write_all(b"{\"parts\":")?;
    serde_json::to_writer(&mut *out, parts).map_err(std::io::Error::from)?;
    out.write_all(b",\"role\":\"model\"}")?;
    Ok(())
}

/// `{"content": text, "role": role}`.
fn write_text_message<W: Write + ?Sized>(out: &mut W, text: &str, role: &str) -> std::io::Result<()> {
    out.write_all(b"{\"content\":")?;
    write_str(out, text)?;
    out.write_all(b",\"role\":\"")?;
    out.write_all(role.as_bytes())?;
    out.write_all(b"\"}")
}
