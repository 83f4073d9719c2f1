//! `carnet new NAME`: a Cargo crate that builds, runs and tests at once: the content
//! `carnet init` scaffolds, a build script, the toolset bound in Rust, a `main` that is the
//! agent's own command line (`carnet::cli`: `cargo run -- tools assistant` shows the tools'
//! real schemas), a conversation offline with `carnet::testing`'s scripted model
//! (`cargo run --example conversation`), and a test.

use std::fs;
use std::path::{Path, PathBuf};

use crate::init;

/// The checkout this binary was built from, when it is still there: the new crate then
/// depends on it by path (and starts from its `Cargo.lock`), else on crates.io.
fn own_checkout() -> Option<PathBuf> {
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    let manifest = fs::read_to_string(checkout.join("Cargo.toml")).ok()?;
    manifest.contains("name = \"carnet\"").then(|| checkout.to_path_buf())
}

/// A package name Cargo takes and Rust can name: ASCII letters, digits, `-` and `_`,
/// starting with a letter.
fn check_name(name: &str) -> Result<(), String> {
    let valid = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && name.len() <= 64;
    if !valid {
        return Err(format!(
            "error: `{name}` is not a crate name: use ASCII letters, digits, `-` and `_`, starting with a letter"
        ));
    }
    // The crate's library is named after the package; these names are taken.
    if [
        "carnet",
        "test",
        "std",
        "core",
        "alloc",
        "proc_macro",
        "self",
        "crate",
        "super",
    ]
    .contains(&name.replace('-', "_").as_str())
    {
        return Err(format!(
            "error: `{name}` would shadow a crate the new one uses: choose another name"
        ));
    }
    Ok(())
}

/// Whether a `Cargo.toml` above `dir` declares a workspace, which would claim the new crate.
fn inside_workspace(dir: &Path) -> bool {
    let Ok(dir) = std::path::absolute(dir) else {
        return false;
    };
    dir.ancestors().skip(1).any(|parent| {
        fs::read_to_string(parent.join("Cargo.toml")).is_ok_and(|text| text.lines().any(|l| l.trim() == "[workspace]"))
    })
}

fn cargo_toml(name: &str, checkout: Option<&Path>, standalone: bool) -> String {
    let (carnet, codegen) = match checkout {
        Some(checkout) => {
            let path = checkout.display().to_string().replace('\\', "/");
            (
                format!("carnet = {{ path = \"{path}\""),
                format!("carnet-codegen = {{ path = \"{path}/carnet-codegen\" }}"),
            )
        }
        None => {
            let version = env!("CARGO_PKG_VERSION");
            (
                format!("carnet = {{ version = \"{version}\""),
                format!("carnet-codegen = \"{version}\""),
            )
        }
    };
    let workspace = if standalone {
        "\n# Its own workspace, not a member of the one in a folder above.\n[workspace]\n"
    } else {
        ""
    };
    format!(
        "[package]
name = \"{name}\"
version = \"0.1.0\"
edition = \"2024\"
publish = false

[dependencies]
# `cli`: `cargo run -- tools assistant`, `stats`, `call`, `serve-mcp`: the `carnet` commands
# over this crate's engine, with its tools' real schemas and implementations (src/main.rs).
# For a real model add \"openai\" or \"anthropic\" (and tokio, see examples/conversation.rs).
{carnet}, features = [\"cli\"] }}

[dev-dependencies]
# `testing`: the scripted model the test and examples/conversation.rs run the agent with,
# offline.
{carnet}, features = [\"testing\"] }}
serde_json = \"1\"

[build-dependencies]
{codegen}
{workspace}"
    )
}

fn lib_rs(name: &str) -> String {
    format!(
        r#"//! The agent of `{name}`: its content lives in `carnet/` (agents, skills, toolsets as
//! markdown, compiled by `build.rs` into [`manifest`]), its tools in [`notes`].

pub mod notes;

carnet::include_manifest!(pub mod manifest);

/// The engine: the compiled content with every toolset bound. A toolset left out of
/// `Toolsets` does not compile; a tool `TOOLSET.md` declares without a function in
/// `notes.rs` does not either.
#[must_use]
pub fn engine() -> carnet::Carnet {{
    let toolsets = manifest::Toolsets {{ notes: notes::Notes::default().toolset() }};
    carnet::Carnet::new(&manifest::MANIFEST, toolsets)
        .build()
        .expect("every toolset is bound")
}}
"#
    )
}

fn main_rs(ident: &str) -> String {
    format!(
        r#"//! The agent's command line: the `carnet` commands over this crate's engine, with its
//! tools' real input schemas and implementations (`carnet::cli`, feature `cli`):
//!
//! ```text
//! cargo run -- tools assistant --load note-taking    # the tools its model is offered
//! cargo run -- call assistant addNote '{{"title": "Milk", "body": "2 l"}}' --load note-taking
//! cargo run -- stats                                 # tokens per model call
//! cargo run -- serve-mcp assistant                   # an MCP server on stdio
//! ```
//!
//! A conversation with a scripted model, offline: `cargo run --example conversation`.
//! The standalone `carnet` binary reads the markdown only: it shows these tools without
//! their schemas and cannot run them.

fn main() -> std::process::ExitCode {{
    carnet::cli::run(&{ident}::engine())
}}
"#
    )
}

fn conversation_rs(ident: &str) -> String {
    format!(
        r#"//! A conversation with the agent, offline: a scripted model plays the model's part
//! (`carnet::testing`), the engine, the session and the tools are the real ones. It prints
//! what the model could call at each turn, its calls and their results.
//!
//! On a real model: add the feature `openai` to `carnet` in Cargo.toml and
//! `tokio = {{ version = "1", features = ["rt"] }}`, then, inside a Tokio runtime, replace
//! `model` by `carnet::models::OpenAi::from_env("gpt-4.1-mini")?` (it reads `OPENAI_API_KEY`,
//! and `OPENAI_BASE_URL` for any OpenAI-compatible server such as Ollama or llama.cpp) and
//! `testing::run` by `carnet::chat::run`.

use carnet::testing::{{self, Scripted}};
use serde_json::json;
use {ident}::manifest::{{agents, skills, tools}};

fn main() {{
    let carnet = {ident}::engine();
    let mut session = carnet.session(agents::ASSISTANT);

    let model = Scripted::new()
        .call(tools::ADD_NOTE, json!({{"title": "Groceries", "body": "eggs, milk"}}))
        .call("loadSkill", json!({{"skillName": skills::NOTE_TAKING.name()}}))
        .call(tools::ADD_NOTE, json!({{"title": "Groceries", "body": "eggs, milk", "tags": ["home"]}}))
        .call(tools::SEARCH_NOTES, json!({{"keywords": ["milk"]}}))
        .answer("Saved \"Groceries\"; searching for milk finds it.");
    let run = testing::run(&mut session, model, "Remember to buy eggs and milk.").expect("the script answers");

    println!("The model here is scripted (carnet::testing::Scripted), not a real one.\n");
    println!("{{}}\n", run.turn(0).system);
    print!("{{}}", run.transcript());
}}
"#
    )
}

fn test_rs(ident: &str) -> String {
    format!(
        r#"//! The agent, tested offline with `carnet::testing`: what the model is offered at each
//! turn, what the session refuses, what the tools return.

use carnet::testing::{{self, Scripted}};
use serde_json::json;
use {ident}::manifest::{{agents, skills, tools}};

#[test]
fn notes_are_callable_once_the_skill_is_loaded() {{
    let carnet = {ident}::engine();
    let mut session = carnet.session(agents::ASSISTANT);
    let note = json!({{"title": "Groceries", "body": "eggs, milk"}});
    let model = Scripted::new()
        .call(tools::ADD_NOTE, note.clone())
        .call("loadSkill", json!({{"skillName": skills::NOTE_TAKING.name()}}))
        .call(tools::ADD_NOTE, note)
        .answer("Saved.");
    let run = testing::run(&mut session, model, "Remember to buy eggs and milk.").unwrap();

    run.turn(0).assert_not_offered(tools::ADD_NOTE);
    assert_eq!(run.refusals().count(), 1, "{{}}", run.transcript());
    run.turn(2).assert_offered(tools::ADD_NOTE);
    assert_eq!(run.turn(2).result(tools::ADD_NOTE).unwrap().value, json!("saved note 1: Groceries"));
    assert_eq!(run.answer(), Some("Saved."));
}}
"#
    )
}

const GITIGNORE: &str = "/target\n";

pub(crate) fn run(name: &str, path: Option<&Path>, carnet_path: Option<&Path>) -> Result<(), String> {
    check_name(name)?;
    let dir = path.map_or_else(|| PathBuf::from(name), Path::to_path_buf);
    if dir.exists() && fs::read_dir(&dir).map_or(true, |mut entries| entries.next().is_some()) {
        return Err(format!(
            "error: `{}` exists and is not empty: `carnet new` writes a new crate (`carnet init` adds content to a crate)",
            dir.display()
        ));
    }
    let checkout = match carnet_path {
        Some(path) => {
            let path = std::path::absolute(path).map_err(|e| format!("error: `{}`: {e}", path.display()))?;
            if !path.join("carnet-codegen/Cargo.toml").is_file() {
                return Err(format!(
                    "error: `{}` is not a carnet checkout (no carnet-codegen/Cargo.toml)",
                    path.display()
                ));
            }
            Some(path)
        }
        None => own_checkout(),
    };
    let ident = name.replace('-', "_");
    let standalone = inside_workspace(&dir);
    let code: Vec<(&str, String)> = vec![
        ("Cargo.toml", cargo_toml(name, checkout.as_deref(), standalone)),
        (".gitignore", GITIGNORE.to_owned()),
        ("build.rs", init::BUILD_RS.to_owned()),
        ("src/lib.rs", lib_rs(name)),
        ("src/notes.rs", init::NOTES_RS.to_owned()),
        ("src/main.rs", main_rs(&ident)),
        ("examples/conversation.rs", conversation_rs(&ident)),
        ("tests/agent.rs", test_rs(&ident)),
    ];
    let content = init::FILES
        .iter()
        .map(|(relative, text)| (format!("carnet/{relative}"), (*text).to_owned()));
    for (relative, text) in code.into_iter().map(|(r, t)| (r.to_owned(), t)).chain(content) {
        let path = dir.join(&relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| format!("error: cannot create `{}`: {e}", parent.display()))?;
        }
        fs::write(&path, text).map_err(|e| format!("error: cannot write `{}`: {e}", path.display()))?;
        outln!("created  {}", path.display());
    }
    // The checkout's lock file pins what it was tested with; Cargo drops what the crate
    // does not use.
    if let Some(lock) = checkout.as_ref().map(|c| c.join("Cargo.lock")).filter(|l| l.is_file()) {
        fs::copy(&lock, dir.join("Cargo.lock")).map_err(|e| format!("error: cannot copy `{}`: {e}", lock.display()))?;
        outln!(
            "created  {} (from the carnet checkout)",
            dir.join("Cargo.lock").display()
        );
    }
    let source = match &checkout {
        Some(path) => format!("carnet from `{}`", path.display()),
        None => format!("carnet {} from crates.io", env!("CARGO_PKG_VERSION")),
    };
    outln!(
        "\ncrate `{name}` ({source}); next:\n  cd {}\n  cargo run -- tools assistant       # the tools its model is offered, with their real schemas\n  cargo run -- stats                 # tokens per model call\n  cargo run --example conversation   # a conversation with a scripted model, offline\n  cargo test                         # the agent tested with carnet::testing",
        dir.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cargo_and_rust_take() {
        assert!(check_name("weather-desk").is_ok());
        assert!(check_name("desk_2").is_ok());
        for bad in ["", "2desk", "-desk", "weather desk", "désk", "carnet", "test"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }
}
