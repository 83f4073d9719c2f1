//! The writers give the bytes of the `Value` renderers serialized: every provider, mode,
//! strictness and kind of message, tools whose specs change under the same name included.

use std::sync::Arc;

use serde_json::{Value, json};

use super::*;
use crate::chat::{ChatRequest, Message};
use crate::dispatch::ToolOutput;
use crate::engine::ExposureMode;
use crate::manifest::Annotations;
use crate::providers::{anthropic, gemini, mcp, openai};
use crate::tool::{ToolCall, ToolKind};

fn spec(name: &str, kind: ToolKind, description: &str, schema: Value) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: description.into(),
        input_schema: Arc::new(schema),
        kind,
        toolset: (kind == ToolKind::Domain).then(|| "files".to_owned()),
        output_schema: None,
        title: None,
        annotations: Annotations::NONE,
    }
}

fn tools() -> Vec<ToolSpec> {
    let mut read = spec(
        "file.read",
        ToolKind::Domain,
        "Reads a file.\nSays \"where\" \\ how.",
        json!({"type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
               "required": ["path"]}),
    );
    read.output_schema = Some(Arc::new(
        json!({"type": "object", "properties": {"text": {"type": "string"}}}),
    ));
    read.title = Some("Read a file".into());
    read.annotations.read_only = Some(true);
    vec![
        spec(
            "loadSkill",
            ToolKind::Meta,
            "Load a skill",
            json!({"type": "object",
            "properties": {"skillName": {"type": "string"}}, "required": ["skillName"], "additionalProperties": false}),
        ),
        read,
        // Strict mode cannot express a free-form map: sent as it is, `strict: false`.
        spec(
            "notes_put",
            ToolKind::Domain,
            "Stores notes — ünïcödé 🦀\u{1}",
            json!({"type": "object",
            "properties": {"notes": {"type": "object", "additionalProperties": {"type": "string"}}}}),
        ),
    ]
}

fn messages() -> Vec<Message> {
    let call = |id: Option<&str>, name: &str, arguments: Value| ToolCall {
        id: id.map(Into::into),
        name: name.into(),
        arguments,
    };
    let load = call(Some("call_9"), "loadSkill", json!({"skillName": "files"}));
    let read = call(None, "file.read", json!({"path": "a\tb.md"}));
    let raw = call(Some("call_raw"), "notes_put", Value::String("{not json".into()));
    vec![
        Message::User("Read \"a.md\"\n\u{7f}\u{0}é".into()),
        Message::Hosted(vec![
            json!({"type": "server_tool_use", "id": "srv_1", "name": "tool_search_tool_bm25", "input": {"query": "x"}, "extra": null}),
            json!({"type": "tool_search_call", "id": "ts_1", "call_id": null, "execution": "server", "status": "completed",
                   "arguments": {"query": "x"}, "created_by": "me"}),
        ]),
        Message::Assistant {
            text: Some("Loading.".into()),
            tool_calls: vec![load.clone(), read.clone(), raw.clone()],
        },
        Message::Tool {
            call: load,
            output: ToolOutput::ok(json!({"success": true, "content": "# Files\n\nUse them."}))
                .exposing(vec!["file.read".into(), "notes_put".into()]),
        },
        Message::Tool {
            call: read,
            output: ToolOutput::error("no such file", json!({"code": "missing"})),
        },
        Message::Tool {
            call: raw,
            output: ToolOutput::ok(json!("stored")),
        },
        Message::Assistant {
            text: None,
            tool_calls: Vec::new(),
        },
        Message::User("Again, in parallel.".into()),
        // Gemini's own parts, signed: they go back in place of the turn's text and calls.
        Message::Hosted(vec![
            json!({"text": "Reading \"both\".", "thought": true}),
            json!({"functionCall": {"name": "file_read", "args": {"path": "a.md"}}, "thoughtSignature": "c2lnbmVk"}),
            json!({"functionCall": {"name": "file_read", "args": {"path": "b.md"}}}),
        ]),
        Message::Assistant {
            text: None,
            tool_calls: vec![
                call(None, "file.read", json!({"path": "a.md"})),
                call(None, "file.read", json!({"path": "b.md"})),
            ],
        },
        Message::Tool {
            call: call(None, "file.read", json!({"path": "a.md"})),
            output: ToolOutput::ok(json!("A")),
        },
        Message::Tool {
            call: call(None, "file.read", json!({"path": "b.md"})),
            output: ToolOutput::ok(json!("B")),
        },
        // A signed final answer, left at the end.
        Message::Hosted(vec![json!({"text": "Both read.", "thoughtSignature": "ZmluYWw="})]),
    ]
}

/// Every kind of message in the places that change how it is sent: escapes of every kind in
/// texts, ids, names and results; calls without ids and of tools not listed; empty texts;
/// results after a user's text (Anthropic starts a new user message); error results; hosted
/// blocks left at the end; a load exposing a tool not listed.
fn edge_messages() -> Vec<Message> {
    let call = |id: Option<&str>, name: &str, arguments: Value| ToolCall {
        id: id.map(Into::into),
        name: name.into(),
        arguments,
    };
    let escapes = "\"q\" \\ \u{0}\u{1f}\u{7f} \u{2028}\u{2029} é 漢字 🦀\r\n\t/";
    let first = call(None, "file.read", json!({"path": escapes, "n": [1.5, -2, null, false]}));
    let second = call(Some("id \"quoted\" 🦀"), "other.tool", json!([1, 2]));
    let third = call(None, "loadSkill", json!(null));
    let later = call(None, "notes_put", json!({"notes": {"k": escapes}}));
    vec![
        Message::Hosted(vec![
            json!("not an object"),
            json!({"type": "tool_result", "content": "x"}),
        ]),
        Message::User(String::new()),
        Message::Assistant {
            text: Some(String::new()),
            tool_calls: vec![first.clone(), second.clone(), third.clone()],
        },
        Message::Tool {
            call: first,
            output: ToolOutput::ok(json!(escapes)),
        },
        Message::User(escapes.into()),
        Message::Tool {
            call: second,
            output: ToolOutput::error(escapes, json!({"error": escapes, "at": [0, 1]})),
        },
        Message::Tool {
            call: third,
            output: ToolOutput::ok(json!({"skill": escapes, "n": 1}))
                .exposing(vec!["file.read".into(), "gone.tool".into()]),
        },
        Message::Assistant {
            text: Some(escapes.into()),
            tool_calls: vec![later.clone()],
        },
        Message::Tool {
            call: later,
            output: ToolOutput::ok(Value::Null),
        },
        Message::Hosted(vec![
            json!({"type": "tool_search_tool_result", "tool_use_id": "srv_2", "content": {"type": "x", "refs": [null]}, "gone": null}),
            json!({"type": "tool_search_output", "id": "ts_2", "call_id": "c", "status": "completed",
                   "tools": [{"type": "function", "name": "f", "description": null, "parameters": {"a": null}}]}),
        ]),
    ]
}

const SYSTEM: &str = "You are \"helpful\".\n\n## Skills\n- files: read\tand write \\ files\u{1b}[0m — ok\r\n";

fn same(value: &Value, written: &[u8], what: &str) {
    assert_eq!(
        String::from_utf8_lossy(written),
        value.to_string(),
        "{what}: the writer's bytes are the Value's"
    );
}

#[test]
fn every_body_is_written_as_its_value_serializes() {
    let modes = [
        ExposureMode::Dynamic,
        ExposureMode::Dispatcher,
        ExposureMode::Deferred,
        ExposureMode::AllowedTools,
    ];
    let callable = vec!["loadSkill".to_owned(), "file.read".to_owned()];
    for (messages, tools) in [messages(), edge_messages(), Vec::new()]
        .into_iter()
        .flat_map(|messages| [(messages.clone(), tools()), (messages, Vec::new())])
    {
        for mode in modes {
            for system in [SYSTEM, ""] {
                let request = ChatRequest {
                    system,
                    messages: &messages,
                    tools: &tools,
                    mode,
                    callable: &callable,
                };
                let what = format!(
                    "{mode:?}, {} messages, {} tools, prompt {:?}",
                    messages.len(),
                    tools.len(),
                    system.len()
                );
                for strict in [false, true] {
                    let options = openai::RequestOptions {
                        model: "gpt-4.1".into(),
                        strict,
                        namespaces: [("files".to_owned(), "Files".to_owned())].into(),
                    };
                    let mut out = Vec::new();
                    openai::write_chat_request(&request, &options, &mut out).unwrap();
                    same(
                        &openai::chat_request(&request, &options).unwrap(),
                        &out,
                        &format!("chat {what}"),
                    );
                    let mut out = Vec::new();
                    openai::write_responses_request(&request, &options, &mut out).unwrap();
                    same(
                        &openai::responses_request(&request, &options).unwrap(),
                        &out,
                        &format!("responses {what}"),
                    );
                }
                let options = anthropic::RequestOptions {
                    model: "claude".into(),
                    max_tokens: 10,
                };
                let mut out = Vec::new();
                anthropic::write_request(&request, &options, &mut out).unwrap();
                same(
                    &anthropic::request(&request, &options).unwrap(),
                    &out,
                    &format!("anthropic {what}"),
                );
                for json_schema in [false, true] {
                    let options = gemini::RequestOptions { json_schema };
                    let mut out = Vec::new();
                    gemini::write_request(&request, &options, &mut out).unwrap();
                    same(
                        &gemini::request(&request, &options).unwrap(),
                        &out,
                        &format!("gemini {what}, json schema {json_schema}"),
                    );
                }
            }
        }
        let mut out = Vec::new();
        mcp::write_tools(&tools, &mut out).unwrap();
        same(&mcp::tools(&tools).unwrap(), &out, "mcp");
    }
}

#[test]
fn a_tool_changed_under_the_same_name_is_written_as_it_is_now() {
    let mut tools = tools();
    let mut before = Vec::new();
    mcp::write_tools(&tools, &mut before).unwrap();
    tools[1].description = "Reads a file, changed.".into();
    tools[2].input_schema = Arc::new(json!({"type": "object", "properties": {"other": {"type": "number"}}}));
    tools[1].annotations = Annotations::NONE;
    let mut after = Vec::new();
    mcp::write_tools(&tools, &mut after).unwrap();
    assert_ne!(before, after);
    same(&mcp::tools(&tools).unwrap(), &after, "mcp after a change");
    let options = openai::RequestOptions::default();
    let request = ChatRequest {
        system: "s",
        messages: &[],
        tools: &tools,
        mode: ExposureMode::Dynamic,
        callable: &[],
    };
    let mut out = Vec::new();
    openai::write_chat_request(&request, &options, &mut out).unwrap();
    same(
        &openai::chat_request(&request, &options).unwrap(),
        &out,
        "chat after a change",
    );
}

#[test]
fn colliding_aliases_are_an_error_not_a_body() {
    let tools = [
        spec("file.read", ToolKind::Domain, "", json!({"type": "object"})),
        spec("file_read", ToolKind::Domain, "", json!({"type": "object"})),
    ];
    let request = ChatRequest {
        system: "s",
        messages: &[],
        tools: &tools,
        mode: ExposureMode::Dynamic,
        callable: &[],
    };
    let mut out = Vec::new();
    assert!(openai::write_chat_request(&request, &openai::RequestOptions::default(), &mut out).is_err());
    assert!(mcp::write_tools(&tools, &mut out).is_err());
}

/// Both Gemini writers against their `Value` renderers, twice (the second from kept bytes).
fn same_gemini(tools: &[ToolSpec], what: &str) {
    for _ in 0..2 {
        let mut out = Vec::new();
        gemini::write_tools(tools, &mut out).unwrap();
        same(&gemini::tools(tools).unwrap(), &out, &format!("gemini {what}"));
        let mut out = Vec::new();
        gemini::write_tools_json_schema(tools, &mut out).unwrap();
        same(
            &gemini::tools_json_schema(tools).unwrap(),
            &out,
            &format!("gemini json schema {what}"),
        );
    }
}

/// Gemini's `parameters` rewrites: `$ref`s inlined, `anyOf` with `null` and type lists as
/// `nullable`, `oneOf` of constants as one `enum`; and tools without parameters.
fn gemini_tools() -> Vec<ToolSpec> {
    vec![
        spec(
            "records.search",
            ToolKind::Domain,
            "Search \"records\".",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {
                    "filter": {"$ref": "#/$defs/Filter", "description": "Restrict them"},
                    "after": {"type": ["string", "null"], "format": "date-time"},
                    "limit": {"anyOf": [{"type": "integer", "format": "uint32"}, {"type": "null"}]},
                    "order": {"oneOf": [
                        {"const": "asc", "description": "Oldest first"},
                        {"const": "desc", "description": "Newest first"}
                    ]},
                    "id": {"type": ["string", "integer"]},
                    "mode": {"type": "string", "nullable": true, "enum": ["a", "b", null]}
                },
                "required": ["filter", "missing"],
                "$defs": {"Filter": {"type": "object", "properties": {
                    "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}}
                }}, "Tag": {"type": "string", "minLength": 1}}
            }),
        ),
        spec("clock.now", ToolKind::Domain, "The time", json!({"type": "object"})),
        spec(
            "notes_clear",
            ToolKind::Domain,
            "",
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
        ),
    ]
}

#[test]
fn gemini_tools_are_written_as_their_value_serializes() {
    same_gemini(&tools(), "the writer tests' tools");
    same_gemini(&gemini_tools(), "rewritten schemas");
    same_gemini(&[], "no tool");
    let mut both = tools();
    both.extend(gemini_tools());
    same_gemini(&both, "both lists");
    // A declaration is the alias's: `file.read` goes as `file_read`, `clock.now` as `clock_now`.
    let mut out = Vec::new();
    gemini::write_tools(&both, &mut out).unwrap();
    let written: Value = serde_json::from_slice(&out).unwrap();
    let names: Vec<&str> = written[0]["functionDeclarations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "loadSkill",
            "file_read",
            "notes_put",
            "records_search",
            "clock_now",
            "notes_clear"
        ]
    );
    // Without parameters: no `parameters` (Gemini refuses empty `properties`), but
    // `parametersJsonSchema` as it is.
    assert!(written[0]["functionDeclarations"][4].get("parameters").is_none());
    let mut out = Vec::new();
    gemini::write_tools_json_schema(&gemini_tools()[1..2], &mut out).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        r#"[{"functionDeclarations":[{"description":"The time","name":"clock_now","parametersJsonSchema":{"type":"object"}}]}]"#
    );
}

#[test]
fn a_gemini_tool_changed_under_the_same_name_is_written_as_it_is_now() {
    let mut tools = gemini_tools();
    same_gemini(&tools, "before");
    tools[0].description = "Changed.".into();
    tools[1].input_schema = Arc::new(json!({"type": "object", "properties": {"zone": {"type": "string"}}}));
    same_gemini(&tools, "after a change");
}

#[test]
fn gemini_writers_fail_as_their_renderers_do() {
    let recursive = json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}
    });
    let mut tools = gemini_tools();
    tools.insert(1, spec("tree.walk", ToolKind::Domain, "Walk", recursive));
    tools.push(spec(
        "bad.all_of",
        ToolKind::Domain,
        "",
        json!({"type": "object", "allOf": [{}, {}]}),
    ));
    for _ in 0..2 {
        let expected = gemini::tools(&tools).unwrap_err();
        assert!(matches!(expected, ProviderError::Schema { .. }), "{expected:?}");
        let error = gemini::write_tools(&tools, &mut Vec::new()).unwrap_err();
        assert_eq!(format!("{error:?}"), format!("{expected:?}"));
        assert_eq!(error.to_string(), expected.to_string());
    }
    // The unconverted schema is fine as it is.
    let mut out = Vec::new();
    gemini::write_tools_json_schema(&tools, &mut out).unwrap();
    same(
        &gemini::tools_json_schema(&tools).unwrap(),
        &out,
        "recursive, as `parametersJsonSchema`",
    );
    // Colliding aliases: the renderers' error, before any byte.
    let colliding = [
        spec("file.read", ToolKind::Domain, "", json!({"type": "object"})),
        spec("file_read", ToolKind::Domain, "", json!({"type": "object"})),
    ];
    let expected = gemini::tools(&colliding).unwrap_err();
    for written in [
        gemini::write_tools(&colliding, &mut Vec::new()),
        gemini::write_tools_json_schema(&colliding, &mut Vec::new()),
    ] {
        assert_eq!(format!("{:?}", written.unwrap_err()), format!("{expected:?}"));
    }
    let mut out = Vec::new();
    assert!(gemini::write_tools(&colliding, &mut out).is_err());
    assert!(out.is_empty(), "nothing written before the aliases are checked");
}
