//! The agent loop with a scripted model: loads refresh the tools between steps, refused
//! calls reach the model as results, and the loop stops on an answer or the step limit.

use carnet_runtime::block_on;
use carnet_runtime::chat::{self, ChatModel, ChatRequest, ChatResponse, Delta, Message, ModelError, Stop, Usage};
use carnet_runtime::{BoxFuture, Carnet, Manifest, ToolImpl, ToolsetImpl};
use serde_json::json;

fn carnet() -> Carnet {
    let manifest = Manifest::from_json(
        r#"{
        "agents": {"a": {"name": "a", "description": "d", "skills": ["math"], "prompt": "Compute."}},
        "skills": {"math": {"name": "math", "description": "Arithmetic", "toolsets": ["ops"], "content": "Use add."}},
        "toolsets": {"ops": {"name": "ops", "description": "Ops", "content": "", "tools": [{"name": "add", "description": "Adds"}]}}
    }"#,
    )
    .unwrap();
    let add = ToolImpl::from_fn(
        "add",
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}),
        |args| async move { Ok(json!(args["a"].as_f64().unwrap() + args["b"].as_f64().unwrap())) },
    );
    Carnet::builder(&manifest)
        .toolset(ToolsetImpl::new("ops", [add]))
        .build()
        .unwrap()
}

/// Tries `add` (refused), loads `math`, calls `add`, answers with the result.
struct Policy {
    seen_tools: Vec<Vec<String>>,
}

impl ChatModel for Policy {
    fn complete<'a>(&'a mut self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        self.seen_tools
            .push(request.tools.iter().map(|t| t.name.clone()).collect());
        let response = match chat::tool_results(request.messages).next() {
            None => ChatResponse::tool_calls(None, vec![chat::call(1, "add", json!({"a": 2, "b": 3}))]),
            Some((call, output)) if call.name == "add" && output.is_error => ChatResponse::tool_calls(
                Some("I need the math skill.".into()),
                vec![chat::call(2, "loadSkill", json!({"skillName": "math"}))],
            ),
            Some((call, _)) if call.name == "loadSkill" => {
                ChatResponse::tool_calls(None, vec![chat::call(3, "add", json!({"a": 2, "b": 3}))])
            }
            Some((_, output)) => ChatResponse::answer(format!("2 + 3 = {}", output.value)),
        };
        Box::pin(async move { Ok(response) })
    }
}

#[test]
fn the_loop_refreshes_tools_after_loads_and_ends_with_an_answer() {
    let carnet = carnet();
    let mut session = carnet.session("a").unwrap();
    let mut model = Policy { seen_tools: Vec::new() };
    let mut messages = vec![Message::User("What is 2 + 3?".into())];
    let mut seen_steps = 0;
    let outcome = block_on(chat::run(&mut session, &mut model, &mut messages, 10, |_| {
        seen_steps += 1;
    }))
    .unwrap();
    assert_eq!(outcome.answer.as_deref(), Some("2 + 3 = 5.0"));
    assert_eq!(outcome.steps.len(), 4);
    assert_eq!(seen_steps, 4);
    assert!(
        outcome.steps[0].calls[0].1.is_error,
        "add is refused before the skill loads"
    );
    assert!(!model.seen_tools[1].contains(&"add".to_owned()));
    assert!(
        model.seen_tools[2].contains(&"add".to_owned()),
        "the tool list is refreshed after loadSkill"
    );
    assert!(outcome.steps[2].system.contains("## Loaded Skills"), "so is the prompt");
    // user, then (assistant, tool) per call step, then the answer.
    assert_eq!(messages.len(), 1 + 3 * 2 + 1);
    assert!(matches!(&messages[2], Message::Tool { output, .. } if output.is_error));
}

#[test]
fn the_loop_stops_at_the_step_limit() {
    struct Stubborn;
    impl ChatModel for Stubborn {
        fn complete<'a>(&'a mut self, _: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
            Box::pin(async { Ok(ChatResponse::tool_calls(None, vec![chat::call(0, "nope", json!({}))])) })
        }
    }
    let carnet = carnet();
    let mut session = carnet.session("a").unwrap();
    let mut messages = vec![Message::User("loop".into())];
    let outcome = block_on(chat::run(&mut session, &mut Stubborn, &mut messages, 3, |_| {})).unwrap();
    assert_eq!(outcome.answer, None);
    assert_eq!(outcome.steps.len(), 3);
    assert_eq!(outcome.steps[2].calls[0].1.error_message(), Some("unknown tool `nope`"));
}

#[test]
fn model_errors_end_the_run() {
    struct Broken;
    impl ChatModel for Broken {
        fn complete<'a>(&'a mut self, _: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
            Box::pin(async { Err(ModelError::other("rate limited")) })
        }
    }
    let carnet = carnet();
    let mut session = carnet.session("a").unwrap();
    let err = block_on(chat::run(
        &mut session,
        &mut Broken,
        &mut vec![Message::User("hi".into())],
        3,
        |_| {},
    ))
    .unwrap_err();
    assert_eq!(err.to_string(), "rate limited");
}

#[test]
fn everything_up_front_baseline() {
    let carnet = carnet();
    let baseline = carnet.everything_up_front("a").unwrap();
    assert_eq!(baseline.system_prompt, "Compute.\n\n---\n\n## Skills\n\nUse add.");
    assert_eq!(
        baseline.tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        ["add"]
    );
}

/// One step of calls, then an answer.
struct OneStep(Option<Vec<carnet_runtime::ToolCall>>);

impl ChatModel for OneStep {
    fn complete<'a>(&'a mut self, _: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        let response = match self.0.take() {
            Some(calls) => ChatResponse::tool_calls(None, calls),
            None => ChatResponse::answer("done"),
        };
        Box::pin(async move { Ok(response) })
    }
}

#[test]
fn a_steps_domain_calls_run_side_by_side_and_loads_keep_their_place() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    let manifest = Manifest::from_json(
        r#"{
        "agents": {"a": {"name": "a", "description": "d", "skills": ["pair"], "prompt": ""}},
        "skills": {"pair": {"name": "pair", "description": "Pair", "toolsets": ["ops"], "content": ""}},
        "toolsets": {"ops": {"name": "ops", "description": "Ops", "content": "", "tools": [
            {"name": "wait", "description": "Waits for signal"}, {"name": "signal", "description": "Signals"}]}}
    }"#,
    )
    .unwrap();
    // `wait` finishes once `signal` has run; run one after the other, it gives up.
    let flag = Arc::new(AtomicBool::new(false));
    let seen = flag.clone();
    let wait = ToolImpl::from_fn("wait", json!({"type": "object"}), move |_| {
        let seen = seen.clone();
        async move {
            let mut polls = 0;
            std::future::poll_fn(|cx| {
                polls += 1;
                if seen.load(Ordering::SeqCst) || polls > 1000 {
                    std::task::Poll::Ready(())
                } else {
                    cx.waker().wake_by_ref();
                    std::task::Poll::Pending
                }
            })
            .await;
            Ok(json!(if seen.load(Ordering::SeqCst) {
                "released"
            } else {
                "gave up"
            }))
        }
    });
    let signal = ToolImpl::from_fn("signal", json!({"type": "object"}), move |_| {
        let flag = flag.clone();
        async move {
            flag.store(true, Ordering::SeqCst);
            Ok(json!("signalled"))
        }
    });
    let carnet = Carnet::builder(&manifest)
        .toolset(ToolsetImpl::new("ops", [wait, signal]))
        .build()
        .unwrap();
    let mut session = carnet.session("a").unwrap();
    // The load comes first in the step, so the calls after it see its tools.
    let mut model = OneStep(Some(vec![
        chat::call(1, "loadSkill", json!({"skillName": "pair"})),
        chat::call(2, "wait", json!({})),
        chat::call(3, "signal", json!({})),
    ]));
    let mut messages = vec![Message::User("go".into())];
    let outcome = block_on(chat::run(&mut session, &mut model, &mut messages, 4, |_| {})).unwrap();
    let results: Vec<(String, serde_json::Value)> = outcome.steps[0]
        .calls
        .iter()
        .map(|(call, output)| (call.name.clone(), output.value.clone()))
        .collect();
    assert_eq!(
        results[1..],
        [
            ("wait".into(), json!("released")),
            ("signal".into(), json!("signalled"))
        ]
    );
    assert_eq!(results[0].1["success"], true, "{:?}", results[0]);
}

/// Answers `calls` once, with `usage`, then "done".
struct Costed(Option<Vec<carnet_runtime::ToolCall>>);

impl ChatModel for Costed {
    fn complete<'a>(&'a mut self, _: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        let usage = Usage {
            input: 100,
            cached_input: 60,
            output: 7,
        };
        let response = match self.0.take() {
            Some(calls) => ChatResponse::tool_calls(None, calls).with_finish_reason("tool_calls"),
            None => ChatResponse::answer("done").with_finish_reason("stop"),
        };
        Box::pin(async move { Ok(response.with_usage(usage)) })
    }
}

#[test]
fn arguments_that_are_not_json_get_an_error_result_and_the_run_goes_on() {
    let carnet = carnet();
    let mut session = carnet.session("a").unwrap();
    let mut messages = vec![Message::User("hi".into())];
    let broken = carnet_runtime::ToolCall {
        id: Some("c1".into()),
        name: "loadSkill".into(),
        arguments: json!("{\"skillName\": \"ma"),
    };
    let outcome = block_on(chat::run(
        &mut session,
        &mut Costed(Some(vec![broken])),
        &mut messages,
        5,
        |_| {},
    ))
    .unwrap();
    assert_eq!(outcome.stop, Stop::Answer);
    assert_eq!(outcome.answer.as_deref(), Some("done"));
    let (call, output) = &outcome.steps[0].calls[0];
    assert_eq!(call.name, "loadSkill");
    assert!(output.is_error);
    assert_eq!(output.value["code"], "invalid_arguments");
    let message = output.error_message().unwrap();
    assert!(
        message.starts_with("the arguments are not valid JSON: EOF while parsing"),
        "{message}"
    );
    assert!(!session.is_loaded("math"), "a call with broken arguments does not run");
}

#[test]
fn usage_and_finish_reasons_reach_each_step_and_add_up() {
    let carnet = carnet();
    let mut session = carnet.session("a").unwrap();
    let mut seen = Vec::new();
    let outcome = block_on(chat::run(
        &mut session,
        &mut Costed(Some(vec![chat::call(1, "loadSkill", json!({"skillName": "math"}))])),
        &mut vec![Message::User("hi".into())],
        5,
        |step| seen.push((step.usage, step.finish_reason.clone())),
    ))
    .unwrap();
    let usage = Usage {
        input: 100,
        cached_input: 60,
        output: 7,
    };
    assert_eq!(
        seen,
        [
            (Some(usage), Some("tool_calls".to_owned())),
            (Some(usage), Some("stop".to_owned()))
        ]
    );
    assert_eq!(
        outcome.usage,
        Usage {
            input: 200,
            cached_input: 120,
            output: 14
        }
    );
    assert_eq!(
        serde_json::to_value(outcome.usage).unwrap(),
        json!({"input": 200, "cached_input": 120, "output": 14})
    );
}

#[test]
fn a_streaming_run_reports_deltas_then_steps() {
    let carnet = carnet();
    let mut session = carnet.session("a").unwrap();
    let mut events = Vec::new();
    let outcome = block_on(chat::run_streaming(
        &mut session,
        &mut Costed(Some(vec![chat::call(1, "loadSkill", json!({"skillName": "math"}))])),
        &mut vec![Message::User("hi".into())],
        5,
        |event| {
            events.push(match event {
                chat::Event::Delta(Delta::Text(text)) => format!("text {text}"),
                chat::Event::Delta(Delta::ToolCall { index, name }) => format!("call {index} {name}"),
                chat::Event::Step(step) => format!("step {}", step.calls.len()),
                other => format!("{other:?}"),
            });
        },
    ))
    .unwrap();
    assert_eq!(outcome.stop, Stop::Answer);
    assert_eq!(events, ["call 0 loadSkill", "step 1", "text done", "step 0"]);
}
