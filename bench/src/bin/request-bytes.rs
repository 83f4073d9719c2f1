//! Per turn, the whole request body as bytes, for each provider format: what a program pays
//! per model call (the counterpart of `bench/ts/request-bytes.mjs`).
//!
//! A turn: a new session of `agent`, the body of the first request (system prompt, the
//! user's message, the tools), the model's `loadSkill` call run by the session (a different
//! skill each turn), the body of the second request (the call and its result added). Each
//! round builds a new engine (not timed) and goes once through the agent's skills, so every
//! state after a load is one the engine has not seen: its prompt and tool list are built
//! cold. Bodies are written as the clients send them:
//!
//! - `openai-chat`, `openai-responses`: `models::OpenAi::write_request_body`;
//! - `anthropic`: `models::Anthropic::write_request_body`;
//! - `gemini`: carnet has no Gemini client; the `generateContent` body is written here the
//!   way a client of one's own would: `contents` (the history) serialized from a `Value`,
//!   `systemInstruction` by `providers::gemini::write_system_instruction` and `tools` by
//!   `providers::gemini::write_tools` (both from kept bytes, as the clients' writers);
//! - `mcp`: the `tools/list` result of the session (`providers::mcp::write_tools`), before
//!   and after the load.
//!
//! `…/value` is the same turn with the body built as a `serde_json::Value` and serialized
//! (`request_body`, `gemini::tools` in a `json!` body, `mcp::tools`, then `to_string`):
//! what the clients sent before the writers, the same bytes (checked for Gemini before the
//! timings).
//!
//! `session` is the same turn without bodies (the prompt and the tool list built, nothing
//! rendered): what the session costs before any byte is written.
//!
//! The floor: `memcpy` of the same bodies into a buffer of their size, per turn. As a
//! client's, a turn's bodies are dropped once written (sent), so the next turn writes into
//! memory the process already holds, as the floor copies into buffers already there; the
//! floor's copies of the bodies are made outside the timed turn.
//!
//! Prints one JSON object a line per provider: median nanoseconds per turn for carnet and
//! for the copy, and the bytes of the turn's two bodies. The first round is apart
//! (`first_ns`): in it the process meets each tool for the first time and makes its bytes
//! (kept for the process); `turn_ns` is the rounds after it, whose states are as cold (a new
//! engine each round) but whose tools were seen. With one round, both are that round.
//!
//! Usage: `request-bytes <manifest.json> <agent> [rounds] [provider]` (a provider given: that
//! one alone, for a profiler).

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use carnet_runtime::ToolOutput;
use carnet_runtime::chat::{ChatRequest, Message};
use carnet_runtime::models::{Anthropic, OpenAi, OpenAiApi};
use carnet_runtime::providers::{ProviderError, gemini, mcp};
use carnet_runtime::{Carnet, Manifest, Session, ToolCall};
use serde_json::{Value, json};

const PROVIDERS: [&str; 11] = [
    "session",
    "openai-chat",
    "openai-chat/value",
    "openai-responses",
    "openai-responses/value",
    "anthropic",
    "anthropic/value",
    "gemini",
    "gemini/value",
    "mcp",
    "mcp/value",
];

/// The result of a future that is ready at once (the meta-tools' are), else of a runtime.
fn ready<T>(future: impl Future<Output = T>) -> T {
    let mut future = pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(value) => value,
        Poll::Pending => tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime")
            .block_on(future),
    }
}

struct Clients {
    chat: OpenAi,
    responses: OpenAi,
    anthropic: Anthropic,
}

/// The `contents` of a `generateContent` body: the history.
fn gemini_contents(request: &ChatRequest<'_>) -> Value {
    let mut contents = Vec::new();
    for message in request.messages {
        match message {
            Message::User(text) => contents.push(json!({"role": "user", "parts": [{"text": text}]})),
            Message::Assistant { tool_calls, .. } => {
                let parts: Vec<Value> = tool_calls
                    .iter()
                    .map(|c| json!({"functionCall": {"name": c.name, "args": c.arguments}}))
                    .collect();
                contents.push(json!({"role": "model", "parts": parts}));
            }
            Message::Tool { call, output } => contents.push(json!({"role": "user", "parts": [
                {"functionResponse": {"name": call.name, "response": {"content": output.to_text()}}}
            ]})),
            _ => {}
        }
    }
    Value::Array(contents)
}

/// A `generateContent` body around carnet's Gemini tools, as a `Value`.
fn gemini_body(request: &ChatRequest<'_>) -> Value {
    let mut body = json!({
        "systemInstruction": {"parts": [{"text": request.system}]},
        "contents": gemini_contents(request),
    });
    if !request.tools.is_empty() {
        body["tools"] = gemini::tools(request.tools).expect("Gemini tools");
    }
    body
}

/// The same body written: the keys in `serde_json`'s order (`contents`,
/// `systemInstruction`, `tools`), the prompt and the tools from kept bytes.
fn write_gemini_body(request: &ChatRequest<'_>, out: &mut Vec<u8>) -> Result<(), ProviderError> {
    out.extend_from_slice(b"{\"contents\":");
    serde_json::to_writer(&mut *out, &gemini_contents(request)).map_err(std::io::Error::from)?;
    out.extend_from_slice(b",\"systemInstruction\":");
    gemini::write_system_instruction(request.system, out)?;
    if !request.tools.is_empty() {
        out.extend_from_slice(b",\"tools\":");
        gemini::write_tools(request.tools, out)?;
    }
    out.extend_from_slice(b"}");
    Ok(())
}

fn body(provider: &str, clients: &Clients, session: &Session, messages: &[Message]) -> Vec<u8> {
    let mut out = Vec::new();
    match provider {
        "mcp" => mcp::write_tools(session.tools(), &mut out).expect("a tool list"),
        "mcp/value" => {
            out = mcp::tools(session.tools())
                .expect("a tool list")
                .to_string()
                .into_bytes()
        }
        _ => {}
    }
    if provider.starts_with("mcp") {
        return out;
    }
    // As the clients do: room for the prompt and some more (not for the session's work
    // alone, which writes nothing).
    if provider != "session" {
        out.reserve(session.system_prompt().len() + 16 * 1024);
    }
    let callable: Vec<String> = Vec::new();
    let request = ChatRequest {
        system: session.system_prompt(),
        messages,
        tools: session.tools(),
        mode: session.carnet().mode(),
        callable: &callable,
    };
    let value = match provider {
        "openai-chat" => clients
            .chat
            .write_request_body(&request, false, &mut out)
            .map(|()| None),
        "openai-responses" => clients
            .responses
            .write_request_body(&request, false, &mut out)
            .map(|()| None),
        "anthropic" => clients
            .anthropic
            .write_request_body(&request, false, &mut out)
            .map(|()| None),
        "openai-chat/value" => clients.chat.request_body(&request, false).map(Some),
        "openai-responses/value" => clients.responses.request_body(&request, false).map(Some),
        "anthropic/value" => clients.anthropic.request_body(&request, false).map(Some),
        "gemini" => {
            write_gemini_body(&request, &mut out).expect("a Gemini body");
            Ok(None)
        }
        "gemini/value" => Ok(Some(gemini_body(&request))),
        // The session's work alone: its prompt and tools, no body.
        "session" => Ok(None),
        other => unreachable!("{other}"),
    };
    if let Some(value) = value.expect("a body") {
        out = value.to_string().into_bytes();
    }
    out
}

/// One turn; returns its two bodies.
fn turn(provider: &str, clients: &Clients, carnet: &Carnet, agent: &str, skill: &str) -> [Vec<u8>; 2] {
    let mut session = carnet.session(agent).expect("the agent");
    let mut messages = vec![Message::User("Help me with the task at hand.".to_owned())];
    let first = body(provider, clients, &session, &messages);
    let call = ToolCall {
        id: Some("call_1".to_owned()),
        name: "loadSkill".to_owned(),
        arguments: json!({"skillName": skill}),
    };
    let output: ToolOutput = ready(session.call("loadSkill", call.arguments.clone()));
    assert!(!output.is_error, "{skill} loads: {}", output.to_text());
    messages.push(Message::Assistant {
        text: None,
        tool_calls: vec![call.clone()],
    });
    messages.push(Message::Tool { call, output });
    let second = body(provider, clients, &session, &messages);
    [first, second]
}

fn median(mut samples: Vec<u128>) -> u128 {
    samples.sort_unstable();
    samples[samples.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: request-bytes <manifest.json> <agent> [rounds] [provider]";
    let path = args.next().expect(usage);
    let agent = args.next().expect(usage);
    let rounds: usize = args.next().map_or(3, |r| r.parse().expect("a number of rounds"));
    let only = args.next();
    assert!(
        only.as_deref().is_none_or(|p| PROVIDERS.contains(&p)),
        "a provider among {PROVIDERS:?}"
    );
    let json = std::fs::read_to_string(&path).expect("read the manifest");
    let manifest = Manifest::from_json(&json).expect("a valid manifest");
    let skills: Vec<String> = manifest
        .agent(&agent)
        .expect("the agent")
        .skills
        .iter()
        .map(ToString::to_string)
        .collect();
    let clients = Clients {
        chat: OpenAi::new(None, "http://localhost:1/v1", "gpt-4.1").expect("a client"),
        responses: OpenAi::new(None, "http://localhost:1/v1", "gpt-4.1")
            .expect("a client")
            .api(OpenAiApi::Responses),
        anthropic: Anthropic::new(None, "http://localhost:1", "claude-sonnet-4-5").expect("a client"),
    };
    // The Gemini body written is the `Value`'s bytes (the clients' writers are tested in
    // carnet-runtime; this one is the benchmark's own).
    let carnet = Carnet::builder(&manifest)
        .allow_unimplemented()
        .build()
        .expect("the engine builds");
    for skill in skills.iter().take(3) {
        assert_eq!(
            turn("gemini", &clients, &carnet, &agent, skill),
            turn("gemini/value", &clients, &carnet, &agent, skill),
            "the Gemini body of {skill}: written and serialized"
        );
    }
    for provider in PROVIDERS
        .into_iter()
        .filter(|p| only.as_deref().is_none_or(|o| o == *p))
    {
        let (mut first, mut times, mut copies, mut bytes) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for round in 0..rounds {
            let carnet = Carnet::builder(&manifest)
                .allow_unimplemented()
                .build()
                .expect("the engine builds");
            let mut bodies = Vec::with_capacity(skills.len());
            for skill in &skills {
                let start = Instant::now();
                let turn = black_box(turn(provider, &clients, &carnet, &agent, skill));
                if round == 0 { &mut first } else { &mut times }.push(start.elapsed().as_nanos());
                // As a client: the bodies are sent, then dropped, and the next turn writes
                // into the memory they held (kept, every turn would write into pages the
                // process never touched, while the floor copies into buffers already there).
                // The floor's copies are made here, untimed.
                bodies.push(turn.clone());
                drop(turn);
            }
            // The floor: the same bytes copied, into buffers already there.
            let mut into: Vec<[Vec<u8>; 2]> = bodies
                .iter()
                .map(|[a, b]| [vec![0; a.len()], vec![0; b.len()]])
                .collect();
            for ([a, b], [x, y]) in bodies.iter().zip(&mut into) {
                let start = Instant::now();
                x.copy_from_slice(black_box(a));
                y.copy_from_slice(black_box(b));
                black_box((&x, &y));
                // The rounds after the first, as `turn_ns` (the first copies into pages the
                // process never touched, like its first round's bodies).
                if round > 0 || rounds == 1 {
                    copies.push(start.elapsed().as_nanos());
                }
            }
            bytes.extend(bodies.iter().map(|[a, b]| (a.len() + b.len()) as u128));
        }
        if times.is_empty() {
            times.clone_from(&first);
        }
        println!(
            "{{\"provider\": \"{provider}\", \"turn_ns\": {}, \"first_ns\": {}, \"memcpy_ns\": {}, \"bytes\": {}}}",
            median(times),
            median(first),
            median(copies),
            median(bytes)
        );
    }
}
