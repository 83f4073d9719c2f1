//! Hostile content (issue 16): content downloaded from others must not hang a build,
//! exhaust its memory, or pass silently when it is wrong. Each test builds its carnet
//! directory in a temporary folder (FIFOs and links to devices cannot live in git) and
//! checks the exact diagnostics, and that the check finishes quickly.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use carnet_codegen::{Config, Limits, Report};

/// A valid directory: agent `main` → skill `research` → toolset `search` → tool `find`.
fn base() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "agents/main/AGENT.md",
        "---\nname: main\ndescription: The agent\nskills: [research]\n---\nYou help.\n",
    );
    write(
        dir.path(),
        "skills/research/SKILL.md",
        "---\nname: research\ndescription: Finds things\ntoolsets: [search]\n---\nSearch.\n",
    );
    write(
        dir.path(),
        "toolsets/search/TOOLSET.md",
        "---\nname: search\ndescription: Search tools\ntools:\n  - {name: find, description: Finds}\n---\n",
    );
    dir
}

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// Checks `root` and returns the report, failing when the check takes longer than `within`.
fn check_within(root: &Path, within: Duration) -> Report {
    let start = Instant::now();
    let report = Config::new().dir(root).check();
    let took = start.elapsed();
    assert!(took < within, "the check took {took:?}, more than {within:?}");
    report
}

fn check(root: &Path) -> Report {
    check_within(root, Duration::from_secs(20))
}

/// `CODE file:line` for every diagnostic, file relative to `root`.
fn codes(report: &Report, root: &Path) -> Vec<String> {
    report
        .diagnostics()
        .iter()
        .map(|d| match &d.location {
            Some(l) => format!(
                "{} {}:{}",
                d.code,
                l.path.strip_prefix(root).unwrap_or(&l.path).display(),
                l.line
            ),
            None => format!("{} -", d.code),
        })
        .collect()
}

fn message(report: &Report, code: &str) -> String {
    report
        .diagnostics()
        .iter()
        .find(|d| d.code.as_str() == code)
        .map_or_else(
            || panic!("no {code} in {:?}", report.diagnostics()),
            |d| format!("{} | help: {:?}", d.message, d.help),
        )
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let status = std::process::Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

#[test]
fn the_base_directory_is_valid() {
    let dir = base();
    let report = check(dir.path());
    assert!(report.diagnostics().is_empty(), "{:?}", report.diagnostics());
}

#[test]
fn yaml_alias_bomb_stops_at_the_limit() {
    // Nine levels of nine aliases: 9^9 (387 million) strings if expanded, in 500 bytes.
    let dir = base();
    let mut yaml = String::from("---\nname: research\ndescription: Finds things\ntoolsets: [search]\n");
    yaml.push_str("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for level in 1..9 {
        let prev = level - 1;
        let items = vec![format!("*a{prev}"); 9].join(", ");
        yaml.push_str(&format!("a{level}: &a{level} [{items}]\n"));
    }
    yaml.push_str("---\nbody\n");
    assert!(yaml.len() < 600);
    write(dir.path(), "skills/research/SKILL.md", &yaml);
    let report = check_within(dir.path(), Duration::from_secs(10));
    let codes = codes(&report, dir.path());
    // Level 3 holds 9 × 9 × 9 × 10 values: the first alias over 10,000 is on its line.
    assert!(
        codes.contains(&"E0029 skills/research/SKILL.md:9".to_owned()),
        "{codes:?}"
    );
    assert_eq!(
        message(&report, "E0029"),
        "YAML aliases expand to more than 10000 values | help: Some(\"raise `limits.maxYamlAliasExpansion` in `carnet.config.json` if the content is trusted\")"
    );
}

#[test]
fn yaml_aliases_of_long_strings_count_their_size() {
    let dir = base();
    let long = "x".repeat(64 * 1024);
    let aliases = vec!["*s"; 20].join(", ");
    write(
        dir.path(),
        "skills/research/SKILL.md",
        &format!(
            "---\nname: research\ndescription: Finds things\ntoolsets: [search]\ns: &s {long}\nmany: [{aliases}]\n---\n"
        ),
    );
    let codes = codes(&check(dir.path()), dir.path());
    assert_eq!(codes, ["E0029 skills/research/SKILL.md:6"]);
}

#[test]
fn a_few_aliases_are_fine() {
    let dir = base();
    write(
        dir.path(),
        "skills/research/SKILL.md",
        "---\nname: research\ndescription: &d Finds things\ntoolsets: [search]\nmetadata: {summary: *d}\n---\n",
    );
    let report = check(dir.path());
    assert!(report.diagnostics().is_empty(), "{:?}", report.diagnostics());
}

#[test]
fn yaml_nesting_is_bounded() {
    let dir = base();
    let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
    write(
        dir.path(),
        "skills/research/SKILL.md",
        &format!("---\nname: research\ndescription: Finds things\ntoolsets: [search]\nx: {deep}\n---\n"),
    );
    let report = check(dir.path());
    assert_eq!(codes(&report, dir.path()), ["E0029 skills/research/SKILL.md:5"]);
    assert!(message(&report, "E0029").starts_with("YAML nests deeper than 64 levels"));
    // Block nesting, which the YAML scanner does not bound itself.
    let mut block = String::new();
    for i in 0..200 {
        block.push_str(&"  ".repeat(i));
        block.push_str(&format!("k{i}:\n"));
    }
    write(
        dir.path(),
        "skills/research/SKILL.md",
        &format!("---\nname: research\ndescription: Finds things\ntoolsets: [search]\n{block}---\n"),
    );
    assert_eq!(
        codes(&check(dir.path()), dir.path()),
        ["E0029 skills/research/SKILL.md:69"]
    );
}

#[test]
fn time_is_linear_in_the_number_of_keys() {
    // 80,000 keys took 27 s (release) before duplicate keys were found by hash.
    let dir = base();
    let mut yaml = String::from("---\nname: research\ndescription: Finds things\ntoolsets: [search]\n");
    for i in 0..80_000 {
        yaml.push_str(&format!("key{i}: v\n"));
    }
    yaml.push_str("key17: again\n---\n");
    write(dir.path(), "skills/research/SKILL.md", &yaml);
    let report = check_within(dir.path(), Duration::from_secs(15));
    assert_eq!(codes(&report, dir.path()), ["E0001 skills/research/SKILL.md:80005"]);
    assert!(message(&report, "E0001").starts_with("invalid YAML: duplicated mapping key `key17`"));
}

#[cfg(unix)]
#[test]
fn fifos_are_errors_not_hangs() {
    let dir = base();
    mkfifo(&dir.path().join("skills/research/pipe"));
    mkfifo(&dir.path().join("agents/other/AGENT.md"));
    mkfifo(&dir.path().join("toolsets/search/find.md"));
    let report = check_within(dir.path(), Duration::from_secs(10));
    let mut codes = codes(&report, dir.path());
    codes.sort();
    assert_eq!(
        codes,
        [
            "E0030 agents/other/AGENT.md:1",
            "E0030 skills/research/SKILL.md:2",
            "E0030 toolsets/search/find.md:1",
        ]
    );
    assert_eq!(
        message(&report, "E0030"),
        "`agents/other/AGENT.md` is a FIFO, not a regular file | help: None"
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_config_is_an_error_not_a_hang() {
    let dir = base();
    mkfifo(&dir.path().join("carnet.config.json"));
    let report = check_within(dir.path(), Duration::from_secs(10));
    assert_eq!(codes(&report, dir.path()), ["E0030 carnet.config.json:1"]);
}

#[cfg(unix)]
#[test]
fn links_to_devices_are_not_read() {
    let dir = base();
    fs::create_dir_all(dir.path().join("skills/zero")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("skills/zero/SKILL.md")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("agents/main/notes.md")).unwrap();
    let report = check_within(dir.path(), Duration::from_secs(10));
    assert_eq!(codes(&report, dir.path()), ["E0030 skills/zero/SKILL.md:1"]);
    assert!(message(&report, "E0030").contains("is a character device, not a regular file"));
}

#[test]
fn files_larger_than_the_limit_are_not_read() {
    let dir = base();
    write(dir.path(), "carnet.config.json", r#"{"limits": {"maxFileSize": 1000}}"#);
    write(dir.path(), "skills/research/big.txt", &"x".repeat(1001));
    write(
        dir.path(),
        "skills/research/SKILL.md",
        &format!(
            "---\nname: research\ndescription: Finds things\ntoolsets: [search]\n---\n{}",
            "y".repeat(1000)
        ),
    );
    let report = check(dir.path());
    let mut codes = codes(&report, dir.path());
    codes.sort();
    // Its toolset is not reported unused: which toolsets the skill lists is not known.
    assert_eq!(codes, ["E0029 skills/research/SKILL.md:1"]);
    // The skill is known by its folder: the agent's reference is told on the cause.
    let rendered = report.render(false);
    assert!(
        rendered.contains("agent `main` references this skill as `research`"),
        "{rendered}"
    );
    // Raised through the builder instead: both read.
    fs::remove_file(dir.path().join("carnet.config.json")).unwrap();
    let mut limits = Limits::default();
    limits.max_file_size = 2000;
    let report = Config::new().dir(dir.path()).limits(limits).check();
    assert!(report.diagnostics().is_empty(), "{:?}", report.diagnostics());
    // A `limits` block sets only its keys: the builder's larger file size stays.
    write(dir.path(), "carnet.config.json", r#"{"limits": {"maxFiles": 1000}}"#);
    let report = Config::new().dir(dir.path()).limits(limits).check();
    assert!(report.diagnostics().is_empty(), "{:?}", report.diagnostics());
}

#[test]
fn the_bytes_read_in_all_are_bounded() {
    let dir = base();
    write(
        dir.path(),
        "carnet.config.json",
        r#"{"limits": {"maxTotalSize": 2000}}"#,
    );
    for i in 0..5 {
        write(dir.path(), &format!("skills/research/part{i}.txt"), &"x".repeat(600));
    }
    let report = check(dir.path());
    assert!(
        codes(&report, dir.path()).contains(&"E0029 skills/research/SKILL.md:2".to_owned()),
        "{:?}",
        report.diagnostics()
    );
    assert!(message(&report, "E0029").contains("more than 2000 bytes read in all"));
}

#[test]
fn the_number_of_files_is_bounded() {
    let dir = base();
    write(dir.path(), "carnet.config.json", r#"{"limits": {"maxFiles": 5}}"#);
    for i in 0..10 {
        write(dir.path(), &format!("skills/research/f{i}.txt"), "x");
    }
    let report = check(dir.path());
    assert!(
        codes(&report, dir.path()).contains(&"E0029 -".to_owned()),
        "{:?}",
        report.diagnostics()
    );
    assert!(message(&report, "E0029").contains("holds more than 5 files"));
}

#[test]
fn unreadable_content_folders_are_errors() {
    // A link looping on itself: unreadable even for root.
    let dir = base();
    fs::remove_dir_all(dir.path().join("agents")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("agents", dir.path().join("agents")).unwrap();
    #[cfg(not(unix))]
    write(dir.path(), "agents", "not a folder");
    let report = check(dir.path());
    assert!(report.has_errors());
    let codes = codes(&report, dir.path());
    assert!(codes.contains(&"E0031 -".to_owned()), "{codes:?}");
    // A file where the folder should be.
    let dir = base();
    fs::remove_dir_all(dir.path().join("toolsets")).unwrap();
    write(dir.path(), "toolsets", "");
    let report = check(dir.path());
    assert_eq!(message(&report, "E0031"), "`toolsets` is not a directory | help: None");
}

#[cfg(unix)]
#[test]
fn a_folder_without_read_permission_is_an_error() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = base();
    let agents = dir.path().join("agents");
    fs::set_permissions(&agents, fs::Permissions::from_mode(0o000)).unwrap();
    let readable = fs::read_dir(&agents).is_ok(); // root reads it anyway
    let report = check(dir.path());
    fs::set_permissions(&agents, fs::Permissions::from_mode(0o755)).unwrap();
    if !readable {
        assert!(report.has_errors());
        assert!(message(&report, "E0031").starts_with("cannot read directory `agents`"));
    }
}

#[test]
fn silent_configuration_mistakes_are_warnings() {
    let dir = base();
    write(
        dir.path(),
        "carnet.config.json",
        "{\n  \"exlude\": [\"skills/old\"],\n  \"include\": [\"agent/**\", \"skills/**\", \"toolsets/**\"],\n  \"envPrefix\": [\"\"],\n  \"app\": {\"globalSkils\": []}\n}\n",
    );
    let report = check(dir.path());
    let mut codes = codes(&report, dir.path());
    codes.sort();
    assert_eq!(
        codes,
        [
            "W0010 -",
            "W0011 carnet.config.json:2",
            "W0011 carnet.config.json:5",
            "W0012 carnet.config.json:3",
            "W0013 carnet.config.json:4",
        ]
    );
    assert!(!report.has_errors());
    let w0011 = message(&report, "W0011");
    assert!(
        w0011.starts_with("unknown key `exlude` in `carnet.config.json`"),
        "{w0011}"
    );
    assert!(w0011.contains("did you mean `exclude`?"), "{w0011}");
    assert!(message(&report, "W0012").starts_with("`include` pattern `agent/**` matches no file"));
    assert!(message(&report, "W0013").contains("every environment variable"));
}

#[test]
fn unknown_limit_keys_are_errors() {
    let dir = base();
    write(dir.path(), "carnet.config.json", r#"{"limits": {"maxFileSise": 10}}"#);
    let report = check(dir.path());
    assert_eq!(codes(&report, dir.path()), ["E0023 carnet.config.json:1"]);
    assert!(message(&report, "E0023").contains("unknown field `maxFileSise`"));
}

#[test]
fn control_characters_are_reported_and_escaped() {
    let dir = base();
    write(
        dir.path(),
        "skills/research/SKILL.md",
        "---\nname: \"re\\e[31msearch\"\ndescription: \"Finds \\e]0;pwned\\a things\"\ntoolsets: [search]\n---\n",
    );
    write(
        dir.path(),
        "agents/main/AGENT.md",
        "---\nname: main\ndescription: The agent\nskills: [\"re\\e[31msearch\"]\n---\n",
    );
    let report = check(dir.path());
    let mut codes = codes(&report, dir.path());
    codes.sort();
    assert_eq!(
        codes,
        [
            "E0032 skills/research/SKILL.md:2",
            "W0003 skills/research/SKILL.md:2",
            "W0005 skills/research/SKILL.md:2",
            "W0014 skills/research/SKILL.md:2",
        ]
    );
    assert_eq!(
        message(&report, "E0032"),
        "skill name `re\\u{1b}[31msearch` holds a control character | help: None"
    );
    let rendered = report.render(false);
    assert!(
        !rendered.contains('\u{1b}') && !rendered.contains('\u{7}'),
        "{rendered}"
    );
    let display: String = report.diagnostics().iter().map(ToString::to_string).collect();
    assert!(!display.contains('\u{1b}'), "{display}");
}

#[test]
fn tool_names_are_not_aliased_silently() {
    let dir = base();
    write(
        dir.path(),
        "toolsets/search/TOOLSET.md",
        "---\nname: search\ndescription: Search tools\ntools:\n  - {name: basic search!, description: Finds}\n  - {name: file.read, description: Reads}\n---\n",
    );
    let report = check(dir.path());
    assert_eq!(codes(&report, dir.path()), ["E0012 toolsets/search/TOOLSET.md:5"]);
    let diagnostic = &report.diagnostics()[0];
    assert_eq!(
        diagnostic.message,
        "no LLM provider accepts the tool name `basic search!`"
    );
    assert_eq!(
        diagnostic.label.as_deref(),
        Some("` ` is not allowed in tool names: use letters, digits, `_`, `-` and `.`")
    );
}

#[test]
fn single_file_skills_say_how_to_convert() {
    let dir = base();
    write(
        dir.path(),
        "skills/summarize.md",
        "---\nname: summarize\ndescription: Summarizes\n---\nSummarize.\n",
    );
    write(dir.path(), "skills/README.md", "# Our skills\n");
    let report = check(dir.path());
    assert_eq!(codes(&report, dir.path()), ["E0033 skills/summarize.md:2"]);
    assert_eq!(
        message(&report, "E0033"),
        "skill `skills/summarize.md` is a single file | help: Some(\"move it: `mkdir -p skills/summarize && git mv skills/summarize.md skills/summarize/SKILL.md`\")"
    );
}

#[test]
fn a_long_compatibility_is_a_warning_as_in_agent_skills() {
    let dir = base();
    let skill = |compatibility: &str| {
        format!(
            "---\nname: research\ndescription: Finds things\ncompatibility: {compatibility}\ntoolsets: [search]\n---\nSearch.\n"
        )
    };
    write(dir.path(), "skills/research/SKILL.md", &skill(&"c".repeat(500)));
    assert!(codes(&check(dir.path()), dir.path()).is_empty());
    write(dir.path(), "skills/research/SKILL.md", &skill(&"é".repeat(501)));
    let report = check(dir.path());
    assert_eq!(codes(&report, dir.path()), ["W0015 skills/research/SKILL.md:4"]);
    assert_eq!(
        message(&report, "W0015"),
        "`compatibility` of skill `research` is 501 characters long | help: None"
    );
}
