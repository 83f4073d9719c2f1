//! The facade's public API: the crate root holds a short, deliberate list of items (what an
//! agent author names every day), everything else lives in named modules, and every public
//! item of `carnet-runtime` stays reachable from the facade.
//!
//! Adding a root item means adding it to [`ROOT`] below, on purpose. The checks read
//! `src/lib.rs` as text (top-level items only, module bodies skipped) and also import every
//! name, so a list that drifts from the code, or a name that does not resolve, fails.

use std::collections::BTreeSet;

/// Every public name at the facade's root: items, then modules. About fifteen, each one a
/// thing an agent author touches on day one (issue 28).
const ROOT: &[&str] = &[
    // attributes and macros
    "tool",
    "toolset",
    "include_manifest",
    // the engine, its sessions, the manifest
    "Carnet",
    "Session",
    "Manifest",
    // what a tool sees and returns
    "Context",
    "ToolOutput",
    "ToolError",
    // the crate a whole-input struct derives `JsonSchema` from
    "schemars",
    // modules
    "manifest",
    "engine",
    "tools",
    "chat",
    "providers",
    "telemetry",
    // feature modules
    "tokens",
    "a2a",
    "mcp",
    "remote",
    "models",
    "testing",
    "cli",
    "__private",
];

/// Runtime modules of helpers users do not call, left out of the facade on purpose (issue
/// 28): did-you-mean suggestions, provider-safe names, media types. Depend on
/// `carnet-runtime` to reach them.
const NOT_REEXPORTED: &[&str] = &["suggest", "names", "media_type"];

// The root items resolve (the modules' contents are imported in `modules_hold_the_rest`).
#[allow(unused_imports)]
use carnet::{Carnet, Context, Manifest, Session, ToolError, ToolOutput, include_manifest, tool, toolset};

#[test]
fn the_root_holds_exactly_the_pinned_items() {
    let facade = Source::read("src/lib.rs");
    let found = facade.root_names();
    let expected: BTreeSet<String> = ROOT.iter().map(|name| (*name).to_owned()).collect();
    assert_eq!(
        found, expected,
        "the facade's root changed: update `ROOT` in tests/api.rs on purpose, or move the item into a module"
    );
    let globs: Vec<String> = facade
        .root_uses()
        .into_iter()
        .filter(|statement| statement.contains('*'))
        .collect();
    assert!(globs.is_empty(), "glob re-exports at the facade's root: {globs:?}");
}

/// Every name `carnet-runtime` exports (its root re-exports and public modules) is re-exported
/// by the facade: at the root, in a facade module, or with its whole module (a glob or the
/// module itself).
#[test]
fn every_runtime_item_is_reachable_from_the_facade() {
    let facade = Source::read("src/lib.rs");
    let runtime = Source::read("carnet-runtime/src/lib.rs");
    let mut reexported: BTreeSet<String> = facade.root_names();
    let mut globbed = BTreeSet::new();
    for (module, body) in facade.root_modules() {
        if module == "__private" {
            continue; // not public API
        }
        for statement in uses(&body) {
            reexported.extend(leaves(&statement));
            if let Some(path) = statement.trim_end_matches(';').strip_suffix("::*") {
                globbed.insert(path.rsplit("::").next().unwrap_or_default().trim().to_owned());
            }
        }
    }
    // A runtime module the facade re-exports whole brings its items along.
    let root = facade.root_names();
    globbed.extend(
        runtime
            .public_modules()
            .into_iter()
            .filter(|module| root.contains(module)),
    );
    let mut exported = 0;
    let mut missing = Vec::new();
    for statement in runtime.root_uses() {
        let module = statement
            .trim_start_matches("pub use")
            .trim()
            .split("::")
            .next()
            .unwrap_or_default()
            .to_owned();
        for name in leaves(&statement) {
            exported += 1;
            if NOT_REEXPORTED.contains(&name.as_str()) {
                continue;
            }
            if !reexported.contains(&name) && !globbed.contains(&module) {
                missing.push(name);
            }
        }
    }
    for module in runtime.public_modules() {
        exported += 1;
        // A module whose items the facade re-exports one by one (`carnet_runtime::hook::{..}`)
        // is reached through them; `modules_hold_the_rest` imports each.
        let itemwise = facade.text.contains(&format!("carnet_runtime::{module}::"));
        if NOT_REEXPORTED.contains(&module.as_str()) || itemwise {
            continue;
        }
        if !reexported.contains(&module) && !globbed.contains(&module) {
            missing.push(module);
        }
    }
    assert!(
        exported > 40,
        "read only {exported} names from carnet-runtime/src/lib.rs"
    );
    assert!(
        missing.is_empty(),
        "runtime items the facade does not re-export: {missing:?}"
    );
}

/// Each module of the facade holds its topic; a path that moves breaks this test.
#[test]
#[allow(unused_imports)]
fn modules_hold_the_rest() {
    use carnet::engine::{
        Baseline, BuildError, Carnet, CarnetBuilder, CatalogFormat, DriftPolicy, Explanation, ExposureMode, Extensions,
        HISTORY_CAP, InvalidName, LoadAction, LoadCall, LoadEvent, LoadKind, LoadedToolset, MetaTool, Naming,
        Placeholders, Preset, PromptOptions, RemoteOptions, ResultFormat, Session, SessionAgent, SessionError,
        SessionState, TAGS_AND_EXAMPLES_WORDS, Variables,
    };
    use carnet::manifest::{
        Agent, AgentId, App, Bytes, DEFAULT_ENV_PREFIXES, List, MANIFEST_VERSION, Manifest, ManifestError, Skill,
        SkillFile, SkillId, Text, Tool, ToolId, Toolset, ToolsetId,
    };
    use carnet::tools::schema::{SchemaError, validate};
    use carnet::tools::{
        Before, BoundToolset, BoxFuture, CallInfo, Cancellation, Cancelled, Context, Hook, ToolCall, ToolError,
        ToolHandler, ToolImpl, ToolKind, ToolOutput, ToolSpec, ToolsetImpl, ToolsetNamed, block_on,
    };
    use carnet::{chat, providers, telemetry};

    assert_eq!(MANIFEST_VERSION, carnet::manifest::MANIFEST_VERSION);
    assert_eq!(block_on(async { 2 + 3 }), 5);
}

/// A Rust file read as text, enough to list its top-level items.
struct Source {
    /// Top-level statements (text from an item's start to its end), comments removed.
    items: Vec<String>,
    /// The whole file.
    text: String,
}

impl Source {
    fn read(path: &str) -> Self {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut items = Vec::new();
        let mut current = String::new();
        let mut depth = 0usize;
        for line in text.lines() {
            let code = line.find("//").map_or(line, |at| &line[..at]);
            if depth == 0 && current.trim().is_empty() && code.trim().is_empty() {
                continue;
            }
            current.push_str(code);
            current.push('\n');
            for c in code.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            let trimmed = code.trim_end();
            let attribute_only = trimmed.trim_start().starts_with("#[") || trimmed.trim_start().starts_with("#![");
            if depth == 0 && !attribute_only && (trimmed.ends_with(';') || trimmed.ends_with('}')) {
                items.push(std::mem::take(&mut current));
            }
        }
        Self { items, text }
    }

    /// The item without its attributes, and its attributes.
    fn items(&self) -> impl Iterator<Item = (String, String)> + '_ {
        self.items.iter().map(|item| {
            let mut attributes = String::new();
            let mut rest = item.trim_start();
            while rest.starts_with("#[") || rest.starts_with("#![") {
                let end = rest.find(']').expect("attribute end");
                attributes.push_str(&rest[..=end]);
                rest = rest[end + 1..].trim_start();
            }
            (rest.to_owned(), attributes)
        })
    }

    fn root_uses(&self) -> Vec<String> {
        self.items()
            .map(|(item, _)| item)
            .filter(|item| item.starts_with("pub use "))
            .collect()
    }

    /// `pub mod name { ... }` blocks: the name and the body.
    fn root_modules(&self) -> Vec<(String, String)> {
        self.items()
            .filter_map(|(item, _)| {
                let rest = item.strip_prefix("pub mod ")?;
                let (name, body) = rest.split_once('{')?;
                Some((name.trim().to_owned(), body.to_owned()))
            })
            .collect()
    }

    /// `pub mod name;` and `pub mod name { .. }` not marked `#[doc(hidden)]`.
    fn public_modules(&self) -> Vec<String> {
        self.items()
            .filter(|(_, attributes)| !attributes.contains("doc(hidden)"))
            .filter_map(|(item, _)| {
                let rest = item.strip_prefix("pub mod ")?;
                Some(rest.split([';', '{']).next()?.trim().to_owned())
            })
            .collect()
    }

    /// Every public name at the root: re-exports, modules, functions, exported macros.
    fn root_names(&self) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        for (item, attributes) in self.items() {
            if item.starts_with("pub use ") {
                names.extend(leaves(&item));
            } else if let Some(rest) = item.strip_prefix("pub mod ").or_else(|| item.strip_prefix("pub fn ")) {
                names.insert(
                    rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .next()
                        .unwrap()
                        .to_owned(),
                );
            } else if let Some(rest) = item.strip_prefix("macro_rules! ") {
                if attributes.contains("#[macro_export]") {
                    names.insert(
                        rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                            .next()
                            .unwrap()
                            .to_owned(),
                    );
                }
            } else if item.starts_with("pub ") {
                panic!("a root item this test does not know how to read: {item}");
            }
        }
        names
    }
}

/// The `pub use` statements at the top of a module body (nested blocks are not read).
fn uses(body: &str) -> Vec<String> {
    let mut statements = Vec::new();
    let mut rest = body;
    while let Some(at) = rest.find("pub use ") {
        let end = rest[at..].find(';').expect("`;` after `pub use`");
        statements.push(rest[at..=at + end].to_owned());
        rest = &rest[at + end + 1..];
    }
    statements
}

/// The names a `pub use` statement brings in: the last segment of each path, or the name
/// after `as`; not `*` nor `self`.
fn leaves(statement: &str) -> Vec<String> {
    let body = statement.trim().trim_start_matches("pub use").trim_end_matches(';');
    body.split(['{', '}', ','])
        .filter_map(|path| {
            let path = path.trim();
            let name = match path.split_once(" as ") {
                Some((_, alias)) => alias.trim(),
                None => path.rsplit("::").next()?.trim(),
            };
            (!name.is_empty() && name != "*" && name != "self").then(|| name.to_owned())
        })
        .collect()
}
