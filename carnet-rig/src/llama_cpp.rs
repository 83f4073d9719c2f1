//! rig's OpenAI-compatible provider on llama.cpp's Python server.
//!
//! `llama-cpp-python[server]` (0.3.x) renders a conversation through a Jinja chat template
//! before the model sees it, and two of the bodies rig 0.44's Chat Completions wire sends
//! fail there with a 500:
//!
//! - **text as a part array.** rig sends a message's text as `[{"type": "text", "text":
//!   ...}]`. The server refuses it for a system message, and a template prints a user
//!   message's array as a Python list.
//! - **an assistant turn without `content`.** After a tool call, rig sends the assistant's
//!   message as `{"role": "assistant", "tool_calls": [...]}`; the `chatml-function-calling`
//!   template reads `message.content` under a strict undefined and answers "'dict object'
//!   has no attribute 'content'". The second request of every conversation with a tool call
//!   fails.
//!
//! [`LlamaCppPython`] is a middleware of rig's HTTP transport that mends both on the way
//! out: text-only part arrays become one string, and an assistant message without content
//! gets `"content": ""`. Nothing else in the body changes. Attach it to the transport the
//! provider sends through:
//!
//! ```no_run
//! use rig_core::http_client::DynHttpClient;
//! use rig_core::providers::openai::{OpenAIConfig, wire};
//!
//! # fn example(transport: DynHttpClient) {
//! // `transport`: rig's reqwest client (`rig_reqwest::shared()`) or any other.
//! let mut dialect = wire::LLAMACPP;
//! // llama-cpp-python honours a named `tool_choice`, which rig refuses for `llama-server`.
//! dialect.quirks.rewrite = wire::BodyRewrite::None;
//! let model = OpenAIConfig::with_key(&dialect, "")
//!     .with_base_url("http://127.0.0.1:8000/v1")
//!     .connect(transport.with_middleware(carnet_rig::LlamaCppPython))
//!     .chat("smollm2");
//! # let _ = model;
//! # }
//! ```
//!
//! The C++ `llama-server` takes rig's bodies as they are (rig's `wire::LLAMACPP` dialect
//! is for it); this is for the Python server only.

use bytes::Bytes;
use rig_core::http_client::middleware::HttpMiddleware;
use rig_core::http_client::{HeaderMap, Method, Result, Uri};
use rig_core::wasm_compat::WasmBoxedFuture;
use serde_json::{Map, Value};

/// rig's HTTP middleware for `llama-cpp-python`'s server: a Chat Completions body's
/// text-only part arrays sent as one string, and an assistant message without content sent
/// with `"content": ""` (see the [module](self)). Other requests pass untouched, and so
/// does a body that is not a JSON object.
#[derive(Debug, Clone, Copy, Default)]
pub struct LlamaCppPython;

impl HttpMiddleware for LlamaCppPython {
    fn before_request_body<'a>(
        &'a self,
        method: &'a Method,
        uri: &'a Uri,
        _headers: &'a HeaderMap,
        body: Bytes,
    ) -> WasmBoxedFuture<'a, Result<Bytes>> {
        let chat = *method == Method::POST && uri.path().ends_with("/chat/completions");
        Box::pin(async move { Ok(if chat { mend(body) } else { body }) })
    }
}

/// `body` with its messages mended, or `body` itself when it has nothing to mend or is not
/// a JSON object with messages.
fn mend(body: Bytes) -> Bytes {
    let Ok(Value::Object(mut request)) = serde_json::from_slice::<Value>(&body) else {
        return body;
    };
    let Some(Value::Array(messages)) = request.get_mut("messages") else {
        return body;
    };
    let mut changed = false;
    for message in messages.iter_mut().filter_map(Value::as_object_mut) {
        changed |= mend_message(message);
    }
    if !changed {
        return body;
    }
    // A map of JSON values always serializes.
    serde_json::to_vec(&request).map_or(body, Bytes::from)
}

/// Mends one message; whether it changed.
fn mend_message(message: &mut Map<String, Value>) -> bool {
    let assistant = message.get("role").and_then(Value::as_str) == Some("assistant");
    match message.get_mut("content") {
        Some(content @ Value::Array(_)) => {
            let Some(text) = text_only(content) else {
                return false;
            };
            *content = Value::String(text);
            true
        }
        None if assistant => {
            message.insert("content".to_owned(), Value::String(String::new()));
            true
        }
        _ => false,
    }
}

/// The texts of a part array joined by newlines, when every part is a text part.
fn text_only(content: &Value) -> Option<String> {
    let parts = content.as_array()?;
    let texts = parts
        .iter()
        .map(|part| match (part.get("type")?.as_str()?, part.get("text")?.as_str()) {
            ("text", Some(text)) => Some(text),
            _ => None,
        })
        .collect::<Option<Vec<&str>>>()?;
    Some(texts.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn mended(body: &Value) -> Value {
        serde_json::from_slice(&mend(Bytes::from(body.to_string()))).unwrap()
    }

    #[test]
    fn text_parts_become_one_string_and_an_assistant_call_gets_empty_content() {
        let body = json!({"model": "m", "messages": [
            {"role": "system", "content": [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Skills: a"}]},
            {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
            {"role": "assistant", "tool_calls": [{"id": "c", "type": "function",
                "function": {"name": "loadSkill", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": "ok"}]},
        ], "tools": [{"type": "function", "function": {"name": "loadSkill", "parameters": {}}}]});
        let out = mended(&body);
        assert_eq!(out["messages"][0]["content"], "Be brief.\nSkills: a");
        assert_eq!(out["messages"][1]["content"], "Hi");
        assert_eq!(out["messages"][2]["content"], "");
        assert_eq!(out["messages"][2]["tool_calls"], body["messages"][2]["tool_calls"]);
        assert_eq!(out["messages"][3]["content"], "ok");
        assert_eq!(out["tools"], body["tools"]);
        assert_eq!(out["model"], "m");
    }

    #[test]
    fn what_needs_no_mending_is_sent_as_it_came() {
        let image = json!([{"type": "text", "text": "What is it?"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}]);
        for body in [
            json!({"messages": [{"role": "user", "content": image},
                {"role": "assistant", "content": null, "tool_calls": []}]}),
            json!({"messages": [{"role": "user", "content": "plain"}]}),
            json!({"input": "not a chat"}),
            json!([1, 2]),
        ] {
            let bytes = Bytes::from(body.to_string());
            assert_eq!(mend(bytes.clone()), bytes, "{body}");
        }
        let garbage = Bytes::from_static(b"\xff{not json");
        assert_eq!(mend(garbage.clone()), garbage);
    }

    #[tokio::test]
    async fn only_chat_completions_posts_are_mended() {
        let body = Bytes::from(json!({"messages": [{"role": "assistant", "tool_calls": []}]}).to_string());
        let headers = HeaderMap::new();
        let chat: Uri = "http://127.0.0.1:8000/v1/chat/completions".parse().unwrap();
        let other: Uri = "http://127.0.0.1:8000/v1/embeddings".parse().unwrap();
        let sent = LlamaCppPython
            .before_request_body(&Method::POST, &chat, &headers, body.clone())
            .await
            .unwrap();
        assert_ne!(sent, body);
        for (method, uri) in [(Method::POST, &other), (Method::GET, &chat)] {
            let sent = LlamaCppPython
                .before_request_body(&method, uri, &headers, body.clone())
                .await
                .unwrap();
            assert_eq!(sent, body);
        }
    }
}
