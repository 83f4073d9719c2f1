//! The conversation on a real model: rig's OpenAI provider, carnet's skills, and what went
//! on the wire.

use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use carnet::Carnet;
use research_agent::manifest::agents;
use rig_agent::AgentBuilder;
use rig_agent::agent::{AgentHook, CompletionCallAction, CompletionCallEvent, HookContext};
use rig_agent::run::{PromptError, RequestPatch};
use rig_core::http_client::middleware::HttpMiddleware;
use rig_core::http_client::{HeaderMap, Method, Uri};
use rig_core::message::{ToolChoice, ToolName};
use rig_core::providers::openai::{OpenAIConfig, wire};
use rig_core::wasm_compat::WasmBoxedFuture;
use serde_json::Value;

/// Which OpenAI-compatible server the model is behind.
#[derive(Clone, Copy)]
pub(crate) enum Server {
    /// OpenAI, or any server that takes OpenAI's bodies as they are (vLLM, Ollama, the C++
    /// `llama-server`).
    OpenAi,
    /// llama.cpp's Python server (`llama-cpp-python[server]`): rig's llama.cpp dialect on a
    /// transport mended by [`carnet_rig::LlamaCppPython`] (system text as a string, an
    /// assistant turn after a tool call with its `content`). Unlike `llama-server`, it
    /// honours a named `tool_choice`, so rig's refusal of one is turned off.
    LlamaCppPython,
}

/// What a run asks of the model.
pub(crate) struct Run<'a> {
    pub(crate) server: Server,
    pub(crate) model: &'a str,
    pub(crate) prompt: &'a str,
    pub(crate) max_turns: usize,
    /// A tool the first request makes the model call.
    pub(crate) forced: Option<&'a str>,
    /// The most tokens the model may write per request.
    pub(crate) max_tokens: Option<u64>,
    /// Where each request body sent goes, one JSON line each.
    pub(crate) wire_log: Option<&'a str>,
}

/// Runs the research agent on `run.model`, then prints what each request carried.
pub(crate) async fn live(carnet: &Carnet, run: &Run<'_>) -> ExitCode {
    let key = std::env::var("OPENAI_API_KEY").unwrap_or_default();
    let wire_bodies = WireLog::default();
    let mut transport = rig_reqwest::shared();
    let mut config = match run.server {
        Server::OpenAi => OpenAIConfig::new(key),
        Server::LlamaCppPython => {
            transport = transport.with_middleware(carnet_rig::LlamaCppPython);
            let mut dialect = wire::LLAMACPP;
            dialect.quirks.rewrite = wire::BodyRewrite::None;
            OpenAIConfig::with_key(&dialect, key)
        }
    };
    // Last, so it keeps the bodies as they leave.
    transport = transport.with_middleware(wire_bodies.clone());
    if let Ok(base) = std::env::var("OPENAI_BASE_URL") {
        config = config.with_base_url(base);
    }
    let chat = carnet_rig::Conversation::new(carnet.session(agents::RESEARCHER)).expect("every tool has an alias");
    let mut agent = AgentBuilder::new(config.connect(transport).chat(run.model))
        .tool_server_handle(chat.tool_server())
        .add_hook(chat.hook())
        .default_max_turns(run.max_turns);
    if let Some(max_tokens) = run.max_tokens {
        agent = agent.max_tokens(max_tokens);
    }
    if let Some(name) = run.forced {
        agent = agent.add_hook(FirstCall(ToolName::new(name).expect("a name is never empty")));
    }
    let agent = agent.build();
    println!("offered at the start: {}", chat.offered().join(", "));
    let outcome = agent.prompt(run.prompt).await;
    let bodies = wire_bodies.bodies();
    report(&bodies);
    if let Some(path) = run.wire_log {
        let lines: String = bodies.iter().map(|body| body.to_string() + "\n").collect();
        if let Err(error) = std::fs::write(path, lines) {
            eprintln!("error: cannot write `{path}`: {error}");
            return ExitCode::FAILURE;
        }
    }
    println!("offered at the end: {}", chat.offered().join(", "));
    println!(
        "loaded: {}",
        chat.session().await.loaded_skills().collect::<Vec<_>>().join(", ")
    );
    match outcome {
        Ok(response) => {
            println!("requests: {}", response.completion_calls.len());
            println!("answer: {}", response.output());
            ExitCode::SUCCESS
        }
        // A small model may keep calling tools: the turn limit ended the run, not a fault.
        Err(PromptError::MaxTurns { max_turns, .. }) => {
            println!("stopped: the model was still calling tools after {max_turns} requests");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Makes the first request of a run call one tool (`tool_choice` naming it); the later
/// ones leave the choice to the model.
struct FirstCall(ToolName);

impl AgentHook for FirstCall {
    fn on_completion_call(
        &self,
        _context: &HookContext,
        event: CompletionCallEvent<'_>,
    ) -> impl Future<Output = CompletionCallAction> + Send {
        let action = if event.turn == 1 {
            let function_names = vec![self.0.clone()];
            CompletionCallAction::patch(RequestPatch::new().tool_choice(ToolChoice::Specific { function_names }))
        } else {
            CompletionCallAction::continue_run()
        };
        std::future::ready(action)
    }
}

/// rig transport middleware that keeps every Chat Completions body as it is sent.
#[derive(Clone, Default)]
struct WireLog(Arc<Mutex<Vec<Value>>>);

impl WireLog {
    fn bodies(&self) -> Vec<Value> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

impl HttpMiddleware for WireLog {
    fn before_request_body<'a>(
        &'a self,
        _method: &'a Method,
        uri: &'a Uri,
        _headers: &'a HeaderMap,
        body: Bytes,
    ) -> WasmBoxedFuture<'a, rig_core::http_client::Result<Bytes>> {
        if uri.path().ends_with("/chat/completions")
            && let Ok(value) = serde_json::from_slice(&body)
        {
            self.0.lock().unwrap_or_else(PoisonError::into_inner).push(value);
        }
        Box::pin(async move { Ok(body) })
    }
}

/// Prints what each request body carried: its tools (those new since the previous one),
/// its `tool_choice`, and the calls the model made in the turn before with carnet's results.
fn report(bodies: &[Value]) {
    let mut previous: Vec<&str> = Vec::new();
    let mut answered = 0;
    for (n, body) in bodies.iter().enumerate() {
        let tools: Vec<&str> = body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|tool| tool["function"]["name"].as_str())
            .collect();
        let added: Vec<&str> = tools.iter().copied().filter(|t| !previous.contains(t)).collect();
        let choice = match &body["tool_choice"] {
            Value::Null => String::new(),
            Value::String(choice) => format!(", tool_choice {choice}"),
            forced => format!(", tool_choice {}", forced["function"]["name"].as_str().unwrap_or("?")),
        };
        let what = if n == 0 {
            tools.join(", ")
        } else if added.is_empty() {
            "same tools".to_owned()
        } else {
            format!("+ {}", added.join(", "))
        };
        println!("request {}: {} tools{choice} ({what})", n + 1, tools.len());
        // The calls of earlier turns were reported under the request that carried them.
        let messages = body["messages"].as_array().map_or(&[][..], Vec::as_slice);
        for message in &messages[answered.min(messages.len())..] {
            for call in message["tool_calls"].as_array().into_iter().flatten() {
                let id = &call["id"];
                let result = messages
                    .iter()
                    .find(|m| m["role"] == "tool" && m["tool_call_id"] == *id)
                    .map_or_else(String::new, |m| text(&m["content"]));
                println!(
                    "  the model called {}({}) → {}",
                    call["function"]["name"].as_str().unwrap_or("?"),
                    call["function"]["arguments"].as_str().unwrap_or("?"),
                    short(&result)
                );
            }
        }
        answered = messages.len();
        previous = tools;
    }
}

/// A message's content as text: a string, or a part array's texts.
fn text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        parts => parts
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|part| part["text"].as_str())
            .collect(),
    }
}

/// `text` on one line, at most 100 characters.
fn short(text: &str) -> String {
    let line = text.replace('\n', " ");
    if line.chars().count() <= 100 {
        line
    } else {
        format!("{}…", line.chars().take(100).collect::<String>())
    }
}
