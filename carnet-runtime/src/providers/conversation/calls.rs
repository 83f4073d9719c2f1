//! The model's calls as they go back in a request: their ids (the model's, or made from
//! their place when it gave none) and their arguments, in each API's form.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::chat::Message;
use crate::tool::ToolCall;

/// A call's id as sent: the model's, else one made from its place in the conversation
/// (`place` = the assistant message's index and the call's position in it).
pub(in crate::providers) fn call_id<'c>(id: Option<&'c String>, place: (usize, usize), prefix: &str) -> Cow<'c, str> {
    id.map_or_else(
        || Cow::Owned(format!("{prefix}{}_{}", place.0, place.1)),
        |id| Cow::Borrowed(id.as_str()),
    )
}

/// A call's arguments as `OpenAI` sends them: JSON text. Arguments the model sent as text
/// that is not JSON (kept as a JSON string, see [`crate::chat::run`]) go back as they came.
pub(super) fn arguments_text(arguments: &Value) -> String {
    match arguments {
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

/// For a tool result without a call id: the place of its call, to make the same id as the
/// assistant message's call got.
pub(in crate::providers) fn tool_use_index(messages: &[Message], result: usize) -> (usize, usize) {
    if let Message::Tool { call, .. } = &messages[result] {
        for (index, message) in messages[..result].iter().enumerate().rev() {
            if let Message::Assistant { tool_calls, .. } = message
                && let Some(n) = tool_calls.iter().position(|c| c == call)
            {
                return (index, n);
            }
        }
    }
    (result, 0)
}

/// A call's `args`: its arguments when they are an object, else `{}` (arguments that
/// were not JSON go back as no arguments, as Anthropic's `input`; the result says why).
pub(in crate::providers) fn gemini_args(call: &ToolCall) -> Value {
    if call.arguments.is_object() {
        call.arguments.clone()
    } else {
        Value::Object(Map::new())
    }
}
