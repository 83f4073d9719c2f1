//! What one edit changes in the generated module (issue 17): editing a skill's body
//! rewrites one text file and the offsets into it, nothing else but the fingerprint, so
//! Cargo's and rustc's incremental work stays small.

use std::fs;
use std::path::Path;

use carnet_codegen::{Config, Generated};

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// An agent with 40 skills whose bodies go to text files; `edited` lengthens skill 7's.
fn catalog(root: &Path, edited: bool) {
    let names: Vec<String> = (0..40).map(|i| format!("skill-{i:02}")).collect();
    write(
        root,
        "agents/main/AGENT.md",
        &format!(
            "---\nname: main\ndescription: The agent\nskills: [{}]\n---\nYou help.\n",
            names.join(", ")
        ),
    );
    for (i, name) in names.iter().enumerate() {
        let mut body = format!("Instructions of skill {i}, long enough to live in a text file.\n").repeat(12);
        if edited && i == 7 {
            body.push_str("Edited for the rebuild.\n");
        }
        write(
            root,
            &format!("skills/{name}/SKILL.md"),
            &format!("---\nname: {name}\ndescription: Skill number {i}\n---\n{body}"),
        );
    }
}

fn generate(root: &Path) -> Generated {
    Config::new()
        .dir(root)
        .crate_dir(root)
        .generate()
        .expect("the catalog compiles")
}

#[test]
fn editing_one_body_changes_one_text_file_and_the_offsets_into_it() {
    let dir = tempfile::tempdir().unwrap();
    catalog(dir.path(), false);
    let before = generate(dir.path());
    catalog(dir.path(), true);
    let after = generate(dir.path());

    assert!(before.texts.len() >= 4, "{} text files", before.texts.len());
    assert_eq!(before.texts.len(), after.texts.len());
    let changed: Vec<usize> = (0..before.texts.len())
        .filter(|&i| before.texts[i] != after.texts[i])
        .collect();
    assert_eq!(changed.len(), 1, "text files changed: {changed:?}");
    let file = format!("TEXT{}, ", changed[0]);

    let (old, new): (Vec<&str>, Vec<&str>) = (before.code.lines().collect(), after.code.lines().collect());
    assert_eq!(old.len(), new.len());
    let differing: Vec<(&str, &str)> = old
        .iter()
        .zip(&new)
        .filter(|(a, b)| a != b)
        .map(|(a, b)| (*a, *b))
        .collect();
    let fingerprint = |line: &str| line.trim_start().starts_with("0x");
    assert!(
        differing
            .iter()
            .all(|(a, b)| (a.contains(&file) && b.contains(&file)) || (fingerprint(a) && fingerprint(b))),
        "{differing:#?}"
    );
    // Skill 7's body and the entries after it in the same file, and the fingerprint.
    assert!((2..=12).contains(&differing.len()), "{differing:#?}");
}
