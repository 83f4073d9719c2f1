//! The `carnet` command: checks, builds and inspects a carnet directory.
//!
//! Exit status, the same for every command (DESIGN §7):
//!
//! - 0: success (warnings included);
//! - 1: the content is wrong: diagnostics with errors, a carnet directory or `--manifest`
//!   file that is missing, unreadable, not a regular file, too large or invalid;
//! - 2: the invocation is wrong: bad flags or values (clap's own exit status), unknown
//!   agent, skill, toolset or tool names, a skill `--load` cannot load, an output path
//!   (`--out`, `init DIR`) that cannot be written, an address `serve-mcp --http` cannot use.
//!
//! Names and descriptions are printed with their control characters escaped, so content
//! cannot drive the terminal.
//!
//! As a library: [`main`] is the `carnet` binary, and [`program::run`] gives an agent
//! author's own program `prompt`, `tools`, `call`, `stats`, `serve-mcp` and `serve-a2a` over its engine,
//! with its real tool implementations and schemas (the facade's `carnet::cli`, feature
//! `cli`).

/// `println!` that ends the program quietly when stdout is closed (`carnet tools | head`).
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::emit(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` that ends the program quietly when stdout is closed.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::emit(&format!($($arg)*))
    };
}

mod args;
mod call;
mod chart;
mod explain;
mod import;
mod init;
mod list;
mod login;
mod mcp;
mod new;
pub mod program;
mod prompt;
mod serve;
mod serve_a2a;
mod show;
mod stats;
mod tools;
mod unseen;

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use carnet_codegen::{Config, Report};
use carnet_runtime::Manifest;
use clap::Parser as _;

use args::{A2aCommand, Cli, Color, Command, Format, ImportCommand, McpCommand};

/// An error to report and the status to exit with.
struct Failure {
    message: String,
    status: u8,
}

impl Failure {
    fn usage(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            status: 2,
        }
    }

    fn content(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            status: 1,
        }
    }
}

/// The `carnet` binary: parses the process's arguments, runs the command, prints what
/// failed and returns the exit status.
#[must_use]
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    exit_status(run(&cli))
}

/// Prints what failed, if anything, and gives the exit status.
fn exit_status(outcome: Result<(), Failure>) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            if !failure.message.is_empty() {
                eprintln!("{}", printable(failure.message.trim_end()));
            }
            ExitCode::from(failure.status)
        }
    }
}

/// `text` with control characters other than line breaks and tabs escaped (`\u{1b}`): what
/// the content says is printed, never interpreted by the terminal. Bidirectional overrides
/// count as control characters (they reorder what is shown).
pub(crate) fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let control = |c: char| {
        (c.is_control() && !matches!(c, '\n' | '\t')) || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if control(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Writes to stdout; a closed pipe ends the program with success, like other Unix tools.
/// On a terminal, control characters are escaped ([`printable`]); piped output is data and
/// stays as it is.
fn emit(text: &str) {
    use std::io::Write as _;
    let text = if std::io::stdout().is_terminal() {
        printable(text)
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write to stdout: {e}");
        std::process::exit(1);
    }
}

fn color(cli: &Cli) -> bool {
    match cli.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    }
}

/// Checks the directory (or loads `--manifest`); prints warnings; fails on errors.
/// The manifest, and where `carnet build` writes it by default (none with `--manifest`).
fn checked(cli: &Cli) -> Result<(Option<PathBuf>, Manifest), Failure> {
    if let Some(path) = &cli.manifest {
        let limit = carnet_codegen::Limits::default().max_total_size;
        let json = carnet_codegen::read_file(path, limit)
            .and_then(|bytes| {
                String::from_utf8(bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
            })
            .map_err(|e| {
                Failure::content(format!(
                    "error: cannot read `{}`: {e}",
                    printable(&path.display().to_string())
                ))
            })?;
        let manifest =
            Manifest::from_json(&json).map_err(|e| Failure::content(format!("error: `{}`: {e}", path.display())))?;
        return Ok((None, manifest));
    }
    let report = Config::new().dir(&cli.dir).check();
    if cli.timings {
        eprint_timings(report.timings());
    }
    if report.has_errors() {
        return Err(Failure::content(match cli.format {
            Format::Json => {
                outln!("{}", diagnostics_json(&report));
                String::new()
            }
            Format::Text => report.render(color(cli)),
        }));
    }
    let warnings = report.warnings().count();
    if cli.format == Format::Text && warnings > 0 && !cli.quiet {
        if matches!(cli.command, Command::Build { .. }) {
            eprint!("{}", report.render(color(cli)));
        } else {
            // An inspection command's answer comes first; `carnet check` shows the warnings.
            eprintln!(
                "warning: the content in `{}` has {warnings} warning{} (`carnet check` shows {}; `-q` hides this line)",
                cli.dir.display(),
                if warnings == 1 { "" } else { "s" },
                if warnings == 1 { "it" } else { "them" },
            );
        }
    }
    let output = report.default_output();
    let manifest = report.into_manifest().map_err(|e| Failure::content(e.to_string()))?;
    Ok((Some(output), manifest))
}

/// `timings: discover 12 ms, read 40 ms, ...` on stderr (`--timings`).
fn eprint_timings(stages: &[(&str, std::time::Duration)]) {
    let stages: Vec<String> = stages
        .iter()
        .map(|(stage, took)| format!("{stage} {:.1} ms", took.as_secs_f64() * 1e3))
        .collect();
    eprintln!("timings: {}", stages.join(", "));
}

fn diagnostics_json(report: &Report) -> String {
    let diagnostics: Vec<_> = report
        .diagnostics()
        .iter()
        .map(carnet_codegen::Diagnostic::to_json)
        .collect();
    serde_json::to_string_pretty(&serde_json::json!({
        "ok": !report.has_errors(),
        "errors": report.errors().count(),
        "warnings": report.warnings().count(),
        "diagnostics": diagnostics,
    }))
    .expect("JSON values serialise")
}

fn summary(manifest: &Manifest) -> String {
    let files: usize = manifest.skills.iter().map(|s| s.files.len()).sum();
    let tools: usize = manifest.toolsets.iter().map(|t| t.tools.len()).sum();
    let count = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    format!(
        "{}, {} ({}), {}, {}",
        count(manifest.agents.len(), "agent"),
        count(manifest.skills.len(), "skill"),
        count(files, "file"),
        count(manifest.toolsets.len(), "toolset"),
        count(tools, "tool")
    )
}

fn run(cli: &Cli) -> Result<(), Failure> {
    match &cli.command {
        Command::Init { dir } => init::run(dir.as_deref().unwrap_or(&cli.dir)).map_err(Failure::usage),
        Command::New {
            name,
            path,
            carnet_path,
        } => new::run(name, path.as_deref(), carnet_path.as_deref()).map_err(Failure::usage),
        Command::Check => {
            if cli.manifest.is_some() {
                let (_, manifest) = checked(cli)?;
                outln!(
                    "ok: `{}`: {}",
                    cli.manifest.as_deref().unwrap_or(Path::new("")).display(),
                    summary(&manifest)
                );
                return Ok(());
            }
            let report = Config::new().dir(&cli.dir).check();
            if cli.timings {
                eprint_timings(report.timings());
            }
            match cli.format {
                Format::Json => outln!("{}", diagnostics_json(&report)),
                Format::Text => {
                    if cli.quiet {
                        // Errors only, each once, with the closing line.
                        if report.has_errors() {
                            eprint!("{}", report.render_errors(color(cli)));
                        }
                    } else {
                        eprint!("{}", report.render(color(cli)));
                    }
                    if let Some(manifest) = report.manifest() {
                        outln!("ok: `{}`: {}", cli.dir.display(), summary(manifest));
                    }
                }
            }
            if report.has_errors() {
                Err(Failure::content(""))
            } else {
                Ok(())
            }
        }
        Command::Build { out } => {
            let (report, manifest) = checked(cli)?;
            let out = match (out, report) {
                (Some(out), _) => out.clone(),
                (None, Some(default)) => default,
                (None, None) => return Err(Failure::usage("error: `--out` is required with `--manifest`")),
            };
            if out == Path::new("-") {
                outln!("{}", manifest.to_json_pretty());
                return Ok(());
            }
            if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)
                    .map_err(|e| Failure::usage(format!("error: cannot create `{}`: {e}", parent.display())))?;
            }
            // Streamed to the file: a large manifest is never held as one string.
            let write = || -> std::io::Result<u64> {
                let file = std::fs::File::create(&out)?;
                let mut writer = std::io::BufWriter::with_capacity(1 << 20, file);
                manifest.write_json_pretty(&mut writer)?;
                let file = writer.into_inner().map_err(std::io::IntoInnerError::into_error)?;
                Ok(file.metadata()?.len())
            };
            let start = std::time::Instant::now();
            let bytes = write().map_err(|e| Failure::usage(format!("error: cannot write `{}`: {e}", out.display())))?;
            if cli.timings {
                eprint_timings(&[("write", start.elapsed())]);
            }
            match cli.format {
                Format::Json => outln!(
                    "{}",
                    serde_json::json!({"manifest": out.to_string_lossy(), "bytes": bytes, "fingerprint": format!("{:016x}", manifest.fingerprint)})
                ),
                Format::Text => outln!("wrote `{}` ({}; {} bytes)", out.display(), summary(&manifest), bytes),
            }
            // Freeing a large manifest takes a while and the process ends now anyway.
            std::mem::forget(manifest);
            Ok(())
        }
        Command::List { agent, depth } => {
            let (_, manifest) = checked(cli)?;
            list::run(&manifest, agent.as_deref(), *depth, cli.format == Format::Json)
        }
        Command::Prompt {
            agent,
            load,
            vars,
            catalog,
            preset,
        } => {
            let (_, manifest) = checked(cli)?;
            prompt::run(
                &manifest,
                agent,
                load,
                vars,
                *catalog,
                *preset,
                cli.format == Format::Json,
            )
        }
        Command::Tools {
            agent,
            load,
            provider,
            mode,
            strict,
            preset,
            no_name_enums,
        } => {
            let (_, manifest) = checked(cli)?;
            let options = tools::Options {
                mode: *mode,
                preset: *preset,
                strict: *strict,
                name_enums: !*no_name_enums,
            };
            tools::run(&manifest, carnet_dir(cli), agent, load, *provider, options)
        }
        Command::Call {
            agent,
            tool,
            arguments,
            load,
            mode,
            results,
            preset,
            state,
        } => {
            let (_, manifest) = checked(cli)?;
            unseen::warn_call(
                &manifest,
                carnet_dir(cli),
                agent,
                tool,
                arguments.as_deref(),
                load,
                *mode,
            );
            call::run(
                &manifest,
                agent,
                tool,
                arguments.as_deref(),
                load,
                *mode,
                *preset,
                (*results, *state),
            )
        }
        Command::Stats {
            agent,
            load,
            no_skill_costs,
            mode,
            cached_price,
            svg,
        } => {
            let (_, manifest) = checked(cli)?;
            if let Some(path) = svg {
                chart::svg(&manifest, agent.as_deref(), load, path)?;
            }
            stats::run(
                &manifest,
                carnet_dir(cli),
                agent.as_deref(),
                load,
                (*mode).into(),
                !no_skill_costs,
                *cached_price,
                cli.format == Format::Json,
            )
        }
        Command::Search {
            agent,
            query,
            limit,
            explain,
        } => {
            let (_, manifest) = checked(cli)?;
            unseen::warn_search(&manifest, carnet_dir(cli), agent, query);
            call::search(&manifest, agent, query, *limit, *explain, cli.format == Format::Json)
        }
        Command::ServeMcp {
            agent,
            mode,
            preset,
            http,
            vars,
            http_options,
        } => {
            let (_, manifest) = checked(cli)?;
            serve::run(
                &manifest,
                carnet_dir(cli),
                agent,
                *mode,
                *preset,
                http.as_deref(),
                vars,
                http_options,
            )
        }
        Command::Mcp(McpCommand::Pin {
            toolsets,
            check,
            timeout,
        }) => {
            let report = Config::new().dir(&cli.dir).check();
            let timeout = std::time::Duration::from_secs(*timeout);
            mcp::run(
                &report,
                color(cli),
                toolsets,
                *check,
                timeout,
                carnet_codegen::RemoteProtocol::Mcp,
            )
        }
        Command::Mcp(McpCommand::Login {
            toolset,
            timeout,
            port,
            client_id,
            scopes,
            store,
        }) => {
            let report = Config::new().dir(&cli.dir).check();
            let request = login::Login {
                toolset,
                timeout: std::time::Duration::from_secs(*timeout),
                port: *port,
                client_id: client_id.as_deref(),
                scopes,
                store: store.as_deref(),
            };
            login::login(&report, &request)
        }
        Command::Mcp(McpCommand::Logout { toolset, store }) => {
            let report = Config::new().dir(&cli.dir).check();
            login::logout(&report, toolset, store.as_deref())
        }
        Command::A2a(A2aCommand::Pin {
            toolsets,
            check,
            timeout,
        }) => {
            let report = Config::new().dir(&cli.dir).check();
            let timeout = std::time::Duration::from_secs(*timeout);
            mcp::run(
                &report,
                color(cli),
                toolsets,
                *check,
                timeout,
                carnet_codegen::RemoteProtocol::A2a,
            )
        }
        Command::Import(ImportCommand::McpConfig { file, timeout }) => {
            let report = import::mcp_config(file, &cli.dir, std::time::Duration::from_secs(*timeout))?;
            out!("{report}");
            Ok(())
        }
        Command::Card { agent, url, a2a } => {
            let (_, manifest) = checked(cli)?;
            if *a2a {
                serve_a2a::card(&manifest, agent, url)
            } else {
                serve::card(&manifest, agent, url)
            }
        }
        Command::ServeA2a {
            agent,
            mode,
            preset,
            vars,
            options,
        } => {
            let (_, manifest) = checked(cli)?;
            serve_a2a::run(&manifest, carnet_dir(cli), agent, *mode, *preset, vars, options)
        }
        Command::Explain { code } => explain::run(code.as_deref(), cli.format == Format::Json).map_err(Failure::usage),
        Command::Show { kind, name } => {
            let (_, manifest) = checked(cli)?;
            show::run(&manifest, *kind, name, cli.format == Format::Json)
        }
    }
}

/// The carnet directory the manifest was read from (none with `--manifest`).
fn carnet_dir(cli: &Cli) -> Option<&Path> {
    cli.manifest.is_none().then_some(cli.dir.as_path())
}

/// The agent named `name`, or every agent when no name is given.
fn select_agents<'a>(manifest: &'a Manifest, name: Option<&str>) -> Result<Vec<&'a carnet_runtime::Agent>, Failure> {
    match name {
        Some(name) => {
            Ok(vec![manifest.agent(name).ok_or_else(|| {
                unknown("agent", name, manifest.agents.iter().map(|a| &a.name))
            })?])
        }
        None => Ok(manifest.agents.iter().collect()),
    }
}

/// "no agent named `x`", with a did-you-mean.
fn unknown(kind: &str, name: &str, candidates: impl Iterator<Item = impl AsRef<str>>) -> Failure {
    let candidates: Vec<String> = candidates.map(|c| c.as_ref().to_owned()).collect();
    let best = carnet_runtime::suggest::closest(name, candidates.iter().map(String::as_str));
    let mut message = format!("error: no {kind} named `{name}`");
    match best {
        Some(c) => message.push_str(&format!("\n  = help: did you mean `{c}`?")),
        None if !candidates.is_empty() => message.push_str(&format!("\n  = note: {kind}s: {}", candidates.join(", "))),
        None => {}
    }
    Failure::usage(message)
}
