//! What the `carnet` binary cannot know: the tools an author implements in Rust
//! (`#[carnet::toolset]`). Their input schemas are derived from the functions' parameter
//! types when the author's crate compiles, and their implementations live in it; this binary
//! reads markdown and never compiles that crate, so it shows them as "any object" and cannot
//! call them. The compiled manifest cannot carry the schemas either: `build.rs` writes it
//! before the crate's types exist, and a schema comes from each type's `JsonSchema` at run
//! time.
//!
//! Wherever such a tool would show, the command says so on stderr and in its JSON, and names
//! the command that shows the truth: the author's own program, whose `main` hands its engine
//! to `carnet::cli::run` (feature `cli`; `carnet new` writes one).

use std::path::{Path, PathBuf};

use carnet_runtime::Manifest;
use serde_json::{Value, json};

/// Where a command's engine comes from: the author's program (every tool known), or
/// markdown read by the `carnet` binary, from a carnet directory (`None`: `--manifest`).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Source<'a> {
    Program,
    Markdown(Option<&'a Path>),
}

/// The tools implemented in Rust that a command's output involves, and where the author's
/// crate is.
pub(crate) struct Unseen {
    /// Tool names, in the manifest's order, each once.
    pub(crate) tools: Vec<String>,
    /// The author's crate (the nearest folder above the carnet directory holding a
    /// `Cargo.toml`), when there is one and it is not the working directory.
    krate: Option<PathBuf>,
}

/// Whether `tool` of `toolset` is implemented in Rust: its toolset names no server and the
/// tool carries no pinned listing.
fn is_rust(toolset: &carnet_runtime::Toolset, tool: &carnet_runtime::Tool) -> bool {
    toolset.mcp.is_none() && tool.remote.is_none()
}

impl Unseen {
    /// The Rust tools among `names` (tools of the manifest; other names are ignored).
    pub(crate) fn among<'a>(manifest: &Manifest, source: Source<'_>, names: impl IntoIterator<Item = &'a str>) -> Self {
        let Source::Markdown(dir) = source else {
            return Unseen::none();
        };
        let names: Vec<&str> = names.into_iter().collect();
        let tools = manifest
            .toolsets
            .iter()
            .flat_map(|t| t.tools.iter().map(move |tool| (t, tool)))
            .filter(|(t, tool)| is_rust(t, tool) && names.contains(&&*tool.name))
            .map(|(_, tool)| tool.name.to_string());
        Unseen::new(tools, dir)
    }

    /// The Rust tools `agent` can reach through its skills and the global ones.
    pub(crate) fn reachable(manifest: &Manifest, source: Source<'_>, agent: &carnet_runtime::Agent) -> Self {
        let Source::Markdown(dir) = source else {
            return Unseen::none();
        };
        let toolsets = reachable_toolsets(manifest, agent);
        let tools = manifest
            .toolsets
            .iter()
            .filter(|t| toolsets.contains(&&*t.name))
            .flat_map(|t| t.tools.iter().filter(move |tool| is_rust(t, tool)))
            .map(|tool| tool.name.to_string());
        Unseen::new(tools, dir)
    }

    /// Every tool known.
    pub(crate) fn none() -> Self {
        Unseen {
            tools: Vec::new(),
            krate: None,
        }
    }

    fn new(tools: impl Iterator<Item = String>, dir: Option<&Path>) -> Self {
        let mut seen = Vec::new();
        for tool in tools {
            if !seen.contains(&tool) {
                seen.push(tool);
            }
        }
        Unseen {
            tools: seen,
            krate: dir.and_then(author_crate),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The command, run in the author's crate, that gives the truth: `cargo run -- ARGS`
    /// (with `--manifest-path` when the crate is not the working directory).
    pub(crate) fn command(&self, args: &[&str]) -> String {
        let mut command = "cargo run".to_owned();
        if let Some(krate) = &self.krate {
            command.push_str(" --manifest-path ");
            command.push_str(&quoted(&krate.join("Cargo.toml").display().to_string()));
        }
        command.push_str(" --");
        for arg in args {
            command.push(' ');
            command.push_str(&quoted(arg));
        }
        command
    }

    /// `addNote`, `listNotes` and 3 more.
    fn names(&self) -> String {
        const SHOWN: usize = 4;
        let mut names: Vec<String> = self.tools.iter().take(SHOWN).map(|t| format!("`{t}`")).collect();
        if self.tools.len() > SHOWN {
            names.push(format!("{} more", self.tools.len() - SHOWN));
        }
        match names.as_slice() {
            [one] => one.clone(),
            [init @ .., last] => format!("{} and {last}", init.join(", ")),
            [] => String::new(),
        }
    }

    /// Says on stderr what `consequence` the unknown tools have on this output, and the
    /// command that gives the truth. Nothing when every tool is known.
    pub(crate) fn warn(&self, consequence: &str, truth: &str) {
        if self.is_empty() {
            return;
        }
        let (count, verb) = if self.tools.len() == 1 {
            ("1 tool".to_owned(), "is")
        } else {
            (format!("{} tools", self.tools.len()), "are")
        };
        eprintln!(
            "{}",
            crate::printable(&format!(
                "note: {count} ({}) {verb} implemented in Rust: `carnet` reads the markdown only and cannot know \
                 their input schemas or run them; {consequence}\n  = help: the truth, from your crate's own program \
                 (its `main` returns `carnet::cli::run(&engine)`, feature `cli`; `carnet new` writes one): {truth}",
                self.names()
            ))
        );
    }

    /// The same for a program to read: `{"tools": [...], "known": false, "because": ...,
    /// "truth": COMMAND}`, or null when every tool is known.
    pub(crate) fn json(&self, truth: &str) -> Value {
        if self.is_empty() {
            return Value::Null;
        }
        json!({
            "tools": self.tools,
            "because": "implemented in Rust: their input schemas and implementations are in the author's crate, \
                        which the carnet binary does not compile",
            "truth": truth,
        })
    }
}

/// The toolsets `agent` can reach through its skills and the global ones.
pub(crate) fn reachable_toolsets<'a>(manifest: &'a Manifest, agent: &'a carnet_runtime::Agent) -> Vec<&'a str> {
    let skills = agent
        .all_skills()
        .chain(manifest.app.global_initial_skills.iter().map(|s| &**s))
        .chain(manifest.app.global_skills.iter().map(|s| &**s));
    skills
        .filter_map(|s| manifest.skill(s))
        .flat_map(|s| s.toolsets.iter().map(|t| &**t))
        .collect()
}

/// `carnet call`: a meta-tool whose result shows or runs one of the agent's Rust tools
/// (`callTool`, `describeTool`; in dispatcher mode the loads, whose results carry schemas)
/// is not the truth for them: said on stderr, with the program's `call`.
pub(crate) fn warn_call(
    manifest: &Manifest,
    dir: Option<&Path>,
    agent: &str,
    tool: &str,
    arguments: Option<&str>,
    load: &[String],
    mode: crate::tools::Mode,
) {
    let shows = matches!(tool, "callTool" | "describeTool")
        || (mode == crate::tools::Mode::Dispatcher && matches!(tool, "loadSkill" | "loadToolset" | "loadTool"));
    let Some(agent_entry) = manifest.agent(agent).filter(|_| shows) else {
        return;
    };
    let unseen = Unseen::reachable(manifest, Source::Markdown(dir), agent_entry);
    let mut args = vec!["call", agent, tool];
    if let Some(arguments) = arguments {
        args.push(arguments);
    }
    for skill in load {
        args.extend(["--load", skill]);
    }
    unseen.warn(
        &format!(
            "where this `{tool}` result shows one of them its schema is any object, and calling one is an error result"
        ),
        &unseen.command(&args),
    );
}

/// `carnet search`: the ranking leaves out the parameter names of the agent's Rust tools,
/// which the program's index holds.
pub(crate) fn warn_search(manifest: &Manifest, dir: Option<&Path>, agent: &str, query: &str) {
    let Some(agent_entry) = manifest.agent(agent) else {
        return;
    };
    let unseen = Unseen::reachable(manifest, Source::Markdown(dir), agent_entry);
    unseen.warn(
        "their parameters' names, which your program's search index holds, are left out of this ranking",
        &unseen.command(&["search", agent, query]),
    );
}

/// The nearest folder holding `carnet_dir` with a `Cargo.toml`, unless it is the working
/// directory.
fn author_crate(carnet_dir: &Path) -> Option<PathBuf> {
    let dir = std::path::absolute(carnet_dir).ok()?;
    let krate = dir.ancestors().find(|d| d.join("Cargo.toml").is_file())?;
    let here = std::env::current_dir().ok()?;
    if krate == here {
        return None;
    }
    // Relative to the working directory when below it: shorter to copy.
    Some(
        krate
            .strip_prefix(&here)
            .map_or_else(|_| krate.to_path_buf(), Path::to_path_buf),
    )
}

/// `arg` as a POSIX shell word.
fn quoted(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ':' | '=' | ',' | '@'));
    if plain {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_round_trip() {
        assert_eq!(quoted("note-taking"), "note-taking");
        assert_eq!(quoted(r#"{"q": "it's"}"#), r#"'{"q": "it'\''s"}'"#);
        assert_eq!(quoted(""), "''");
    }

    #[test]
    fn names_are_counted_past_four() {
        let unseen = |n: usize| Unseen {
            tools: (0..n).map(|i| format!("t{i}")).collect(),
            krate: None,
        };
        assert_eq!(unseen(1).names(), "`t0`");
        assert_eq!(unseen(2).names(), "`t0` and `t1`");
        assert_eq!(unseen(6).names(), "`t0`, `t1`, `t2`, `t3` and 2 more");
        assert_eq!(unseen(2).command(&["tools", "a b"]), "cargo run -- tools 'a b'");
    }
}
