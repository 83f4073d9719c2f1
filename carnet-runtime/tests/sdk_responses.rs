//! Responses made by the official SDKs' own response models (`tests/providers/responses.py`,
//! run by `tests/providers/run.sh` with `CARNET_SDK_RESPONSES` naming its output): text, tool
//! calls, parallel calls, refusals, every stop reason, usage with cached tokens, error
//! bodies, and streamed event sequences (fed a few bytes at a time), each read back as the
//! fixture expects. Without `CARNET_SDK_RESPONSES` there is nothing to read and the test
//! says so.
//!
//! The provider's own tool search (Anthropic `server_tool_use` and `tool_search_tool_result`,
//! `OpenAI` `tool_search_call` and `tool_search_output`) is kept, not called, and so are
//! Gemini's parts when they carry thought signatures (google-genai's `GenerateContentResponse`,
//! streamed or not); with `CARNET_REQUESTS_DIR` set, the next request of each such response
//! (the SDK's items sent back, the call answered) is written there as
//! `<api>-search-sdk-<name>.json` (Gemini: `gemini-signed-sdk-<name>.json`) for
//! `tests/providers/validate.py`.

use std::sync::Arc;

use carnet_runtime::chat::{ChatRequest, ChatResponse, Delta, Message};
use carnet_runtime::providers::{
    Aliases, ProviderError, ProviderSearch, ResponseStream, StreamFormat, anthropic, gemini, openai,
};
use carnet_runtime::{Carnet, ExposureMode, Manifest, Preset, ToolImpl, ToolKind, ToolOutput, ToolSpec, ToolsetImpl};
use serde_json::{Value, json};

fn specs() -> [ToolSpec; 2] {
    let spec = |name: &str, kind: ToolKind| ToolSpec {
        name: name.into(),
        description: format!("The tool {name}"),
        input_schema: Arc::new(json!({"type": "object"})),
        kind,
        toolset: (kind == ToolKind::Domain).then(|| "ops".to_owned()),
        output_schema: None,
        title: None,
        annotations: carnet_runtime::manifest::Annotations::NONE,
    };
    [spec("loadSkill", ToolKind::Meta), spec("math.add", ToolKind::Domain)]
}

fn aliases() -> Aliases {
    Aliases::new(&specs()).unwrap()
}

/// An engine over the same tools, its search index built (`Preset::Discovery`): what answers
/// a client-executed tool search.
fn searcher() -> Carnet {
    let manifest = Manifest::from_json(
        r#"{"agents": {"a": {"name": "a", "description": "d", "skills": ["math"], "prompt": "Compute."}},
            "skills": {"math": {"name": "math", "description": "Arithmetic", "toolsets": ["ops"], "content": ""}},
            "toolsets": {"ops": {"name": "ops", "description": "Ops", "content": "",
                                 "tools": [{"name": "math.add", "description": "Adds two numbers"}]}}}"#,
    )
    .unwrap();
    let add = ToolImpl::from_fn("math.add", json!({"type": "object"}), |_| async { Ok(json!(3)) });
    Carnet::builder(&manifest)
        .toolset(ToolsetImpl::new("ops", [add]))
        .preset(Preset::Discovery)
        .mode(ExposureMode::Deferred)
        .build()
        .unwrap()
}

/// The request after `response` in the deferred mode with the provider's search declared:
/// the user's question, the response (its search items or signed parts included; a
/// client-executed search answered by carnet's own), a result for each call; and its file
/// name's prefix.
fn next_request(kind: &str, response: &ChatResponse) -> Option<(&'static str, Value)> {
    let mut messages = vec![Message::User("What is 1 + 2?".into())];
    let mut hosted = response.hosted.clone();
    let tools = specs();
    let answers: Vec<Value> = {
        let callable = ["loadSkill".to_owned(), "math.add".to_owned()];
        let request = ChatRequest {
            system: "Compute.",
            messages: &messages,
            tools: &tools,
            mode: ExposureMode::Deferred,
            callable: &callable,
        };
        let carnet = searcher();
        hosted
            .iter()
            .filter_map(|item| {
                openai::tool_search_output(&carnet, item, &request, &openai::RequestOptions::default()).unwrap()
            })
            .collect()
    };
    hosted.extend(answers);
    messages.push(Message::Hosted(hosted));
    messages.push(Message::Assistant {
        text: response.text.clone(),
        tool_calls: response.calls.clone(),
    });
    for call in &response.calls {
        messages.push(Message::Tool {
            call: call.clone(),
            output: ToolOutput::ok(json!(3)),
        });
    }
    let callable = ["loadSkill".to_owned(), "math.add".to_owned()];
    let request = ChatRequest {
        system: "Compute.",
        messages: &messages,
        tools: &tools,
        mode: ExposureMode::Deferred,
        callable: &callable,
    };
    match kind {
        "anthropic" | "anthropic-stream" => {
            let options = anthropic::RequestOptions {
                model: "claude-sonnet-4-5".into(),
                max_tokens: 1024,
            };
            let mut body = anthropic::request(&request, &options).unwrap();
            assert!(anthropic::declare_tool_search(&mut body, ProviderSearch::Bm25).unwrap());
            Some(("anthropic-search", body))
        }
        "responses" | "responses-stream" => {
            let options = openai::RequestOptions {
                model: "gpt-5.4".into(),
                ..openai::RequestOptions::default()
            };
            let mut body = openai::responses_request(&request, &options).unwrap();
            if response.hosted.iter().any(openai::is_client_search_call) {
                assert!(openai::declare_client_tool_search(&mut body));
                let answered = body["input"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|i| i["type"] == "tool_search_output")
                    .unwrap();
                assert_eq!(
                    answered["tools"][0]["tools"][0]["name"], "math_add",
                    "carnet's search found it"
                );
            } else {
                assert!(openai::declare_tool_search(&mut body, ProviderSearch::Bm25));
            }
            Some(("openai-responses-search", body))
        }
        "gemini" | "gemini-stream" => {
            let body = gemini::request(&request, &gemini::RequestOptions::default()).unwrap();
            // The signed turn goes back as Gemini wrote it.
            let turn = body["contents"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["role"] == "model")
                .unwrap();
            assert_eq!(turn["parts"], Value::Array(response.hosted.clone()));
            Some(("gemini-signed", body))
        }
        _ => None,
    }
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
        "gemini" => (gemini::parse_response(body, &aliases()), None),
        "gemini-stream" => streamed(StreamFormat::Gemini),
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
    let gemini = files
        .iter()
        .filter(|f| f.file_name().unwrap().to_string_lossy().starts_with("gemini"))
        .count();
    assert!(gemini >= 12, "expected google-genai's responses in {dir:?}");
    let (mut searched, mut signed) = (0, 0);
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
        // The types of the tool search's items; Gemini's parts themselves, as they came.
        let expected: Vec<&Value> = expect["hosted"].as_array().into_iter().flatten().collect();
        let hosted: Vec<&Value> = response
            .hosted
            .iter()
            .map(|item| item.get("type").unwrap_or(item))
            .collect();
        assert_eq!(hosted, expected, "{name}: the provider's own items");
        if response.hosted.is_empty() {
            continue;
        }
        if let Some(dir) = std::env::var_os("CARNET_REQUESTS_DIR")
            && let Some((api, body)) = next_request(fixture["kind"].as_str().unwrap(), &response)
        {
            let stem = name.trim_end_matches(".json");
            let path = std::path::Path::new(&dir).join(format!("{api}-sdk-{stem}.json"));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(path, serde_json::to_string_pretty(&body).unwrap()).unwrap();
            if api == "gemini-signed" {
                signed += 1;
            } else {
                searched += 1;
            }
        }
    }
    if std::env::var_os("CARNET_REQUESTS_DIR").is_some() {
        assert_eq!(searched, 4, "the SDK-made tool search responses, sent back");
        assert_eq!(signed, 4, "google-genai's signed answers, sent back");
    }
}
