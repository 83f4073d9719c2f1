//! Request bodies: ids made for calls without one, in every provider.

use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::chat::{ChatRequest, Message};
use crate::dispatch::ToolOutput;
use crate::engine::ExposureMode;
use crate::tool::{ToolCall, ToolKind, ToolSpec};

fn spec(name: &str, kind: ToolKind) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: String::new(),
        input_schema: Arc::new(json!({"type": "object"})),
        kind,
        toolset: (kind == ToolKind::Domain).then(|| "files".to_owned()),
        output_schema: None,
        title: None,
        annotations: crate::manifest::Annotations::NONE,
    }
}

#[test]
fn calls_without_ids_get_matching_made_up_ids() {
    let tools = [spec("loadSkill", ToolKind::Meta), spec("file.read", ToolKind::Domain)];
    let call = |name: &str| ToolCall {
        id: None,
        name: name.into(),
        arguments: json!({}),
    };
    let messages = [
        Message::User("hi".into()),
        Message::Assistant {
            text: None,
            tool_calls: vec![call("loadSkill"), call("file.read")],
        },
        Message::Tool {
            call: call("loadSkill"),
            output: ToolOutput::ok(json!({"success": true})).exposing(vec!["file.read".into()]),
        },
        Message::Tool {
            call: call("file.read"),
            output: ToolOutput::error("nope", json!({})),
        },
    ];
    let callable = vec!["loadSkill".to_owned()];
    let request = ChatRequest {
        system: "s",
        messages: &messages,
        tools: &tools,
        mode: ExposureMode::Deferred,
        callable: &callable,
    };
    let body = anthropic_request(
        &request,
        &AnthropicOptions {
            model: "m".into(),
            max_tokens: 1,
        },
    )
    .unwrap();
    let uses = &body["messages"][1]["content"];
    let results = &body["messages"][2]["content"];
    assert_eq!(uses[0]["id"], "toolu_1_0");
    assert_eq!(uses[1]["name"], "file_read", "aliased");
    assert_eq!(results[0]["tool_use_id"], uses[0]["id"]);
    assert_eq!(results[1]["tool_use_id"], uses[1]["id"]);
    assert_eq!(
        results[0]["content"][1],
        json!({"type": "tool_reference", "tool_name": "file_read"})
    );
    assert_eq!(results[1]["is_error"], true);
    let chat = openai_chat_request(&request, &OpenAiOptions::default()).unwrap();
    assert_eq!(
        chat["messages"][2]["tool_calls"][1]["id"],
        chat["messages"][4]["tool_call_id"]
    );
    let responses = openai_responses_request(&request, &OpenAiOptions::default()).unwrap();
    let input = responses["input"].as_array().unwrap();
    assert_eq!(input[1]["call_id"], input[3]["call_id"]);
    assert_eq!(input[4]["type"], "additional_tools");
    assert_eq!(input[4]["tools"][0]["tools"][0]["name"], "file_read");
    assert_eq!(
        input[4]["tools"][0]["tools"][0].get("defer_loading"),
        None,
        "loaded: not deferred"
    );
}

#[test]
fn responses_replays_a_deferred_domain_call_with_its_namespace() {
    let mut tools = vec![spec("loadSkill", ToolKind::Meta), spec("file.read", ToolKind::Domain)];
    tools[1].toolset = Some("disk.files".to_owned());
    let call = |id: &str, name: &str| ToolCall {
        id: Some(id.into()),
        name: name.into(),
        arguments: json!({}),
    };
    let messages = [
        Message::User("hi".into()),
        Message::Assistant {
            text: None,
            tool_calls: vec![call("a", "loadSkill"), call("b", "file.read")],
        },
        Message::Tool {
            call: call("a", "loadSkill"),
            output: ToolOutput::ok(json!({"success": true})),
        },
        Message::Tool {
            call: call("b", "file.read"),
            output: ToolOutput::ok(json!("text")),
        },
    ];
    let callable = vec!["loadSkill".to_owned(), "file.read".to_owned()];
    let body = |mode| {
        let request = ChatRequest {
            system: "s",
            messages: &messages,
            tools: &tools,
            mode,
            callable: &callable,
        };
        openai_responses_request(&request, &OpenAiOptions::default()).unwrap()
    };
    let deferred = body(ExposureMode::Deferred);
    let input = deferred["input"].as_array().unwrap();
    let declared = deferred["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["type"] == "namespace")
        .unwrap();
    assert_eq!(input[1].get("namespace"), None, "a meta-tool is no namespace's");
    assert_eq!(input[2]["name"], "file_read");
    assert_eq!(
        input[2]["namespace"], declared["name"],
        "the namespace it was declared in"
    );
    assert_eq!(input[2]["namespace"], "disk_files");
    for mode in [ExposureMode::Dynamic, ExposureMode::AllowedTools] {
        let plain = body(mode);
        assert_eq!(plain["input"][2]["name"], "file_read");
        assert_eq!(
            plain["input"][2].get("namespace"),
            None,
            "{mode:?}: no namespaces declared"
        );
    }
}

#[test]
fn gemini_contents_group_results_and_send_signed_parts_back_as_they_came() {
    let tools = [spec("loadSkill", ToolKind::Meta), spec("file.read", ToolKind::Domain)];
    let read = |path: &str, id: Option<&str>| ToolCall {
        id: id.map(str::to_owned),
        name: "file.read".into(),
        arguments: json!({"path": path}),
    };
    let signed = json!({"functionCall": {"name": "file_read", "args": {"path": "c"}}, "thoughtSignature": "c2ln"});
    let messages = [
        Message::User("Read a and b.".into()),
        Message::Assistant {
            text: Some("Reading.".into()),
            tool_calls: vec![read("a", None), read("b", Some("g1"))],
        },
        Message::Tool {
            call: read("a", None),
            output: ToolOutput::ok(json!("A")),
        },
        Message::Tool {
            call: read("b", Some("g1")),
            output: ToolOutput::error("no such file", json!({"code": "missing"})),
        },
        // An empty turn (a candidate cut by SAFETY): left out.
        Message::Assistant {
            text: None,
            tool_calls: Vec::new(),
        },
        Message::User("Now c.".into()),
        // The other APIs' hosted items are not Gemini's.
        Message::Hosted(vec![json!({"type": "tool_search_call", "id": "x"}), signed.clone()]),
        Message::Assistant {
            text: None,
            tool_calls: vec![read("c", None)],
        },
        Message::Tool {
            call: read("c", None),
            output: ToolOutput::ok(json!({"text": "C"})),
        },
    ];
    let request = ChatRequest {
        system: "Be brief.",
        messages: &messages,
        tools: &tools,
        mode: ExposureMode::Dynamic,
        callable: &[],
    };
    let body = gemini_request(&request, &GeminiOptions::default()).unwrap();
    assert_eq!(body["systemInstruction"], json!({"parts": [{"text": "Be brief."}]}));
    assert_eq!(body["tools"][0]["functionDeclarations"][1]["name"], "file_read");
    assert_eq!(body.get("toolConfig"), None, "no allow-list outside AllowedTools");
    assert_eq!(
        body["contents"],
        json!([
            {"role": "user", "parts": [{"text": "Read a and b."}]},
            {"role": "model", "parts": [
                {"text": "Reading."},
                {"functionCall": {"name": "file_read", "args": {"path": "a"}}},
                {"functionCall": {"name": "file_read", "args": {"path": "b"}, "id": "g1"}},
            ]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "file_read", "response": {"output": "A"}}},
                {"functionResponse": {"name": "file_read", "id": "g1", "response": {"error": {
                    "success": false, "error": "no such file", "code": "missing"}}}},
            ]},
            {"role": "user", "parts": [{"text": "Now c."}]},
            {"role": "model", "parts": [signed]},
            {"role": "user", "parts": [{"functionResponse": {"name": "file_read", "response": {"output": {"text": "C"}}}}]},
        ])
    );
    let empty = ChatRequest {
        system: "",
        messages: &[],
        tools: &[],
        mode: ExposureMode::Dynamic,
        callable: &[],
    };
    assert_eq!(
        gemini_request(&empty, &GeminiOptions::default()).unwrap(),
        json!({"contents": []}),
        "no prompt, no tools: neither is sent"
    );
}
