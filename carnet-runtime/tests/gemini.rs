//! The Gemini client against a local server (the one the other clients' tests use): the
//! path, the key's header and the exact body; retries on 429 (after the `retryDelay` Google
//! asks for) and 503; a stalled server timed out; a streamed answer assembled from its
//! chunks; parallel calls answered by name in one content; thought signatures sent back
//! unchanged through a whole run; a blocked prompt, an empty response and a refused key as
//! clear errors; usage with cached tokens.

mod fake_server;

use std::time::{Duration, Instant};

use carnet_runtime::chat::{self, ChatModel, ChatRequest, Delta, Message, ModelError, Stop, Usage};
use carnet_runtime::models::{ApiKey, Gemini, ToolChoice};
use carnet_runtime::{Carnet, ExposureMode, Preset};
use fake_server::agent::{carnet_with, complete};
use fake_server::{Reply, Seen, fast, http, ok, server, sse};
use serde_json::{Value, json};

fn carnet(mode: ExposureMode) -> Carnet {
    carnet_with(mode, Preset::default())
}

fn gemini(base: &str) -> Gemini {
    Gemini::new(Some(ApiKey::new("AIza-test-secret")), base, "gemini-test")
        .unwrap()
        .http(fast())
        .unwrap()
}

const USAGE: Usage = Usage {
    input: 120,
    cached_input: 100,
    output: 8,
};

/// A `GenerateContentResponse` of one candidate with `parts`.
fn answer(parts: &Value, finish: &str) -> Value {
    json!({
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}],
        "usageMetadata": {"promptTokenCount": 120, "cachedContentTokenCount": 100, "candidatesTokenCount": 5,
                          "thoughtsTokenCount": 3, "totalTokenCount": 128},
        "modelVersion": "gemini-test", "responseId": "r1",
    })
}

fn error(code: u16, status: &str, message: &str) -> String {
    json!({"error": {"code": code, "message": message, "status": status}}).to_string()
}

/// The agent's first request in `mode`, with the session it comes from.
fn with_first_request<T>(mode: ExposureMode, f: impl FnOnce(ChatRequest<'_>) -> T) -> T {
    let carnet = carnet(mode);
    let session = carnet.session("a").unwrap();
    let messages = [Message::User("2 + 3?".into())];
    let callable: Vec<String> = session.callable_tools().map(str::to_owned).collect();
    f(ChatRequest {
        system: session.system_prompt(),
        messages: &messages,
        tools: session.tools(),
        mode,
        callable: &callable,
    })
}

/// The agent's request once `math` is loaded, streamed: the answer, and the body
/// `request_body` gives.
async fn stream_first(model: &mut Gemini, deltas: &mut Vec<String>) -> (Result<chat::ChatResponse, ModelError>, Value) {
    let carnet = carnet(ExposureMode::Dynamic);
    let mut session = carnet.session("a").unwrap();
    session.call("loadSkill", json!({"skillName": "math"})).await;
    let messages = [Message::User("2 + 3?".into())];
    let callable: Vec<String> = session.callable_tools().map(str::to_owned).collect();
    let request = ChatRequest {
        system: session.system_prompt(),
        messages: &messages,
        tools: session.tools(),
        mode: ExposureMode::Dynamic,
        callable: &callable,
    };
    let expected = model.request_body(&request, true).unwrap();
    let result = model
        .stream(request, &mut |delta: Delta<'_>| deltas.push(format!("{delta:?}")))
        .await;
    (result, expected)
}

fn body(seen: &Seen) -> Value {
    serde_json::from_slice(&seen.body).unwrap()
}

#[tokio::test]
async fn a_request_goes_to_generate_content_with_the_key_in_its_header() {
    let (base, seen) = server(vec![ok(&answer(&json!([{"text": "5"}]), "STOP"))]).await;
    let mut model = gemini(&base);
    assert!(
        !format!("{model:?}").contains("AIza-test-secret"),
        "Debug hides the key"
    );
    let response = complete(&mut model).await.unwrap();
    assert_eq!(response.text.as_deref(), Some("5"));
    assert_eq!(response.finish_reason.as_deref(), Some("STOP"));
    assert_eq!(response.usage, Some(USAGE), "thoughts count as output");
    assert!(response.hosted.is_empty(), "nothing signed, nothing kept");

    let seen = seen.lock().unwrap();
    assert!(
        seen[0]
            .head
            .starts_with("POST /v1beta/models/gemini-test:generateContent HTTP/1.1"),
        "{}",
        seen[0].head
    );
    assert_eq!(seen[0].header("x-goog-api-key").as_deref(), Some("AIza-test-secret"));
    assert_eq!(seen[0].header("authorization"), None);
    assert_eq!(seen[0].header("content-type").as_deref(), Some("application/json"));
    let expected = with_first_request(ExposureMode::Dynamic, |request| {
        let mut bytes = Vec::new();
        model.write_request_body(&request, false, &mut bytes).unwrap();
        assert_eq!(
            serde_json::from_slice::<Value>(&bytes).unwrap(),
            model.request_body(&request, false).unwrap()
        );
        bytes
    });
    assert_eq!(seen[0].body, expected, "the bytes of request_body");
    let sent = body(&seen[0]);
    assert_eq!(
        sent["contents"],
        json!([{"role": "user", "parts": [{"text": "2 + 3?"}]}])
    );
    assert!(
        sent["systemInstruction"]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Compute.")
    );
    let names: Vec<&str> = sent["tools"][0]["functionDeclarations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"loadSkill"), "{names:?}");
}

#[tokio::test]
async fn a_429_and_a_503_are_retried_with_the_same_bytes() {
    // Google says when to come back in the body (`google.rpc.RetryInfo`), not in a header.
    let exhausted = json!({"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).",
        "status": "RESOURCE_EXHAUSTED",
        "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"}]}});
    let started = Instant::now();
    let (base, seen) = server(vec![
        http("429 Too Many Requests", &[], &exhausted.to_string()),
        http(
            "503 Service Unavailable",
            &[],
            &error(503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
        ),
        ok(&answer(&json!([{"text": "5"}]), "STOP")),
    ])
    .await;
    let response = complete(&mut gemini(&base)).await.unwrap();
    assert_eq!(response.text.as_deref(), Some("5"));
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "the retryDelay is honoured"
    );
    {
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 3);
        assert!(
            seen.windows(2).all(|w| w[0].body == w[1].body),
            "a retry sends the same bytes"
        );
    }

    let overloaded = error(503, "UNAVAILABLE", "The model is overloaded. Please try again later.");
    let (base, seen) = server(vec![http("503 Service Unavailable", &[], &overloaded)]).await;
    let mut model = gemini(&base).http(fast().max_retries(1)).unwrap();
    let err = complete(&mut model).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "gemini kept failing (503) after 2 attempts: The model is overloaded. Please try again later.; try again later"
    );
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_stalled_server_times_out_within_bounds() {
    let (base, seen) = server(vec![Reply::Stall]).await;
    let mut model = gemini(&base)
        .http(fast().timeout(Duration::from_millis(300)).max_retries(1))
        .unwrap();
    let started = Instant::now();
    let err = complete(&mut model).await.unwrap_err();
    assert!(
        matches!(
            err,
            ModelError::Timeout {
                provider: "gemini",
                attempts: 2,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn refusals_name_the_key_variable_and_never_hold_the_key() {
    let denied = error(403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers.");
    let (base, seen) = server(vec![http("403 Forbidden", &[], &denied)]).await;
    let err = complete(&mut gemini(&base)).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "gemini refused the API key (403): Method doesn't allow unregistered callers.; check GEMINI_API_KEY"
    );
    assert_eq!(seen.lock().unwrap().len(), 1, "a refused key is not retried");

    let invalid = error(
        400,
        "INVALID_ARGUMENT",
        "* GenerateContentRequest.contents: contents is not specified",
    );
    let (base, _) = server(vec![http("400 Bad Request", &[], &invalid)]).await;
    let err = complete(&mut gemini(&base)).await.unwrap_err();
    assert_eq!(
        err,
        ModelError::Rejected {
            provider: "gemini",
            status: 400,
            message: "* GenerateContentRequest.contents: contents is not specified".into()
        }
    );
}

#[tokio::test]
async fn a_blocked_prompt_or_an_empty_response_is_a_clear_error() {
    let blocked = json!({"promptFeedback": {"blockReason": "SAFETY", "safetyRatings": []},
                         "usageMetadata": {"promptTokenCount": 7, "totalTokenCount": 7}});
    let (base, seen) = server(vec![ok(&blocked)]).await;
    let err = complete(&mut gemini(&base)).await.unwrap_err();
    assert_eq!(
        err,
        ModelError::Rejected {
            provider: "gemini",
            status: 200,
            message: "the prompt was blocked (`SAFETY`)".into()
        }
    );
    assert_eq!(seen.lock().unwrap().len(), 1, "a blocked prompt is not retried");

    let events = vec![format!(
        "data: {}\r\n\r\n",
        json!({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}})
    )];
    let (base, _) = server(vec![sse(&events)]).await;
    let err = stream_first(&mut gemini(&base), &mut Vec::new()).await.0.unwrap_err();
    assert_eq!(
        err.to_string(),
        "gemini rejected the request (200): the prompt was blocked (`PROHIBITED_CONTENT`)"
    );

    let (base, _) = server(vec![ok(&json!({"candidates": [], "modelVersion": "gemini-test"}))]).await;
    let err = complete(&mut gemini(&base)).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "gemini: unreadable response: the response has no `candidates[0]`"
    );
    let (base, _) = server(vec![ok(&json!([{"text": "not an object"}]))]).await;
    let err = complete(&mut gemini(&base)).await.unwrap_err();
    assert!(matches!(err, ModelError::InvalidResponse { .. }), "{err:?}");
}

#[tokio::test]
async fn a_streamed_answer_is_assembled_from_its_chunks() {
    let chunk = |parts: Value, finish: Option<&str>, usage: bool| {
        let mut chunk = json!({"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}],
                               "modelVersion": "gemini-test", "responseId": "r1"});
        if let Some(finish) = finish {
            chunk["candidates"][0]["finishReason"] = json!(finish);
        }
        if usage {
            chunk["usageMetadata"] = answer(&json!([]), "STOP")["usageMetadata"].clone();
        }
        format!("data: {chunk}\r\n\r\n")
    };
    let events = vec![
        chunk(json!([{"text": "Adding "}]), None, false),
        chunk(json!([{"text": "both."}]), None, false),
        chunk(
            json!([
                {"functionCall": {"name": "math_add", "args": {"a": 1, "b": 2}}, "thoughtSignature": "c2lnbmF0dXJl"},
                {"functionCall": {"name": "math_add", "args": {"a": 3, "b": 4}}},
            ]),
            Some("STOP"),
            true,
        ),
    ];
    let (base, seen) = server(vec![sse(&events)]).await;
    let mut deltas = Vec::new();
    let (response, expected) = stream_first(&mut gemini(&base), &mut deltas).await;
    let response = response.unwrap();
    assert_eq!(
        deltas,
        [
            r#"Text("Adding ")"#,
            r#"Text("both.")"#,
            r#"ToolCall { index: 0, name: "math.add" }"#,
            r#"Arguments { index: 0, fragment: "{\"a\":1,\"b\":2}" }"#,
            r#"ToolCall { index: 1, name: "math.add" }"#,
            r#"Arguments { index: 1, fragment: "{\"a\":3,\"b\":4}" }"#,
        ]
    );
    assert_eq!(response.text.as_deref(), Some("Adding both."));
    let calls: Vec<(&str, &Value, Option<&str>)> = response
        .calls
        .iter()
        .map(|c| (c.name.as_str(), &c.arguments, c.id.as_deref()))
        .collect();
    assert_eq!(
        calls,
        [
            ("math.add", &json!({"a": 1, "b": 2}), None),
            ("math.add", &json!({"a": 3, "b": 4}), None)
        ]
    );
    assert_eq!(response.usage, Some(USAGE));
    assert_eq!(response.finish_reason.as_deref(), Some("STOP"));
    assert_eq!(
        response.hosted,
        [
            json!({"text": "Adding both."}),
            json!({"functionCall": {"name": "math_add", "args": {"a": 1, "b": 2}}, "thoughtSignature": "c2lnbmF0dXJl"}),
            json!({"functionCall": {"name": "math_add", "args": {"a": 3, "b": 4}}}),
        ]
    );
    let first = seen.lock().unwrap()[0].clone();
    assert!(
        first
            .head
            .starts_with("POST /v1beta/models/gemini-test:streamGenerateContent?alt=sse HTTP/1.1"),
        "{}",
        first.head
    );
    assert_eq!(first.header("accept").as_deref(), Some("text/event-stream"));
    assert_eq!(body(&first), expected, "streamed or not, the same body");

    let (base, _) = server(vec![sse(&events[..2])]).await;
    let err = stream_first(&mut gemini(&base), &mut Vec::new()).await.0.unwrap_err();
    assert_eq!(
        err.to_string(),
        "gemini: unreadable response: the stream ended before the response was complete (truncated)"
    );
}

#[tokio::test]
async fn a_run_answers_parallel_calls_by_name_and_sends_signatures_back() {
    let load =
        json!([{"functionCall": {"name": "loadSkill", "args": {"skillName": "math"}}, "thoughtSignature": "Zmlyc3Q="}]);
    let parallel = json!([
        {"text": "Both at once.", "thought": true},
        {"functionCall": {"name": "math_add", "args": {"a": 1, "b": 2}, "id": "g1"}, "thoughtSignature": "c2Vjb25k"},
        {"functionCall": {"name": "math_add", "args": {"a": 3, "b": 4}, "id": "g2"}},
    ]);
    let (base, seen) = server(vec![
        ok(&answer(&load, "STOP")),
        ok(&answer(&parallel, "STOP")),
        ok(&answer(&json!([{"text": "3 and 7."}]), "STOP")),
    ])
    .await;
    let mut model = gemini(&base);
    let carnet = carnet(ExposureMode::Dynamic);
    let mut session = carnet.session("a").unwrap();
    let mut messages = vec![Message::User("1 + 2 and 3 + 4?".into())];
    let outcome = chat::run(&mut session, &mut model, &mut messages, 5, |_| {})
        .await
        .unwrap();
    assert_eq!(outcome.stop, Stop::Answer);
    assert_eq!(outcome.answer.as_deref(), Some("3 and 7."));
    assert_eq!(outcome.steps[1].calls.len(), 2, "parallel calls");
    assert_eq!(outcome.steps[1].calls[1].1.value, json!(7.0));
    assert_eq!(
        outcome.usage,
        Usage {
            input: 360,
            cached_input: 300,
            output: 24
        }
    );

    let seen = seen.lock().unwrap();
    let second = body(&seen[1]);
    assert_eq!(
        second["contents"][1],
        json!({"role": "model", "parts": load}),
        "the signed turn, unchanged"
    );
    assert_eq!(
        second["contents"][2]["parts"][0]["functionResponse"]["name"], "loadSkill",
        "a call without id is answered by name"
    );
    assert_eq!(second["contents"][2]["parts"][0]["functionResponse"].get("id"), None);
    let declared = |body: &Value| body["tools"][0]["functionDeclarations"].to_string();
    assert!(!declared(&body(&seen[0])).contains("math_add"), "not before the load");
    assert!(declared(&second).contains("math_add"), "exposed by the load");

    let third = body(&seen[2]);
    let contents = third["contents"].as_array().unwrap();
    assert_eq!(contents.len(), 5);
    assert_eq!(contents[3], json!({"role": "model", "parts": parallel}));
    assert_eq!(
        contents[4],
        json!({"role": "user", "parts": [
            {"functionResponse": {"id": "g1", "name": "math_add", "response": {"output": 3.0}}},
            {"functionResponse": {"id": "g2", "name": "math_add", "response": {"output": 7.0}}},
        ]}),
        "the results of one step in one content, with the ids Gemini gave"
    );
}

#[test]
fn tool_choice_and_the_allow_list_are_gemini_function_calling_modes() {
    let mut model = Gemini::new(None, "http://127.0.0.1:9", "models/gemini-test")
        .unwrap()
        .max_output_tokens(256);
    let config = |model: &Gemini, mode| {
        with_first_request(mode, |request| {
            let body = model.request_body(&request, false).unwrap();
            assert_eq!(body["generationConfig"], json!({"maxOutputTokens": 256}));
            body.get("toolConfig").cloned()
        })
    };
    assert_eq!(config(&model, ExposureMode::Dynamic), None, "AUTO is the default");
    let allowed = config(&model, ExposureMode::AllowedTools).unwrap();
    assert_eq!(allowed["functionCallingConfig"]["mode"], "VALIDATED");
    let names = allowed["functionCallingConfig"]["allowedFunctionNames"].clone();
    assert!(names.as_array().unwrap().contains(&json!("loadSkill")), "{names}");

    model.set_tool_choice(ToolChoice::Required);
    assert_eq!(
        config(&model, ExposureMode::Dynamic),
        Some(json!({"functionCallingConfig": {"mode": "ANY"}}))
    );
    assert_eq!(
        config(&model, ExposureMode::AllowedTools),
        Some(json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": names}})),
        "the allow-list kept, a call required"
    );
    model.set_tool_choice(ToolChoice::Tool("math.add".into()));
    assert_eq!(
        config(&model, ExposureMode::AllowedTools),
        Some(json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["math_add"]}}))
    );
    model.set_tool_choice(ToolChoice::None);
    assert_eq!(
        config(&model, ExposureMode::Dynamic),
        Some(json!({"functionCallingConfig": {"mode": "NONE"}}))
    );

    for (base, model) in [("localhost:9", "gemini-test"), ("http://127.0.0.1:9", "a b")] {
        let err = Gemini::new(None, base, model).unwrap_err();
        assert!(matches!(err, ModelError::Config { .. }), "{err}");
    }
    assert!(matches!(
        Gemini::new(None, "http://127.0.0.1:9", "m")
            .unwrap()
            .api_version("v1/../x"),
        Err(ModelError::Config { .. })
    ));
}

#[tokio::test]
async fn another_api_version_is_another_path() {
    let (base, seen) = server(vec![ok(&answer(&json!([{"text": "5"}]), "STOP"))]).await;
    let mut model = gemini(&format!("{base}/")).api_version("v1").unwrap();
    complete(&mut model).await.unwrap();
    assert!(
        seen.lock().unwrap()[0]
            .head
            .starts_with("POST /v1/models/gemini-test:generateContent HTTP/1.1")
    );
}
