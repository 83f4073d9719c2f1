//! The `OpenAI` client against a real model server: llama.cpp's (`llama-cpp-python[server]`,
//! SmolLM2-135M-Instruct, `--chat_format chatml-function-calling`), started by
//! `tests/models/run.sh`, which sets `CARNET_LLAMA_URL` to its base URL. Asserts the
//! protocol, not the model's wisdom: its tool calls reach the session and are dispatched,
//! the results go back in the next request, usage is reported, and the run ends within its
//! step limit; streamed and not. Without `CARNET_LLAMA_URL` the test says so and does
//! nothing.

use carnet_runtime::chat::{self, ChatModel, ChatRequest, ChatResponse, Delta, Event, Message, ModelError, Stop};
use carnet_runtime::models::{HttpOptions, OpenAi, ToolChoice};
use carnet_runtime::{BoxFuture, Carnet, Manifest, ToolImpl, ToolsetImpl};
use serde_json::json;

fn carnet() -> Carnet {
    let manifest = Manifest::from_json(
        r#"{
        "agents": {"calc": {"name": "calc", "description": "A calculator", "skills": ["math"], "prompt": "You compute sums. Load the math skill, then use its tools."}},
        "skills": {"math": {"name": "math", "description": "Arithmetic: adds numbers", "toolsets": ["ops"], "content": "Use math.add to add two numbers."}},
        "toolsets": {"ops": {"name": "ops", "description": "Ops", "content": "", "tools": [{"name": "math.add", "description": "Adds a and b"}]}}
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
    Carnet::builder(&manifest)
        .toolset(ToolsetImpl::new("ops", [add]))
        .build()
        .unwrap()
}

/// The client, made to call `loadSkill` on its first request (a 135M model seldom calls a
/// tool on its own; the protocol is what is tested), free afterwards. Records how many
/// tool results each request carried.
struct FirstCallForced {
    client: OpenAi,
    results_sent: Vec<usize>,
}

impl FirstCallForced {
    fn prepare(&mut self, request: &ChatRequest<'_>) {
        let choice = if self.results_sent.is_empty() {
            ToolChoice::Tool("loadSkill".into())
        } else {
            ToolChoice::Auto
        };
        self.client.set_tool_choice(choice);
        self.results_sent.push(
            request
                .messages
                .iter()
                .filter(|m| matches!(m, Message::Tool { .. }))
                .count(),
        );
    }
}

impl ChatModel for FirstCallForced {
    fn complete<'a>(&'a mut self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        self.prepare(&request);
        self.client.complete(request)
    }

    fn stream<'a>(
        &'a mut self,
        request: ChatRequest<'a>,
        on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    ) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        self.prepare(&request);
        self.client.stream(request, on_delta)
    }
}

fn forced(base: &str) -> FirstCallForced {
    let client = OpenAi::new(None, base, "smollm2")
        .unwrap()
        .max_output_tokens(96)
        .http(HttpOptions::default().timeout(std::time::Duration::from_mins(2)))
        .unwrap();
    FirstCallForced {
        client,
        results_sent: Vec::new(),
    }
}

fn check(outcome: &chat::Outcome, messages: &[Message], results_sent: &[usize], max_steps: usize) {
    assert!(!outcome.steps.is_empty() && outcome.steps.len() <= max_steps);
    assert_eq!(outcome.stop == Stop::MaxSteps, outcome.answer.is_none());
    let (call, output) = &outcome.steps[0].calls[0];
    assert_eq!(call.name, "loadSkill", "the forced call reached the session");
    assert!(call.id.is_some(), "with the server's call id");
    eprintln!("first call: {} -> {}", call.arguments, output.to_text());
    assert!(
        messages
            .iter()
            .any(|m| matches!(m, Message::Tool { call: c, .. } if c == call)),
        "its result is in the conversation"
    );
    if results_sent.len() > 1 {
        assert!(results_sent[1] >= 1, "the second request carries the result");
    }
}

#[tokio::test]
async fn a_real_model_server_runs_the_protocol() {
    let Ok(base) = std::env::var("CARNET_LLAMA_URL") else {
        eprintln!("CARNET_LLAMA_URL is not set: tests/models/run.sh starts llama.cpp's server and sets it");
        return;
    };
    let carnet = carnet();
    let max_steps = 3;

    let mut session = carnet.session("calc").unwrap();
    let mut messages = vec![Message::User("What is 2 + 3?".into())];
    let mut model = forced(&base);
    let outcome = chat::run(&mut session, &mut model, &mut messages, max_steps, |step| {
        eprintln!(
            "step: {} calls, usage {:?}, finish {:?}",
            step.calls.len(),
            step.usage,
            step.finish_reason
        );
    })
    .await
    .unwrap();
    check(&outcome, &messages, &model.results_sent, max_steps);
    for step in &outcome.steps {
        let usage = step.usage.expect("llama.cpp reports usage");
        assert!(usage.input > 0 && usage.output > 0, "{usage:?}");
    }
    assert!(outcome.usage.input >= outcome.steps[0].usage.unwrap().input);

    // Streamed: the same protocol, the call reported as it arrives.
    let mut session = carnet.session("calc").unwrap();
    let mut messages = vec![Message::User("What is 2 + 3?".into())];
    let mut model = forced(&base);
    let mut started = Vec::new();
    let outcome = chat::run_streaming(&mut session, &mut model, &mut messages, max_steps, |event| {
        if let Event::Delta(Delta::ToolCall { name, .. }) = event {
            started.push(name.to_owned());
        }
    })
    .await
    .unwrap();
    check(&outcome, &messages, &model.results_sent, max_steps);
    assert_eq!(started.first().map(String::as_str), Some("loadSkill"));
}
