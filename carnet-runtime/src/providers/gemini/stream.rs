//! Gemini's streamed responses (`streamGenerateContent?alt=sse`): each chunk a
//! `GenerateContentResponse`, its text parts added as they come, each `functionCall` part a
//! whole call, and the parts of the model's turn kept (a text's pieces joined) for when one
//! is signed.

use serde_json::Value;

use super::super::common::{ProviderError, object_arguments, string_field};
use super::super::response::{gemini_usage, gemini_without_candidates};
use super::super::stream::{ResponseStream, stream_error};
use crate::chat::Delta;

impl ResponseStream {
    /// Reads one chunk: its usage, its text and calls (reported as they come), its parts,
    /// and the candidate's `finishReason` when it has one.
    pub(in crate::providers) fn gemini_chunk(
        &mut self,
        chunk: &Value,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) -> Result<(), ProviderError> {
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(stream_error(error));
        }
        if let Some(usage) = chunk.get("usageMetadata").filter(|u| u.is_object()) {
            self.usage = Some(gemini_usage(usage));
        }
        let Some(candidate) = chunk.get("candidates").and_then(|c| c.get(0)) else {
            // A chunk may carry only usage; one that says the prompt was blocked ends it.
            return match chunk.pointer("/promptFeedback/blockReason") {
                Some(_) => Err(gemini_without_candidates(chunk)),
                None => Ok(()),
            };
        };
        let parts = candidate.pointer("/content/parts").and_then(Value::as_array);
        for (index, part) in parts.into_iter().flatten().enumerate() {
            if part.get("thought") != Some(&Value::Bool(true)) {
                self.text_fragment(part.get("text").and_then(Value::as_str), on_delta);
            }
            if let Some(call) = part.get("functionCall") {
                let id = call.get("id").and_then(Value::as_str).filter(|id| !id.is_empty());
                let at = || format!("`parts[{index}]` of a streamed chunk");
                let name = string_field(call, "name", "functionCall.name", at)?;
                let arguments = match call.get("args") {
                    None | Some(Value::Null) => Value::Object(serde_json::Map::new()),
                    Some(args) => object_arguments(args.clone(), id, self.aliases.canonical(name))?,
                };
                // Each call comes whole, in one part: a call of its own.
                self.whole_call(id, name, &arguments.to_string(), on_delta);
            }
            push_gemini_part(&mut self.parts, part);
        }
        if let Some(reason) = candidate.get("finishReason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_owned());
        }
        Ok(())
    }
}

/// Adds a streamed part to Gemini's turn: a text joins the text before it when neither
/// carries a thought signature and both are thoughts or neither is (the pieces of one text);
/// any other part stands as Gemini sent it (Google: a signed part is never merged).
fn push_gemini_part(parts: &mut Vec<Value>, part: &Value) {
    let plain = |part: &Value| {
        part.as_object().is_some_and(|fields| {
            fields.get("text").is_some_and(Value::is_string) && fields.keys().all(|k| k == "text" || k == "thought")
        })
    };
    if plain(part)
        && let Some(last) = parts
            .last_mut()
            .filter(|last| plain(last) && last.get("thought") == part.get("thought"))
        && let (Some(Value::String(text)), Some(more)) =
            (last.get_mut("text"), part.get("text").and_then(Value::as_str))
    {
        text.push_str(more);
        return;
    }
    parts.push(part.clone());
}

#[cfg(test)]
mod tests {
    use super::super::super::{Aliases, StreamFormat};
    use super::*;
    use crate::chat::ChatResponse;

    fn gemini(chunks: &[serde_json::Value]) -> (Result<ChatResponse, ProviderError>, Vec<String>) {
        let mut stream = ResponseStream::new(StreamFormat::Gemini, Aliases::default());
        let mut deltas = Vec::new();
        for chunk in chunks {
            let event = format!("data: {chunk}\r\n\r\n");
            if let Err(e) = stream.feed(event.as_bytes(), &mut |d| deltas.push(format!("{d:?}"))) {
                return (Err(e), deltas);
            }
        }
        (stream.finish(), deltas)
    }

    #[test]
    fn gemini_chunks_make_one_turn_and_keep_its_signed_parts() {
        use serde_json::json;
        let chunk = |parts: serde_json::Value, finish: Option<&str>| {
            let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
            if let Some(finish) = finish {
                candidate["finishReason"] = json!(finish);
            }
            json!({"candidates": [candidate], "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2}})
        };
        let (response, deltas) = gemini(&[
            chunk(json!([{"text": "Thinking", "thought": true}]), None),
            chunk(json!([{"text": "Let me "}]), None),
            chunk(json!([{"text": "add."}]), None),
            chunk(
                json!([{"functionCall": {"name": "add", "args": {"a": 1}}, "thoughtSignature": "c2ln"},
                       {"functionCall": {"name": "add", "args": {"a": 2}, "id": "g2"}}]),
                Some("STOP"),
            ),
        ]);
        let response = response.unwrap();
        assert_eq!(response.text.as_deref(), Some("Let me add."));
        assert_eq!(
            deltas,
            [
                r#"Text("Let me ")"#,
                r#"Text("add.")"#,
                r#"ToolCall { index: 0, name: "add" }"#,
                r#"Arguments { index: 0, fragment: "{\"a\":1}" }"#,
                r#"ToolCall { index: 1, name: "add" }"#,
                r#"Arguments { index: 1, fragment: "{\"a\":2}" }"#,
            ]
        );
        assert_eq!(response.calls[0].id, None, "no id is none, not empty");
        assert_eq!(response.calls[1].id.as_deref(), Some("g2"));
        assert_eq!(response.calls[1].arguments, json!({"a": 2}));
        assert_eq!(response.finish_reason.as_deref(), Some("STOP"));
        assert_eq!(response.usage.map(|u| u.input), Some(10));
        assert_eq!(
            response.hosted,
            [
                json!({"text": "Thinking", "thought": true}),
                json!({"text": "Let me add."}),
                json!({"functionCall": {"name": "add", "args": {"a": 1}}, "thoughtSignature": "c2ln"}),
                json!({"functionCall": {"name": "add", "args": {"a": 2}, "id": "g2"}}),
            ],
            "the pieces of a text joined, every other part as it came"
        );

        let (unsigned, _) = gemini(&[chunk(json!([{"text": "5"}]), Some("STOP"))]);
        assert!(unsigned.unwrap().hosted.is_empty(), "nothing to send back");
        let (cut, _) = gemini(&[chunk(json!([{"text": "5"}]), None)]);
        assert!(cut.unwrap_err().to_string().contains("truncated"));
        let blocked = json!({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}});
        let (blocked, _) = gemini(&[blocked]);
        assert_eq!(
            blocked.unwrap_err().to_string(),
            "the prompt was blocked (`PROHIBITED_CONTENT`)"
        );
        let (nameless, _) = gemini(&[chunk(json!([{"functionCall": {"args": {}}}]), Some("STOP"))]);
        assert!(nameless.unwrap_err().to_string().contains("functionCall.name"));
        let (error, _) =
            gemini(&[json!({"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}})]);
        assert_eq!(
            error.unwrap_err().to_string(),
            "the stream reported an error: The model is overloaded."
        );
    }
}
