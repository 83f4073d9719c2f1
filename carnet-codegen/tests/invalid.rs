//! Malformed content: every folder under `tests/fixtures/invalid/` is a carnet directory
//! (`<case>/carnet/`) with one or more mistakes, and `<case>/expected.txt` lists every
//! diagnostic the check must report, one per line:
//!
//! ```text
//! # comments start with `#`
//! E0006 agents/main/AGENT.md:5
//! W0010 -
//! ```
//!
//! that is the code, the file relative to the carnet directory and the 1-based line (`-` for
//! a diagnostic without a location). The lists are compared as sorted lists, duplicates
//! counted, so a case fails on a missing, an extra or a moved diagnostic. Expectations are
//! written by hand from the rules; `CARNET_BLESS=1 cargo test -p carnet-codegen --test
//! invalid` rewrites them from the actual output (review the diff before keeping it).
//!
//! An optional `<case>/rendered.txt` lists lines the rendered report must contain (a hint's
//! words, a note), one per line.
//!
//! Every case runs even when an earlier one fails (a panic included); the test fails once at
//! the end with a diff per failing case.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use carnet_codegen::{Code, Config, Diagnostic, Report, Severity};

/// The folder holding one folder per case.
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/invalid");

/// Cases whose unknown-name diagnostic must come with a `did you mean` hint.
const DID_YOU_MEAN: &[&str] = &["unknown-initial-skill-did-you-mean", "multi-error-research-team"];

/// Symbolic links the fixtures need (path relative to [`FIXTURES`], target). Git stores
/// them, but a checkout with `core.symlinks = false` turns them into plain files, so the
/// runner puts them back before running (on Unix; elsewhere those cases are skipped).
const SYMLINKS: &[(&str, &str)] = &[
    (
        "skill-folder-symlink-escape/carnet/skills/research/notes.md",
        "../../outside.md",
    ),
    (
        "skill-file-listed-symlink-escape/carnet/skills/research/notes.md",
        "../../outside.md",
    ),
    (
        "dangling-symlink-inside-skill/carnet/skills/research/latest.md",
        "v2.md",
    ),
];

#[test]
fn invalid_content_reports_exactly_the_expected_diagnostics() {
    let bless = std::env::var_os("CARNET_BLESS").is_some_and(|v| v == "1");
    let root = Path::new(FIXTURES);
    for (link, target) in SYMLINKS {
        ensure_symlink(&root.join(link), Path::new(target));
    }
    let cases = cases(root);
    assert!(
        cases.len() >= 34,
        "expected at least 34 cases in {FIXTURES}, found {}",
        cases.len()
    );

    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap_or_default().to_string_lossy().into_owned();
        if !cfg!(unix) && SYMLINKS.iter().any(|(link, _)| link.starts_with(&format!("{name}/"))) {
            continue; // the symbolic links are created with `std::os::unix::fs::symlink`
        }
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| run_case(case, &name, bless)));
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(problem)) => failures.push(format!("--- {name}\n{problem}")),
            Err(payload) => failures.push(format!("--- {name}\npanicked: {}", panic_message(&*payload))),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} invalid-content cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn missing_directory_is_reported_without_a_location() {
    let dir = Path::new(FIXTURES).join("no-such-case").join("carnet");
    assert!(!dir.exists());
    let report = Config::new().dir(&dir).check();
    let lines = diagnostic_lines(&dir, report.diagnostics());
    assert_eq!(lines, ["E0026 -"], "{:#?}", report.diagnostics());
    assert!(report.has_errors());
    assert!(report.manifest().is_none());
    assert!(report.render(false).contains("[E0026]"), "{}", report.render(false));
}

/// A file that gave no entity is reported before what refers to that entity: here the
/// skill's unreadable frontmatter (its `name:` line holds a comment, so the name is not
/// guessed) before the agent's unknown skill, though `agents/` sorts before `skills/`.
#[test]
fn the_cause_is_printed_first() {
    let dir = Path::new(FIXTURES).join("skill-with-yaml-error-and-a-name-not-plain/carnet");
    let report = Config::new().dir(&dir).check();
    let codes: Vec<&str> = report.diagnostics().iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["E0001", "E0006"], "{:#?}", report.diagnostics());
    let rendered = report.render(false);
    let cause = rendered.find("[E0001]").expect("the cause is rendered");
    let consequence = rendered.find("[E0006]").expect("the consequence is rendered");
    assert!(cause < consequence, "{rendered}");
}

/// Every case folder, sorted.
fn cases(root: &Path) -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = fs::read_dir(root)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", root.display()))
        .map(|entry| entry.expect("readable fixture entry").path())
        .filter(|path| path.is_dir())
        .collect();
    cases.sort();
    cases
}

/// Checks one case; `Err` holds a readable account of every way it went wrong.
fn run_case(case: &Path, name: &str, bless: bool) -> Result<(), String> {
    let carnet = case.join("carnet");
    let expected_path = case.join("expected.txt");
    let report = Config::new().dir(&carnet).check();
    let actual = diagnostic_lines(&carnet, report.diagnostics());

    if bless {
        write_expected(&expected_path, &actual);
        return Ok(());
    }

    let text =
        fs::read_to_string(&expected_path).map_err(|e| format!("cannot read {}: {e}", expected_path.display()))?;
    let expected = parse_expected(&text);
    let mut problems = Vec::new();
    if expected.is_empty() {
        problems.push("expected.txt lists no diagnostic: every case must report something".to_owned());
    }
    if expected != actual {
        problems.push(diff(&expected, &actual, &carnet, report.diagnostics()));
    }
    problems.extend(check_report(&report, &expected));
    problems.extend(check_rendered(case, &report));
    if DID_YOU_MEAN.contains(&name) {
        let hinted = report
            .diagnostics()
            .iter()
            .any(|d| d.code == Code::UnknownSkill && d.help.as_deref().is_some_and(|h| h.contains("did you mean")));
        if !hinted {
            problems.push("no E0006 diagnostic has a `did you mean` help".to_owned());
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// `<case>/rendered.txt`, when there is one: lines (`#` comments aside) the rendered report
/// must contain, for the words of a diagnostic (a hint, a note) and not only its code.
fn check_rendered(case: &Path, report: &Report) -> Vec<String> {
    let Ok(text) = fs::read_to_string(case.join("rendered.txt")) else {
        return Vec::new();
    };
    let rendered = report.render(false);
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter(|line| !rendered.contains(line))
        .map(|line| format!("the rendered report lacks `{line}`:\n{rendered}"))
        .collect()
}

/// The report-level promises: errors block the manifest, warnings alone do not, and the
/// rendering names every code.
fn check_report(report: &Report, expected: &[String]) -> Vec<String> {
    let mut problems = Vec::new();
    let expects_errors = expected.iter().any(|line| line.starts_with('E'));
    if expects_errors {
        if !report.has_errors() {
            problems.push("expected errors, but `has_errors()` is false".to_owned());
        }
        if report.manifest().is_some() {
            problems.push("the content has errors, but a manifest was produced".to_owned());
        }
    } else {
        if report.has_errors() {
            problems.push("expected warnings only, but `has_errors()` is true".to_owned());
        }
        if report.manifest().is_none() {
            problems.push("warnings only, but no manifest was produced".to_owned());
        }
    }
    match panic::catch_unwind(AssertUnwindSafe(|| report.render(false))) {
        Ok(rendered) => {
            for d in report.diagnostics() {
                let tag = format!("[{}]", d.code.as_str());
                if !rendered.contains(&tag) {
                    problems.push(format!("`render(false)` does not mention {tag}:\n{rendered}"));
                }
            }
            if report.has_errors() && !rendered.contains("error: the content in") {
                problems.push(format!("`render(false)` has no summary line:\n{rendered}"));
            }
            // Then, as rustc does, the codes seen and the command explaining the first.
            let mut codes: Vec<&str> = report.diagnostics().iter().map(|d| d.code.as_str()).collect();
            codes.sort_unstable();
            codes.dedup();
            let last = rendered.lines().last().unwrap_or_default();
            let names_them = codes.len() == 1 || codes.iter().all(|code| last.contains(code));
            if !(last.starts_with("For more information about ")
                && last.ends_with(&format!(", try `carnet explain {}`.", codes[0]))
                && names_them)
            {
                problems.push(format!(
                    "`render(false)` does not end with the `carnet explain` hint:\n{rendered}"
                ));
            }
        }
        Err(payload) => problems.push(format!("`render(false)` panicked: {}", panic_message(&*payload))),
    }
    problems
}

/// `CODE path:line`, path relative to the carnet directory; `CODE -` without a location.
fn diagnostic_lines(carnet: &Path, diagnostics: &[Diagnostic]) -> Vec<String> {
    let mut lines: Vec<String> = diagnostics
        .iter()
        .map(|d| match &d.location {
            Some(location) => {
                let relative = location.path.strip_prefix(carnet).unwrap_or(&location.path);
                let relative: Vec<String> = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                format!("{} {}:{}", d.code.as_str(), relative.join("/"), location.line)
            }
            None => format!("{} -", d.code.as_str()),
        })
        .collect();
    lines.sort();
    lines
}

fn parse_expected(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    lines.sort();
    lines
}

/// Rewrites `expected.txt` with `actual`, keeping its leading comment lines.
fn write_expected(path: &Path, actual: &[String]) {
    let old = fs::read_to_string(path).unwrap_or_default();
    let mut text = String::new();
    for comment in old.lines().take_while(|l| l.starts_with('#')) {
        text.push_str(comment);
        text.push('\n');
    }
    for line in actual {
        text.push_str(line);
        text.push('\n');
    }
    fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

/// Lines only in `expected` (`-`) and only in `actual` (`+`), duplicates counted; each `+`
/// line is followed by the diagnostic's message so a surprise is easy to judge.
fn diff(expected: &[String], actual: &[String], carnet: &Path, diagnostics: &[Diagnostic]) -> String {
    let mut counts: BTreeMap<&str, isize> = BTreeMap::new();
    for line in expected {
        *counts.entry(line).or_default() += 1;
    }
    for line in actual {
        *counts.entry(line).or_default() -= 1;
    }
    let mut out = String::from("diagnostics differ (- expected, not reported; + reported, not expected):\n");
    for (line, count) in &counts {
        for _ in 0..count.unsigned_abs() {
            if *count > 0 {
                let _ = writeln!(out, "  - {line}");
            } else {
                let _ = writeln!(out, "  + {line}");
                for d in diagnostics
                    .iter()
                    .filter(|d| diagnostic_lines(carnet, std::slice::from_ref(d))[0] == *line)
                {
                    let severity = if d.severity() == Severity::Error {
                        "error"
                    } else {
                        "warning"
                    };
                    let _ = writeln!(out, "      {severity}: {}", d.message);
                }
            }
        }
    }
    let _ = writeln!(out, "  actual, complete:");
    for line in actual {
        let _ = writeln!(out, "    {line}");
    }
    out
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(non-string panic payload)".to_owned())
}

#[cfg(unix)]
fn ensure_symlink(link: &Path, target: &Path) {
    if fs::read_link(link).is_ok_and(|current| current == target) {
        return;
    }
    if fs::symlink_metadata(link).is_ok() {
        fs::remove_file(link).unwrap_or_else(|e| panic!("cannot replace {}: {e}", link.display()));
    }
    std::os::unix::fs::symlink(target, link).unwrap_or_else(|e| panic!("cannot create {}: {e}", link.display()));
}

#[cfg(not(unix))]
fn ensure_symlink(_link: &Path, _target: &Path) {}
