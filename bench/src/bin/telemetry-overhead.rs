//! What carnet's `tracing` spans cost per call: the same calls with no subscriber (the
//! spans are disabled handles), and with `tracing-opentelemetry` recording every span into
//! the OpenTelemetry SDK (sampled, built, ended; no exporter, so no I/O is measured), side by
//! side in one run. Prints medians of rounds in nanoseconds per call and their ratio, as JSON
//! lines.
//!
//! Usage: `telemetry-overhead [calls per round, default 20000]`

use std::hint::black_box;
use std::time::Instant;

use carnet_runtime::chat::{self, ChatModel, ChatRequest, ChatResponse, Message, ModelError};
use carnet_runtime::{BoxFuture, Carnet, Manifest, Session, ToolImpl, ToolsetImpl, block_on};
use opentelemetry::trace::TracerProvider as _;
use serde_json::{Value, json};
use tracing_subscriber::layer::SubscriberExt as _;

const ROUNDS: usize = 9;

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn carnet() -> Carnet {
    let manifest = Manifest::from_json(
        r#"{
        "agents": {"a": {"name": "a", "description": "A", "skills": ["s"], "prompt": "Help."}},
        "skills": {"s": {"name": "s", "description": "S", "toolsets": ["t"], "content": "Use echo."}},
        "toolsets": {"t": {"name": "t", "description": "T", "content": "",
            "tools": [{"name": "echo", "description": "Echo"}, {"name": "hidden", "description": "H"}]}}
    }"#,
    )
    .unwrap();
    let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
    let echo = ToolImpl::from_fn("echo", schema.clone(), |args| async move { Ok(args) });
    let hidden = ToolImpl::from_fn("hidden", schema, |args| async move { Ok(args) });
    Carnet::builder(&manifest)
        .toolset(ToolsetImpl::new("t", [echo, hidden]))
        .build()
        .unwrap()
}

/// A turn of three model calls: load, call, answer.
struct Script;

impl ChatModel for Script {
    fn complete<'a>(&'a mut self, request: ChatRequest<'a>) -> BoxFuture<'a, Result<ChatResponse, ModelError>> {
        let step = request
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Assistant { .. }))
            .count();
        let response = match step {
            0 => ChatResponse::tool_calls(None, vec![chat::call(1, "loadSkill", json!({"skillName": "s"}))]),
            1 => ChatResponse::tool_calls(None, vec![chat::call(2, "echo", json!({"text": "hi"}))]),
            _ => ChatResponse::answer("done"),
        };
        Box::pin(async move { Ok(response) })
    }
}

/// Nanoseconds per call of `f`, median of rounds.
fn measure(calls: usize, mut f: impl FnMut()) -> f64 {
    median(
        (0..ROUNDS)
            .map(|_| {
                let start = Instant::now();
                for _ in 0..calls {
                    f();
                }
                start.elapsed().as_nanos() as f64 / calls as f64
            })
            .collect(),
    )
}

/// The workloads, each measured under `dispatch` (none: no subscriber at all).
fn workloads(carnet: &Carnet, calls: usize, dispatch: Option<&tracing::Dispatch>) -> Vec<(&'static str, f64)> {
    let run = |f: &mut dyn FnMut() -> f64| match dispatch {
        Some(d) => tracing::dispatcher::with_default(d, f),
        None => f(),
    };
    let mut loaded: Session = carnet.session("a").unwrap();
    loaded.load_skill("s").unwrap();
    let arguments = json!({"text": "hello"});
    let domain = run(&mut || {
        measure(calls, || {
            black_box(block_on(loaded.call("echo", arguments.clone())));
        })
    });
    let meta = run(&mut || {
        measure(calls, || {
            black_box(block_on(loaded.call("loadSkill", json!({"skillName": "s"}))));
        })
    });
    let mut fresh = carnet.session("a").unwrap();
    let refused = run(&mut || {
        measure(calls, || {
            black_box(block_on(fresh.call("hidden", arguments.clone())));
        })
    });
    let turn = run(&mut || {
        measure(calls / 20, || {
            let mut session = carnet.session("a").unwrap();
            let mut messages = vec![Message::User("hi".into())];
            black_box(block_on(chat::run(&mut session, &mut Script, &mut messages, 5, |_| {})).unwrap());
        })
    });
    vec![
        ("domain call (echo)", domain),
        ("meta-tool call (loadSkill, loaded already)", meta),
        ("refused call (not exposed)", refused),
        ("chat::run turn (3 model calls, 2 tool calls)", turn),
    ]
}

fn main() {
    let calls: usize = std::env::args()
        .nth(1)
        .map_or(20_000, |n| n.parse().expect("calls per round"));
    let carnet = carnet();
    // First, before any subscriber exists: the path every program without one takes.
    let without = workloads(&carnet, calls, None);
    // What the instrumentation itself costs a call then: a span of `execute_tool`'s shape
    // (its callsite finds no subscriber, so no field is evaluated) and a record on it.
    let span = measure(calls * 10, || {
        let span = tracing::info_span!(
            target: "carnet::telemetry",
            "execute_tool",
            otel.name = format_args!("execute_tool {}", black_box("echo")),
            otel.kind = "internal",
            otel.status_code = tracing::field::Empty,
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = black_box("echo"),
            gen_ai.tool.call.id = black_box(Some("call_1")),
            error.type = tracing::field::Empty,
        );
        span.record("error.type", "tool_error");
        black_box(span.is_disabled());
    });
    println!(
        "{}",
        json!({"workload": "one disabled span, created and recorded (no subscriber)", "ns": (span * 100.0).round() / 100.0})
    );

    let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder().build();
    let layer = tracing_opentelemetry::layer()
        .with_tracer(provider.tracer("bench"))
        .with_location(false)
        .with_threads(false)
        .with_target(false)
        .with_tracked_inactivity(false);
    let dispatch = tracing::Dispatch::new(tracing_subscriber::registry().with(layer));
    let with = workloads(&carnet, calls, Some(&dispatch));

    for ((what, none), (_, otel)) in without.iter().zip(&with) {
        let line: Value = json!({
            "workload": what,
            "noSubscriberNs": (none * 10.0).round() / 10.0,
            "otelLayerNs": (otel * 10.0).round() / 10.0,
            "ratio": (otel / none * 100.0).round() / 100.0,
        });
        println!("{line}");
    }
}
