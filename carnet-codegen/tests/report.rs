//! What a check reports and how a compilation fails, through the public API a build script
//! and the `carnet` command use: [`Report`]'s accessors, [`Error`]'s messages and sources,
//! [`Config::compile`] writing into a folder and refusing without one, and the fuzz targets'
//! entry points on hostile input (issue 54: what coverage found no test for).

use std::error::Error as _;
use std::fs;
use std::path::{Path, PathBuf};

use carnet_codegen::{Config, Error};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// A carnet directory with one agent, one skill and one toolset, in a fresh folder.
fn content(root: &Path, config: &str) -> PathBuf {
    let dir = root.join("carnet");
    let files = [
        (
            "agents/helper/AGENT.md",
            "---\nname: helper\ndescription: Helps\nskills: [greet]\n---\nYou help.\n",
        ),
        (
            "skills/greet/SKILL.md",
            "---\nname: greet\ndescription: Greets people\ntoolsets: [hello]\n---\nCall sayHello.\n",
        ),
        (
            "toolsets/hello/TOOLSET.md",
            "---\nname: hello\ndescription: Hello\ntools:\n  - name: sayHello\n    description: Says hello\n---\n",
        ),
        ("carnet.config.json", config),
    ];
    for (path, text) in files {
        let path = dir.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    dir
}

#[test]
fn a_report_says_its_stages_its_files_and_where_the_manifest_goes() {
    let root = tempfile::tempdir().unwrap();
    let dir = content(root.path(), "{}");
    let report = Config::new().dir(&dir).check();
    assert!(!report.has_errors(), "{}", report.render(false));
    let stages: Vec<&str> = report.timings().iter().map(|(stage, _)| *stage).collect();
    assert_eq!(stages.first(), Some(&"discover"), "{stages:?}");
    assert_eq!(&stages[stages.len() - 2..], ["validate", "lower"]);
    let read: Vec<String> = report
        .files_read()
        .iter()
        .map(|p| p.strip_prefix(&dir).unwrap_or(p).display().to_string())
        .collect();
    assert!(read.contains(&"skills/greet/SKILL.md".to_owned()), "{read:?}");
    assert_eq!(report.default_output(), dir.join("carnet.manifest.json"));
    assert!(report.remote_toolsets().is_empty());
    let debug = format!("{report:?}");
    assert!(
        debug.starts_with("Report {") && debug.contains("manifest: Some(\"..\")"),
        "{debug}"
    );

    // `output` in the config: relative to the folder holding the carnet directory.
    let other = tempfile::tempdir().unwrap();
    let dir = content(other.path(), r#"{"output": "gen"}"#);
    let report = Config::new().dir(&dir).check();
    assert_eq!(report.default_output(), other.path().join("gen/carnet.manifest.json"));
}

#[test]
fn remote_toolsets_are_listed_even_from_content_with_errors() {
    let report = Config::new().dir(repo().join("tests/remote/desk")).check();
    let mut names: Vec<String> = report.remote_toolsets().into_iter().map(|t| t.name).collect();
    names.sort();
    assert_eq!(names, ["filesystem", "time"]);

    // A pin that is missing is an error; the toolset is still listed, to be pinned.
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("carnet");
    for entry in ["agents", "skills", "toolsets"] {
        copy(&repo().join("tests/remote/desk").join(entry), &dir.join(entry));
    }
    fs::remove_file(dir.join("toolsets/time/mcp.lock.json")).unwrap();
    let report = Config::new().dir(&dir).check();
    assert!(report.has_errors());
    let time = report.remote_toolsets().into_iter().find(|t| t.name == "time").unwrap();
    assert_eq!(time.pin_path, dir.join("toolsets/time/mcp.lock.json"));
}

fn copy(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &to.join(entry.file_name()));
        } else {
            fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

#[test]
fn errors_say_the_first_problem_and_how_many_more() {
    let root = tempfile::tempdir().unwrap();
    let dir = content(root.path(), "{}");
    // One error: an agent naming a skill that does not exist.
    fs::write(
        dir.join("agents/helper/AGENT.md"),
        "---\nname: helper\ndescription: Helps\nskills: [greet, nope]\n---\nYou help.\n",
    )
    .unwrap();
    let one = Config::new().dir(&dir).manifest().unwrap_err();
    let text = one.to_string();
    assert!(text.contains("error[E") && !text.contains("more error"), "{text}");
    assert_eq!(one.diagnostics().len(), 1, "{text}");
    assert!(one.source().is_none());

    // Two more: the whole count is said after the first.
    fs::write(
        dir.join("agents/helper/AGENT.md"),
        "---\nname: helper\ndescription: Helps\nskills: [greet, nope, nada, niente]\n---\nYou help.\n",
    )
    .unwrap();
    let three = Config::new().dir(&dir).generate().unwrap_err();
    assert!(three.to_string().ends_with("(and 2 more errors)"), "{three}");
    assert!(matches!(three, Error::Content(_)));
}

#[test]
fn compile_writes_into_its_folder_and_refuses_without_one() {
    let root = tempfile::tempdir().unwrap();
    let dir = content(root.path(), "{}");
    let out = root.path().join("out");
    Config::new()
        .dir(&dir)
        .out_dir(&out)
        .crate_dir(root.path())
        .compile()
        .unwrap();
    for file in ["manifest.rs", "bindings.json", "search.bin"] {
        assert!(out.join("carnet").join(file).is_file(), "{file}");
    }
    let code = fs::read_to_string(out.join("carnet/manifest.rs")).unwrap();
    assert!(code.contains("sayHello") || code.contains("SAY_HELLO"), "{code}");
    // Again, unchanged: the files are left as they are (no rebuild of what includes them).
    let before = fs::metadata(out.join("carnet/manifest.rs"))
        .unwrap()
        .modified()
        .unwrap();
    Config::new()
        .dir(&dir)
        .out_dir(&out)
        .crate_dir(root.path())
        .compile()
        .unwrap();
    let after = fs::metadata(out.join("carnet/manifest.rs"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after);

    // An output folder that is a file: the path and the cause.
    let blocked = root.path().join("blocked");
    fs::write(&blocked, "a file").unwrap();
    let error = Config::new().dir(&dir).out_dir(&blocked).compile().unwrap_err();
    assert!(matches!(error, Error::Io { .. }), "{error:?}");
    assert!(error.to_string().starts_with("cannot write `"), "{error}");
    assert!(error.source().is_some());
    assert!(error.diagnostics().is_empty());

    // Content errors stop before anything is written.
    let broken = tempfile::tempdir().unwrap();
    let bad = content(broken.path(), "{}");
    fs::write(bad.join("skills/greet/SKILL.md"), "---\nname: [\n---\n").unwrap();
    let error = Config::new()
        .dir(&bad)
        .out_dir(broken.path().join("out"))
        .compile()
        .unwrap_err();
    assert!(!error.diagnostics().is_empty());
    assert!(!broken.path().join("out/carnet/manifest.rs").exists());
}

#[test]
fn compile_outside_a_build_script_names_what_is_missing() {
    // Test binaries run without `OUT_DIR` (Cargo sets it for build scripts only).
    if std::env::var_os("OUT_DIR").is_some() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let dir = content(root.path(), "{}");
    let error = carnet_codegen::compile(&dir).unwrap_err();
    assert!(matches!(error, Error::OutDir));
    assert!(error.to_string().contains("`OUT_DIR` is not set"), "{error}");
}

/// The fuzz targets' entry points (`fuzz/`, run by CI on nightly): hostile text gives
/// diagnostics, never a panic, and rendering escapes control characters.
#[test]
fn fuzz_entry_points_take_hostile_text() {
    use carnet_codegen::__fuzz;
    for text in [
        "",
        "---\n",
        "---\nname: x\n---\n",
        "---\nname: [\n---\n",
        "---\nname: \u{1b}[31mred\ndescription: a: b\n---\nbody",
        "---\ntools:\n  - {name: 1}\n  - [\n---\n",
        "\u{feff}---\r\nname: crlf\r\ndescription: d\r\n---\r\n",
    ] {
        let _ = __fuzz::frontmatter(text);
    }
    assert!(__fuzz::frontmatter("---\nname: [\n---\n") > 0);
    for text in [
        "",
        "{",
        "[]",
        r#"{"include": 3}"#,
        r#"{"output": "x", "allow": ["E0001"]}"#,
    ] {
        __fuzz::config(text);
    }
    assert!(__fuzz::glob("skills/**", "skills/a/SKILL.md"));
    assert!(!__fuzz::glob("agents/*", "skills/a/SKILL.md"));
}
