//! `carnet import mcp-config FILE`: turns the `mcpServers` JSON of Claude Desktop, Cursor and
//! others (`servers` in VS Code's `mcp.json`) into one remote toolset and one skill per server,
//! then pins each server.
//!
//! For a server `github` it writes `toolsets/github/TOOLSET.md` (its `mcp:` block),
//! `skills/github/SKILL.md` (`toolsets: [github]`) and, once the server answered,
//! `toolsets/github/mcp.lock.json`; the two descriptions then say what the server does (the
//! first sentence of its `instructions`, else its tools). No file is ever overwritten: a server
//! with any of these files already there is skipped. Values are written as the file gives them
//! (VS Code's and Cursor's `${env:NAME}` become carnet's `${NAME}`), with a warning for each
//! `env` or `headers` value that looks like a literal secret. Servers are taken in key order
//! (sorted), which decides which of two keys giving the same name gets `-2`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use carnet_runtime::remote::{PIN_FILE, Pin, Server};
use serde_json::Value;

use crate::{Failure, printable};

mod config;

use config::{Entry, parse, read};

/// The largest message read from a server while pinning.
const MAX_MESSAGE_BYTES: usize = 16 << 20;
/// The longest description, in characters (Agent Skills' limit).
const MAX_DESCRIPTION: usize = 1024;
/// The tools a description names before `...`.
const NAMED_TOOLS: usize = 12;
/// Words of an `env` or header name that say its value is a secret (with `*TOKEN`, `*KEY`, ...).
const SECRET_WORDS: [&str; 6] = ["AUTH", "AUTHORIZATION", "COOKIE", "CREDENTIALS", "PASS", "PASSWD"];

/// Imports the MCP servers of `file` into carnet directory `dir`, pinning each within
/// `timeout`: the report for stdout (warnings and per-server errors go to stderr).
///
/// Errors: [`Failure::usage`] when `file` cannot be read, is over 4 MiB or is not an MCP
/// configuration; [`Failure::content`] when a server could not be imported or pinned (the
/// report is then printed here, as the caller prints only the error).
pub(crate) fn mcp_config(file: &Path, dir: &Path, timeout: Duration) -> Result<String, Failure> {
    let text = read(file).map_err(Failure::usage)?;
    let (entries, refused) = parse(&text)
        .map_err(|e| Failure::usage(format!("error: `{}` is not an MCP configuration: {e}", file.display())))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::content(format!("error: cannot start the async runtime: {e}")))?;
    let warn = |message: &str| eprintln!("{}", printable(message.trim_end()));
    for message in &refused {
        warn(message);
    }
    let (mut failed, mut report, mut written) = (refused.len(), String::new(), Vec::new());
    if entries.is_empty() && refused.is_empty() {
        let _ = writeln!(report, "no MCP servers in `{}`", file.display());
    }
    for entry in &entries {
        for warning in &entry.warnings {
            warn(warning);
        }
        let (key, [toolset, skill, _]) = (&entry.key, paths(dir, &entry.name));
        match write(dir, entry) {
            Ok(Some(existing)) => {
                let _ = writeln!(report, "skipped: server `{key}`: `{}` exists", existing.display());
                continue;
            }
            Ok(None) => {
                let (toolset, skill) = (toolset.display(), skill.display());
                let _ = writeln!(report, "wrote: `{toolset}` and `{skill}` (server `{key}`)");
                written.push(entry.name.as_str());
            }
            Err(message) => {
                failed += 1;
                warn(&message);
                continue;
            }
        }
        match runtime.block_on(pin(dir, entry, timeout)) {
            Ok(line) => report.push_str(&line),
            Err(message) => {
                failed += 1;
                warn(&message);
            }
        }
    }
    runtime.shutdown_background();
    if !written.is_empty() {
        let skills = written.join(", ");
        let _ = writeln!(
            report,
            "note: to offer them, list the skills in an agent's `skills: [{skills}]`"
        );
    }
    if failed == 0 {
        return Ok(report);
    }
    out!("{report}");
    Err(Failure::content(format!(
        "error: {failed} MCP server(s) could not be imported or pinned"
    )))
}

/// `text` as a YAML double-quoted scalar that reads back as exactly `text`: `"` and `\`
/// escaped, line breaks, tabs and every character YAML would not read as itself as escapes.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}') => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `TOOLSET.md`, `SKILL.md` and the pin of server `name` under `dir`.
fn paths(dir: &Path, name: &str) -> [PathBuf; 3] {
    let toolset = dir.join("toolsets").join(name);
    [
        toolset.join("TOOLSET.md"),
        dir.join("skills").join(name).join("SKILL.md"),
        toolset.join(PIN_FILE),
    ]
}

/// The `TOOLSET.md` and the `SKILL.md` of `entry`, with `description` (the placeholder
/// until the server is pinned).
fn markdown(entry: &Entry, description: Option<&str>) -> [String; 2] {
    let (name, placeholder) = (quote(&entry.name), format!("Tools of the `{}` MCP server", entry.name));
    let description = quote(description.unwrap_or(&placeholder));
    let mut toolset = format!("---\nname: {name}\ndescription: {description}\nmcp:\n");
    for key in ["command", "url"] {
        if let Some(value) = entry.server[key].as_str() {
            let _ = writeln!(toolset, "  {key}: {}", quote(value));
        }
    }
    if let Some(args) = entry.server["args"].as_array() {
        let args: Vec<String> = args.iter().filter_map(Value::as_str).map(quote).collect();
        let _ = writeln!(toolset, "  args: [{}]", args.join(", "));
    }
    for key in ["env", "headers"] {
        if let Some(map) = entry.server[key].as_object() {
            let _ = writeln!(toolset, "  {key}:");
            for (k, v) in map {
                let _ = writeln!(toolset, "    {}: {}", quote(k), quote(v.as_str().unwrap_or_default()));
            }
        }
    }
    toolset.push_str("---\n");
    let body = format!(
        "This skill brings the tools of the `{0}` MCP server (toolset `{0}`).",
        entry.name
    );
    let skill = format!("---\nname: {name}\ndescription: {description}\ntoolsets: [{name}]\n---\n{body}\n");
    [toolset, skill]
}

/// Writes the toolset and the skill of `entry`: `Some(path)`, and nothing written, when one
/// of its files (the pin included) exists.
fn write(dir: &Path, entry: &Entry) -> Result<Option<PathBuf>, String> {
    let warn = |message: &str| eprintln!("{}", printable(message));
    let [toolset, skill, pin] = paths(dir, &entry.name);
    if let Some(existing) = [&toolset, &skill, &pin]
        .into_iter()
        .find(|p| p.symlink_metadata().is_ok())
    {
        return Ok(Some(existing.clone()));
    }
    for kind in ["env", "headers"] {
        for (name, value) in entry.server[kind].as_object().into_iter().flatten() {
            if value.as_str().is_some_and(|v| looks_secret(name, v)) {
                let var = if kind == "env" {
                    name.clone()
                } else {
                    format!("{}_{name}", entry.name)
                };
                let var = var
                    .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
                    .to_ascii_uppercase();
                let (key, path) = (&entry.key, toolset.display());
                warn(&format!(
                    "warning: server `{key}`: `{kind}.{name}` looks like a secret, written as is to `{path}`\n  \
                     = help: write `\"${{{var}}}\"` instead and set `{var}` where carnet runs: carnet reads it when \
                     the server starts, and the secret stays out of the content"
                ));
            }
        }
    }
    let [toolset_md, skill_md] = markdown(entry, None);
    let failed = |e: String| format!("error: server `{}`: {e}", entry.key);
    create(&toolset, &toolset_md).map_err(failed)?;
    create(&skill, &skill_md).map_err(failed)?;
    Ok(None)
}

/// Whether `value` of `env` or header `key` looks like a literal secret: not a `${VAR}`
/// reference, and a secret's name (`*_TOKEN`, `Authorization`, `X-Api-Key`, ...) or a
/// token's look (24 characters or more with letters and digits, no space or `/`).
fn looks_secret(key: &str, value: &str) -> bool {
    if value.trim().is_empty() || value.contains("${") {
        return false;
    }
    let key = key.to_ascii_uppercase();
    let named = key.split(|c: char| !c.is_ascii_alphanumeric()).any(|word| {
        SECRET_WORDS.contains(&word)
            || ["TOKEN", "KEY", "SECRET", "PASSWORD"]
                .iter()
                .any(|end| word.ends_with(end))
    });
    let token = value.len() >= 24
        && !value.contains(|c: char| c.is_whitespace() || c == '/')
        && value.chars().any(|c| c.is_ascii_digit())
        && value.chars().any(|c| c.is_ascii_alphabetic());
    named || token
}

/// Pins `entry`'s server, then gives its toolset and skill a description of what it does:
/// the report's line.
async fn pin(dir: &Path, entry: &Entry, timeout: Duration) -> Result<String, String> {
    let [toolset, skill, pin_path] = paths(dir, &entry.name);
    let mut retry = format!("carnet mcp pin {}", entry.name);
    if dir != Path::new("carnet") {
        let _ = write!(retry, " --dir {}", dir.display());
    }
    let failed = |why: String| {
        let key = &entry.key;
        format!(
            "error: server `{key}` could not be pinned: {why}\n  = note: its toolset and skill are written\n  \
             = help: once the server answers, run `{retry}`"
        )
    };
    let server = Server::from_json(&entry.server).map_err(|e| failed(e.to_string()))?;
    let pinned = Pin::fetch(&server, timeout, MAX_MESSAGE_BYTES)
        .await
        .map_err(|e| failed(e.to_string()))?;
    create(&pin_path, &pinned.to_file()).map_err(failed)?;
    let tools = pinned.tool_names();
    let description = describe(&entry.name, pinned.instructions(), &tools);
    let (old, new) = (markdown(entry, None), markdown(entry, Some(&description)));
    for ((path, old), new) in [toolset, skill].iter().zip(old).zip(new) {
        // Only what this run wrote: a file changed meanwhile is left alone.
        if std::fs::read_to_string(path).is_ok_and(|text| text == old) {
            std::fs::write(path, new).map_err(|e| format!("error: cannot write `{}`: {e}", path.display()))?;
        }
    }
    Ok(format!(
        "pinned: `{}`: {} tools in `{}`\n",
        entry.name,
        tools.len(),
        pin_path.display()
    ))
}

/// What a server's toolset and skill say of it: the first sentence of its `instructions`,
/// else its tools; at most [`MAX_DESCRIPTION`] characters, none a control character.
fn describe(name: &str, instructions: Option<&str>, tools: &[&str]) -> String {
    let text = instructions
        .and_then(first_sentence)
        .unwrap_or_else(|| match tools.len() {
            0 => format!("The `{name}` MCP server (it lists no tools)"),
            1 => format!("Tools of the `{name}` MCP server: {} (1 tool)", tools[0]),
            n => {
                let more = if n > NAMED_TOOLS { ", ..." } else { "" };
                let shown = tools[..n.min(NAMED_TOOLS)].join(", ");
                format!("Tools of the `{name}` MCP server: {shown}{more} ({n} tools)")
            }
        });
    let control = |c: char| c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    let text: String = text.chars().map(|c| if control(c) { ' ' } else { c }).collect();
    if text.chars().count() <= MAX_DESCRIPTION {
        return text;
    }
    text.chars().take(MAX_DESCRIPTION - 1).chain(['…']).collect()
}

/// The first sentence of the first line of `text` that is not a Markdown heading (else of
/// its first line).
fn first_sentence(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let line = lines.iter().find(|l| !l.starts_with('#')).or(lines.first())?;
    let line = line.trim_start_matches('#').trim();
    let stops = [". ", "! ", "? "].iter().filter_map(|stop| line.find(stop));
    let sentence = line[..stops.min().map_or(line.len(), |i| i + 1)].trim();
    (!sentence.is_empty()).then(|| sentence.to_owned())
}

/// Writes a new file (`create_new`: one that appeared meanwhile is never overwritten).
fn create(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("cannot create `{}`: {e}", parent.display()))?;
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::config::*;
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_sanitised_and_unique() {
        assert_eq!(sanitize("GitHub"), "github");
        assert_eq!(sanitize("My Server (prod)!"), "my-server-prod");
        assert_eq!(sanitize("--mcp__server.time--"), "mcp-server-time");
        assert_eq!(sanitize("日本"), "server");
        assert_eq!(sanitize(&"a".repeat(100)), "a".repeat(64));
        assert_eq!(sanitize(&format!("{}-b", "a".repeat(63))), "a".repeat(63));
        let (mut taken, long) = (HashSet::new(), "b".repeat(64));
        assert_eq!(unique("files", &mut taken), "files");
        assert_eq!(unique("files", &mut taken), "files-2");
        assert_eq!(unique("files", &mut taken), "files-3");
        assert_eq!(unique(&long, &mut taken), long);
        assert_eq!(unique(&long, &mut taken), format!("{}-2", "b".repeat(62)));
    }

    #[test]
    fn yaml_quoting_round_trips_through_the_content_reader() {
        assert_eq!(quote("a \"b\" c:\\d"), r#""a \"b\" c:\\d""#);
        assert_eq!(quote("1\n2\t3\r"), r#""1\n2\t3\r""#);
        assert_eq!(quote("\u{1b}[0m\u{2028}\u{85}"), r#""\u001B[0m\u2028\u0085""#);
        assert_eq!(quote("ü ☃ ${X} # [a]: {b}"), "\"ü ☃ ${X} # [a]: {b}\"");
        let nasty = [
            "\" \\",
            "a\nb\tc\r",
            "# x: {y} [z], w",
            "  s  ",
            "",
            "true",
            "0x10",
            "ü\u{2028}\u{1b}\u{feff}",
            "${V:-x}",
        ];
        let server = json!({"command": "node \"x\"", "args": nasty, "env": {"A B": nasty[0], "TOKEN": nasty[7]}});
        let entry = Entry {
            key: "Nasty".into(),
            name: "nasty".into(),
            server,
            warnings: Vec::new(),
        };
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(write(dir.path(), &entry), Ok(None));
        let [toolset, ..] = paths(dir.path(), "nasty");
        assert_eq!(write(dir.path(), &entry), Ok(Some(toolset)));
        let report = carnet_codegen::Config::new().dir(dir.path()).check();
        let errors = report
            .errors()
            .all(|d| matches!(d.code, carnet_codegen::Code::MissingPin));
        assert!(errors, "{}", report.render(false));
        let remote = report.remote_toolsets();
        assert_eq!((remote.len(), remote[0].name.as_str()), (1, "nasty"));
        assert_eq!(remote[0].server, entry.server);
    }

    #[test]
    fn configurations_are_read() {
        let text = r#"{
          // VS Code's mcp.json is JSON with comments
          "servers": {
            "Time": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "${env:TZ}", "N": 8},},
            "remote": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${T}"}},
            "legacy": {"type": "sse", "url": "https://example.com/sse"},
            "broken": {"args": ["x"]},
            "time": {"command": "uvx", "cwd": "/tmp"}, /* the same name as `Time` */
          },
        }"#;
        let (entries, refused) = parse(text).unwrap();
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["time", "remote", "time-2"]);
        let time = json!({"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "${TZ}", "N": "8"}});
        assert_eq!(entries[0].server, time);
        let remote = json!({"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${T}"}});
        assert_eq!(entries[1].server, remote);
        assert!(entries[0].warnings.is_empty());
        assert!(entries[2].warnings[0].contains("not carried over: `cwd`"));
        assert!(refused[0].starts_with("error: server `broken` cannot be imported: it has neither"));
        assert!(refused[1].contains("carnet speaks streamable HTTP"));
        assert_eq!(refused.len(), 2);
        assert!(parse(r#"{"mcpServers": {}}"#).unwrap().0.is_empty());
        for bad in ["[]", "not json", r#"{"mcp": {}}"#, r#"{"mcpServers": []}"#] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn descriptions_and_secrets() {
        assert_eq!(
            describe("fs", Some("# Files\n\nReads files. Writes them too."), &[]),
            "Reads files."
        );
        assert_eq!(
            describe("fs", None, &["a", "b"]),
            "Tools of the `fs` MCP server: a, b (2 tools)"
        );
        let many: Vec<String> = (0..20).map(|i| format!("t{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(describe("fs", None, &many).ends_with("t11, ... (20 tools)"));
        assert_eq!(
            describe("fs", Some("x".repeat(2000).as_str()), &[]).chars().count(),
            1024
        );
        assert!(looks_secret("GITHUB_PERSONAL_ACCESS_TOKEN", "ghp_abc"));
        assert!(looks_secret("Authorization", "Bearer abc") && looks_secret("X-Api-Key", "abc"));
        assert!(looks_secret("ANY", "sk1234567890abcdefghijklmnop"));
        assert!(!looks_secret("Authorization", "Bearer ${TOKEN}"));
        assert!(!looks_secret("GIT_AUTHOR_NAME", "Ada"));
        assert!(!looks_secret("ROOT", "/home/ada/a-very-long-path-1234567890"));
    }
}
