//! `carnet init`: scaffolds a carnet directory that passes `carnet check`.

use std::fs;
use std::path::Path;

const FILES: &[(&str, &str)] = &[
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

pub(crate) fn run(dir: &Path) -> Result<(), String> {
    let mut created = 0;
    for (relative, contents) in FILES {
        let path = dir.join(relative);
        if path.exists() {
            outln!("exists   {} (kept)", path.display());
            continue;
        }
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| format!("error: cannot create `{}`: {e}", parent.display()))?;
        }
        // `create_new` so a file appearing meanwhile is never overwritten.
        fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, contents.as_bytes()))
            .map_err(|e| format!("error: cannot write `{}`: {e}", path.display()))?;
        outln!("created  {}", path.display());
        created += 1;
    }
    if created > 0 {
        outln!("\nnext: `carnet check --dir {}`", dir.display());
    } else {
        outln!("nothing to do: every file already exists");
    }
    Ok(())
}
