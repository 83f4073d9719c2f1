//! The model clients against a local server that misbehaves on purpose: retries on 429
//! (with `retry-after`), 5xx and cut bodies, bounded in count and time; timeouts on a
//! stalled server; typed errors for 400, 401, invalid JSON and truncated streams; streamed
//! answers assembled from fragments split across reads; and the chat loop going on when a
//! model sends arguments that are not JSON.

mod fake_server;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use carnet_runtime::chat::{self, ChatModel, ChatRequest, Delta, Message, ModelError, Stop, Usage};
use carnet_runtime::models::{Anthropic, ApiKey, OpenAi, OpenAiApi, ToolChoice};
use carnet_runtime::{Carnet, ExposureMode, Preset};
use fake_server::agent::{carnet_with, complete};
use fake_server::{Reply, Seen, fast, http, ok, server, sse};
use serde_json::{Value, json};

fn carnet() -> Carnet {
    carnet_in(ExposureMode::Dynamic)
}

fn carnet_in(mode: ExposureMode) -> Carnet {
    carnet_with(mode, Preset::default())
}

fn openai(base: &str) -> OpenAi {
    OpenAi::new(Some(ApiKey::new("sk-test-secret")), format!("{base}/v1"), "gpt-test")
        .unwrap()
        .http(fast())
        .unwrap()
}

fn chat_answer(text: &str) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55, "prompt_tokens_details": {"cached_tokens": 32}},
    })
}

#[tokio::test]
async fn a_429_with_retry_after_then_an_answer() {
    let (base, seen) = server(vec![
        http(
            "429 Too Many Requests",
            &[("retry-after", "1")],
            r#"{"error": {"message": "Rate limit reached"}}"#,
        ),
        ok(&chat_answer("5")),
    ])
    .await;
    let started = Instant::now();
    let response = complete(&mut openai(&base)).await.unwrap();
    assert!(started.elapsed() >= Duration::from_secs(1), "retry-after is honoured");
    assert_eq!(response.text.as_deref(), Some("5"));
    assert_eq!(
        response.usage,
        Some(Usage {
            input: 50,
            cached_input: 32,
            output: 5
        })
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    assert!(seen[0].head.starts_with("POST /v1/chat/completions HTTP/1.1"));
    assert_eq!(
        seen[0].header("authorization").as_deref(),
        Some("Bearer sk-test-secret")
    );
    assert_eq!(seen[0].body, seen[1].body, "the retry sends the same bytes");
}

#[tokio::test]
async fn server_errors_are_retried_a_bounded_number_of_times() {
    let (base, seen) = server(vec![
        http("500 Internal Server Error", &[], "oops"),
        ok(&chat_answer("5")),
    ])
    .await;
    assert_eq!(complete(&mut openai(&base)).await.unwrap().text.as_deref(), Some("5"));
    assert_eq!(seen.lock().unwrap().len(), 2);

    let overloaded = r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#;
    let (base, seen) = server(vec![http("529 Overloaded", &[], overloaded)]).await;
    let mut model = Anthropic::new(Some(ApiKey::new("sk-ant-secret")), base, "claude-test")
        .unwrap()
        .http(fast().max_retries(3))
        .unwrap();
    let err = complete(&mut model).await.unwrap_err();
    assert_eq!(
        err,
        ModelError::Unavailable {
            provider: "anthropic",
            status: 529,
            attempts: 4,
            message: "Overloaded".into()
        }
    );
    assert_eq!(seen.lock().unwrap().len(), 4);
    assert_eq!(
        err.to_string(),
        "anthropic kept failing (529) after 4 attempts: Overloaded; try again later"
    );
}

#[tokio::test]
async fn a_stalled_server_times_out_within_bounds() {
    let (base, seen) = server(vec![Reply::Stall]).await;
    let mut model = openai(&base)
        .http(fast().timeout(Duration::from_millis(300)).max_retries(1))
        .unwrap();
    let started = Instant::now();
    let err = complete(&mut model).await.unwrap_err();
    assert!(matches!(err, ModelError::Timeout { attempts: 2, .. }), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_cut_body_is_retried_then_reported() {
    let cut =
        Reply::Raw(b"HTTP/1.1 200 OK\r\ncontent-length: 500\r\nconnection: close\r\n\r\n{\"choices\": [".to_vec());
    let (base, seen) = server(vec![cut.clone(), ok(&chat_answer("5"))]).await;
    assert_eq!(complete(&mut openai(&base)).await.unwrap().text.as_deref(), Some("5"));
    assert_eq!(seen.lock().unwrap().len(), 2);

    let (base, _) = server(vec![cut]).await;
    let err = complete(&mut openai(&base)).await.unwrap_err();
    assert!(matches!(err, ModelError::Connection { attempts: 3, .. }), "{err:?}");
    assert!(err.to_string().contains("cut short"), "{err}");
}

#[tokio::test]
async fn invalid_json_and_oversized_bodies_are_errors() {
    let (base, _) = server(vec![http("200 OK", &[], "{\"choices\": [}")]).await;
    let err = complete(&mut openai(&base)).await.unwrap_err();
    assert!(
        matches!(&err, ModelError::InvalidResponse { provider: "openai", message } if message.starts_with("not JSON")),
        "{err:?}"
    );

    let (base, _) = server(vec![http("200 OK", &[], &"x".repeat(64 << 10))]).await;
    let mut options = fast();
    options.max_body_bytes = 16 << 10;
    let err = complete(&mut openai(&base).http(options).unwrap()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "openai: unreadable response: the response is larger than 16384 bytes"
    );
}

#[tokio::test]
async fn refusals_say_what_to_do_and_never_hold_the_key() {
    let body = r#"{"error": {"message": "Incorrect API key provided: sk-test-****cret.", "type": "invalid_request_error", "code": "invalid_api_key"}}"#;
    let (base, seen) = server(vec![http("401 Unauthorized", &[], body)]).await;
    let model = openai(&base);
    assert!(!format!("{model:?}").contains("sk-test-secret"), "Debug hides the key");
    let err = complete(&mut { model }).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "openai refused the API key (401): Incorrect API key provided: sk-test-****cret.; check OPENAI_API_KEY"
    );
    assert_eq!(seen.lock().unwrap().len(), 1, "a refused key is not retried");

    let body = r#"{"error": {"message": "Invalid 'model': 'gpt-test'.", "type": "invalid_request_error"}}"#;
    let (base, _) = server(vec![http("400 Bad Request", &[], body)]).await;
    let err = complete(&mut openai(&base)).await.unwrap_err();
    assert_eq!(
        err,
        ModelError::Rejected {
            provider: "openai",
            status: 400,
            message: "Invalid 'model': 'gpt-test'.".into()
        }
    );
}

#[tokio::test]
async fn a_streamed_chat_answer_is_assembled_from_its_fragments() {
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    let events = vec![
        chunk(json!({"role": "assistant", "content": "Adding"}), Value::Null),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_9", "type": "function", "function": {"name": "loadSkill", "arguments": ""}}]}),
            Value::Null,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"skillName\""}}]}),
            Value::Null,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": ": \"math\"}"}}]}),
            Value::Null,
        ),
        chunk(json!({}), json!("tool_calls")),
        format!(
            "data: {}\n\n",
            json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [],
                   "usage": {"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13}})
        ),
        "data: [DONE]\n\n".to_owned(),
    ];
    let (base, seen) = server(vec![sse(&events)]).await;
    let mut model = openai(&base);
    let carnet = carnet();
    let session = carnet.session("a").unwrap();
    let messages = [Message::User("2 + 3?".into())];
    let callable: Vec<String> = session.callable_tools().map(str::to_owned).collect();
    let request = ChatRequest {
        system: session.system_prompt(),
        messages: &messages,
        tools: session.tools(),
        mode: ExposureMode::Dynamic,
        callable: &callable,
    };
    let expected_body = model.request_body(&request, true).unwrap();
    let mut deltas = Vec::new();
    let response = model
        .stream(request, &mut |delta: Delta<'_>| deltas.push(format!("{delta:?}")))
        .await
        .unwrap();
    assert_eq!(
        deltas,
        [
            r#"Text("Adding")"#,
            r#"ToolCall { index: 0, name: "loadSkill" }"#,
            r#"Arguments { index: 0, fragment: "{\"skillName\"" }"#,
            r#"Arguments { index: 0, fragment: ": \"math\"}" }"#,
        ]
    );
    assert_eq!(response.calls[0].arguments, json!({"skillName": "math"}));
    assert_eq!(response.calls[0].id.as_deref(), Some("call_9"));
    assert_eq!(response.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(
        response.usage,
        Some(Usage {
            input: 9,
            cached_input: 0,
            output: 4
        })
    );
    let seen = seen.lock().unwrap();
    let sent: Value = serde_json::from_slice(&seen[0].body).unwrap();
    assert_eq!(sent, expected_body);
    assert_eq!(sent["stream_options"], json!({"include_usage": true}));
    assert_eq!(seen[0].header("accept").as_deref(), Some("text/event-stream"));
}

#[tokio::test]
async fn a_stream_cut_before_its_end_is_an_error() {
    let events = vec![
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3}}}\n\n".to_owned(),
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n".to_owned(),
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hal\"}}\n\n".to_owned(),
    ];
    let (base, seen) = server(vec![sse(&events)]).await;
    let mut model = Anthropic::new(Some(ApiKey::new("sk-ant-secret")), base, "claude-test")
        .unwrap()
        .http(fast())
        .unwrap();
    let carnet = carnet();
    let mut session = carnet.session("a").unwrap();
    let mut text = String::new();
    let err = chat::run_streaming(
        &mut session,
        &mut model,
        &mut vec![Message::User("hi".into())],
        3,
        |event| {
            if let chat::Event::Delta(Delta::Text(t)) = event {
                text.push_str(t);
            }
        },
    )
    .await
    .unwrap_err();
    assert_eq!(text, "Hal", "the deltas before the cut were reported");
    assert_eq!(
        err.to_string(),
        "anthropic: unreadable response: the stream ended before the response was complete (truncated)"
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1, "a broken stream is not retried");
    assert!(seen[0].head.starts_with("POST /v1/messages HTTP/1.1"));
    assert_eq!(seen[0].header("x-api-key").as_deref(), Some("sk-ant-secret"));
    assert_eq!(seen[0].header("anthropic-version").as_deref(), Some("2026-10-21"));
}

#[tokio::test]
async fn a_model_that_refuses_a_forced_tool_choice_gets_auto() {
    let answer = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [{"type": "text", "text": "5"}], "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 1}});
    let (base, seen) = server(vec![ok(&answer)]).await;
    let anthropic = |model: &str| {
        Anthropic::new(Some(ApiKey::new("sk-ant-test")), base.clone(), model)
            .unwrap()
            .http(fast())
            .unwrap()
    };
    let sent = |seen: &Mutex<Vec<Seen>>| -> (Value, Seen) {
        let last = seen.lock().unwrap().last().cloned().unwrap();
        (serde_json::from_slice(&last.body).unwrap(), last)
    };
    for (model, forced, expected) in [
        ("claude-sonnet-4-5", None, Some(json!({"type": "any"}))),
        ("claude-fable-5-1", None, None),
        ("anthropic.claude-mythos-5-1", None, None),
        ("claude-fable-5-1", Some(true), Some(json!({"type": "any"}))),
        ("my-proxy-alias", Some(false), None),
    ] {
        let mut model_client = anthropic(model);
        if let Some(forced) = forced {
            model_client = model_client.forced_tool_choice(forced);
        }
        model_client.set_tool_choice(ToolChoice::Required);
        complete(&mut model_client).await.unwrap();
        let (body, _) = sent(&seen);
        assert_eq!(body.get("tool_choice").cloned(), expected, "{model} {forced:?}");
        model_client.set_tool_choice(ToolChoice::None);
        complete(&mut model_client).await.unwrap();
        let (body, _) = sent(&seen);
        assert_eq!(
            body["tool_choice"],
            json!({"type": "none"}),
            "{model}: `none` is no forced call"
        );
    }

    let mut model = anthropic("claude-sonnet-4-5").api_version("2023-06-01").unwrap();
    complete(&mut model).await.unwrap();
    assert_eq!(sent(&seen).1.header("anthropic-version").as_deref(), Some("2023-06-01"));
    assert!(matches!(
        anthropic("m").api_version("bad\nversion"),
        Err(ModelError::Config { .. })
    ));
}

#[tokio::test]
async fn a_run_goes_on_after_arguments_that_are_not_json() {
    let call = |id: &str, name: &str, arguments: &str| {
        json!({
            "id": "r", "object": "response", "created_at": 1, "model": "gpt-test", "status": "completed",
            "output": [{"type": "function_call", "id": "fc", "call_id": id, "name": name, "arguments": arguments, "status": "completed"}],
            "usage": {"input_tokens": 20, "output_tokens": 3, "total_tokens": 23, "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}},
        })
    };
    let answer = json!({
        "id": "r", "object": "response", "created_at": 1, "model": "gpt-test", "status": "completed",
        "output": [{"type": "message", "id": "m", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": "5", "annotations": []}]}],
        "usage": {"input_tokens": 30, "output_tokens": 1, "total_tokens": 31, "input_tokens_details": {"cached_tokens": 16}, "output_tokens_details": {"reasoning_tokens": 0}},
    });
    let (base, seen) = server(vec![
        ok(&call("c1", "loadSkill", "{\"skillName\": \"math")),
        ok(&call("c2", "loadSkill", "{\"skillName\": \"math\"}")),
        ok(&call("c3", "math_add", "{\"a\": 2, \"b\": 3}")),
        ok(&answer),
    ])
    .await;
    let mut model = openai(&base).api(OpenAiApi::Responses);
    let carnet = carnet();
    let mut session = carnet.session("a").unwrap();
    let mut messages = vec![Message::User("2 + 3?".into())];
    let outcome = chat::run(&mut session, &mut model, &mut messages, 6, |_| {})
        .await
        .unwrap();
    assert_eq!(outcome.stop, Stop::Answer);
    assert_eq!(outcome.answer.as_deref(), Some("5"));
    assert_eq!(outcome.steps.len(), 4);
    assert_eq!(outcome.steps[0].calls[0].1.value["code"], "invalid_arguments");
    assert_eq!(outcome.steps[2].calls[0].0.name, "math.add", "the alias is mapped back");
    assert_eq!(outcome.steps[2].calls[0].1.value, json!(5.0));
    assert_eq!(
        outcome.usage,
        Usage {
            input: 90,
            cached_input: 16,
            output: 10
        }
    );
    let seen = seen.lock().unwrap();
    assert!(seen[0].head.starts_with("POST /v1/responses HTTP/1.1"));
    let second: Value = serde_json::from_slice(&seen[1].body).unwrap();
    assert_eq!(
        second["input"][1],
        json!({"type": "function_call", "call_id": "c1", "name": "loadSkill", "arguments": "{\"skillName\": \"math"}),
        "the broken arguments go back as they came"
    );
    assert_eq!(second["input"][2]["call_id"], "c1");
}

#[tokio::test]
async fn unreachable_servers_are_connection_errors() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let err = complete(&mut openai(&base).http(fast().max_retries(1)).unwrap())
        .await
        .unwrap_err();
    assert!(matches!(err, ModelError::Connection { attempts: 2, .. }), "{err:?}");
}

/// One model call with the agent's first request in the deferred mode.
async fn complete_deferred(model: &mut dyn ChatModel) -> Result<chat::ChatResponse, ModelError> {
    let carnet = carnet_in(ExposureMode::Deferred);
    let session = carnet.session("a").unwrap();
    let messages = [Message::User("2 + 3?".into())];
    let callable: Vec<String> = session.callable_tools().map(str::to_owned).collect();
    model
        .complete(ChatRequest {
            system: session.system_prompt(),
            messages: &messages,
            tools: session.tools(),
            mode: ExposureMode::Deferred,
            callable: &callable,
        })
        .await
}

/// [`complete_deferred`]; the body and head the server read.
async fn deferred_request(model: &mut dyn ChatModel, seen: &Mutex<Vec<Seen>>) -> (Value, Seen) {
    complete_deferred(model).await.unwrap();
    let last = seen.lock().unwrap().last().cloned().unwrap();
    (serde_json::from_slice(&last.body).unwrap(), last)
}

#[tokio::test]
async fn the_clients_declare_the_providers_tool_search_only_when_asked() {
    use carnet_runtime::providers::ProviderSearch;

    let searched = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_regex", "input": {"pattern": "add"}},
            {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1", "content": {
                "type": "tool_search_tool_search_result", "tool_references": [{"type": "tool_reference", "tool_name": "math_add"}]}},
            {"type": "tool_use", "id": "toolu_1", "name": "math_add", "input": {"a": 2, "b": 3}},
        ],
        "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 5}});
    let (base, seen) = server(vec![ok(&searched)]).await;
    let anthropic = || {
        Anthropic::new(Some(ApiKey::new("sk-ant-test")), base.clone(), "claude-test")
            .unwrap()
            .http(fast())
            .unwrap()
    };

    let mut model = anthropic().tool_search(ProviderSearch::Regex);
    let response = complete_deferred(&mut model).await.unwrap();
    let head = seen.lock().unwrap().last().cloned().unwrap();
    let body: Value = serde_json::from_slice(&head.body).unwrap();
    assert_eq!(
        body["tools"].as_array().unwrap().last().unwrap(),
        &json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"})
    );
    // Part of the Messages API in the SDK's types: no beta header unless asked for.
    assert_eq!(head.header("anthropic-beta"), None);
    assert_eq!(response.hosted.len(), 2, "kept");
    assert_eq!(response.calls.len(), 1, "the search is no call");
    assert_eq!(response.calls[0].name, "math.add");

    let mut model = anthropic();
    let (body, _) = deferred_request(&mut model, &seen).await;
    assert!(
        body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t.get("type").is_none()),
        "off by default"
    );

    let mut model = anthropic()
        .tool_search(ProviderSearch::Bm25)
        .beta("advanced-tool-use-2025-11-20")
        .beta("other-2026-01-01")
        .beta("advanced-tool-use-2025-11-20");
    let (_, head) = deferred_request(&mut model, &seen).await;
    assert_eq!(
        head.header("anthropic-beta").as_deref(),
        Some("advanced-tool-use-2025-11-20,other-2026-01-01")
    );
    let mut model = anthropic().beta("bad\nvalue");
    let err = complete_deferred(&mut model).await.unwrap_err();
    assert!(matches!(err, ModelError::Config { .. }), "{err}");

    let responses = json!({"id": "resp_1", "object": "response", "status": "completed", "output": [
        {"type": "message", "id": "m", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "5", "annotations": []}]}]});
    let (base, seen) = server(vec![ok(&responses)]).await;
    let mut model = openai(&base)
        .api(OpenAiApi::Responses)
        .tool_search(ProviderSearch::Bm25);
    let (body, _) = deferred_request(&mut model, &seen).await;
    let tools = body["tools"].as_array().unwrap();
    assert_eq!(tools.last().unwrap(), &json!({"type": "tool_search"}));
    assert_eq!(tools.iter().filter(|t| t["type"] == "namespace").count(), 1);

    let (base, seen) = server(vec![ok(&chat_answer("5"))]).await;
    let mut model = openai(&base).tool_search(ProviderSearch::Bm25);
    let (body, _) = deferred_request(&mut model, &seen).await;
    assert!(
        body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["type"] == "function"),
        "Chat Completions has no tool search"
    );
}

/// `OpenAI`'s client-executed tool search, answered by carnet's own search within one model
/// call. With `CARNET_REQUESTS_DIR` set, the requests are written there
/// (`openai-responses-search-client-<n>.json`) for `tests/providers/validate.py`.
#[tokio::test]
async fn a_client_executed_tool_search_is_answered_by_carnets_search() {
    let search_call = json!({"type": "tool_search_call", "id": "tsc_1", "call_id": "call_search_1", "execution": "client",
        "status": "completed", "arguments": {"query": "add two numbers"}, "created_by": "resp_1"});
    let reply = |output: Value, input: u64| {
        json!({"id": "resp_1", "object": "response", "status": "completed", "output": output,
               "usage": {"input_tokens": input, "output_tokens": 4, "input_tokens_details": {"cached_tokens": 0}}})
    };
    let add = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "math_add",
                     "namespace": "ops", "arguments": "{\"a\": 2, \"b\": 3}", "status": "completed"});
    let (base, seen) = server(vec![
        ok(&reply(json!([search_call]), 100)),
        ok(&reply(json!([add]), 150)),
    ])
    .await;
    let without_index = carnet_in(ExposureMode::Deferred);
    let err = openai(&base).carnet_tool_search(&without_index).unwrap_err();
    assert!(err.to_string().contains("Preset::Discovery"), "{err}");
    let carnet = carnet_with(ExposureMode::Deferred, Preset::Discovery);
    let mut model = openai(&base)
        .api(OpenAiApi::Responses)
        .carnet_tool_search(&carnet)
        .unwrap();
    let response = complete_deferred(&mut model).await.unwrap();

    assert_eq!(response.calls.len(), 1, "the answer after the search");
    assert_eq!(response.calls[0].name, "math.add");
    assert_eq!(response.usage.map(|u| u.input), Some(250), "both requests counted");
    let kinds: Vec<&str> = response.hosted.iter().map(|i| i["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["tool_search_call", "tool_search_output"],
        "kept for the next requests"
    );

    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    let first: Value = serde_json::from_slice(&seen[0].body).unwrap();
    let declared = first["tools"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(declared["type"], "tool_search");
    assert_eq!(declared["execution"], "client");
    assert_eq!(declared["parameters"]["required"], json!(["query"]));
    let second: Value = serde_json::from_slice(&seen[1].body).unwrap();
    let input = second["input"].as_array().unwrap();
    assert_eq!(
        input[1],
        json!({"type": "tool_search_call", "id": "tsc_1", "call_id": "call_search_1", "execution": "client",
               "status": "completed", "arguments": {"query": "add two numbers"}})
    );
    assert_eq!(input[2]["type"], "tool_search_output");
    assert_eq!(input[2]["call_id"], "call_search_1");
    assert_eq!(input[2]["execution"], "client");
    assert_eq!(input[2]["tools"][0]["name"], "ops", "carnet's search found `math.add`");
    assert_eq!(input[2]["tools"][0]["tools"][0]["name"], "math_add");
    assert_eq!(first["tools"], second["tools"], "the declared tools never change");

    if let Some(dir) = std::env::var_os("CARNET_REQUESTS_DIR") {
        std::fs::create_dir_all(&dir).unwrap();
        for (n, body) in [first, second].iter().enumerate() {
            let path = std::path::Path::new(&dir).join(format!("openai-responses-search-client-{n}.json"));
            std::fs::write(path, serde_json::to_string_pretty(body).unwrap()).unwrap();
        }
    }
}

#[tokio::test]
async fn a_streamed_client_search_is_answered_and_calls_beside_a_search_end_the_round() {
    let search = |id: &str, query: &str| {
        json!({"type": "tool_search_call", "id": format!("tsc_{id}"), "call_id": format!("call_search_{id}"),
               "execution": "client", "status": "completed", "arguments": {"query": query}})
    };
    let message = |text: &str| {
        json!({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": text, "annotations": []}]})
    };
    let add = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "math_add",
                     "namespace": "ops", "arguments": "{\"a\": 2, \"b\": 3}", "status": "completed"});
    let stream = |text: &str, output: Value| {
        let delta = json!({"type": "response.output_text.delta", "sequence_number": 1, "item_id": "msg_1",
                           "output_index": 0, "content_index": 0, "delta": text, "logprobs": []});
        let completed = json!({"type": "response.completed", "sequence_number": 2, "response": {
            "id": "resp_1", "object": "response", "status": "completed", "output": output,
            "usage": {"input_tokens": 100, "output_tokens": 4, "input_tokens_details": {"cached_tokens": 60}}}});
        sse(&[
            format!("event: response.output_text.delta\ndata: {delta}\n\n"),
            format!("event: response.completed\ndata: {completed}\n\n"),
        ])
    };
    let (base, seen) = server(vec![
        stream(
            "Searching. ",
            json!([message("Searching. "), search("1", "add numbers")]),
        ),
        stream("Adding.", json!([message("Adding."), search("2", "count words"), add])),
    ])
    .await;
    let carnet = carnet_with(ExposureMode::Deferred, Preset::Discovery);
    let mut model = openai(&base)
        .api(OpenAiApi::Responses)
        .carnet_tool_search(&carnet)
        .unwrap();
    let session = carnet.session("a").unwrap();
    let messages = [Message::User("2 + 3?".into())];
    let callable: Vec<String> = session.callable_tools().map(str::to_owned).collect();
    let mut text = String::new();
    let response = model
        .stream(
            ChatRequest {
                system: session.system_prompt(),
                messages: &messages,
                tools: session.tools(),
                mode: ExposureMode::Deferred,
                callable: &callable,
            },
            &mut |delta: Delta<'_>| {
                if let Delta::Text(t) = delta {
                    text.push_str(t);
                }
            },
        )
        .await
        .unwrap();
    assert_eq!(text, "Searching. Adding.", "both rounds streamed");
    assert_eq!(response.text.as_deref(), Some("Searching. Adding."));
    assert_eq!(
        response.calls.len(),
        1,
        "the call beside the second search ends the round"
    );
    let hosted: Vec<(&str, &str)> = response
        .hosted
        .iter()
        .map(|i| (i["type"].as_str().unwrap(), i["call_id"].as_str().unwrap()))
        .collect();
    assert_eq!(
        hosted,
        [
            ("tool_search_call", "call_search_1"),
            ("tool_search_output", "call_search_1"),
            ("tool_search_call", "call_search_2"),
            ("tool_search_output", "call_search_2"),
        ],
        "every search answered, the second one without asking again"
    );
    assert_eq!(
        response.usage,
        Some(Usage {
            input: 200,
            cached_input: 120,
            output: 8
        })
    );
    assert_eq!(seen.lock().unwrap().len(), 2);
}
