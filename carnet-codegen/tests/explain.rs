//! The error index kept true: every code's page (`src/explain/EXXXX.md`, printed by
//! `carnet explain`) has the shape of rustc's error index, its erroneous example really
//! produces the code, and its fixed example has no error. The guide's page
//! `docs/reference/errors.md` is generated from the same files; re-bless it with
//! `CARNET_BLESS=1 cargo test -p carnet-codegen --test explain`.

use std::fmt::Write as _;
use std::path::Path;

use carnet_codegen::{Code, Config, Severity};

mod common;

/// Codes whose erroneous example cannot be written as text, with the reason and the test that
/// produces the code instead. Their pages show the situation in a `text` block.
const NOT_WRITTEN: &[(&str, &str)] = &[
    (
        "E0015",
        "a file the build cannot read: permissions (tests/fixtures/invalid/multi-error-unreadable-files)",
    ),
    (
        "E0020",
        "a symbolic link (tests/fixtures/invalid/skill-folder-symlink-escape)",
    ),
    (
        "E0024",
        "bytes that are not UTF-8 (tests/fixtures/invalid/skill-not-utf8)",
    ),
    ("E0026", "a directory that does not exist (tests/invalid.rs)"),
    ("W0006", "a file over 4 MiB (src/validate/files.rs unit tests)"),
    ("E0030", "a FIFO or a device (tests/hostile.rs)"),
    ("E0031", "a folder without read permission (tests/hostile.rs)"),
    (
        "E0040",
        "a pin written by `carnet mcp pin` from a server serving skills (tests/remote)",
    ),
    (
        "E0041",
        "a pin written by `carnet mcp pin` from a server serving skills (tests/remote)",
    ),
];

/// The fenced blocks of a page: (info string, text).
fn blocks(page: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = page.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.strip_prefix("```") else { continue };
        let mut text = String::new();
        for line in lines.by_ref() {
            if line == "```" {
                break;
            }
            text.push_str(line);
            text.push('\n');
        }
        out.push((info.trim().to_owned(), text));
    }
    out
}

/// Writes an example's files (each after a `==> path <==` line) under `dir`.
fn write_example(dir: &Path, example: &str) {
    let mut path: Option<String> = None;
    let mut text = String::new();
    let flush = |path: &Option<String>, text: &mut String| {
        if let Some(path) = path {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, std::mem::take(text)).unwrap();
        }
    };
    for line in example.lines() {
        if let Some(p) = line.strip_prefix("==> ").and_then(|l| l.strip_suffix(" <==")) {
            flush(&path, &mut text);
            path = Some(p.to_owned());
        } else {
            assert!(path.is_some(), "an example starts with a `==> path <==` line: {line:?}");
            text.push_str(line);
            text.push('\n');
        }
    }
    flush(&path, &mut text);
}

fn check(example: &str) -> Vec<(Code, Severity, String)> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("carnet");
    std::fs::create_dir_all(&root).unwrap();
    write_example(&root, example);
    Config::new()
        .dir(&root)
        .check()
        .diagnostics()
        .iter()
        .map(|d| (d.code, d.code.severity(), d.message.clone()))
        .collect()
}

#[test]
fn every_page_has_the_shape_of_an_error_index_entry() {
    for &code in Code::ALL {
        let page = code.explanation();
        let title = page.lines().next().unwrap_or_default();
        assert!(
            title.starts_with(&format!("# {code}: ")),
            "{code}: the page starts with `# {code}: <what it means>`, not {title:?}"
        );
        let wrong = format!("carnet,{code}");
        let blocks = blocks(page);
        let written = blocks.iter().filter(|(info, _)| *info == wrong).count();
        let fixed = blocks.iter().filter(|(info, _)| info == "carnet").count();
        let not_written = NOT_WRITTEN.iter().any(|(c, _)| *c == code.as_str());
        if not_written {
            assert_eq!(
                written, 0,
                "{code} is listed as not written, yet has a `{wrong}` example"
            );
            assert!(
                blocks.iter().any(|(info, _)| info == "text"),
                "{code}: show the situation in a `text` block"
            );
        } else {
            assert_eq!(written, 1, "{code}: one erroneous example in a ```{wrong} block");
            assert!(fixed >= 1, "{code}: a fixed example in a ```carnet block");
        }
        assert!(
            page.contains("Erroneous example") && (not_written || page.contains("Fixed")),
            "{code}: the sections are `Erroneous example` and `Fixed`"
        );
    }
}

#[test]
fn every_erroneous_example_produces_its_code_and_every_fixed_one_has_no_error() {
    let mut failures = Vec::new();
    for &code in Code::ALL {
        for (info, text) in blocks(code.explanation()) {
            if info == format!("carnet,{code}") {
                let found = check(&text);
                if !found.iter().any(|(c, ..)| *c == code) {
                    failures.push(format!("{code}: the erroneous example gives {found:?}, not {code}"));
                }
            } else if info == "carnet" {
                let found = check(&text);
                let bad: Vec<_> = found
                    .iter()
                    .filter(|(c, severity, _)| *severity == Severity::Error || *c == code)
                    .collect();
                if !bad.is_empty() {
                    failures.push(format!("{code}: the fixed example still gives {bad:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn codes_are_found_by_code_or_name() {
    for &code in Code::ALL {
        assert_eq!(carnet_codegen::explain::parse_code(code.as_str()), Some(code));
        assert_eq!(
            carnet_codegen::explain::parse_code(&code.as_str().to_lowercase()),
            Some(code)
        );
        assert_eq!(carnet_codegen::explain::parse_code(code.name()), Some(code));
    }
    assert_eq!(carnet_codegen::explain::parse_code("E9999"), None);
}

/// The guide's error index: every page, in code order, its title one level down.
fn error_index() -> String {
    let mut out = String::from(
        "<!-- @generated by carnet-codegen/tests/explain.rs from carnet-codegen/src/explain/*.md: \
         edit those, then CARNET_BLESS=1 cargo test -p carnet-codegen --test explain -->\n\n\
         # Error index\n\n\
         Every diagnostic `carnet check` and `cargo build` print has a stable code: `E` codes are \
         errors (the build fails), `W` codes warnings (`\"allow\": [\"skill-name-style\"]` in \
         `carnet.config.json` silences one). `carnet explain CODE` prints the same pages in a \
         terminal. Each erroneous example below is checked in CI to produce its code, and each \
         fixed one to build.\n\n\
         An example is a carnet directory written out: each file starts with a `==> path <==` \
         line, as `head` prints several files.\n\n",
    );
    for &code in Code::ALL {
        let _ = writeln!(out, "- [{code}](#{}): {}", code.as_str().to_lowercase(), code.summary());
    }
    for &code in Code::ALL {
        let _ = writeln!(out, "\n<a id=\"{}\"></a>\n", code.as_str().to_lowercase());
        let mut in_fence = false;
        for line in code.explanation().lines() {
            in_fence ^= line.starts_with("```");
            if !in_fence && line.starts_with('#') {
                out.push('#');
            }
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[test]
fn the_guide_error_index_is_generated_from_the_pages() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/reference/errors.md");
    if let Err(e) = common::check_or_bless(
        &path,
        &error_index(),
        "CARNET_BLESS=1 cargo test -p carnet-codegen --test explain",
    ) {
        panic!("{e}");
    }
}
