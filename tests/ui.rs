//! Compile-time behaviour of `#[carnet::toolset]` / `#[carnet::tool]`: one `compile_fail`
//! case per diagnostic in `tests/ui/` (with the `.stderr` trybuild generated), the `pass`
//! cases in `tests/pass/`, and the examples of the attributes' reference
//! (`carnet-macros/src/toolset.md`) as written, against the content in `tests/carnet/`.
//!
//! Regenerate the `.stderr` files after an intended change with
//! `TRYBUILD=overwrite cargo test -p carnet --test ui`, then review them.

#![allow(unsafe_code)] // `set_var`, before trybuild starts (the only thread touching the environment)

use std::path::Path;

#[test]
fn ui() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Shaped like a build script's `OUT_DIR` (`<name>-<16 hex>/out`), which trybuild writes
    // as `$OUT_DIR[carnet-ui]` in the expected output: rustc's notes may point into the
    // generated module, and the checkout's path must not reach the `.stderr` files.
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("carnet-ui-0000000000000000/out");
    let mut config = carnet_codegen::Config::new();
    config.dir(root.join("tests/carnet")).crate_dir(root).out_dir(&out);
    config
        .compile()
        .unwrap_or_else(|e| panic!("tests/carnet does not compile: {e}"));
    // The whole manifest as JSON, for the cases that build an engine from it (the build
    // script writes only what the macros read).
    let json = out.join("carnet/manifest.json");
    std::fs::write(&json, config.manifest().unwrap().to_json()).unwrap();
    // SAFETY: no other thread reads or writes the environment while this test sets it.
    unsafe {
        // As a build script's, for the reference's `carnet::include_manifest!()`.
        std::env::set_var("OUT_DIR", &out);
        std::env::set_var("CARNET_MANIFEST", out.join("carnet/bindings.json"));
        std::env::set_var("CARNET_UI_MANIFEST_JSON", &json);
        std::env::set_var("CARNET_UI_MANIFEST_RS", out.join("carnet/manifest.rs"));
    }
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
    cases.pass("tests/pass/*.rs");
    let reference = root.join("carnet-macros/src/toolset.md");
    for example in examples(&reference, &out.join("reference")) {
        cases.pass(example);
    }
}

/// One mistake, one error (issue 54): each case's `.stderr` (which `ui` checks is what rustc
/// prints) holds one error per mistake in the case and, where the error is about a name, not
/// the type-level spellings of toolset names that read as something else (`Letter<..>`,
/// `ToolsetOf<..>`, the tuple of letters rustc described by its length) nor a hidden path
/// (`carnet::__private::`).
#[test]
fn one_mistake_one_error() {
    let ui = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    // (case, its mistakes, whether its text is free of the type-level names)
    let cases = [
        ("unknown-toolset", 1, true),
        ("misspelled-toolset-with-toolset-used", 1, true),
        ("unknown-toolset-with-toolset-used", 1, true),
        ("generic-tool-with-toolset-used", 1, true),
        ("missing-toolset-field", 1, true),
        ("misspelled-toolset-field", 1, true),
        // Two misplaced implementations, each a mismatch at it; rustc's note under each
        // spells both toolsets' names (`BoundToolset<ToolsetNamed<'m', 'a', 't', 'h'>, _>`).
        ("swapped-toolsets-in-struct", 2, true),
        ("wrong-toolset-in-field", 2, true),
    ];
    for (case, mistakes, plain) in cases {
        let path = ui.join(format!("{case}.stderr"));
        let stderr = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let errors = stderr.lines().filter(|line| line.starts_with("error")).count();
        assert_eq!(
            errors, mistakes,
            "{case}: {errors} errors for {mistakes} mistakes:\n{stderr}"
        );
        if plain {
            for internal in ["Letter<", "ToolsetOf<", "a tuple with", "__private"] {
                assert!(!stderr.contains(internal), "{case} names `{internal}..>`:\n{stderr}");
            }
        }
    }
}

/// The Rust code blocks of a markdown file, written to `dir` as programs the way rustdoc
/// would compile them: `# ` lines shown to the compiler, an empty `main` added where the
/// block has none. rustdoc cannot run these (they are marked `ignore`): the attributes need
/// the manifest a build script writes, which a doctest does not have.
fn examples(markdown: &Path, dir: &Path) -> Vec<std::path::PathBuf> {
    let text = std::fs::read_to_string(markdown).unwrap_or_else(|e| panic!("{}: {e}", markdown.display()));
    std::fs::create_dir_all(dir).unwrap();
    let stem = markdown.file_stem().unwrap().to_string_lossy();
    let mut paths = Vec::new();
    let mut block: Option<String> = None;
    for line in text.lines() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut block, fence) {
            (None, Some(info)) if info.split(',').any(|tag| tag.trim() == "rust") => block = Some(String::new()),
            (Some(code), Some(_)) => {
                if !code.contains("fn main") {
                    code.push_str("\nfn main() {}\n");
                }
                let path = dir.join(format!("{stem}-reference-{}.rs", paths.len() + 1));
                std::fs::write(&path, code).unwrap();
                paths.push(path);
                block = None;
            }
            (Some(code), None) => {
                let trimmed = line.trim_start();
                let shown = match trimmed.strip_prefix("# ") {
                    Some(hidden) => hidden,
                    None if trimmed == "#" => "",
                    None => line,
                };
                code.push_str(shown);
                code.push('\n');
            }
            (None, _) => {}
        }
    }
    assert!(!paths.is_empty(), "no Rust examples in {}", markdown.display());
    paths
}
