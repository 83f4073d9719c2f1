//! The research agent, end to end: a multi-turn conversation with progressive loading,
//! driven by a scripted model (no network, no API key). Prints, per turn, the context the
//! model received (system prompt + tool schemas, in o200k_base tokens), the tools it could
//! see and the calls it made; then what progressive disclosure saved.
//!
//! With `--model openai:NAME`, `openai-responses:NAME`, `anthropic:NAME` or `gemini:NAME`, the same agent
//! runs on a real model instead (see `live.rs` and `--help`).

// Token counts stay far below 2^52.
#![allow(clippy::cast_precision_loss)]

use std::process::ExitCode;

use carnet::Carnet;
use carnet::chat::{self, Step};
use carnet::tokens;
use carnet::tools::block_on;
use research_agent::manifest::{MANIFEST, agents};
use research_agent::policy::{ScriptedResearcher, question};
use research_agent::tools;

/// `text` on one line, at most `width` characters and an ellipsis, cut after a space or a
/// comma in its second half (else where the width ends: JSON has long unbroken runs).
fn short(text: &str, width: usize) -> String {
    let one_line = text.replace('\n', " ");
    if one_line.chars().count() <= width {
        return one_line;
    }
    let end = one_line.char_indices().nth(width).map_or(one_line.len(), |(i, _)| i);
    let head = &one_line[..end];
    let cut = head
        .rfind([' ', ','])
        .filter(|&i| i >= end / 2)
        .map_or(head, |i| head[..=i].trim_end());
    format!("{cut}…")
}

mod live;

fn main() -> ExitCode {
    let telemetry = research_agent::telemetry::init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        offline();
        return ExitCode::SUCCESS;
    }
    // `research-agent tools researcher --provider anthropic`, `research-agent call researcher
    // basicSearch '{"query": "battery"}' --load webSearch`, ...: carnet's commands over this
    // program's engine, its tools' implementations and schemas.
    if matches!(
        args[0].as_str(),
        "prompt" | "tools" | "call" | "stats" | "search" | "serve-mcp" | "serve-a2a" | "help"
    ) {
        let carnet = Carnet::new(&MANIFEST, tools::toolsets())
            .build()
            .expect("every toolset is bound");
        return carnet::cli::run(&carnet);
    }
    match live::Options::parse(&args) {
        Ok(None) => {
            println!("{}", live::USAGE);
            ExitCode::SUCCESS
        }
        Ok(Some(options)) => telemetry.exit(live::run(&options)),
        Err(message) => {
            eprintln!("error: {message}\n\n{}", live::USAGE);
            ExitCode::from(2)
        }
    }
}

/// The scripted conversation (no network).
fn offline() {
    let carnet = Carnet::new(&MANIFEST, tools::toolsets())
        .build()
        .expect("every toolset is bound");
    let mut session = carnet.session(agents::RESEARCHER);
    let chart = std::env::temp_dir().join("carnet-research-agent-revenue.svg");
    let mut model = ScriptedResearcher::new(chart.to_string_lossy());
    let mut messages = vec![question()];
    let baseline = carnet.everything_up_front(agents::RESEARCHER);
    let up_front = tokens::context(&baseline.system_prompt, &baseline.tools).total();

    println!(
        "The model here is scripted: `ScriptedResearcher` (src/policy.rs) plays a fixed script, offline, with no \
         API key. `--model openai:NAME`, `anthropic:NAME` or `gemini:NAME` runs a real one (`--help`).\n"
    );
    println!(
        "agent `researcher`, {} skills, {} tools in all\n",
        MANIFEST.skills.len(),
        baseline.tools.len()
    );
    println!(
        "{:<5} {:>8} {:>8} {:>7} {:>6}   calls",
        "turn", "context", "prompt", "tools", "tools#"
    );
    let mut turn = 0;
    let mut progressive = 0;
    let mut everything = 0;
    let mut first_turn = 0;
    // A model call sends the system prompt, the tools and the whole history: the question,
    // the model's calls and every result, load results included. Sending everything up
    // front needs no load, so its history holds only the other messages.
    let mut history = tokens::count(chat::last_user_message(&messages).unwrap_or_default());
    let mut loads = 0;
    let outcome = block_on(chat::run(&mut session, &mut model, &mut messages, 12, |step: &Step| {
        let t = tokens::context(&step.system, &step.tools);
        progressive += t.total() + history;
        everything += up_front + history - loads;
        if turn == 0 {
            first_turn = t.total();
        }
        for (call, output) in &step.calls {
            let cost = tokens::count(&call.arguments.to_string()) + tokens::count(&output.to_text());
            history += cost;
            if call.name.starts_with("load") {
                loads += cost;
            }
        }
        let calls: Vec<String> = step
            .calls
            .iter()
            .map(|(call, out)| {
                let mark = if out.is_error { "✗" } else { "✓" };
                format!("{mark} {}({})", call.name, short(&call.arguments.to_string(), 48))
            })
            .collect();
        let what = if calls.is_empty() {
            "final answer".to_owned()
        } else {
            calls.join("\n                                            ")
        };
        println!(
            "{turn:<5} {:>8} {:>8} {:>7} {:>6}   {what}",
            t.total(),
            t.system,
            t.tools,
            step.tools.len()
        );
        for (call, out) in &step.calls {
            println!("      {} → {}", call.name, short(&out.to_text(), 100));
        }
        turn += 1;
    }))
    .expect("the scripted model does not fail");

    println!(
        "\ntools visible at the end: {}",
        session
            .tools()
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "\n{}\n",
        outcome.answer.as_deref().unwrap_or("(no answer within the step limit)")
    );
    let steps = outcome.steps.len();
    println!(
        "turn 0: {first_turn} tokens of prompt and tools, {:.1}% of sending everything up front ({up_front} tokens: {} skills in full, {} tools)",
        first_turn as f64 / up_front as f64 * 100.0,
        MANIFEST.skills.len(),
        baseline.tools.len()
    );
    println!(
        "whole conversation: {progressive} tokens over {steps} model calls (prompt + tools + history, load results \
         included), against {everything} with everything up front: {:.0}% saved",
        (1.0 - progressive as f64 / everything as f64) * 100.0
    );
}
