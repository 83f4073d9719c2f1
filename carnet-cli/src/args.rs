//! The command line: global options, subcommands and their flags (clap's derive).

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::{call, prompt, serve, serve_a2a, show, tools};

#[derive(Debug, Parser)]
#[command(
    name = "carnet",
    version,
    about = "Check, build and inspect carnet content (markdown agents, skills and toolsets)"
)]
pub(crate) struct Cli {
    /// The carnet directory.
    #[arg(
        long,
        short = 'd',
        global = true,
        default_value = "carnet",
        value_name = "DIR",
        help_heading = "Global options"
    )]
    pub(crate) dir: PathBuf,
    /// Read a built manifest JSON (ours or TS Carnet's) instead of the directory.
    #[arg(
        long,
        global = true,
        value_name = "FILE",
        conflicts_with = "dir",
        help_heading = "Global options"
    )]
    pub(crate) manifest: Option<PathBuf>,
    /// Output format.
    #[arg(long, global = true, value_enum, default_value_t = Format::Text, help_heading = "Global options")]
    pub(crate) format: Format,
    /// When to color diagnostics.
    #[arg(long, global = true, value_enum, default_value_t = Color::Auto, help_heading = "Global options")]
    pub(crate) color: Color,
    /// Print how long each stage took to stderr (reading, parsing, validating, writing).
    #[arg(long, global = true, help_heading = "Global options")]
    pub(crate) timings: bool,
    /// Print errors only: no warnings about the content (inspection commands print their
    /// count otherwise; `check` and `build` print them in full).
    #[arg(long, short = 'q', global = true, help_heading = "Global options")]
    pub(crate) quiet: bool,
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Scaffold a working carnet directory (agent, skill, toolset); never overwrites a file.
    Init {
        /// Where to create it (default: the `--dir` directory).
        dir: Option<PathBuf>,
    },
    /// Create a Cargo crate that builds, runs and tests at once: the content `init`
    /// scaffolds, a build script, its toolset bound in Rust, a `main` that is the agent's own
    /// command line (`cargo run -- tools assistant`: the tools with their real schemas), a
    /// conversation with a scripted model (`cargo run --example conversation`), a test with
    /// `carnet::testing`.
    New {
        /// The crate's name (its folder too, unless `--path`).
        name: String,
        /// Where to create it (default: `./NAME`); must not exist or be empty.
        #[arg(long, value_name = "DIR")]
        path: Option<PathBuf>,
        /// Depend on this carnet checkout by path (default: the checkout this `carnet` was
        /// built from, when it is still there, else crates.io).
        #[arg(long, value_name = "CHECKOUT")]
        carnet_path: Option<PathBuf>,
    },
    /// Report every problem in the content, as source snippets (or JSON).
    Check,
    /// Write the manifest JSON (loadable by TS Carnet 0.3.0 and `Manifest::from_json`).
    Build {
        /// The file to write (default: `output` of carnet.config.json, else
        /// `<dir>/carnet.manifest.json`); `-` writes to stdout.
        #[arg(long, short = 'o', value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Print the agent → skills → toolsets → tools tree.
    List {
        /// Only this agent.
        agent: Option<String>,
        /// 1: agents, 2: + skills, 3: + toolsets, 4: + tools.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=4))]
        depth: u8,
    },
    /// Print the system prompt of AGENT after loading the given skills.
    Prompt {
        /// The agent.
        agent: String,
        /// Load this skill first (repeatable).
        #[arg(long = "load", value_name = "SKILL")]
        load: Vec<String>,
        /// Set a variable (repeatable); everything after the first `=` is the value.
        #[arg(long = "var", value_name = "K=V", value_parser = parse_var)]
        vars: Vec<(String, String)>,
        /// How the skill catalog is written.
        #[arg(long, value_enum, default_value_t = prompt::Catalog::Markdown)]
        catalog: prompt::Catalog,
        /// Which meta-tools the model gets: `full` (the six loading ones), `minimal`
        /// (`loadSkill`, `loadSkillFile`) or `discovery` (the six, `listTools`, `describeTool`).
        #[arg(long, value_enum, default_value_t = tools::PresetArg::Full)]
        preset: tools::PresetArg,
    },
    /// Print the tool list AGENT's model receives, after loading the given skills.
    ///
    /// Domain tools implemented in Rust are shown with the schema the manifest can give: any
    /// object, said on stderr and as `"inputSchemaKnown": false`. Their real input schemas
    /// come from the functions bound with `#[carnet::toolset]`: the crate's own program
    /// (`carnet::cli::run`) shows them, with the command stderr names.
    Tools {
        /// The agent.
        agent: String,
        /// Load this skill first (repeatable).
        #[arg(long = "load", value_name = "SKILL")]
        load: Vec<String>,
        /// The wire format (default: carnet's canonical tool specs).
        #[arg(long, value_enum)]
        provider: Option<tools::Provider>,
        /// How domain tools are exposed.
        #[arg(long, value_enum, default_value_t = tools::Mode::Dynamic)]
        mode: tools::Mode,
        /// OpenAI strict mode (`additionalProperties: false`, every field required, optional ones nullable).
        #[arg(long)]
        strict: bool,
        /// Which meta-tools the model gets: `full` (the six loading ones), `minimal`
        /// (`loadSkill`, `loadSkillFile`) or `discovery` (the six, `listTools`, `describeTool`).
        #[arg(long, value_enum, default_value_t = tools::PresetArg::Full)]
        preset: tools::PresetArg,
        /// Name parameters as plain strings: no `enum` of the skills the agent can reach (by
        /// default listed up to 64).
        #[arg(long)]
        no_name_enums: bool,
    },
    /// Call a meta-tool of AGENT's session and print its result exactly as the model receives
    /// it: a way to see what the model reads, without a model. Exit status 1 when the result
    /// is an error result (an unknown skill, bad arguments, ...).
    Call {
        /// The agent.
        agent: String,
        /// The meta-tool: `loadSkill`, `listAvailableSkills`, `loadSkillFile`, ...
        tool: String,
        /// Its arguments, as JSON (default `{}`).
        arguments: Option<String>,
        /// Load this skill first (repeatable).
        #[arg(long = "load", value_name = "SKILL")]
        load: Vec<String>,
        /// How domain tools are exposed (dispatcher results carry the tools' schemas).
        #[arg(long, value_enum, default_value_t = tools::Mode::Dynamic)]
        mode: tools::Mode,
        /// How a loaded skill is written: `json` (TS Carnet's object) or `envelope`
        /// (`<skill_context name="…">`).
        #[arg(long, value_enum, default_value_t = call::Results::Json)]
        results: call::Results,
        /// Which meta-tools the model gets: `full` (the six loading ones), `minimal`
        /// (`loadSkill`, `loadSkillFile`) or `discovery` (the six, `listTools`, `describeTool`,
        /// `searchTools`).
        #[arg(long, value_enum, default_value_t = tools::PresetArg::Full)]
        preset: tools::PresetArg,
        /// Then print the session's state as JSON: the loaded skills, every toolset in reach
        /// and why, and the history of loads (when, by which call).
        #[arg(long)]
        state: bool,
    },
    /// The tools AGENT can reach, ranked for QUERY as the `searchTools` meta-tool ranks them:
    /// name, score, the skill that brings each, and a one-line summary (`--format json`: the
    /// meta-tool's result).
    Search {
        /// The agent.
        agent: String,
        /// What the tool should do, in a few words.
        query: String,
        /// The most tools to print (1 to 50).
        #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=50))]
        limit: u64,
        /// Under each hit, the query's terms it holds and what each adds to its score (a
        /// query word, a synonym of one, or a longer word one begins), and the exact name's 100.
        #[arg(long)]
        explain: bool,
    },
    /// Context tokens (o200k_base) per turn, progressive against everything up front, and
    /// the cost of loading each skill.
    Stats {
        /// Only this agent (default: every agent).
        agent: Option<String>,
        /// Load this skill at the next turn (repeatable).
        #[arg(long = "load", value_name = "SKILL")]
        load: Vec<String>,
        /// Skip the cost of loading each skill (slow on very large catalogs).
        #[arg(long)]
        no_skill_costs: bool,
        /// How domain tools are exposed.
        #[arg(long, value_enum, default_value_t = tools::Mode::Dynamic)]
        mode: tools::Mode,
        /// The price of a cached input token as a share of an uncached one, for the
        /// effective cost with prompt caching (0.1 on Anthropic, 0.5 or less on OpenAI).
        #[arg(long, value_name = "RATIO", default_value_t = 0.1, value_parser = crate::stats::parse_ratio)]
        cached_price: f64,
        /// Also draw the tokens of each model call, every exposure mode against everything
        /// up front, with the cache-stable prefix apart, into this SVG file (needs AGENT
        /// when there are several).
        #[arg(long, value_name = "FILE")]
        svg: Option<std::path::PathBuf>,
    },
    /// Serve AGENT over the Model Context Protocol: stdio, or streamable HTTP with `--http`.
    ///
    /// Skills, toolsets and skill files are loadable through the meta-tools, the system prompt
    /// is an MCP prompt and skill files are MCP resources. The tools of remote toolsets (an
    /// `mcp:` block) are called on their MCP servers, started on first use: a gateway. Other
    /// domain tools have no Rust implementation here, so calling one returns an error result;
    /// serve your own crate with `carnet::mcp` to run them.
    #[command(name = "serve-mcp")]
    ServeMcp {
        /// The agent.
        agent: String,
        /// How domain tools are exposed. MCP hosts take `dynamic` (tools/list grows,
        /// `list_changed` is sent) or `dispatcher` (a fixed list with `callTool`); `deferred`
        /// and `allowed-tools` are provider-side modes that MCP serves as `dynamic`.
        #[arg(long, value_enum, default_value_t = tools::Mode::Dynamic)]
        mode: tools::Mode,
        /// Which meta-tools the model gets: `full` (the six loading ones), `minimal`
        /// (`loadSkill`, `loadSkillFile`) or `discovery` (the six, `listTools`, `describeTool`).
        #[arg(long, value_enum, default_value_t = tools::PresetArg::Full)]
        preset: tools::PresetArg,
        /// Serve streamable HTTP at this loopback address (e.g. `127.0.0.1:8080`; port 0
        /// picks one) instead of stdio; the endpoint's URL is printed first.
        #[arg(long, value_name = "ADDR")]
        http: Option<String>,
        /// Set a variable for every session (repeatable); everything after the first `=` is
        /// the value.
        #[arg(long = "var", value_name = "K=V", value_parser = parse_var)]
        vars: Vec<(String, String)>,
        /// HTTP limits, the agent card's URL and the origins allowed.
        #[command(flatten)]
        http_options: serve::HttpOptions,
    },
    /// Serves AGENT as an A2A 1.0 agent over HTTP (JSON-RPC and HTTP+JSON, SSE streaming):
    /// each A2A context a conversation with its own session, each message a task run on
    /// `--model`. Prints the server's URL, then serves until interrupted.
    #[command(after_help = serve_a2a::SCRIPT_HELP)]
    ServeA2a {
        /// The agent.
        agent: String,
        /// How domain tools are exposed to the model.
        #[arg(long, value_enum, default_value_t = tools::Mode::Dynamic)]
        mode: tools::Mode,
        /// Which meta-tools the model gets: `full`, `minimal` or `discovery`.
        #[arg(long, value_enum, default_value_t = tools::PresetArg::Full)]
        preset: tools::PresetArg,
        /// Set a variable for every session (repeatable); everything after the first `=` is
        /// the value.
        #[arg(long = "var", value_name = "K=V", value_parser = parse_var)]
        vars: Vec<(String, String)>,
        /// The model, the address, the limits.
        #[command(flatten)]
        options: serve_a2a::A2aOptions,
    },
    /// Remote toolsets: the MCP servers behind toolsets with an `mcp:` block.
    #[command(subcommand)]
    Mcp(McpCommand),
    /// Remote agents: the A2A agents behind toolsets with an `a2a:` block.
    #[command(subcommand)]
    A2a(A2aCommand),
    /// Bring content made elsewhere into the carnet directory.
    #[command(subcommand)]
    Import(ImportCommand),
    /// Print the A2A 1.0 agent card of AGENT (what `serve-mcp --http` serves at
    /// `/.well-known/agent-card.json`; with `--a2a`, what `serve-a2a` serves).
    Card {
        /// The agent.
        agent: String,
        /// The endpoint the card names (the URL `serve-mcp --http` or `serve-a2a` prints).
        #[arg(long, value_name = "URL")]
        url: String,
        /// The card of `serve-a2a` (A2A's JSON-RPC and HTTP+JSON bindings, streaming)
        /// instead of `serve-mcp`'s.
        #[arg(long)]
        a2a: bool,
    },
    /// Explain a diagnostic code (`E0006` or `unknown-skill`): what it means, an example
    /// that produces it and the example fixed; without a code, list every code.
    Explain {
        /// The code or its name.
        code: Option<String>,
    },
    /// Print one agent, skill, toolset or tool.
    Show {
        /// The kind of entity.
        #[arg(value_enum)]
        kind: show::Kind,
        /// Its name.
        name: String,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum McpCommand {
    /// Start each remote toolset's server, list its tools and write its pin
    /// (`mcp.lock.json` beside its TOOLSET.md: deterministic, commit it). The build checks
    /// the content against the pins and never connects.
    Pin {
        /// Only these toolsets (default: every remote toolset).
        toolsets: Vec<String>,
        /// Compare each server with its pin instead of writing it; exit 1 with a diff when
        /// one no longer matches (for CI, as `cargo fmt --check`).
        #[arg(long)]
        check: bool,
        /// Seconds a server may take to start and list its tools.
        #[arg(long, value_name = "SECS", default_value_t = 60)]
        timeout: u64,
    },
    /// Sign in to the server of a remote toolset that requires OAuth: prints the
    /// authorization URL to open in a browser, waits for the redirect on a loopback port and
    /// stores the token (`$CARNET_OAUTH_DIR/tokens.json`, else
    /// `~/.config/carnet/oauth/tokens.json`, mode 0600; or the OS keyring), where `mcp pin`,
    /// `serve-mcp` and programs find it.
    Login {
        /// The remote toolset.
        toolset: String,
        /// Seconds to wait for the browser's redirect.
        #[arg(long, value_name = "SECS", default_value_t = 300)]
        timeout: u64,
        /// The loopback port of the redirect URI (default: a free one; a pre-registered
        /// client needs the one it was registered with).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// A client registered beforehand with the authorization server (its secret, if
        /// any, in `CARNET_OAUTH_CLIENT_SECRET`); default: dynamic registration.
        #[arg(long, value_name = "ID")]
        client_id: Option<String>,
        /// A scope to ask for (repeatable; default: what the server names).
        #[arg(long = "scope", value_name = "SCOPE")]
        scopes: Vec<String>,
        /// Where to keep the token: `file` or `keyring` (the OS keyring). Default:
        /// `CARNET_TOKEN_STORE`, else `file`; the other commands read only the variable.
        #[arg(long, value_name = "STORE")]
        store: Option<String>,
    },
    /// Forget the stored tokens of a remote toolset's server.
    Logout {
        /// The remote toolset.
        toolset: String,
        /// The store to remove them from: `file` or `keyring`. Default:
        /// `CARNET_TOKEN_STORE`, else `file`.
        #[arg(long, value_name = "STORE")]
        store: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum A2aCommand {
    /// Read each remote agent's card and write its pin (`a2a.lock.json` beside its
    /// TOOLSET.md: its skills as tools; deterministic, commit it). The build checks the
    /// content against the pins and never connects.
    Pin {
        /// Only these toolsets (default: every toolset with an `a2a:` block).
        toolsets: Vec<String>,
        /// Compare each agent's card with its pin instead of writing it; exit 1 with a diff
        /// when one no longer matches (for CI, as `cargo fmt --check`).
        #[arg(long)]
        check: bool,
        /// Seconds an agent may take to serve its card.
        #[arg(long, value_name = "SECS", default_value_t = 60)]
        timeout: u64,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum ImportCommand {
    /// Turn the `mcpServers` JSON of Claude Desktop, Cursor, VS Code (`servers`) and others
    /// into one remote toolset and one skill per server, then pin each server. Never
    /// overwrites a file: a server whose files exist is skipped.
    #[command(name = "mcp-config")]
    McpConfig {
        /// The configuration file (e.g. `claude_desktop_config.json`, `.vscode/mcp.json`).
        file: PathBuf,
        /// Seconds a server may take to start and list its tools.
        #[arg(long, value_name = "SECS", default_value_t = 60)]
        timeout: u64,
    },
}

pub(crate) fn parse_var(text: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("expected `NAME=VALUE`, found `{text}`"))?;
    if !carnet_runtime::variables::Variables::is_valid_name(name) {
        return Err(format!(
            "invalid variable name `{name}`: names are `[A-Za-z_][A-Za-z0-9_]*`"
        ));
    }
    Ok((name.to_owned(), value.to_owned()))
}
