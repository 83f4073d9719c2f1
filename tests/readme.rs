//! The README's commands stay true: its first two are the example agent, offline, and the
//! test command CI runs (`.ci/run`), and its quick start is what `tests/new/run.sh` runs on
//! the crate `carnet new` writes.

use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// The commands of the README's first `sh` block after the heading `heading` (or the first
/// of the file), comments dropped.
fn commands(readme: &str, heading: Option<&str>) -> Vec<String> {
    let from = heading.map_or(0, |h| {
        readme.find(h).unwrap_or_else(|| panic!("no {h:?} in the README"))
    });
    let block = &readme[from..];
    let start = block.find("```sh\n").expect("an sh block") + 6;
    let end = start + block[start..].find("```").unwrap();
    block[start..end]
        .lines()
        .map(|l| l.split("  #").next().unwrap().trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn the_first_two_commands_run_the_example_and_the_tests_ci_runs() {
    let readme = read("README.md");
    let first = commands(&readme, None);
    assert_eq!(first, ["cargo run -p research-agent", "bash .ci/test"]);
    assert!(
        read(".ci/run")
            .lines()
            .any(|l| l.trim_start().starts_with("bash .ci/test")),
        ".ci/run runs the README's test command"
    );
    assert!(read("examples/research-agent/Cargo.toml").contains("name = \"research-agent\""));
}

#[test]
fn the_quick_start_is_what_ci_runs_on_a_new_crate() {
    let readme = read("README.md");
    let quick = commands(&readme, Some("## Quick start"));
    let ci = read("tests/new/run.sh");
    for command in &quick {
        let tail = command
            .trim_start_matches("cargo run")
            .trim_start_matches("cargo")
            .trim();
        match command.as_str() {
            "cargo install --path carnet-cli" => assert!(read("carnet-cli/Cargo.toml").contains("name = \"carnet\"")),
            c if c.starts_with("carnet new ") => assert!(ci.contains("\" new ")),
            c if c.starts_with("cd ") => {}
            c if c.starts_with("cargo test") => assert!(ci.contains("cargo test"), "{c}"),
            _ => assert!(ci.contains(tail), "tests/new/run.sh does not run `{command}`"),
        }
    }
    assert!(quick.iter().any(|c| c.starts_with("carnet new ")), "{quick:?}");
}
