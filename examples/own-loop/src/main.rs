//! carnet in a loop of one's own: async-openai sends the requests, carnet's session decides
//! what each one carries and runs the model's calls. Three lines a turn
//! ([`carnet::providers::openai::ChatTurn`]): the request as of the session now, the client's
//! call, the answer's calls run and their results appended.
//!
//! Configured like the official SDKs: `OPENAI_BASE_URL` (default `https://api.openai.com/v1`;
//! llama.cpp, Ollama, vLLM by URL) and `OPENAI_API_KEY` (may be unset for a local server).
//!
//! ```text
//! OPENAI_BASE_URL=http://127.0.0.1:8080/v1 cargo run --manifest-path carnet-rig/Cargo.toml -p own-loop -- --model smollm2 \
//!     --prompt "Load dataAnalysis, then analyze the monthly_sales dataset, column units."
//! ```

use std::process::ExitCode;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use carnet::Carnet;
use carnet::providers::openai::ChatTurn;
use research_agent::manifest::{MANIFEST, agents};
use research_agent::tools;
use serde_json::{Value, json};

const USAGE: &str = "usage: own-loop --model NAME [--prompt TEXT] [--max-turns N] [--force-tool NAME]

Runs the research agent on NAME at OPENAI_BASE_URL (OPENAI_API_KEY), each turn's request
built by carnet and sent by async-openai. --force-tool NAME: the first request makes the model
call NAME (`tool_choice` naming the function).";

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut model, mut prompt, mut max_turns) = (None, "How did our 2024 sales evolve?".to_owned(), 6);
    let mut forced = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let value = match (arg.as_str(), rest.next()) {
            ("--help" | "-h", _) => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            ("--model" | "--prompt" | "--max-turns" | "--force-tool", Some(value)) => value,
            (other, _) => {
                eprintln!("error: unexpected `{other}`\n\n{USAGE}");
                return ExitCode::from(2);
            }
        };
        match arg.as_str() {
            "--model" => model = Some(value.clone()),
            "--prompt" => prompt.clone_from(value),
            "--force-tool" => forced = Some(value.clone()),
            _ => match value.parse() {
                Ok(n) => max_turns = n,
                Err(_) => {
                    eprintln!("error: `--max-turns {value}` is not a number");
                    return ExitCode::from(2);
                }
            },
        }
    }
    let Some(model) = model else {
        eprintln!("error: --model is required\n\n{USAGE}");
        return ExitCode::from(2);
    };
    match run(&model, &prompt, max_turns, forced.as_deref()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(
    model: &str,
    prompt: &str,
    max_turns: usize,
    forced: Option<&str>,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut config = OpenAIConfig::new().with_api_key(std::env::var("OPENAI_API_KEY").unwrap_or_default());
    if let Ok(base) = std::env::var("OPENAI_BASE_URL") {
        config = config.with_api_base(base);
    }
    let client = Client::with_config(config);
    let carnet = Carnet::new(&MANIFEST, tools::toolsets()).build()?;
    let mut session = carnet.session(agents::RESEARCHER);

    let mut history = vec![json!({"role": "user", "content": prompt})];
    for turn_number in 1..=max_turns {
        let turn = ChatTurn::new(&session)?;
        let offered = turn.tools().as_array().map_or(0, Vec::len);
        let mut request = turn.request(model, &history);
        if let (1, Some(name), Some(_)) = (turn_number, forced, request.get("tools")) {
            request["tool_choice"] = json!({"type": "function", "function": {"name": name}});
        }
        let completion: Value = client.chat().create_byot(request).await?;
        let calls = turn.answer(&mut session, &completion, &mut history).await?;

        println!("turn {turn_number}: {offered} tools offered, {} calls", calls.len());
        for (call, output) in &calls {
            let mark = if output.is_error { "✗" } else { "✓" };
            println!(
                "  {mark} {}({}) → {}",
                call.name,
                call.arguments,
                short(&output.to_text())
            );
        }
        if calls.is_empty() {
            let answer = history.last().and_then(|m| m["content"].as_str()).unwrap_or_default();
            println!("answer: {answer}");
            break;
        }
    }
    let loaded: Vec<&str> = session.loaded_skills().collect();
    println!("loaded: {}", loaded.join(", "));
    Ok(())
}

fn short(text: &str) -> String {
    let line = text.replace('\n', " ");
    if line.chars().count() <= 100 {
        line
    } else {
        format!("{}…", line.chars().take(100).collect::<String>())
    }
}
