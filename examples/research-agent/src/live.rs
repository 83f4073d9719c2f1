//! The agent on a real model: `--model openai:NAME` (Chat Completions), `openai-responses:NAME`,
//! `anthropic:NAME` or `gemini:NAME`, configured from `OPENAI_API_KEY`/`OPENAI_BASE_URL`,
//! `ANTHROPIC_API_KEY`/`ANTHROPIC_BASE_URL` or `GEMINI_API_KEY`/`GEMINI_BASE_URL`.
//!
//! On a terminal it is a chat: each line is a user message, answers stream as they come.
//! `--prompt TEXT` runs one message to completion and exits; `--json` prints one JSON object
//! per model call and a last one with the answer. `--save FILE` writes the conversation
//! (messages and the session's state) after each message; `--resume FILE` goes on from it.

use std::io::{BufRead, IsTerminal, Write};

use carnet::Carnet;
use carnet::chat::{self, ChatModel, Delta, Event, Message, Outcome, Step, Transcript};
use carnet::engine::{ExposureMode, Preset};
use carnet::models::{Anthropic, Gemini, OpenAi, OpenAiApi};
use carnet::providers::ProviderSearch;
use research_agent::manifest::{MANIFEST, agents};
use research_agent::tools;
use serde_json::json;

pub(crate) const USAGE: &str = "\
usage: research-agent                        the scripted conversation (offline)
       research-agent --model PROVIDER:NAME [--prompt TEXT] [--json] [--max-steps N] [--mode MODE]
                      [--tool-search SEARCH] [--save FILE] [--resume FILE]
       research-agent prompt|tools|call|stats|serve-mcp ...
                                             the agent seen through carnet's commands, with
                                             these tools' real implementations (`carnet::cli`;
                                             `research-agent help`)

  --model      openai:NAME (Chat Completions), openai-responses:NAME, anthropic:NAME, or
               gemini:NAME; keys and servers from OPENAI_API_KEY / OPENAI_BASE_URL,
               ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, GEMINI_API_KEY (or GOOGLE_API_KEY) /
               GEMINI_BASE_URL (a local server needs no key)
  --prompt     run this one message to completion and exit (else: a chat, one line a message)
  --json       one JSON object per model call, then {\"answer\", \"steps\", \"stop\"}, per message
  --max-steps  model calls per message (default 12)
  --mode       dynamic (default), dispatcher, deferred or allowed-tools
  --tool-search  off (default), bm25 or regex: with --mode deferred, the provider searches the
               deferred tools itself (Anthropic's tool search tool, OpenAI Responses'
               tool_search; Chat Completions and Gemini have none); carnet: OpenAI Responses'
               client-executed tool_search, answered by carnet's own search; the session
               still refuses what no skill exposed
  --save       write the conversation to FILE (JSON) after each message
  --resume     go on with the conversation saved in FILE";

/// The command line of a live run.
#[derive(Debug)]
pub(crate) struct Options {
    provider: String,
    model: String,
    prompt: Option<String>,
    json: bool,
    max_steps: usize,
    mode: ExposureMode,
    tool_search: ProviderSearch,
    /// `--tool-search carnet`: `OpenAI`'s client-executed search, answered by carnet's.
    carnet_search: bool,
    save: Option<std::path::PathBuf>,
    resume: Option<std::path::PathBuf>,
}

impl Options {
    /// The options in `args`; `None` for `--help`.
    pub(crate) fn parse(args: &[String]) -> Result<Option<Options>, String> {
        let mut options = Options {
            provider: String::new(),
            model: String::new(),
            prompt: None,
            json: false,
            max_steps: 12,
            mode: ExposureMode::Dynamic,
            tool_search: ProviderSearch::Off,
            carnet_search: false,
            save: None,
            resume: None,
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let mut value = |name: &str| args.next().cloned().ok_or_else(|| format!("{name} needs a value"));
            match arg.as_str() {
                "-h" | "--help" => return Ok(None),
                "--model" => {
                    let model = value("--model")?;
                    let (provider, name) = model
                        .split_once(':')
                        .filter(|(p, n)| !p.is_empty() && !n.is_empty())
                        .ok_or_else(|| format!("--model `{model}`: expected PROVIDER:NAME, as openai:gpt-4.1-mini"))?;
                    if !["openai", "openai-responses", "anthropic", "gemini"].contains(&provider) {
                        return Err(format!(
                            "--model `{model}`: unknown provider `{provider}` (openai, openai-responses, anthropic, gemini)"
                        ));
                    }
                    provider.clone_into(&mut options.provider);
                    name.clone_into(&mut options.model);
                }
                "--prompt" => options.prompt = Some(value("--prompt")?),
                "--json" => options.json = true,
                "--save" => options.save = Some(value("--save")?.into()),
                "--resume" => options.resume = Some(value("--resume")?.into()),
                "--max-steps" => {
                    let n = value("--max-steps")?;
                    options.max_steps = n
                        .parse()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| format!("--max-steps `{n}`: expected a number above 0"))?;
                }
                "--mode" => {
                    let mode = value("--mode")?;
                    options.mode = mode.parse().map_err(|e| format!("--mode `{mode}`: {e}"))?;
                }
                "--tool-search" => {
                    let search = value("--tool-search")?;
                    options.carnet_search = search == "carnet";
                    if !options.carnet_search {
                        options.tool_search = search
                            .parse()
                            .map_err(|e| format!("--tool-search `{search}`: {e}, carnet"))?;
                    }
                }
                other => return Err(format!("unknown argument `{other}`")),
            }
        }
        if options.provider.is_empty() {
            return Err("--model is required for a live run".to_owned());
        }
        if options.carnet_search {
            if options.mode != ExposureMode::Deferred {
                return Err("--tool-search: carnet searches deferred tools; add --mode deferred".to_owned());
            }
            if options.provider != "openai-responses" {
                return Err(
                    "--tool-search carnet: OpenAI Responses' client-executed tool_search; use openai-responses:NAME"
                        .to_owned(),
                );
            }
        }
        if options.tool_search != ProviderSearch::Off {
            if options.mode != ExposureMode::Deferred {
                return Err("--tool-search: the provider searches deferred tools; add --mode deferred".to_owned());
            }
            if options.provider == "openai" || options.provider == "gemini" {
                let api = if options.provider == "gemini" {
                    "Gemini"
                } else {
                    "Chat Completions"
                };
                return Err(format!(
                    "--tool-search: {api} has no tool search; use openai-responses:NAME or anthropic:NAME"
                ));
            }
        }
        Ok(Some(options))
    }

    /// The model client; with `--tool-search carnet`, answering with `carnet`'s search.
    fn client(&self, carnet: &Carnet) -> Result<Box<dyn ChatModel>, chat::ModelError> {
        Ok(match self.provider.as_str() {
            "anthropic" => Box::new(Anthropic::from_env(&self.model)?.tool_search(self.tool_search)),
            "gemini" => Box::new(Gemini::from_env(&self.model)?),
            "openai-responses" if self.carnet_search => Box::new(
                OpenAi::from_env(&self.model)?
                    .api(OpenAiApi::Responses)
                    .carnet_tool_search(carnet)?,
            ),
            "openai-responses" => Box::new(
                OpenAi::from_env(&self.model)?
                    .api(OpenAiApi::Responses)
                    .tool_search(self.tool_search),
            ),
            _ => Box::new(OpenAi::from_env(&self.model)?),
        })
    }
}

/// Runs the agent live; the process's exit code.
pub(crate) fn run(options: &Options) -> i32 {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return 1;
        }
    };
    runtime.block_on(async {
        match conversation(options).await {
            Ok(()) => 0,
            Err(message) => {
                eprintln!("error: {message}");
                1
            }
        }
    })
}

async fn conversation(options: &Options) -> Result<(), String> {
    let mut builder = Carnet::new(&MANIFEST, tools::toolsets()).mode(options.mode);
    if options.carnet_search {
        // Its search index answers the client-executed search.
        builder = builder.preset(Preset::Discovery);
    }
    let carnet = builder.build().map_err(|e| e.to_string())?;
    let mut model = options.client(&carnet).map_err(|e| e.to_string())?;
    let (mut session, mut messages) = match &options.resume {
        None => (carnet.session(agents::RESEARCHER), Vec::new()),
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let transcript: Transcript = serde_json::from_str(&text)
                .map_err(|e| format!("{}: not a saved conversation: {e}", path.display()))?;
            transcript
                .resume(&carnet)
                .map_err(|e| format!("{}: {e}", path.display()))?
        }
    };
    // The conversation's id on the traces: the saved file's, so a resumed conversation keeps
    // it; else one for this run.
    let id = match options.resume.as_ref().or(options.save.as_ref()) {
        Some(path) => path.display().to_string(),
        None => format!(
            "research-agent-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis())
        ),
    };
    session.insert(carnet::telemetry::ConversationId(id));
    if let Some(prompt) = &options.prompt {
        messages.push(Message::User(prompt.clone()));
        return turn(options, &mut session, model.as_mut(), &mut messages).await;
    }
    let stdin = std::io::stdin();
    let terminal = stdin.is_terminal();
    loop {
        if terminal {
            print!("\n> ");
            std::io::stdout().flush().map_err(|e| e.to_string())?;
        }
        let mut line = String::new();
        if stdin.lock().read_line(&mut line).map_err(|e| e.to_string())? == 0 {
            return Ok(());
        }
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        messages.push(Message::User(line.to_owned()));
        turn(options, &mut session, model.as_mut(), &mut messages).await?;
    }
}

/// One user message, run to an answer or the step limit, then saved with `--save`.
async fn turn(
    options: &Options,
    session: &mut carnet::Session,
    model: &mut dyn ChatModel,
    messages: &mut Vec<Message>,
) -> Result<(), String> {
    run_turn(options, session, model, messages).await?;
    if let Some(path) = &options.save {
        let saved =
            serde_json::to_string_pretty(&Transcript::new(session, messages.clone())).map_err(|e| e.to_string())?;
        std::fs::write(path, saved).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

async fn run_turn(
    options: &Options,
    session: &mut carnet::Session,
    model: &mut dyn ChatModel,
    messages: &mut Vec<Message>,
) -> Result<(), String> {
    if options.json {
        let mut step_number = 0;
        let outcome = chat::run(session, model, messages, options.max_steps, |step| {
            step_number += 1;
            println!("{}", step_json(step_number, step));
        })
        .await
        .map_err(|e| e.to_string())?;
        println!("{}", outcome_json(&outcome));
        return Ok(());
    }
    let outcome = chat::run_streaming(session, model, messages, options.max_steps, |event| match event {
        Event::Delta(Delta::Text(text)) => {
            print!("{text}");
            let _ = std::io::stdout().flush();
        }
        Event::Step(step) => {
            if step.text.is_some() {
                println!();
            }
            for (call, output) in &step.calls {
                let mark = if output.is_error { "✗" } else { "✓" };
                eprintln!("  {mark} {}({})", call.name, call.arguments);
            }
        }
        _ => {}
    })
    .await
    .map_err(|e| e.to_string())?;
    if outcome.answer.is_none() {
        eprintln!("(no answer within {} model calls)", options.max_steps);
    }
    let usage = outcome.usage;
    if outcome.steps.iter().any(|step| step.usage.is_some()) {
        eprintln!(
            "[{} model calls; {} input tokens ({} cached), {} output]",
            outcome.steps.len(),
            usage.input,
            usage.cached_input,
            usage.output
        );
    } else {
        eprintln!("[{} model calls; the server reported no usage]", outcome.steps.len());
    }
    Ok(())
}

/// `{"step", "tools", "calls", "usage"}` for one model call.
fn step_json(n: usize, step: &Step) -> serde_json::Value {
    let calls: Vec<_> = step
        .calls
        .iter()
        .map(|(call, output)| json!({"name": call.name, "arguments": call.arguments, "success": !output.is_error}))
        .collect();
    json!({
        "step": n,
        "tools": step.tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        "calls": calls,
        "usage": step.usage,
    })
}

/// `{"answer", "steps", "stop"}` for the run.
fn outcome_json(outcome: &Outcome) -> serde_json::Value {
    json!({"answer": outcome.answer, "steps": outcome.steps.len(), "stop": outcome.stop})
}
