//! An agent author's own program as the command line: the `carnet` commands that look at
//! what a model gets and does, run over the program's engine, with its tools' real
//! implementations and JSON Schemas (the `carnet` binary reads markdown only: it knows no
//! Rust function, so its domain tools are "any object" that cannot be called).
//!
//! ```no_run
//! # fn engine() -> carnet_runtime::Carnet { unimplemented!() }
//! fn main() -> std::process::ExitCode {
//!     let carnet = engine(); // Carnet::new(&MANIFEST, Toolsets { .. }).build()
//!     if std::env::args().len() > 1 {
//!         // `my-agent tools researcher --provider anthropic`, `my-agent call researcher
//!         // basicSearch '{"query": "x"}' --load webSearch`, `my-agent stats`, ...
//!         return carnet_cli::program::run(&carnet);
//!     }
//!     // ... the program's own work
//!     std::process::ExitCode::SUCCESS
//! }
//! ```
//!
//! The engine is used as built: its exposure mode, preset, naming and hooks are the
//! program's, so what these commands show is what its model gets.

use std::ffi::OsString;
use std::process::ExitCode;

use carnet_runtime::Carnet;
use clap::Subcommand;

use crate::Failure;
use crate::serve::HttpOptions;
use crate::tools::Provider;
use crate::unseen::Source;

/// The commands of an author's program.
#[derive(Debug, clap::Parser)]
#[command(
    about = "What this agent's model gets and does: its prompt, its tools with their real schemas, \
             tool calls run by this program's implementations, token counts, an MCP server, an A2A server",
    disable_version_flag = true,
    arg_required_else_help = true
)]
struct Program {
    #[command(subcommand)]
    command: ProgramCommand,
    /// Print data as JSON (`stats`, `search`).
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum ProgramCommand {
    /// The system prompt, after loading some skills.
    Prompt {
        /// The agent.
        agent: String,
        /// A skill to load first (repeatable, in order).
        #[arg(long = "load", value_name = "SKILL")]
        load: Vec<String>,
    },
    /// The tool list as the model receives it, with the tools' real schemas.
    Tools {
        /// The agent.
        agent: String,
        /// A skill to load first (repeatable, in order).
        #[arg(long = "load", value_name = "SKILL")]
        load: Vec<String>,
        /// Render for this provider (default: carnet's own spec).
        #[arg(long, value_enum)]
        provider: Option<Provider>,
        /// OpenAI's strict schemas.
        #[arg(long)]
        strict: bool,
    },
    /// Calls a tool, meta-tool or domain tool, with this program's implementation; prints
    /// the result as the model reads it (status 1 for an error result).
    Call {
        /// The agent.
        agent: String,
        /// The tool.
        tool: String,
        /// Its arguments, as JSON (default `{}`).
        arguments: Option<String>,
        /// A skill to load first (repeatable, in order), so its tools can be called.
        #[arg(long = "load", value_name = "SKILL")]
        load: Vec<String>,
        /// Then print the session's state as JSON: the loaded skills, every toolset in reach
        /// and why, and the history of loads (when, by which call).
        #[arg(long)]
        state: bool,
    },
    /// Tokens (o200k) per model call of a conversation loading some skills, against sending
    /// everything up front, and what loading each skill costs.
    Stats {
        /// The agent (default: every agent).
        agent: Option<String>,
        /// A skill the conversation loads (repeatable, in order).
        #[arg(long = "load", value_name = "SKILL")]
        load: Vec<String>,
        /// Leave out what loading each skill costs.
        #[arg(long)]
        no_skill_costs: bool,
    },
    /// The tools the agent can reach, ranked for a query by this program's search index (the
    /// one `searchTools` ranks with, holding the parameters of the tools written in Rust).
    Search {
        /// The agent.
        agent: String,
        /// What the tool should do, in a few words.
        query: String,
        /// The most tools to print (1 to 50).
        #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=50))]
        limit: u64,
    },
    /// Serves the agent over MCP on stdio, or over streamable HTTP at a loopback address.
    ServeMcp {
        /// The agent.
        agent: String,
        /// Serve over streamable HTTP at this address (`127.0.0.1:0` picks a port).
        #[arg(long, value_name = "ADDR")]
        http: Option<String>,
        #[command(flatten)]
        http_options: HttpOptions,
    },
    /// Serves the agent as an A2A 1.0 agent over HTTP, its tools this program's, its model
    /// `--model`.
    #[command(after_help = crate::serve_a2a::SCRIPT_HELP)]
    ServeA2a {
        /// The agent.
        agent: String,
        /// The model, the address, the limits.
        #[command(flatten)]
        options: crate::serve_a2a::A2aOptions,
    },
}

/// Runs the command the process's arguments name over `carnet` and returns the exit
/// status: 0 success, 1 an error result or output that cannot be made, 2 a wrong
/// invocation (unknown agent, skill, flag).
#[must_use]
pub fn run(carnet: &Carnet) -> ExitCode {
    run_from(carnet, std::env::args_os())
}

/// [`run`] with the given arguments, the first being the program's name.
#[must_use]
pub fn run_from<I, T>(carnet: &Carnet, args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let mut args = args.into_iter().map(Into::into).peekable();
    // Help and errors name the program as it was run.
    let name = args
        .peek()
        .and_then(|arg| {
            std::path::Path::new(arg)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "agent".to_owned());
    let matches = match <Program as clap::CommandFactory>::command()
        .bin_name(name)
        .try_get_matches_from(args)
    {
        Ok(matches) => matches,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { 2 } else { 0 });
        }
    };
    let program = match <Program as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(program) => program,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(2);
        }
    };
    crate::exit_status(execute(carnet, &program))
}

fn execute(carnet: &Carnet, program: &Program) -> Result<(), Failure> {
    match &program.command {
        ProgramCommand::Prompt { agent, load } => {
            let session = crate::prompt::session_on(carnet, agent, load)?;
            outln!("{}", session.system_prompt());
            Ok(())
        }
        ProgramCommand::Tools {
            agent,
            load,
            provider,
            strict,
        } => {
            let session = crate::prompt::session_on(carnet, agent, load)?;
            crate::tools::print_tools(&session, Source::Program, agent, load, *provider, *strict)
        }
        ProgramCommand::Call {
            agent,
            tool,
            arguments,
            load,
            state,
        } => {
            let mut session = crate::prompt::session_on(carnet, agent, load)?;
            crate::call::call_then_state(&mut session, tool, arguments.as_deref(), true, *state)
        }
        ProgramCommand::Stats {
            agent,
            load,
            no_skill_costs,
        } => crate::stats::report(
            carnet,
            Source::Program,
            agent.as_deref(),
            load,
            !no_skill_costs,
            0.1,
            program.json,
        ),
        ProgramCommand::Search { agent, query, limit } => search(carnet, agent, query, *limit, program.json),
        ProgramCommand::ServeMcp {
            agent,
            http,
            http_options,
        } => crate::serve::serve_on(
            carnet,
            agent,
            http.as_deref(),
            http_options,
            "tools run with this program's implementations",
        ),
        ProgramCommand::ServeA2a { agent, options } => {
            crate::serve_a2a::serve_on(carnet, agent, options, "tools run with this program's implementations")
        }
    }
}

/// `search`: the agent's reachable tools ranked for `query` by the engine's index, as
/// `searchTools` ranks them; a table, or `[{"name", "toolset", "score"}]` with `--json`.
fn search(carnet: &Carnet, agent: &str, query: &str, limit: u64, as_json: bool) -> Result<(), Failure> {
    let manifest = carnet.manifest();
    let entry = manifest
        .agent(agent)
        .ok_or_else(|| crate::unknown("agent", agent, manifest.agents.iter().map(|a| &a.name)))?;
    if query.trim().is_empty() {
        return Err(Failure::usage(
            "error: the query is empty: describe what the tool should do in a few words",
        ));
    }
    let reachable = crate::unseen::reachable_toolsets(manifest, entry);
    // The index numbers the tools in the manifest's order.
    let tools: Vec<(&str, &str)> = manifest
        .toolsets
        .iter()
        .flat_map(|t| t.tools.iter().map(move |tool| (&*t.name, &*tool.name)))
        .collect();
    let limit = usize::try_from(limit).unwrap_or(8);
    let built;
    let index = if carnet.search_index().tools() as usize == tools.len() {
        carnet.search_index()
    } else {
        built = index_of(carnet);
        &built
    };
    let hits = index.search(query, limit, |n| {
        tools
            .get(n as usize)
            .is_some_and(|(toolset, _)| reachable.contains(toolset))
    });
    let hits: Vec<(&str, &str, f32)> = hits
        .iter()
        .filter_map(|hit| tools.get(hit.tool as usize).map(|(t, name)| (*name, *t, hit.score)))
        .collect();
    if as_json {
        let value: Vec<serde_json::Value> = hits
            .iter()
            .map(|(name, toolset, score)| {
                serde_json::json!({"name": name, "toolset": toolset, "score": (f64::from(*score) * 1000.0).round() / 1000.0})
            })
            .collect();
        outln!("{}", serde_json::Value::Array(value));
        return Ok(());
    }
    if hits.is_empty() {
        outln!("no tool of agent `{agent}` matches `{query}`");
        return Ok(());
    }
    let width = hits.iter().map(|(name, ..)| name.len()).max().unwrap_or(4).max(4);
    outln!("{:<width$}  {:>6}  toolset", "tool", "score");
    for (name, toolset, score) in hits {
        outln!("{name:<width$}  {score:>6.2}  {toolset}");
    }
    Ok(())
}

/// The search index an engine offering `searchTools` builds, for an engine without it: the
/// manifest's, and what only the program knows, the parameters of the tools written in Rust
/// (their input schemas' properties) and the doc comment of those the manifest does not
/// describe.
fn index_of(carnet: &Carnet) -> carnet_runtime::search::SearchIndex {
    use carnet_runtime::search::{Field, SearchIndex, for_each_parameter};
    let manifest = carnet.manifest();
    let mut index = SearchIndex::build(manifest);
    let declared = manifest
        .toolsets
        .iter()
        .flat_map(|t| t.tools.iter().map(move |tool| (t, tool)));
    for (number, (toolset, tool)) in (0_u32..).zip(declared) {
        if toolset.mcp.is_some() || tool.remote.is_some() {
            continue;
        }
        let Some(spec) = carnet
            .domain_tools_named(&tool.name)
            .find(|spec| spec.toolset.as_deref() == Some(&*toolset.name))
        else {
            continue;
        };
        if tool.description.is_empty() {
            index.add(number, Field::Description, &spec.description);
        }
        for_each_parameter(&spec.input_schema, |text| index.add(number, Field::Parameter, text));
    }
    index
}
