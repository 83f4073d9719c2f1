//! Responses made by the official SDKs' own response models (`tests/providers/responses.py`,
//! run by `tests/providers/run.sh` with `CARNET_SDK_RESPONSES` naming its output): text, tool
//! calls, parallel calls, refusals, every stop reason, usage with cached tokens, error
//! bodies, and streamed event sequences (fed a few bytes at a time), each read back as the
//! fixture expects. Without `CARNET_SDK_RESPONSES` there is nothing to read and the test
//! says so.

use std::sync::Arc;

use carnet_runtime::chat::{ChatResponse, Delta};
use carnet_runtime::providers::{Aliases, ProviderError, ResponseStream, StreamFormat, anthropic, openai};
use carnet_runtime::{ToolKind, ToolSpec};
use serde_json::{Value, json};

fn aliases() -> Aliases {
    let spec = |name: &str| ToolSpec {
        name: name.into(),
        description: String::new(),
        input_schema: Arc::new(json!({"type": "object"})),
        kind: ToolKind::Domain,
        toolset: None,
        output_schema: None,
        title: None,
        annotations: carnet_runtime::manifest::Annotations::NONE,
    };
    Aliases::new(&[spec("loadSkill"), spec("math.add")]).unwrap()
}

/// Feeds an SSE body in pieces of 7 bytes; the text deltas, concatenated.
fn stream(format: StreamFormat, body: &str) -> (Result<ChatResponse, ProviderError>, String) {
    let mut stream = ResponseStream::new(format, aliases());
    let mut text = String::new();
    let mut on_delta = |delta: Delta<'_>| {
        if let Delta::Text(t) = delta {
            text.push_str(t);
        }
    };
    for piece in body.as_bytes().chunks(7) {
        if let Err(e) = stream.feed(piece, &mut on_delta) {
            return (Err(e), text);
        }
    }
    (stream.finish(), text)
}

fn read(kind: &str, body: &Value) -> (Result<ChatResponse, ProviderError>, Option<String>) {
    let sse = || body.as_str().expect("a stream fixture holds the SSE text");
    let streamed = |format| {
        let (result, text) = stream(format, sse());
        (result, Some(text))
    };
    match kind {
        "chat" => (openai::parse_chat_response(body, &aliases()), None),
        "responses" => (openai::parse_responses_response(body, &aliases()), None),
        "anthropic" => (anthropic::parse_response(body, &aliases()), None),
        "chat-stream" => streamed(StreamFormat::OpenAiChat),
        "responses-stream" => streamed(StreamFormat::OpenAiResponses),
        "anthropic-stream" => streamed(StreamFormat::Anthropic),
        other => panic!("unknown fixture kind `{other}`"),
    }
}

#[test]
fn sdk_made_responses_read_back_as_expected() {
    let Some(dir) = std::env::var_os("CARNET_SDK_RESPONSES") else {
        eprintln!("CARNET_SDK_RESPONSES is not set: run tests/providers/run.sh to make the SDKs' responses");
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 25, "expected the SDK-made responses in {dir:?}");
    for path in files {
        let fixture: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let name = path.file_name().unwrap().to_string_lossy();
        let expect = &fixture["expect"];
        let (result, streamed_text) = read(fixture["kind"].as_str().unwrap(), &fixture["body"]);
        if let Some(error) = expect["error"].as_str() {
            let err = result.expect_err(&name).to_string();
            assert!(err.contains(error), "{name}: `{err}` should say `{error}`");
            continue;
        }
        let response = result.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(response.text.as_deref(), expect["text"].as_str(), "{name}: text");
        if let Some(streamed) = streamed_text {
            assert_eq!(
                Some(streamed.as_str()).filter(|t| !t.is_empty()),
                expect["text"].as_str(),
                "{name}: deltas"
            );
        }
        let calls: Vec<Value> = response
            .calls
            .iter()
            .map(|c| json!({"id": c.id, "name": c.name, "arguments": c.arguments}))
            .collect();
        assert_eq!(Value::Array(calls), expect["calls"], "{name}: calls");
        assert_eq!(
            serde_json::to_value(response.usage).unwrap(),
            expect["usage"],
            "{name}: usage"
        );
        assert_eq!(
            response.finish_reason.as_deref(),
            expect["finish_reason"].as_str(),
            "{name}: finish reason"
        );
    }
}
