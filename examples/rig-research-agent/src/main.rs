//! carnet's research agent as a [rig](https://docs.rs/rig-agent) agent.
//!
//! Offline (no arguments): rig's own scripted model (`MockCompletionModel`, no network, no
//! key) plays a conversation that loads `dataAnalysis` and calls its tool. Every request rig
//! built is printed: its preamble and tools, in o200k_base tokens, and which tools it
//! offered. Then the same conversation through a rig agent built the usual way, with every
//! tool registered and every skill in the preamble, and what each request cost there.
//!
//! `--model openai:NAME` runs on a real model through rig's OpenAI provider (Chat
//! Completions), configured from `OPENAI_API_KEY` and `OPENAI_BASE_URL` (any server that
//! speaks it: Ollama, vLLM, the C++ `llama-server`; the key may be unset for a local one).
//! `--model llamacpp:NAME` is for llama-cpp-python's server, which cannot render two of the
//! bodies rig sends (text as a part array, an assistant turn after a tool call without
//! `content`): rig's transport with [`carnet_rig::LlamaCppPython`] mends them. After the
//! run, what each request body carried as sent: its tools, its `tool_choice`, and the calls
//! the model made in the turn before with carnet's results (`--wire FILE` keeps the bodies,
//! one JSON line each).
//!
//! ```text
//! cargo run --manifest-path carnet-rig/Cargo.toml -p rig-research-agent
//! OPENAI_BASE_URL=http://127.0.0.1:8080/v1 cargo run --manifest-path carnet-rig/Cargo.toml -p rig-research-agent -- --model llamacpp:smollm2 \
//!     --force-tool loadSkill --prompt "Load dataAnalysis, then analyze the monthly_sales dataset, column units."
//! ```

// Token counts stay far below 2^52.
#![allow(clippy::cast_precision_loss)]

use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use carnet::{Carnet, tokens};
use research_agent::manifest::{MANIFEST, agents};
use research_agent::tools;
use rig_agent::AgentBuilder;
use rig_agent::tool::{DynamicTool, ToolOutput};
use rig_core::completion::{CompletionRequest, ToolDefinition};
use rig_core::message::ToolName;
use rig_core::test_utils::{MockCompletionModel, MockTurn};
use serde_json::json;

use live::{Run, Server, live};

mod live;

const USAGE: &str = "usage: rig-research-agent [--model openai:NAME|llamacpp:NAME] [--prompt TEXT] [--max-turns N]
       [--force-tool NAME] [--max-tokens N] [--wire FILE]

Without --model: a scripted conversation, offline, and what each request carried beside a
rig agent with every tool registered. With --model openai:NAME: the agent on that model
(OPENAI_API_KEY, OPENAI_BASE_URL); llamacpp:NAME for llama-cpp-python's server at
OPENAI_BASE_URL (its bodies mended by carnet_rig::LlamaCppPython). Then what each request
carried. --force-tool NAME: the first request makes the model call NAME. --max-tokens N: the most
the model writes per request. --wire FILE: the request bodies as sent, one JSON line each.";

const QUESTION: &str = "How many units do we sell in a month?";

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut model = None;
    let mut prompt = QUESTION.to_owned();
    let mut max_turns = 6;
    let mut forced = None;
    let mut wire_log = None;
    let mut max_tokens = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let value = match arg.as_str() {
            "--help" | "-h" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            "--model" | "--prompt" | "--max-turns" | "--max-tokens" | "--force-tool" | "--wire" => rest.next(),
            other => {
                eprintln!("error: unknown argument `{other}`\n\n{USAGE}");
                return ExitCode::from(2);
            }
        };
        let Some(value) = value else {
            eprintln!("error: `{arg}` needs a value\n\n{USAGE}");
            return ExitCode::from(2);
        };
        match arg.as_str() {
            "--model" => model = Some(value.clone()),
            "--prompt" => prompt.clone_from(value),
            "--force-tool" => forced = Some(value.clone()),
            "--wire" => wire_log = Some(value.clone()),
            _ => match value.parse() {
                Ok(n) if arg == "--max-turns" => max_turns = n,
                Ok(n) => max_tokens = Some(n as u64),
                Err(_) => {
                    eprintln!("error: `{arg} {value}` is not a number");
                    return ExitCode::from(2);
                }
            },
        }
    }
    let carnet = Carnet::new(&MANIFEST, tools::toolsets())
        .build()
        .expect("every toolset is bound");
    match model {
        None => {
            offline(&carnet).await;
            ExitCode::SUCCESS
        }
        Some(model) => {
            let (server, name) = match model.split_once(':') {
                Some(("openai", name)) => (Server::OpenAi, name),
                Some(("llamacpp", name)) => (Server::LlamaCppPython, name),
                _ => {
                    eprintln!("error: `--model {model}`: expected `openai:NAME` or `llamacpp:NAME`\n\n{USAGE}");
                    return ExitCode::from(2);
                }
            };
            let run = Run {
                server,
                model: name,
                prompt: &prompt,
                max_turns,
                forced: forced.as_deref(),
                max_tokens,
                wire_log: wire_log.as_deref(),
            };
            live(&carnet, &run).await
        }
    }
}

/// The scripted conversation, through carnet, then through rig with everything up front.
async fn offline(carnet: &Carnet) {
    println!("model: rig's scripted MockCompletionModel (offline; `--model openai:NAME` for a real one)\n");
    let statistics = json!({"dataset": "monthly_sales", "column": "units"});
    let model = MockCompletionModel::from_turns([
        MockTurn::tool_call("call_1", "loadSkill", json!({"skillName": "dataAnalysis"})),
        MockTurn::tool_call("call_2", "analyzeStatistics", statistics.clone()),
        MockTurn::text("We sell 1,225 units a month on average."),
    ]);
    let chat = carnet_rig::Conversation::new(carnet.session(agents::RESEARCHER)).expect("every tool has an alias");
    let agent = AgentBuilder::new(model.clone())
        .tool_server_handle(chat.tool_server())
        .add_hook(chat.hook())
        .default_max_turns(4)
        .build();
    let answer = agent.prompt(QUESTION).await.expect("the scripted model does not fail");
    println!("with carnet:");
    let with_carnet = report(&model.requests());
    println!("  answer: {}\n", answer.output());

    // The same conversation, the usual rig way: every skill's instructions in the preamble,
    // every tool registered (no load needed).
    let baseline = carnet.everything_up_front(agents::RESEARCHER);
    let everything = MockCompletionModel::from_turns([
        MockTurn::tool_call("call_1", "analyzeStatistics", statistics),
        MockTurn::text("We sell 1,225 units a month on average."),
    ]);
    let mut session = carnet.session(agents::RESEARCHER);
    for skill in MANIFEST.skills.iter() {
        // Every skill of the example is the researcher's: none fails to load.
        let _ = session.load_skill(&*skill.name);
    }
    let session = Arc::new(Mutex::new(session));
    let tools = baseline
        .tools
        .iter()
        .map(|spec| {
            let (session, name) = (Arc::clone(&session), spec.name.clone());
            DynamicTool::new(
                ToolName::new(spec.name.clone()).expect("a tool has a name"),
                spec.description.clone(),
                (*spec.input_schema).clone(),
                move |arguments| {
                    let call = session.lock().expect("not poisoned").call_detached(&name, &arguments);
                    Box::pin(async move {
                        let output = call.expect("a domain tool").await;
                        Ok(ToolOutput::text(output.to_text()))
                    })
                },
            )
        })
        .collect();
    let agent = AgentBuilder::new(everything.clone())
        .preamble(&baseline.system_prompt)
        .dynamic_tools(tools)
        .default_max_turns(4)
        .build();
    agent.prompt(QUESTION).await.expect("the scripted model does not fail");
    println!("rig with every tool registered and every skill in the preamble:");
    let up_front = report(&everything.requests());
    println!(
        "\nfirst request: {} tokens with carnet, {} up front ({:.0}% less); whole conversation: {} vs {} tokens of preamble and tools",
        with_carnet.first().copied().unwrap_or_default(),
        up_front.first().copied().unwrap_or_default(),
        100.0
            - 100.0 * with_carnet.first().copied().unwrap_or_default() as f64
                / up_front.first().copied().unwrap_or(1).max(1) as f64,
        with_carnet.iter().sum::<usize>(),
        up_front.iter().sum::<usize>(),
    );
}

/// Prints what each request carried; returns each request's preamble + tools tokens.
fn report(requests: &[CompletionRequest]) -> Vec<usize> {
    let mut totals = Vec::new();
    let mut previous: Vec<String> = Vec::new();
    for (n, request) in requests.iter().enumerate() {
        let preamble = tokens::count(request.system_instructions().unwrap_or_default());
        let tools = tool_tokens(&request.tools);
        let names: Vec<String> = request.tools.iter().map(|t| t.name.to_string()).collect();
        let added: Vec<&String> = names.iter().filter(|n| !previous.contains(n)).collect();
        let what = if n == 0 {
            format!("{} tools", names.len())
        } else if added.is_empty() {
            "same tools".to_owned()
        } else {
            format!("+ {}", added.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "))
        };
        println!(
            "  request {}: preamble {preamble:>5} tokens, tools {tools:>5} tokens ({what})",
            n + 1
        );
        totals.push(preamble + tools);
        previous = names;
    }
    totals
}

/// The tool list's tokens, as `{name, description, parameters}` objects.
fn tool_tokens(tools: &[ToolDefinition]) -> usize {
    tools
        .iter()
        .map(|t| {
            tokens::count(
                &json!({"name": t.name.to_string(), "description": t.description, "parameters": t.parameters})
                    .to_string(),
            )
        })
        .sum()
}
