//! The `tracing` spans of the chat loop and the session, as a subscriber receives them:
//! names, attributes, parents, error status, and content only when captured.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use carnet_runtime::chat::{self, ChatModel, ChatRequest, ChatResponse, Message, ModelError, Usage};
use carnet_runtime::telemetry::ConversationId;
use carnet_runtime::{Before, BoxFuture, CallInfo, Carnet, Hook, Manifest, ToolError, ToolImpl, ToolsetImpl, block_on};
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::Registry;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

/// A span as recorded: its fields (the last value of each) and its parent.
#[derive(Debug, Clone)]
struct Recorded {
    id: u64,
    parent: Option<u64>,
    fields: BTreeMap<String, String>,
}

impl Recorded {
    fn name(&self) -> &str {
        &self.fields["otel.name"]
    }

    fn get(&self, field: &str) -> Option<&str> {
        self.fields.get(field).map(String::as_str)
    }
}

#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<Recorded>>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S> Layer<S> for Recorder
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let parent = ctx.span(id).and_then(|s| s.parent()).map(|p| p.id().into_u64());
        self.0.lock().unwrap().push(Recorded {
            id: id.into_u64(),
            parent,
            fields,
        });
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        let mut spans = self.0.lock().unwrap();
        let span = spans.iter_mut().rev().find(|s| s.id == id.into_u64()).unwrap();
        values.record(&mut Fields(&mut span.fields));
    }
}

fn manifest() -> Manifest {
    Manifest::from_json(
        r#"{
        "agents": {"a": {"name": "a", "description": "d", "skills": ["math"], "prompt": "Compute."}},
        "skills": {"math": {"name": "math", "description": "Arithmetic", "toolsets": ["ops"], "content": "Use add.",
            "files": [{"path": "notes.md", "description": "Notes"}], "fileContents": {"notes.md": "Carry the one."}}},
        "toolsets": {"ops": {"name": "ops", "description": "Ops", "content": "",
            "tools": [{"name": "add", "description": "Adds"}, {"name": "divide", "description": "Divides"}]}}
    }"#,
    )
    .unwrap()
}

struct NoDivide;

impl Hook for NoDivide {
    fn before(&self, call: &CallInfo<'_>) -> Before {
        if call.tool == "divide" {
            Before::Deny("division is disabled".into())
        } else {
            Before::Continue
        }
    }
}

fn carnet(capture: bool) -> Carnet {
    let schema = json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]});
    let add = ToolImpl::from_fn("add", schema.clone(), |args| async move {
        Ok(json!(args["a"].as_f64().unwrap() + args["b"].as_f64().unwrap()))
    });
    let divide = ToolImpl::from_fn("divide", schema, |args| async move {
        Ok(json!(args["a"].as_f64().unwrap() / args["b"].as_f64().unwrap()))
    });
    Carnet::builder(&manifest())
        .toolset(ToolsetImpl::new("ops", [add, divide]))
        .hook(NoDivide)
        .capture_content(capture)
        .build()
        .unwrap()
}

/// Calls `add` before loading (refused), loads `math`, reads a skill file, calls `add`
/// twice side by side with one bad call and `divide` (denied), then answers.
struct Script;

impl ChatModel for Script {
    fn complete<'a>(&'a mut self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        let step = request
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Assistant { .. }))
            .count();
        let response = match step {
            0 => ChatResponse::tool_calls(None, vec![chat::call(1, "add", json!({"a": 2, "b": 3}))]),
            1 => ChatResponse::tool_calls(
                None,
                vec![
                    chat::call(2, "loadSkill", json!({"skillName": "math"})),
                    chat::call(3, "loadSkillFile", json!({"skillName": "math", "path": "notes.md"})),
                ],
            ),
            2 => ChatResponse::tool_calls(
                None,
                vec![
                    chat::call(4, "add", json!({"a": 2, "b": 3})),
                    chat::call(5, "add", json!({"a": "two"})),
                    chat::call(6, "divide", json!({"a": 1, "b": 0})),
                ],
            ),
            _ => ChatResponse::answer("5").with_finish_reason("stop"),
        }
        .with_usage(Usage {
            input: 100 + step as u64,
            cached_input: 40,
            output: 7,
        });
        let response = if step < 3 {
            response.with_finish_reason("tool_calls")
        } else {
            response
        };
        Box::pin(async move { Ok(response) })
    }

    fn provider(&self) -> &'static str {
        "scripted"
    }

    fn model(&self) -> &'static str {
        "script-1"
    }
}

fn run(capture: bool) -> Vec<Recorded> {
    let recorder = Recorder::default();
    let subscriber = Registry::default().with(recorder.clone());
    let carnet = carnet(capture);
    let mut session = carnet.session("a").unwrap();
    session.insert(ConversationId("conv-1".into()));
    let mut messages = vec![Message::User("2 + 3?".into())];
    tracing::subscriber::with_default(subscriber, || {
        let outcome = block_on(chat::run(&mut session, &mut Script, &mut messages, 10, |_| {})).unwrap();
        assert_eq!(outcome.answer.as_deref(), Some("5"));
    });
    recorder.0.lock().unwrap().clone()
}

#[test]
fn a_turn_is_one_tree_of_agent_model_and_tool_spans() {
    let spans = run(false);
    let names: Vec<&str> = spans.iter().map(Recorded::name).collect();
    assert_eq!(
        names,
        [
            "invoke_agent a",
            "chat script-1",
            "execute_tool add",
            "chat script-1",
            "execute_tool loadSkill",
            "execute_tool loadSkillFile",
            "chat script-1",
            "execute_tool add",
            "execute_tool add",
            "execute_tool divide",
            "chat script-1",
        ]
    );
    let root = &spans[0];
    assert_eq!(root.parent, None);
    assert!(spans[1..].iter().all(|s| s.parent == Some(root.id)), "{spans:#?}");
    assert_eq!(root.get("gen_ai.operation.name"), Some("invoke_agent"));
    assert_eq!(root.get("gen_ai.agent.name"), Some("a"));
    assert_eq!(root.get("gen_ai.provider.name"), Some("scripted"));
    assert_eq!(root.get("gen_ai.conversation.id"), Some("conv-1"));
    assert_eq!(root.get("gen_ai.usage.input_tokens"), Some("406"), "the turn's sum");
    assert_eq!(root.get("gen_ai.usage.output_tokens"), Some("28"));
    assert_eq!(root.get("otel.status_code"), None);

    let chat = &spans[1];
    assert_eq!(chat.get("gen_ai.operation.name"), Some("chat"));
    assert_eq!(chat.get("gen_ai.request.model"), Some("script-1"));
    assert_eq!(chat.get("gen_ai.usage.input_tokens"), Some("100"));
    assert_eq!(chat.get("gen_ai.usage.cache_read.input_tokens"), Some("40"));
    assert_eq!(chat.get("gen_ai.usage.output_tokens"), Some("7"));
    assert_eq!(chat.get("gen_ai.response.finish_reasons"), Some("tool_calls"));
    assert_eq!(chat.get("otel.kind"), Some("client"));
    assert_eq!(spans[10].get("gen_ai.response.finish_reasons"), Some("stop"));

    let refused = &spans[2];
    assert_eq!(refused.get("gen_ai.tool.call.id"), Some("call_1"));
    assert_eq!(refused.get("error.type"), Some("tool_not_exposed"));
    assert_eq!(refused.get("otel.status_code"), Some("error"));
    assert!(
        refused
            .get("otel.status_description")
            .unwrap()
            .contains("load skill `math` first")
    );

    let load = &spans[4];
    assert_eq!(load.get("gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(load.get("carnet.tool.kind"), Some("meta"));
    assert_eq!(load.get("carnet.skill.name"), Some("math"));
    assert_eq!(load.get("carnet.tools.exposed"), Some("add,divide"));
    assert_eq!(load.get("error.type"), None);
    let file = &spans[5];
    assert_eq!(file.get("carnet.skill.name"), Some("math"));
    assert_eq!(file.get("carnet.skill.file.path"), Some("notes.md"));
    assert_eq!(file.get("error.type"), None, "{file:?}");

    let (ok, bad, denied) = (&spans[7], &spans[8], &spans[9]);
    assert_eq!(ok.get("carnet.tool.kind"), Some("domain"));
    assert_eq!(ok.get("carnet.toolset.name"), Some("ops"));
    assert_eq!(ok.get("error.type"), None);
    assert_eq!(bad.get("error.type"), Some("invalid_arguments"));
    assert_eq!(denied.get("error.type"), Some("hook_denied"));
    assert_eq!(denied.get("otel.status_description"), Some("division is disabled"));

    // Content is opt-in.
    assert!(spans.iter().all(|s| s.get("gen_ai.tool.call.arguments").is_none()
        && s.get("gen_ai.tool.call.result").is_none()
        && s.get("gen_ai.output.messages").is_none()
        && s.get("gen_ai.input.messages").is_none()
        && s.get("gen_ai.system_instructions").is_none()));
}

#[test]
fn content_is_recorded_only_when_captured() {
    let spans = run(true);
    let ok = &spans[7];
    assert_eq!(ok.get("gen_ai.tool.call.arguments"), Some(r#"{"a":2,"b":3}"#));
    assert_eq!(ok.get("gen_ai.tool.call.result"), Some("5.0"));
    assert_eq!(
        spans[9].get("gen_ai.tool.call.result"),
        None,
        "no result for a failed call"
    );
    let sent: serde_json::Value = serde_json::from_str(spans[10].get("gen_ai.input.messages").unwrap()).unwrap();
    assert_eq!(
        sent[0],
        json!({"role": "user", "parts": [{"type": "text", "content": "2 + 3?"}]})
    );
    assert_eq!(sent[1]["parts"][0]["type"], "tool_call");
    assert_eq!(sent[2]["parts"][0]["id"], "call_1", "{sent}");
    assert_eq!(sent[2]["parts"][0]["type"], "tool_call_response");
    assert_eq!(
        sent[2]["parts"][0]["response"]["success"], false,
        "the refused call's result"
    );
    let system: serde_json::Value = serde_json::from_str(spans[1].get("gen_ai.system_instructions").unwrap()).unwrap();
    assert!(system[0]["content"].as_str().unwrap().starts_with("Compute."));
    let answer: serde_json::Value = serde_json::from_str(spans[10].get("gen_ai.output.messages").unwrap()).unwrap();
    assert_eq!(
        answer,
        json!([{"role": "assistant", "parts": [{"type": "text", "content": "5"}], "finish_reason": "stop"}])
    );
}

#[test]
fn calls_outside_the_loop_have_their_own_spans() {
    let recorder = Recorder::default();
    let carnet = carnet(false);
    let mut session = carnet.session("a").unwrap();
    tracing::subscriber::with_default(Registry::default().with(recorder.clone()), || {
        block_on(session.call("nope", json!({})));
        block_on(session.call_with_id("loadSkill", json!({"skillName": "nope"}), Some("x")));
        block_on(session.call("loadSkill", json!({"skill": 1})));
        // Names from the model are bounded on the span, on a character boundary.
        block_on(session.call_with_id(&"é".repeat(1000), json!({}), Some(&"x".repeat(1000))));
        block_on(session.call("loadSkill", json!({"skillName": "ß".repeat(1000)})));
    });
    let spans = recorder.0.lock().unwrap().clone();
    assert_eq!(spans.len(), 5);
    assert_eq!(spans[3].get("gen_ai.tool.name"), Some("é".repeat(64).as_str()));
    assert_eq!(spans[3].name(), format!("execute_tool {}", "é".repeat(64)));
    assert_eq!(spans[3].get("gen_ai.tool.call.id").map(str::len), Some(128));
    assert_eq!(spans[4].get("carnet.skill.name"), Some("ß".repeat(64).as_str()));
    assert!(spans.iter().all(|s| s.parent.is_none()));
    assert_eq!(spans[0].get("error.type"), Some("unknown_tool"));
    assert_eq!(spans[1].get("gen_ai.tool.call.id"), Some("x"));
    assert_eq!(spans[1].get("error.type"), Some("tool_error"), "a failed load");
    assert_eq!(spans[2].get("error.type"), Some("invalid_arguments"));
}

#[test]
fn a_model_failure_marks_the_turn_and_the_call() {
    struct Down;
    impl ChatModel for Down {
        fn complete<'a>(&'a mut self, _: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
            Box::pin(async {
                Err(ModelError::Rejected {
                    provider: "x",
                    status: 400,
                    message: "bad".into(),
                })
            })
        }
    }
    let recorder = Recorder::default();
    let carnet = carnet(false);
    let mut session = carnet.session("a").unwrap();
    let mut messages = vec![Message::User("hi".into())];
    tracing::subscriber::with_default(Registry::default().with(recorder.clone()), || {
        assert!(block_on(chat::run(&mut session, &mut Down, &mut messages, 3, |_| {})).is_err());
    });
    let spans = recorder.0.lock().unwrap().clone();
    assert_eq!(spans.len(), 2);
    assert_eq!(spans[0].name(), "invoke_agent a");
    assert_eq!(spans[1].name(), "chat custom", "no model name: the provider's");
    for span in &spans {
        assert_eq!(span.get("error.type"), Some("400"));
        assert_eq!(span.get("otel.status_code"), Some("error"));
    }
}

#[test]
fn the_turns_of_a_conversation_are_one_trace_under_a_span_of_the_program() {
    let recorder = Recorder::default();
    let carnet = carnet(false);
    let mut session = carnet.session("a").unwrap();
    let mut messages = vec![Message::User("2 + 3?".into())];
    tracing::subscriber::with_default(Registry::default().with(recorder.clone()), || {
        let conversation = tracing::info_span!("conversation", otel.name = "conversation");
        let _inside = conversation.enter();
        for _ in 0..2 {
            block_on(chat::run(&mut session, &mut Script, &mut messages, 10, |_| {})).unwrap();
            messages.push(Message::User("again?".into()));
        }
    });
    let spans = recorder.0.lock().unwrap().clone();
    let root = &spans[0];
    let turns: Vec<&Recorded> = spans.iter().filter(|s| s.name() == "invoke_agent a").collect();
    assert_eq!(turns.len(), 2);
    assert!(turns.iter().all(|t| t.parent == Some(root.id)));
}

#[test]
fn a_call_through_call_tool_is_named_after_the_tool_it_reaches() {
    let recorder = Recorder::default();
    let schema = json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]});
    let add = ToolImpl::from_fn("add", schema.clone(), |args| async move { Ok(args) });
    let divide = ToolImpl::from_fn("divide", schema, |args| async move { Ok(args) });
    let carnet = Carnet::builder(&manifest())
        .toolset(ToolsetImpl::new("ops", [add, divide]))
        .mode(carnet_runtime::ExposureMode::Dispatcher)
        .build()
        .unwrap();
    let mut session = carnet.session("a").unwrap();
    session.load_skill("math").unwrap();
    tracing::subscriber::with_default(Registry::default().with(recorder.clone()), || {
        block_on(session.call_with_id(
            "callTool",
            json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
            Some("c1"),
        ));
        block_on(session.call("callTool", json!({"name": "loadSkill", "arguments": {}})));
        block_on(session.call("callTool", json!({"tool": "add"})));
    });
    let spans = recorder.0.lock().unwrap().clone();
    assert_eq!(spans.len(), 3);
    assert_eq!(spans[0].name(), "execute_tool add");
    assert_eq!(spans[0].get("carnet.via"), Some("callTool"));
    assert_eq!(spans[0].get("gen_ai.tool.call.id"), Some("c1"));
    assert_eq!(spans[0].get("error.type"), None);
    for refused in &spans[1..] {
        assert_eq!(refused.name(), "execute_tool callTool");
        assert_eq!(refused.get("error.type"), Some("invalid_arguments"));
    }
}

/// A panic's message, or an internal error's chain, may hold what the model must not read
/// (a path, SQL, a token): the model gets an incident id, the span and the log get the
/// message under the same id.
#[test]
fn a_panics_message_and_an_internal_errors_chain_reach_the_span_and_the_log_never_the_model() {
    #[derive(Clone, Default)]
    struct Events(Arc<Mutex<Vec<BTreeMap<String, String>>>>);
    impl<S: tracing::Subscriber> Layer<S> for Events {
        fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
            let mut fields = BTreeMap::new();
            event.record(&mut Fields(&mut fields));
            self.0.lock().unwrap().push(fields);
        }
    }
    let manifest = Manifest::from_json(
        r#"{"agents": {"a": {"name": "a", "description": "A", "initialSkills": ["s"], "skills": [], "prompt": "P"}},
            "skills": {"s": {"name": "s", "description": "S", "toolsets": ["t"], "content": "C"}},
            "toolsets": {"t": {"name": "t", "description": "T", "content": "", "tools": [{"name": "leak", "description": "Panics"}, {"name": "fail", "description": "Fails"}]}}}"#,
    )
    .unwrap();
    let leak = ToolImpl::from_fn("leak", json!({"type": "object"}), |arguments| async move {
        if arguments.get("never").is_none() {
            std::panic::panic_any(format!("cannot open /srv/db with password {}", "hunter2"));
        }
        Ok(json!(null))
    });
    let fail = ToolImpl::from_fn("fail", json!({"type": "object"}), |_| async move {
        let cause = std::io::Error::other("cannot open /srv/db with password hunter2");
        let error = std::io::Error::new(std::io::ErrorKind::NotFound, Wrapped(cause));
        Err(ToolError::internal(&error))
    });
    let carnet = Carnet::builder(&manifest)
        .toolsets([ToolsetImpl::new("t", [leak, fail])])
        .build()
        .unwrap();
    let mut session = carnet.session("a").unwrap();
    for (tool, error_type, field) in [("leak", "tool_panic", "panic"), ("fail", "internal_error", "error")] {
        let recorder = Recorder::default();
        let events = Events::default();
        let output =
            tracing::subscriber::with_default(Registry::default().with(recorder.clone()).with(events.clone()), || {
                block_on(session.call(tool, json!({})))
            });
        let seen_by_model = output.to_text();
        assert!(
            !seen_by_model.contains("hunter2") && !seen_by_model.contains("/srv/db"),
            "{seen_by_model}"
        );
        assert_eq!(output.value["code"], "internal_error");
        let incident = output.value["incident"].as_str().unwrap().to_owned();
        assert!(seen_by_model.contains(&incident), "{seen_by_model}");

        let spans = recorder.0.lock().unwrap().clone();
        let span = spans
            .iter()
            .find(|s| s.name() == format!("execute_tool {tool}"))
            .unwrap();
        assert_eq!(span.get("error.type"), Some(error_type));
        assert_eq!(span.get("carnet.incident"), Some(incident.as_str()));
        assert!(
            span.get("otel.status_description").unwrap().contains("hunter2"),
            "{span:?}"
        );
        let events = events.0.lock().unwrap().clone();
        let logged = events
            .iter()
            .find(|e| e.get("incident") == Some(&incident))
            .expect("an error event");
        assert!(logged[field].contains("password hunter2"), "{logged:?}");
    }
}

/// An error whose `source` is another: the chain reaches the operator whole.
#[derive(Debug)]
struct Wrapped(std::io::Error);

impl std::fmt::Display for Wrapped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the database is unreachable")
    }
}

impl std::error::Error for Wrapped {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}
