//! `carnet init`: scaffolds a carnet directory that passes `carnet check`.

use std::fs;
use std::path::Path;

/// The content, relative to the carnet directory (also `carnet new`'s `carnet/`).
pub(crate) const FILES: &[(&str, &str)] = &[
    (
        "carnet.config.json",
        r#"{
  "app": {
    "globalInitialSkills": [],
    "globalSkills": []
  },
  "variables": {
    "ASSISTANT_NAME": "Carnet"
  },
  "envPrefix": ["CARNET_", "PUBLIC_"],
  "include": [],
  "exclude": []
}
"#,
    ),
    (
        "agents/assistant/AGENT.md",
        "---
name: assistant
description: A helpful assistant that keeps notes for the user
initialSkills: []
skills: [note-taking]
---
You are {{ ASSISTANT_NAME }}, a concise and helpful assistant.

Load a skill from the catalog when the user's request needs it.
",
    ),
    (
        "skills/note-taking/SKILL.md",
        "---
name: note-taking
description: Write, find and list the user's notes. Use when the user asks to remember, recall or organise something.
toolsets: [notes]
files:
  - path: references/style.md
    description: How to title and tag notes; load it before writing a note
---
# Note taking

Use `addNote` to save what the user wants remembered, `searchNotes` to find notes by
keyword and `listNotes` to show recent ones. Confirm what you saved in one sentence.
",
    ),
    (
        "skills/note-taking/references/style.md",
        "# Note style

- Titles: five words or fewer, sentence case.
- Tags: lowercase, one word each, at most three.
",
    ),
    (
        "toolsets/notes/TOOLSET.md",
        "---
name: notes
description: Store and retrieve the user's notes
tools:
  - name: addNote
    description: Save a note with a title, a body and optional tags
  - name: listNotes
    description: List the most recent notes
  - searchNotes
---
# Notes toolset

Notes are plain text. Search matches words in titles, bodies and tags.
",
    ),
    (
        "toolsets/notes/searchNotes.md",
        "---
name: searchNotes
description: Find notes whose title, body or tags contain every given keyword
---
Returns at most 20 notes, most recent first.
",
    ),
];

/// `cargo new`'s `src/main.rs`, which `carnet init` may replace.
const HELLO_WORLD: &str = "fn main() {\n    println!(\"Hello, world!\");\n}\n";

/// The build script compiling `carnet/` (also `carnet new`'s).
pub(crate) const BUILD_RS: &str = "//! Compiles `carnet/` into the manifest `carnet::include_manifest!()` includes.

fn main() {
    carnet_codegen::compile(\"carnet\").unwrap_or_else(|e| e.exit());
}
";

/// The tools of toolset `notes`, bound in Rust (also `carnet new`'s).
pub(crate) const NOTES_RS: &str = r#"//! The tools of toolset `notes` (carnet/toolsets/notes/TOOLSET.md), bound by
//! `#[carnet::toolset]`: a tool the toolset declares without a function here, or a function
//! for a tool it does not declare, is a compile error.

use std::sync::Mutex;

/// Notes kept in memory: title, body, tags.
#[derive(Debug, Default)]
pub struct Notes {
    notes: Mutex<Vec<(String, String, Vec<String>)>>,
}

#[carnet::toolset("notes")]
impl Notes {
    /// Saves a note.
    #[carnet::tool]
    pub fn add_note(&self, title: String, body: String, tags: Option<Vec<String>>) -> String {
        let mut notes = self.notes.lock().expect("no tool panics while holding the lock");
        notes.push((title.clone(), body, tags.unwrap_or_default()));
        format!("saved note {}: {title}", notes.len())
    }

    /// Lists the titles of the most recent notes, newest first.
    #[carnet::tool]
    pub fn list_notes(&self) -> Vec<String> {
        let notes = self.notes.lock().expect("no tool panics while holding the lock");
        notes.iter().rev().take(20).map(|(title, _, _)| title.clone()).collect()
    }

    /// Finds the notes containing every keyword, newest first.
    #[carnet::tool]
    pub fn search_notes(&self, keywords: Vec<String>) -> Vec<String> {
        let notes = self.notes.lock().expect("no tool panics while holding the lock");
        notes
            .iter()
            .rev()
            .filter(|(title, body, tags)| {
                let text = format!("{title} {body} {}", tags.join(" ")).to_lowercase();
                keywords.iter().all(|k| text.contains(&k.to_lowercase()))
            })
            .map(|(title, _, _)| title.clone())
            .collect()
    }
}
"#;

/// The code of a Rust project using the scaffolded content (relative to the project root).
const CODE: &[(&str, &str)] = &[
    ("build.rs", BUILD_RS),
    ("src/notes.rs", NOTES_RS),
    (
        "src/main.rs",
        r##"//! A carnet agent: its content lives in `carnet/` (compiled by `build.rs`), its tools in
//! `notes.rs`. Run it with `cargo run`.

mod notes;

carnet::include_manifest!();

fn main() {
    let toolsets = manifest::Toolsets { notes: notes::Notes::default().toolset() };
    let carnet = carnet::Carnet::new(&manifest::MANIFEST, toolsets)
        .build()
        .expect("every toolset is bound");
    let mut session = carnet.session(manifest::agents::ASSISTANT);
    println!("{}\n", session.system_prompt());

    // What a model does: load the skill, then call its tools.
    for (tool, arguments) in [
        ("addNote", r#"{"title": "Groceries", "body": "eggs, milk"}"#),
        ("loadSkill", r#"{"skillName": "note-taking"}"#),
        ("addNote", r#"{"title": "Groceries", "body": "eggs, milk", "tags": ["home"]}"#),
        ("searchNotes", r#"{"keywords": ["milk"]}"#),
    ] {
        let output = carnet::tools::block_on(session.call_json(tool, arguments));
        println!("{tool} {arguments}\n  -> {}", output.to_text());
    }
}
"##,
    ),
];

/// Writes `contents` to `path` unless it exists (or is `cargo new`'s main, for `src/main.rs`).
fn write_new(path: &Path, contents: &str, replaceable: Option<&str>) -> Result<bool, String> {
    if path.exists() {
        let replace = replaceable.is_some_and(|r| fs::read_to_string(path).is_ok_and(|old| old == r));
        if !replace {
            outln!("exists   {} (kept)", path.display());
            return Ok(false);
        }
        fs::write(path, contents).map_err(|e| format!("error: cannot write `{}`: {e}", path.display()))?;
        outln!("replaced {} (cargo new's hello world)", path.display());
        return Ok(true);
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| format!("error: cannot create `{}`: {e}", parent.display()))?;
    }
    // `create_new` so a file appearing meanwhile is never overwritten.
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, contents.as_bytes()))
        .map_err(|e| format!("error: cannot write `{}`: {e}", path.display()))?;
    outln!("created  {}", path.display());
    Ok(true)
}

pub(crate) fn run(dir: &Path) -> Result<(), String> {
    let mut created = 0;
    for (relative, contents) in FILES {
        let path = dir.join(relative);
        if write_new(&path, contents, None)? {
            created += 1;
        }
    }
    // Inside a Cargo project (the content folder's parent has a Cargo.toml): the code too.
    let project = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let in_project = project.join("Cargo.toml").is_file() && dir.file_name().is_some_and(|n| n == "carnet");
    if in_project {
        for (relative, contents) in CODE {
            let replaceable = (*relative == "src/main.rs").then_some(HELLO_WORLD);
            if write_new(&project.join(relative), contents, replaceable)? {
                created += 1;
            }
        }
    }
    if created > 0 && in_project {
        outln!(
            "\nnext, in {}:\n  cargo add carnet\n  cargo add --build carnet-codegen\n  cargo run\n(with a local checkout: `cargo add carnet --path <checkout>` and `cargo add --build carnet-codegen --path <checkout>/carnet-codegen`)",
            project.display()
        );
    } else if created > 0 {
        outln!("\nnext: `carnet check --dir {}`", dir.display());
    } else {
        outln!("nothing to do: every file already exists");
    }
    Ok(())
}
