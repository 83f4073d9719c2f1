//! Provider-side tool search in the deferred mode (issue 26, item 3): the search tool
//! declared only when asked and only over deferred tools, the provider's search blocks kept
//! in the conversation and sent back as they came, and the session refusing a tool the
//! provider's search found until a load exposes it. Whole conversations are snapshotted
//! (`tests/snapshots/providers/*_tool_search.json`, re-blessed with `CARNET_BLESS=1`); with
//! `CARNET_REQUESTS_DIR` set, every request body is written there for
//! `tests/providers/validate.py`, which checks it against the official SDKs' types.

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;

use carnet_runtime::chat::{self, ChatModel, ChatRequest, ChatResponse, Delta, Message, ModelError, Stop, Transcript};
use carnet_runtime::providers::{Aliases, ProviderSearch, ResponseStream, StreamFormat, anthropic, openai};
use carnet_runtime::{BoxFuture, Carnet, ExposureMode, Manifest, ToolImpl, ToolsetImpl};
use serde_json::{Value, json};

fn carnet(mode: ExposureMode) -> Carnet {
    let manifest = Manifest::from_json(
        r#"{
        "agents": {"a": {"name": "a", "description": "d", "skills": ["math", "words"], "prompt": "Compute."}},
        "skills": {
            "math": {"name": "math", "description": "Arithmetic", "toolsets": ["ops"], "content": "Use math.add."},
            "words": {"name": "words", "description": "Text", "toolsets": ["text"], "content": "Use text.count."}
        },
        "toolsets": {
            "ops": {"name": "ops", "description": "Operations on numbers", "content": "",
                    "tools": [{"name": "math.add", "description": "Adds two numbers"}]},
            "text": {"name": "text", "description": "Operations on text", "content": "",
                     "tools": [{"name": "text.count", "description": "Counts the words of a text"}]}
        }
    }"#,
    )
    .unwrap();
    let add = ToolImpl::from_fn(
        "math.add",
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}),
        |args| async move {
            Ok(json!(
                args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0)
            ))
        },
    );
    let count = ToolImpl::from_fn(
        "text.count",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        |args| async move { Ok(json!(args["text"].as_str().unwrap_or("").split_whitespace().count())) },
    );
    Carnet::builder(&manifest)
        .toolset(ToolsetImpl::new("ops", [add]))
        .toolset(ToolsetImpl::new("text", [count]))
        .mode(mode)
        .build()
        .unwrap()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Api {
    Anthropic,
    Responses,
}

/// A model that renders each request as carnet's clients do (tool search declared), keeps
/// the body, and answers with the next scripted provider response, read by carnet's parser.
struct Scripted {
    api: Api,
    search: ProviderSearch,
    replies: VecDeque<Value>,
    bodies: Vec<Value>,
}

impl Scripted {
    fn new(api: Api, search: ProviderSearch, replies: Vec<Value>) -> Self {
        Scripted {
            api,
            search,
            replies: replies.into(),
            bodies: Vec::new(),
        }
    }
}

fn render(api: Api, search: ProviderSearch, request: &ChatRequest<'_>) -> Value {
    match api {
        Api::Anthropic => {
            let options = anthropic::RequestOptions {
                model: "claude-sonnet-4-5".into(),
                max_tokens: 1024,
            };
            let mut body = anthropic::request(request, &options).unwrap();
            anthropic::declare_tool_search(&mut body, search).unwrap();
            body
        }
        Api::Responses => {
            let options = openai::RequestOptions {
                model: "gpt-5.4".into(),
                namespaces: BTreeMap::from([
                    ("ops".to_owned(), "Operations on numbers".to_owned()),
                    ("text".to_owned(), "Operations on text".to_owned()),
                ]),
                ..openai::RequestOptions::default()
            };
            let mut body = openai::responses_request(request, &options).unwrap();
            openai::declare_tool_search(&mut body, search);
            body
        }
    }
}

impl ChatModel for Scripted {
    fn complete<'a>(&'a mut self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        Box::pin(async move {
            self.bodies.push(render(self.api, self.search, &request));
            let aliases = Aliases::new(request.tools).unwrap();
            let reply = self.replies.pop_front().expect("a scripted reply for every step");
            let parsed = match self.api {
                Api::Anthropic => anthropic::parse_response(&reply, &aliases),
                Api::Responses => openai::parse_responses_response(&reply, &aliases),
            };
            parsed.map_err(|e| ModelError::other(e.to_string()))
        })
    }
}

fn anthropic_message(content: Value, stop: &str) -> Value {
    let mut message = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
           "stop_reason": stop, "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 5}});
    message["content"] = content;
    message
}

fn server_tool_use(search: ProviderSearch, query: &str) -> Value {
    let (name, input) = match search {
        ProviderSearch::Regex => ("tool_search_tool_regex", json!({"pattern": query})),
        _ => ("tool_search_tool_bm25", json!({"query": query})),
    };
    json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": name, "input": input, "caller": null})
}

fn tool_search_result(tools: &[&str]) -> Value {
    let references: Vec<Value> = tools
        .iter()
        .map(|t| json!({"type": "tool_reference", "tool_name": t}))
        .collect();
    json!({"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
           "content": {"type": "tool_search_tool_search_result", "tool_references": references}})
}

fn tool_use(id: &str, name: &str, input: Value) -> Value {
    let mut block = json!({"type": "tool_use", "id": id, "name": name});
    block["input"] = input;
    block
}

/// The Anthropic conversation: the provider's search finds `math_add`, the model calls it
/// before any load (refused), loads `math`, calls it again, answers.
fn anthropic_script(search: ProviderSearch) -> Vec<Value> {
    vec![
        anthropic_message(
            json!([
                server_tool_use(search, "add numbers"),
                tool_search_result(&["math_add"]),
                {"type": "text", "text": "Adding.", "citations": null},
                tool_use("toolu_1", "math_add", json!({"a": 2, "b": 3})),
            ]),
            "tool_use",
        ),
        anthropic_message(
            json!([tool_use("toolu_2", "loadSkill", json!({"skillName": "math"}))]),
            "tool_use",
        ),
        anthropic_message(
            json!([tool_use("toolu_3", "math_add", json!({"a": 2, "b": 3}))]),
            "tool_use",
        ),
        anthropic_message(json!([{"type": "text", "text": "5", "citations": null}]), "end_turn"),
    ]
}

fn namespace_ops() -> Value {
    json!({"type": "namespace", "name": "ops", "description": "Operations on numbers", "tools": [
        {"type": "function", "name": "math_add", "description": "Adds two numbers", "strict": false,
         "defer_loading": true, "parameters": {"type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}}
    ]})
}

fn responses_reply(output: Value) -> Value {
    let mut reply = json!({"id": "resp_1", "object": "response", "status": "completed",
           "usage": {"input_tokens": 10, "output_tokens": 5}});
    reply["output"] = output;
    reply
}

fn function_call(call_id: &str, name: &str, namespace: Option<&str>, arguments: &str) -> Value {
    let mut call = json!({"type": "function_call", "id": format!("fc_{call_id}"), "call_id": call_id,
                          "name": name, "arguments": arguments, "status": "completed"});
    if let Some(namespace) = namespace {
        call["namespace"] = json!(namespace);
    }
    call
}

/// The same conversation with `OpenAI`'s hosted search.
fn responses_script() -> Vec<Value> {
    vec![
        responses_reply(json!([
            {"type": "tool_search_call", "id": "tsc_1", "call_id": null, "execution": "server",
             "status": "completed", "arguments": {"query": "add numbers"}, "created_by": "resp_1"},
            {"type": "tool_search_output", "id": "tso_1", "call_id": null, "execution": "server",
             "status": "completed", "tools": [namespace_ops()], "created_by": "resp_1"},
            function_call("call_1", "math_add", Some("ops"), "{\"a\": 2, \"b\": 3}"),
        ])),
        responses_reply(json!([function_call(
            "call_2",
            "loadSkill",
            None,
            "{\"skillName\": \"math\"}"
        )])),
        responses_reply(json!([function_call(
            "call_3",
            "math_add",
            Some("ops"),
            "{\"a\": 2, \"b\": 3}"
        )])),
        responses_reply(
            json!([{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                                "content": [{"type": "output_text", "text": "5", "annotations": []}]}]),
        ),
    ]
}

fn run(api: Api, search: ProviderSearch) -> (Vec<Message>, Scripted) {
    let carnet = carnet(ExposureMode::Deferred);
    let mut session = carnet.session("a").unwrap();
    let script = match api {
        Api::Anthropic => anthropic_script(search),
        Api::Responses => responses_script(),
    };
    let mut model = Scripted::new(api, search, script);
    let mut messages = vec![Message::User("What is 2 + 3?".into())];
    let outcome = carnet_runtime::block_on(chat::run(&mut session, &mut model, &mut messages, 8, |_| {})).unwrap();
    assert_eq!(outcome.stop, Stop::Answer);
    assert_eq!(outcome.answer.as_deref(), Some("5"));
    (messages, model)
}

fn write_requests(prefix: &str, bodies: &[Value]) {
    let Some(dir) = std::env::var_os("CARNET_REQUESTS_DIR") else {
        return;
    };
    std::fs::create_dir_all(&dir).unwrap();
    for (step, body) in bodies.iter().enumerate() {
        let path = PathBuf::from(&dir).join(format!("{prefix}-{step}.json"));
        std::fs::write(path, serde_json::to_string_pretty(body).unwrap()).unwrap();
    }
}

fn assert_snapshot(name: &str, value: &Value) {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "snapshots",
        "providers",
        &format!("{name}.json"),
    ]
    .iter()
    .collect();
    let actual = serde_json::to_string_pretty(value).unwrap() + "\n";
    if std::env::var_os("CARNET_BLESS").is_some_and(|bless| bless == "1") {
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error} (CARNET_BLESS=1 writes it)", path.display()));
    assert!(
        actual == expected,
        "{} differs from the output (CARNET_BLESS=1 rewrites it)\n--- expected\n{expected}--- actual\n{actual}",
        path.display()
    );
}

/// The part of a body that must not change within a conversation.
fn prefix(body: &Value) -> Value {
    json!([body.get("system"), body.get("instructions"), body["tools"]])
}

#[test]
fn anthropic_search_is_sent_back_and_the_session_still_refuses() {
    for search in [ProviderSearch::Bm25, ProviderSearch::Regex] {
        let (messages, model) = run(Api::Anthropic, search);
        let [first, .., last] = model.bodies.as_slice() else {
            panic!("four requests")
        };
        // Declared once, after the deferred tools; the prefix never changes.
        let tools = first["tools"].as_array().unwrap();
        let (kind, name) = match search {
            ProviderSearch::Regex => ("tool_search_tool_regex_20251119", "tool_search_tool_regex"),
            _ => ("tool_search_tool_bm25_20251119", "tool_search_tool_bm25"),
        };
        assert_eq!(tools.last().unwrap(), &json!({"type": kind, "name": name}));
        assert!(
            model.bodies.iter().all(|b| prefix(b) == prefix(first)),
            "{search:?}: prefix"
        );

        // The provider's blocks are kept, not run, and go back first in the model's turn.
        let Message::Hosted(hosted) = &messages[1] else {
            panic!("{:?}", messages[1])
        };
        assert_eq!(hosted.len(), 2);
        assert_eq!(hosted[0], server_tool_use(search, "add numbers"));
        let turn = &last["messages"][1];
        assert_eq!(turn["role"], "assistant");
        let mut sent = hosted[0].clone();
        sent.as_object_mut().unwrap().remove("caller"); // `null`: absent
        assert_eq!(turn["content"][0], sent);
        assert_eq!(turn["content"][1], tool_search_result(&["math_add"]));
        assert_eq!(turn["content"][2]["type"], "text");
        assert_eq!(turn["content"][3]["name"], "math_add");

        // Found by the provider is not exposed: refused, naming the skill to load.
        let Message::Tool { call, output } = &messages[3] else {
            panic!("{:?}", messages[3])
        };
        assert_eq!(call.name, "math.add");
        assert!(output.is_error);
        assert!(
            output.to_text().contains("load skill `math` first"),
            "{}",
            output.to_text()
        );
        let refused = &last["messages"][2]["content"][0];
        assert_eq!(refused["type"], "tool_result");
        assert_eq!(refused["is_error"], true);
        // Once loaded, the same call runs.
        let Some(Message::Tool { output, .. }) = messages.iter().rev().find(|m| matches!(m, Message::Tool { .. }))
        else {
            unreachable!()
        };
        assert!(!output.is_error);
        assert_eq!(output.value, json!(5.0));

        write_requests(&format!("anthropic-search-{}", search.name()), &model.bodies);
        if search == ProviderSearch::Bm25 {
            assert_snapshot("anthropic_tool_search", last);
        }
    }
}

#[test]
fn openai_responses_search_is_sent_back_and_the_session_still_refuses() {
    let (messages, model) = run(Api::Responses, ProviderSearch::Bm25);
    let [first, .., last] = model.bodies.as_slice() else {
        panic!("four requests")
    };
    let tools = first["tools"].as_array().unwrap();
    assert_eq!(tools.last().unwrap(), &json!({"type": "tool_search"}));
    assert_eq!(tools.iter().filter(|t| t["type"] == "tool_search").count(), 1);
    assert!(model.bodies.iter().all(|b| prefix(b) == prefix(first)), "prefix");

    let Message::Hosted(hosted) = &messages[1] else {
        panic!("{:?}", messages[1])
    };
    assert_eq!(hosted.len(), 2);
    let input = last["input"].as_array().unwrap();
    // As input items: `created_by` and `null`s left out, the rest as the provider wrote it.
    assert_eq!(
        input[1],
        json!({"type": "tool_search_call", "id": "tsc_1", "execution": "server", "status": "completed",
               "arguments": {"query": "add numbers"}})
    );
    assert_eq!(input[2]["type"], "tool_search_output");
    assert_eq!(input[2]["tools"][0], namespace_ops());
    assert_eq!(input[2].get("created_by"), None);
    assert_eq!(input[3]["type"], "function_call");
    assert_eq!(input[4]["type"], "function_call_output");
    assert!(input[4]["output"].as_str().unwrap().contains("load skill `math` first"));
    let Message::Tool { output, .. } = &messages[3] else {
        panic!("{:?}", messages[3])
    };
    assert!(output.is_error);

    write_requests("openai-responses-search-bm25", &model.bodies);
    assert_snapshot("openai_responses_tool_search", last);
}

#[test]
fn each_api_sends_back_only_its_own_hosted_items() {
    let carnet = carnet(ExposureMode::Deferred);
    let session = carnet.session("a").unwrap();
    let tools = session.tools().to_vec();
    let messages = [
        Message::User("hi".into()),
        Message::Hosted(vec![
            server_tool_use(ProviderSearch::Bm25, "add"),
            tool_search_result(&["math_add"]),
            json!({"type": "tool_search_call", "id": "tsc_1", "execution": "server", "arguments": {}}),
            json!({"type": "tool_result", "tool_use_id": "x", "content": "not the server's"}),
            json!("not an object"),
            json!({"type": 7}),
        ]),
        Message::Assistant {
            text: Some("Done.".into()),
            tool_calls: vec![],
        },
    ];
    let callable: Vec<String> = session.callable_tools().map(str::to_owned).collect();
    let request = ChatRequest {
        system: session.system_prompt(),
        messages: &messages,
        tools: &tools,
        mode: ExposureMode::Deferred,
        callable: &callable,
    };
    let body = render(Api::Anthropic, ProviderSearch::Bm25, &request);
    let types: Vec<&str> = body["messages"][1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["server_tool_use", "tool_search_tool_result", "text"]);
    let body = render(Api::Responses, ProviderSearch::Bm25, &request);
    let types: Vec<&str> = body["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap_or("message"))
        .collect();
    assert_eq!(types, ["message", "tool_search_call", "message"]);
    let options = openai::RequestOptions::default();
    let chat = openai::chat_request(&request, &options).unwrap();
    assert_eq!(chat["messages"].as_array().unwrap().len(), 3, "system, user, assistant");

    // A transcript cut after the search: the blocks still go back, as the assistant's.
    let cut = &messages[..2];
    let request = ChatRequest {
        messages: cut,
        ..request
    };
    let body = render(Api::Anthropic, ProviderSearch::Bm25, &request);
    assert_eq!(body["messages"][1]["role"], "assistant");
    assert_eq!(body["messages"][1]["content"].as_array().unwrap().len(), 2);

    // Saved and resumed like any other message.
    let saved = serde_json::to_string(&Transcript::new(&session, messages.to_vec())).unwrap();
    let (_, resumed) = serde_json::from_str::<Transcript>(&saved)
        .unwrap()
        .resume(&carnet)
        .unwrap();
    assert_eq!(resumed, messages);
    assert!(saved.contains(r#"{"role":"hosted","content":["#), "{saved}");
}

fn request_body(mode: ExposureMode, api: Api, search: ProviderSearch) -> Value {
    let carnet = carnet(mode);
    let session = carnet.session("a").unwrap();
    let tools = session.tools().to_vec();
    let callable: Vec<String> = session.callable_tools().map(str::to_owned).collect();
    let messages = [Message::User("hi".into())];
    let request = ChatRequest {
        system: session.system_prompt(),
        messages: &messages,
        tools: &tools,
        mode,
        callable: &callable,
    };
    render(api, search, &request)
}

#[test]
fn off_or_nothing_deferred_leaves_every_body_as_it_was() {
    for mode in ExposureMode::ALL {
        for api in [Api::Anthropic, Api::Responses] {
            let plain = request_body(mode, api, ProviderSearch::Off);
            for search in [ProviderSearch::Bm25, ProviderSearch::Regex] {
                let body = request_body(mode, api, search);
                if mode == ExposureMode::Deferred {
                    assert_ne!(body, plain);
                    let mut without = body.clone();
                    without["tools"].as_array_mut().unwrap().pop();
                    assert_eq!(without, plain, "only the search tool is added");
                } else {
                    assert_eq!(body, plain, "{mode:?}: nothing deferred, nothing declared");
                }
            }
        }
    }
    // A Chat Completions body has no deferral and gets nothing.
    let mut chat = json!({"messages": [], "tools": [{"type": "function", "function": {"name": "f"}}]});
    let before = chat.clone();
    assert!(!openai::declare_tool_search(&mut chat, ProviderSearch::Bm25));
    assert_eq!(chat, before);
    // No tools at all.
    let mut empty = json!({"messages": []});
    assert!(!anthropic::declare_tool_search(&mut empty, ProviderSearch::Bm25).unwrap());
    assert_eq!(empty, json!({"messages": []}));
}

#[test]
fn declaring_twice_changes_nothing_and_a_taken_name_is_an_error() {
    let mut body = request_body(ExposureMode::Deferred, Api::Anthropic, ProviderSearch::Regex);
    let once = body.clone();
    assert!(anthropic::declare_tool_search(&mut body, ProviderSearch::Regex).unwrap());
    assert_eq!(body, once);
    let mut body = request_body(ExposureMode::Deferred, Api::Responses, ProviderSearch::Bm25);
    let once = body.clone();
    assert!(openai::declare_tool_search(&mut body, ProviderSearch::Regex));
    assert_eq!(body, once);

    let mut taken = json!({"tools": [
        {"name": "tool_search_tool_bm25", "input_schema": {"type": "object"}},
        {"name": "f", "input_schema": {"type": "object"}, "defer_loading": true},
    ]});
    let err = anthropic::declare_tool_search(&mut taken, ProviderSearch::Bm25).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tools `tool_search_tool_bm25` and `Anthropic's `tool_search_tool_bm25_20251119`` both have the provider alias `tool_search_tool_bm25`"
    );
}

#[test]
fn provider_search_names_round_trip() {
    for search in ProviderSearch::ALL {
        assert_eq!(search.name().parse::<ProviderSearch>(), Ok(search));
    }
    assert_eq!(ProviderSearch::default(), ProviderSearch::Off);
    assert_eq!(
        "semantic".parse::<ProviderSearch>().unwrap_err(),
        "unknown provider search `semantic`: expected one of off, bm25, regex"
    );
}

fn event(kind: &str, data: &Value) -> String {
    format!("event: {kind}\ndata: {data}\n\n")
}

#[test]
fn a_streamed_search_is_kept_and_is_no_call() {
    let aliases = Aliases::new(carnet(ExposureMode::Deferred).session("a").unwrap().tools()).unwrap();
    let events = [
        event("message_start", &json!({"type": "message_start", "message": {"usage": {"input_tokens": 3}}})),
        event("content_block_start", &json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25", "input": {}}})),
        event("content_block_delta", &json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": "{\"query\": "}})),
        event("content_block_delta", &json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": "\"add numbers\"}"}})),
        event("content_block_stop", &json!({"type": "content_block_stop", "index": 0})),
        event("content_block_start", &json!({"type": "content_block_start", "index": 1,
            "content_block": tool_search_result(&["math_add"])})),
        event("content_block_stop", &json!({"type": "content_block_stop", "index": 1})),
        event("content_block_start", &json!({"type": "content_block_start", "index": 2,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "math_add", "input": {}}})),
        event("content_block_delta", &json!({"type": "content_block_delta", "index": 2,
            "delta": {"type": "input_json_delta", "partial_json": "{\"a\": 2, \"b\": 3}"}})),
        event("message_delta", &json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}})),
        event("message_stop", &json!({"type": "message_stop"})),
    ]
    .concat();
    let mut stream = ResponseStream::new(StreamFormat::Anthropic, aliases);
    let mut announced = Vec::new();
    for piece in events.as_bytes().chunks(5) {
        stream
            .feed(piece, &mut |delta| {
                if let Delta::ToolCall { name, .. } = delta {
                    announced.push(name.to_owned());
                }
            })
            .unwrap();
    }
    let response = stream.finish().unwrap();
    assert_eq!(announced, ["math.add"]);
    assert_eq!(
        response.calls.len(),
        1,
        "the search is not a call: {:?}",
        response.calls
    );
    assert_eq!(response.calls[0].name, "math.add");
    assert_eq!(response.calls[0].arguments, json!({"a": 2, "b": 3}));
    assert_eq!(
        response.hosted,
        [
            json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25",
                   "input": {"query": "add numbers"}}),
            tool_search_result(&["math_add"]),
        ]
    );
}

#[test]
fn odd_server_blocks_do_not_panic() {
    let aliases = Aliases::default();
    let odd = [
        json!({"type": "server_tool_use"}),
        json!({"type": "server_tool_use", "id": 5, "name": null, "input": "text"}),
        json!({"type": "tool_search_tool_result", "content": "not an object"}),
        json!({"type": "x_tool_result", "content": [1, 2, 3]}),
        json!({"type": ["server_tool_use"]}),
        json!(null),
        json!(42),
    ];
    let body = anthropic_message(Value::Array(odd.to_vec()), "end_turn");
    let response = anthropic::parse_response(&body, &aliases).unwrap();
    assert_eq!(response.hosted.len(), 4);
    assert!(response.calls.is_empty());
    let output = json!({"output": [
        {"type": "tool_search_call"}, {"type": "tool_search_output", "tools": "none"}, "text", null,
    ]});
    let response = openai::parse_responses_response(&output, &aliases).unwrap();
    assert_eq!(response.hosted.len(), 2);

    // Streamed: starts that are not objects, deltas for unknown or server blocks of every
    // shape, a server block's input that never parses.
    let events = [
        event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": 0, "content_block": "x"}),
        ),
        event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": 1,
            "content_block": {"type": "server_tool_use"}}),
        ),
        event(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": 7}}),
        ),
        event(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": "{\"query\": "}}),
        ),
        event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": 1,
            "content_block": {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1"}}),
        ),
        event(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": 99,
            "delta": {"type": "text_delta", "text": "hi"}}),
        ),
        event("message_stop", &json!({"type": "message_stop"})),
    ]
    .concat();
    let mut stream = ResponseStream::new(StreamFormat::Anthropic, Aliases::default());
    stream.feed(events.as_bytes(), &mut |_| {}).unwrap();
    let response = stream.finish().unwrap();
    assert_eq!(
        response.hosted.len(),
        1,
        "the later block at the same index replaces the first"
    );
    assert!(response.calls.is_empty());
    assert_eq!(response.text.as_deref(), Some("hi"));

    // Sent back, odd as they are, without panicking.
    let carnet = carnet(ExposureMode::Deferred);
    let session = carnet.session("a").unwrap();
    let tools = session.tools().to_vec();
    let messages = [
        Message::User("hi".into()),
        Message::Hosted(odd.to_vec()),
        Message::Assistant {
            text: None,
            tool_calls: vec![],
        },
    ];
    let request = ChatRequest {
        system: "",
        messages: &messages,
        tools: &tools,
        mode: ExposureMode::Deferred,
        callable: &[],
    };
    for api in [Api::Anthropic, Api::Responses] {
        render(api, ProviderSearch::Regex, &request);
    }
}
