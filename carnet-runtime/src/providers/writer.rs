//! Request bodies written as bytes into one buffer, the parts that make most of a body
//! written without a `Value` tree: the system prompt, escaped by
//! [`json_text`](super::json_text), the tools, each one's bytes kept from the first time it
//! was written ([`tool_bytes`](super::tool_bytes)), and the conversation's messages
//! ([`history`](super::history)).
//!
//! A renderer builds its body with placeholders (an empty system prompt, `null` messages
//! and tools) where the writer splices those parts in; everything else, keys in
//! `serde_json`'s sorted order included, is the renderer's own `Value`, so the bytes are the
//! ones `to_string` gives for the whole `Value`. Where a mode rewrites the tools (defer them,
//! group them in namespaces), the renderer builds them as a `Value` and they are serialized.

use std::io::Write;

use serde_json::Value;

use super::common::ProviderError;
use super::json_text::write_str;
use super::prompt_bytes::write_prompt;
use super::tool_bytes::{ToolFormat, write_list};
use crate::tool::ToolSpec;

/// Where a body holds its system prompt.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SystemAt {
    /// A top-level string field (`instructions`, `system`).
    Field(&'static str),
    /// The `content` of the first message of the history's array (`messages`), a
    /// `{"content", "role": "system"}` object.
    FirstMessage(&'static str),
    /// A top-level content of one text part (Gemini's `systemInstruction`):
    /// `{"parts": [{"text": system}]}`.
    Instruction(&'static str),
}

/// What the writer needs of a conversation's messages: [`history`](super::history) writes
/// them (the writer knows no provider's message format).
pub(crate) trait Messages {
    /// The body's key the messages go under (`messages`, `input`).
    fn key(&self) -> &str;

    /// Writes the messages as the items of an array, without its brackets; `first`: no item
    /// comes before them (no comma before the first one).
    fn write_items<W: Write + ?Sized>(&self, out: &mut W, first: bool) -> Result<(), ProviderError>;
}

/// A body and what to splice into it: its prompt, its messages `M`, its tools.
#[derive(Debug)]
pub(crate) struct Spliced<'a, M> {
    /// The body; a spliced part's place holds a placeholder.
    pub(crate) body: Value,
    system: Option<(SystemAt, &'a str)>,
    history: Option<M>,
    tools: Option<(ToolFormat, &'a [ToolSpec])>,
    /// The key of the one object the tool list goes in (Gemini's `functionDeclarations`):
    /// `[{key: [...]}]`; `None`: the list is the value.
    tools_under: Option<&'static str>,
}

impl<'a, M: Messages> Spliced<'a, M> {
    /// A body with nothing to splice.
    pub(crate) fn whole(body: Value) -> Self {
        Spliced {
            body,
            system: None,
            history: None,
            tools: None,
            tools_under: None,
        }
    }

    /// A body whose prompt goes `at`, whose messages are `history` (under its key), and
    /// whose top-level `tools` (when present) are `specs` in `format` (`None`: the body holds
    /// them already).
    pub(crate) fn new(
        body: Value,
        at: SystemAt,
        system: &'a str,
        history: M,
        tools: Option<(ToolFormat, &'a [ToolSpec])>,
    ) -> Self {
        Spliced {
            body,
            system: Some((at, system)),
            history: Some(history),
            tools,
            tools_under: None,
        }
    }

    /// The tool list goes in the one object of the `tools` array, under `key`:
    /// `[{key: [...]}]`.
    pub(crate) fn tools_under(mut self, key: &'static str) -> Self {
        self.tools_under = Some(key);
        self
    }

    /// Writes the body: the bytes of `serde_json::to_writer` on the whole body.
    ///
    /// # Errors
    ///
    /// When `out` fails, or a tool cannot be rendered.
    pub(crate) fn write<W: Write + ?Sized>(&self, out: &mut W) -> Result<(), ProviderError> {
        let Value::Object(fields) = &self.body else {
            return Ok(serde_json::to_writer(&mut *out, &self.body).map_err(std::io::Error::from)?);
        };
        out.write_all(b"{")?;
        for (n, (key, value)) in fields.iter().enumerate() {
            if n > 0 {
                out.write_all(b",")?;
            }
            write_str(out, key)?;
            out.write_all(b":")?;
            let history = self.history.as_ref().filter(|h| h.key() == key);
            match (self.system, self.tools, history) {
                (_, Some((format, specs)), _) if key == "tools" => match self.tools_under {
                    None => write_list(out, format, specs)?,
                    Some(under) => {
                        out.write_all(b"[{")?;
                        write_str(out, under)?;
                        out.write_all(b":")?;
                        write_list(out, format, specs)?;
                        out.write_all(b"}]")?;
                    }
                },
                (Some((SystemAt::Field(field), system)), _, _) if key == field => write_prompt(out, system)?,
                (Some((SystemAt::Instruction(field), system)), _, _) if key == field => {
                    out.write_all(b"{\"parts\":[{\"text\":")?;
                    write_prompt(out, system)?;
                    out.write_all(b"}]}")?;
                }
                (Some((SystemAt::FirstMessage(field), system)), _, Some(history)) if key == field => {
                    out.write_all(b"[{\"content\":")?;
                    write_prompt(out, system)?;
                    out.write_all(b",\"role\":\"system\"}")?;
                    history.write_items(out, false)?;
                    out.write_all(b"]")?;
                }
                (_, _, Some(history)) => {
                    out.write_all(b"[")?;
                    history.write_items(out, true)?;
                    out.write_all(b"]")?;
                }
                _ => serde_json::to_writer(&mut *out, value).map_err(std::io::Error::from)?,
            }
        }
        out.write_all(b"}")?;
        Ok(())
    }
}

#[cfg(test)]
#[path = "writer_tests.rs"]
mod tests;
