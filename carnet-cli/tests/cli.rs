//! The `carnet` command end to end: exit codes, output formats, and the Agent Skills corpus.

use std::fs;
use std::path::Path;
use std::process::Command;

mod common;
use common::{call_researcher, carnet, example, repo, stderr, stdout};

fn broken() -> String {
    repo()
        .join("carnet-cli/tests/fixtures/broken")
        .to_string_lossy()
        .into_owned()
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn files_below(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        if entry.file_type().unwrap().is_dir() {
            files_below(&entry.path(), &format!("{name}/"), out);
        } else {
            out.push(name);
        }
    }
}

/// `skills/` holds every skill of the Agent Skills corpus, unchanged, plus an agent listing them.
#[test]
fn agent_skills_corpus_checks_and_every_resource_is_a_skill_file() {
    let corpus = repo().join("tests/corpus/agentskills");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("carnet");
    let mut names = Vec::new();
    for entry in fs::read_dir(&corpus).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            names.push(entry.file_name().to_string_lossy().into_owned());
            copy_dir(&entry.path(), &root.join("skills").join(entry.file_name()));
        }
    }
    names.sort();
    assert_eq!(names.len(), 12);
    fs::create_dir_all(root.join("agents/all")).unwrap();
    fs::write(
        root.join("agents/all/AGENT.md"),
        format!(
            "---\nname: all\ndescription: Every corpus skill\nskills: [{}]\n---\nYou are an agent.\n",
            names.join(", ")
        ),
    )
    .unwrap();
    let dir_arg = root.to_string_lossy().into_owned();

    let check = carnet(&["check", "--dir", &dir_arg]);
    assert!(check.status.success(), "{}", stderr(&check));
    assert!(stdout(&check).contains("1 agent, 12 skills"), "{}", stdout(&check));

    let out = dir.path().join("manifest.json");
    let build = carnet(&["build", "--dir", &dir_arg, "--out", &out.to_string_lossy()]);
    assert!(build.status.success(), "{}", stderr(&build));
    let json = fs::read_to_string(&out).unwrap();
    let manifest: serde_json::Value = serde_json::from_str(&json).unwrap();
    for name in &names {
        let mut on_disk = Vec::new();
        files_below(&corpus.join(name), "", &mut on_disk);
        on_disk.retain(|f| f != "SKILL.md");
        on_disk.sort();
        let listed: Vec<String> = manifest["skills"][name]["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(listed, on_disk, "files of skill `{name}`");
    }
    // Binary resources survive: a font decodes to its exact bytes.
    let font = manifest["skills"]["canvas-design"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "canvas-fonts/Lora-Bold.ttf")
        .unwrap();
    assert_eq!(font["encoding"], "base64");
    assert_eq!(font["mediaType"], "font/ttf");
    let bytes = fs::read(corpus.join("canvas-design/canvas-fonts/Lora-Bold.ttf")).unwrap();
    let back = carnet_runtime::Manifest::from_json(&json).unwrap();
    let file = back
        .skill("canvas-design")
        .unwrap()
        .file("canvas-fonts/Lora-Bold.ttf")
        .unwrap();
    assert_eq!(&*file.data, bytes.as_slice());
}

#[test]
fn exit_codes() {
    assert_eq!(carnet(&["check", "--dir", &example()]).status.code(), Some(0));
    let out = carnet(&["check", "--dir", &broken()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("error[E0006]"), "{}", stderr(&out));
    assert_eq!(carnet(&["check", "--dir", "/no/such/dir"]).status.code(), Some(1));
    assert_eq!(carnet(&["check", "--no-such-flag"]).status.code(), Some(2));
    assert_eq!(carnet(&["frobnicate"]).status.code(), Some(2));
    let unknown = carnet(&["show", "agent", "reseacher", "--dir", &example()]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("did you mean `researcher`?"),
        "{}",
        stderr(&unknown)
    );
    assert_eq!(
        carnet(&["list", "--depth", "9", "--dir", &example()]).status.code(),
        Some(2)
    );
    // Content errors fail every command that needs the manifest.
    assert_eq!(carnet(&["list", "--dir", &broken()]).status.code(), Some(1));
    assert_eq!(
        carnet(&["build", "--dir", &broken(), "--out", "-"]).status.code(),
        Some(1)
    );
}

#[test]
fn check_renders_snippets_and_json() {
    let text = carnet(&["check", "--dir", &broken()]);
    let rendered = stderr(&text);
    assert!(rendered.contains("agents/researcher/AGENT.md:4:17"), "{rendered}");
    assert!(rendered.contains("4 │ initialSkills: [webSerch]"), "{rendered}");
    assert!(rendered.contains("= help: did you mean `webSearch`?"), "{rendered}");
    assert!(rendered.contains("has 2 errors"), "{rendered}");
    assert!(!rendered.contains("could not compile"), "{rendered}");

    let out = carnet(&["check", "--format", "json", "--dir", &broken()]);
    assert_eq!(out.status.code(), Some(1));
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(value["ok"], false);
    let codes: Vec<&str> = value["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    // `webSearch` is not reported unreachable: it is what `webSerch` meant.
    assert_eq!(codes, ["E0006", "W0003", "E0007"]);
    let first = &value["diagnostics"][0];
    assert_eq!(first["location"]["line"], 4);
    assert_eq!(first["location"]["column"], 17);
    assert_eq!(first["help"], "did you mean `webSearch`?");
}

#[test]
fn list_and_show() {
    let list = carnet(&["list", "researcher", "--depth", "4", "--dir", &example()]);
    assert!(list.status.success());
    let text = stdout(&list);
    assert!(text.starts_with("researcher\n  Finds, filters"), "{text}");
    assert!(text.contains("│   └── webSearch (skill)"), "{text}");
    assert!(
        text.contains("basicSearch - Search the collection for documents matching the query words (tool)"),
        "{text}"
    );
    assert!(!text.contains("analyst"));

    let shallow = stdout(&carnet(&["list", "--depth", "1", "--dir", &example()]));
    assert_eq!(
        shallow,
        "analyst\n  Analyses datasets and explains the results, converting units when needed\nresearcher\n  Finds, filters and analyses information for the user, then writes it up as a cited brief\n"
    );

    let json = carnet(&["list", "--format", "json", "--depth", "4", "--dir", &example()]);
    let tree: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(
        tree[1]["initialSkills"][0]["toolsets"][0]["tools"][0]["name"],
        "basicSearch"
    );

    for (kind, name, needle) in [
        ("agent", "researcher", "initial skills: webSearch"),
        (
            "skill",
            "webSearch",
            "references/query-syntax.md  [text/markdown, 1554 bytes]: Operators accepted by advancedSearch",
        ),
        (
            "toolset",
            "filter-tools",
            "filterByDomain: Keep the hits from the given domains",
        ),
        ("tool", "basicSearch", "tool `basicSearch` (toolset `search-tools`)"),
    ] {
        let out = carnet(&["show", kind, name, "--dir", &example()]);
        assert!(out.status.success(), "{kind} {name}: {}", stderr(&out));
        assert!(stdout(&out).contains(needle), "{kind} {name}:\n{}", stdout(&out));
        let out = carnet(&["show", kind, name, "--format", "json", "--dir", &example()]);
        let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(value["name"], name);
    }
    let tool = stdout(&carnet(&["show", "tool", "basicSearch", "--dir", &example()]));
    assert!(tool.contains("Returns the ten most relevant documents"), "{tool}");
}

#[test]
fn init_scaffolds_content_that_checks_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("content");
    let target_arg = target.to_string_lossy().into_owned();
    let init = carnet(&["init", &target_arg]);
    assert!(init.status.success(), "{}", stderr(&init));
    let check = carnet(&["check", "--dir", &target_arg]);
    assert!(check.status.success(), "{}", stderr(&check));
    assert_eq!(stderr(&check), "", "the scaffold has no warnings");
    assert!(
        stdout(&check).contains("1 agent, 1 skill (1 file), 1 toolset, 3 tools"),
        "{}",
        stdout(&check)
    );

    // So small a catalog costs more with the meta-tools than sent whole: `stats` says so.
    let stats = carnet(&["stats", "assistant", "--dir", &target_arg]);
    assert!(stats.status.success(), "{}", stderr(&stats));
    assert!(
        stdout(&stats).contains("this catalog is small enough that progressive loading does not pay"),
        "{}",
        stdout(&stats)
    );
    let json = carnet(&["stats", "assistant", "--dir", &target_arg, "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert!(
        report[0]["advice"]
            .as_str()
            .is_some_and(|a| a.contains("initialSkills")),
        "{report}"
    );

    let agent = target.join("agents/assistant/AGENT.md");
    fs::write(
        &agent,
        "---\nname: assistant\ndescription: mine\nskills: [note-taking]\n---\nEdited.\n",
    )
    .unwrap();
    let again = carnet(&["init", &target_arg]);
    assert!(again.status.success());
    assert!(stdout(&again).contains("nothing to do"), "{}", stdout(&again));
    assert!(fs::read_to_string(&agent).unwrap().contains("Edited."));
}

#[test]
fn build_writes_the_manifest_where_the_config_says() {
    let dir = tempfile::tempdir().unwrap();
    let content = dir.path().join("carnet");
    copy_dir(Path::new(&example()), &content);
    let config = content.join("carnet.config.json");
    let mut value: serde_json::Value = serde_json::from_str(&fs::read_to_string(&config).unwrap()).unwrap();
    value["output"] = "dist".into();
    fs::write(&config, value.to_string()).unwrap();
    let out = carnet(&["build", "--dir", &content.to_string_lossy()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let written = dir.path().join("dist/carnet.manifest.json");
    let json = fs::read_to_string(&written).unwrap();
    let manifest = carnet_runtime::Manifest::from_json(&json).unwrap();
    assert_eq!(manifest.variable("ORGANIZATION"), Some("Carnet Labs"));
    // `--out -` prints the JSON; `--manifest` reads it back.
    let printed = carnet(&["build", "--dir", &content.to_string_lossy(), "--out", "-"]);
    assert_eq!(stdout(&printed).trim_end(), json);
    let back = carnet(&["list", "--manifest", &written.to_string_lossy(), "--depth", "1"]);
    assert!(stdout(&back).contains("researcher"), "{}", stderr(&back));
    // `--timings` says where the time went, on stderr, and changes nothing else.
    let timed = carnet(&["build", "--dir", &content.to_string_lossy(), "--timings"]);
    assert!(timed.status.success(), "{}", stderr(&timed));
    assert_eq!(fs::read_to_string(&written).unwrap(), json);
    let err = stderr(&timed);
    for stage in ["discover", "read", "parse", "skill files", "validate", "lower", "write"] {
        assert!(err.contains(&format!("{stage} ")), "{stage} missing from {err}");
    }
    assert!(err.lines().all(|l| l.starts_with("timings: ")), "{err}");
}

#[test]
fn prompt_after_loading_skills_with_variables() {
    let base = carnet(&["prompt", "researcher", "--dir", &example()]);
    assert!(base.status.success(), "{}", stderr(&base));
    let text = stdout(&base);
    assert!(
        text.starts_with("You are a careful research assistant working for Carnet Labs."),
        "{text}"
    );
    assert!(text.contains("## On-Demand Skills") && !text.contains("## Loaded Skills"));

    let loaded = stdout(&carnet(&[
        "prompt",
        "researcher",
        "--load",
        "dataAnalysis",
        "--var",
        "ORGANIZATION=Initech",
        "--dir",
        &example(),
    ]));
    assert!(
        loaded.starts_with("You are a careful research assistant working for Initech."),
        "{loaded}"
    );
    assert!(loaded.contains("## Loaded Skills\n\nSkills you have loaded during this session:\n\n- **dataAnalysis**"));
    assert!(loaded.contains("- **analyzeStatistics**: Count, mean, median"));

    let json = carnet(&[
        "prompt",
        "researcher",
        "--format",
        "json",
        "--load",
        "dataAnalysis",
        "--dir",
        &example(),
    ]);
    let value: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(value["loaded"], serde_json::json!(["webSearch", "dataAnalysis"]));

    let bad = carnet(&["prompt", "analyst", "--load", "webSearch", "--dir", &example()]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("skill `webSearch` is not available to agent `analyst`"),
        "{}",
        stderr(&bad)
    );
    let typo = carnet(&["prompt", "researcher", "--load", "dataAnalysys", "--dir", &example()]);
    assert_eq!(typo.status.code(), Some(2));
    assert_eq!(
        stderr(&typo).matches("did you mean `dataAnalysis`?").count(),
        1,
        "{}",
        stderr(&typo)
    );
    assert_eq!(
        carnet(&["prompt", "researcher", "--var", "bad name=x", "--dir", &example()])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn tools_in_every_provider_format() {
    let tools = |extra: &[&str]| {
        let mut args = vec!["tools", "researcher", "--dir"];
        let dir = example();
        args.push(&dir);
        args.extend_from_slice(extra);
        let out = carnet(&args);
        assert!(out.status.success(), "{extra:?}: {}", stderr(&out));
        serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap()
    };
    let canonical = tools(&[]);
    let names: Vec<&str> = canonical
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 11, "{names:?}");
    assert_eq!(canonical[6]["toolset"], "search-tools");
    assert_eq!(
        canonical[6]["inputSchema"],
        serde_json::json!({"type": "object", "additionalProperties": true})
    );

    let loaded = tools(&["--load", "dataAnalysis"]);
    assert_eq!(loaded.as_array().unwrap().len(), 13);
    assert_eq!(tools(&["--provider", "openai"])[1]["function"]["name"], "loadSkill");
    assert_eq!(
        tools(&["--provider", "openai-responses", "--strict"])[1]["strict"],
        true
    );
    assert_eq!(
        tools(&["--provider", "anthropic"])[1]["input_schema"]["required"],
        serde_json::json!(["skillName"])
    );
    assert!(tools(&["--provider", "gemini"])[0]["functionDeclarations"].is_array());
    assert_eq!(tools(&["--provider", "mcp"])["tools"][1]["name"], "loadSkill");
    let fixed = tools(&["--mode", "dispatcher", "--load", "dataAnalysis"]);
    let fixed_names: Vec<&str> = fixed
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(fixed_names.last(), Some(&"callTool"));
    assert_eq!(fixed_names.len(), 7);
}

/// `cargo new`, `carnet init`, add the two dependencies (as `cargo add --path` would), and
/// `cargo run` works: the scaffold is a working agent.
#[test]
fn init_in_a_cargo_project_gives_a_program_that_runs() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("my-agent");
    fs::create_dir_all(project.join("src")).unwrap();
    fs::write(
        project.join("src/main.rs"),
        "fn main() {\n    println!(\"Hello, world!\");\n}\n",
    )
    .unwrap();
    let repo = repo();
    fs::write(
        project.join("Cargo.toml"),
        format!(
            "[package]\nname = \"my-agent\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\ncarnet = {{ path = {:?} }}\n\n[build-dependencies]\ncarnet-codegen = {{ path = {:?} }}\n",
            repo.to_string_lossy(),
            repo.join("carnet-codegen").to_string_lossy()
        ),
    )
    .unwrap();
    // Pin the dependencies to the versions the workspace was tested with (no network needed).
    fs::copy(repo.join("Cargo.lock"), project.join("Cargo.lock")).unwrap();

    let init = Command::new(env!("CARGO_BIN_EXE_carnet"))
        .arg("init")
        .current_dir(&project)
        .output()
        .unwrap();
    assert!(init.status.success(), "{}", stderr(&init));
    assert!(
        stdout(&init).contains("replaced ") && stdout(&init).contains("cargo run"),
        "{}",
        stdout(&init)
    );
    for file in ["build.rs", "src/notes.rs", "carnet/agents/assistant/AGENT.md"] {
        assert!(project.join(file).is_file(), "{file}");
    }
    // The scaffolded main prints the prompt with an escaped line break, not a line break
    // inside the string literal.
    let main = fs::read_to_string(project.join("src/main.rs")).unwrap();
    assert!(main.contains(r#"println!("{}\n", session.system_prompt());"#), "{main}");

    let run = Command::new(env!("CARGO"))
        .args(["run", "--quiet"])
        .current_dir(&project)
        .env("CARGO_TARGET_DIR", repo.join("target/init-project"))
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .unwrap();
    assert!(run.status.success(), "cargo run failed:\n{}", stderr(&run));
    let text = stdout(&run);
    assert!(
        text.starts_with("You are Carnet, a concise and helpful assistant."),
        "{text}"
    );
    assert!(text.contains("addNote {\"title\": \"Groceries\", \"body\": \"eggs, milk\"}\n  -> {\"error\":\"tool `addNote` is not available yet: load skill `note-taking` first"), "{text}");
    assert!(
        text.contains("searchNotes {\"keywords\": [\"milk\"]}\n  -> [\"Groceries\"]"),
        "{text}"
    );

    // A second `carnet init` keeps every file.
    let again = Command::new(env!("CARGO_BIN_EXE_carnet"))
        .arg("init")
        .current_dir(&project)
        .output()
        .unwrap();
    assert!(stdout(&again).contains("nothing to do"), "{}", stdout(&again));
}

/// `carnet new` writes a whole crate (built, run and tested by `tests/new/run.sh` in CI) and
/// refuses a folder in use, a name Cargo or Rust would not take, and a path that is no
/// checkout.
#[test]
fn new_writes_a_crate_and_refuses_what_it_cannot_make() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("desk");
    let path_arg = path.to_string_lossy().into_owned();
    let made = carnet(&["new", "weather-desk", "--path", &path_arg]);
    assert!(made.status.success(), "{}", stderr(&made));
    for file in [
        "Cargo.toml",
        "Cargo.lock",
        "build.rs",
        "src/lib.rs",
        "src/main.rs",
        "src/notes.rs",
        "tests/agent.rs",
        "carnet/agents/assistant/AGENT.md",
        "carnet/toolsets/notes/TOOLSET.md",
    ] {
        assert!(path.join(file).is_file(), "{file}");
    }
    let manifest = fs::read_to_string(path.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"weather-desk\""), "{manifest}");
    assert!(
        manifest.contains(&format!(
            "carnet = {{ path = {:?}, features = [\"testing\"] }}",
            repo().to_string_lossy()
        )),
        "{manifest}"
    );
    assert!(
        !manifest.contains("[workspace]"),
        "a temporary folder is in no workspace: {manifest}"
    );
    assert!(
        fs::read_to_string(path.join("tests/agent.rs"))
            .unwrap()
            .contains("use weather_desk::manifest")
    );
    let check = carnet(&["check", "--dir", &path.join("carnet").to_string_lossy()]);
    assert!(check.status.success(), "{}", stderr(&check));

    let again = carnet(&["new", "weather-desk", "--path", &path_arg]);
    assert_eq!(again.status.code(), Some(2));
    assert!(stderr(&again).contains("exists and is not empty"), "{}", stderr(&again));
    for bad in ["2desk", "weather desk", "carnet"] {
        let refused = carnet(&["new", bad, "--path", &dir.path().join("x").to_string_lossy()]);
        assert_eq!(refused.status.code(), Some(2), "{bad}");
        assert!(!dir.path().join("x").exists(), "{bad}: nothing written");
    }
    let not_checkout = carnet(&[
        "new",
        "ok",
        "--path",
        &dir.path().join("y").to_string_lossy(),
        "--carnet-path",
        &path_arg,
    ]);
    assert_eq!(not_checkout.status.code(), Some(2));
    assert!(
        stderr(&not_checkout).contains("is not a carnet checkout"),
        "{}",
        stderr(&not_checkout)
    );

    // Inside a workspace (this checkout's), the crate is its own workspace.
    let inside = repo()
        .join("target")
        .join(format!("carnet-new-test-{}", std::process::id()));
    let made = carnet(&["new", "inner", "--path", &inside.to_string_lossy()]);
    assert!(made.status.success(), "{}", stderr(&made));
    let manifest = fs::read_to_string(inside.join("Cargo.toml")).unwrap();
    fs::remove_dir_all(&inside).unwrap();
    assert!(manifest.contains("\n[workspace]\n"), "{manifest}");
}

/// Reads JSON-RPC lines from `serve-mcp`'s stdout until the response with `id` arrives.
fn response(lines: &mut impl Iterator<Item = std::io::Result<String>>, id: u64) -> serde_json::Value {
    for line in lines {
        let message: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        if message["id"] == id {
            return message;
        }
    }
    panic!("no response with id {id}");
}

#[test]
fn serve_mcp_serves_the_meta_tools_over_stdio_and_says_domain_tools_have_no_implementation() {
    use std::io::{BufRead as _, BufReader, Write as _};
    use std::process::Stdio;

    let mut child = Command::new(env!("CARGO_BIN_EXE_carnet"))
        .args([
            "--dir",
            &example(),
            "serve-mcp",
            "researcher",
            "--var",
            "ORGANIZATION=Acme",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |message: serde_json::Value| writeln!(stdin, "{message}").unwrap();

    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "cli-test", "version": "0"}}}),
    );
    let init = response(&mut lines, 1);
    // The server names the agent it serves (issue 53), not carnet.
    assert_eq!(init["result"]["serverInfo"]["name"], "researcher");
    let instructions = init["result"]["instructions"].as_str().unwrap();
    assert!(
        instructions.contains("working for Acme."),
        "--var reaches the prompt: {instructions}"
    );
    send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    send(serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "loadSkill", "arguments": {"skillName": "dataAnalysis"}}}));
    let loaded = response(&mut lines, 2);
    assert_eq!(loaded["result"]["isError"], false, "{loaded}");

    send(serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}));
    let tools = response(&mut lines, 3).to_string();
    assert!(tools.contains("\"analyzeStatistics\""), "{tools}");

    send(serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "analyzeStatistics", "arguments": {"dataset": "revenue", "column": "revenue"}}}));
    let call = response(&mut lines, 4);
    assert_eq!(call["result"]["isError"], true);
    let text = call["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("has no implementation"), "{text}");

    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 5, "method": "resources/read",
        "params": {"uri": "skill://dataAnalysis/templates/report.md"}}),
    );
    let file = response(&mut lines, 5);
    let on_disk =
        fs::read_to_string(repo().join("examples/research-agent/carnet/skills/dataAnalysis/templates/report.md"))
            .unwrap();
    assert_eq!(file["result"]["contents"][0]["text"], on_disk);

    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let note = stderr(&output);
    assert!(
        note.contains("tools implemented in Rust can be loaded, not run"),
        "{note}"
    );
    // Which ones, and the command serving them from the author's program (issue 54).
    assert!(note.contains("11 tools (`filterByDate`, `filterByDomain`"), "{note}");
    assert!(
        note.contains("-- serve-mcp researcher\n") || note.ends_with("-- serve-mcp researcher"),
        "{note}"
    );
}

#[test]
fn serve_mcp_prints_the_http_endpoint_and_refuses_unknown_agents_and_remote_addresses() {
    use std::io::{BufRead as _, BufReader};
    use std::process::Stdio;

    let mut child = Command::new(env!("CARGO_BIN_EXE_carnet"))
        .args([
            "--dir",
            &example(),
            "serve-mcp",
            "researcher",
            "--mode",
            "dispatcher",
            "--http",
            "127.0.0.1:0",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut url = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let url = url.trim();
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"), "{url}");

    let unknown = carnet(&["--dir", &example(), "serve-mcp", "reseacher"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("did you mean `researcher`?"),
        "{}",
        stderr(&unknown)
    );

    let remote = carnet(&["--dir", &example(), "serve-mcp", "researcher", "--http", "0.0.0.0:0"]);
    assert_eq!(remote.status.code(), Some(2));
    assert!(
        stderr(&remote).contains("not a loopback address"),
        "{}",
        stderr(&remote)
    );
}

#[test]
fn tools_in_the_modes_that_send_every_tool() {
    let dir = example();
    let json = |args: &[&str]| -> serde_json::Value {
        let out = carnet(args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        serde_json::from_str(&stdout(&out)).unwrap()
    };
    // Anthropic, deferred: every tool, the domain ones `defer_loading`; the same list
    // whatever is loaded.
    let deferred = json(&[
        "--dir",
        &dir,
        "tools",
        "researcher",
        "--provider",
        "anthropic",
        "--mode",
        "deferred",
    ]);
    let loaded = json(&[
        "--dir",
        &dir,
        "tools",
        "researcher",
        "--provider",
        "anthropic",
        "--mode",
        "deferred",
        "--load",
        "dataAnalysis",
    ]);
    assert_eq!(deferred, loaded);
    let tools = deferred["tools"].as_array().unwrap();
    let find = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap();
    assert_eq!(find("loadSkill").get("defer_loading"), None);
    assert_eq!(find("analyzeStatistics")["defer_loading"], true);
    assert_eq!(deferred.get("tool_choice"), None);

    // OpenAI, allowed-tools: the same list, and the switch names what is loaded.
    let allowed = |load: &[&str]| {
        let mut args = vec![
            "--dir",
            dir.as_str(),
            "tools",
            "researcher",
            "--provider",
            "openai",
            "--mode",
            "allowed-tools",
        ];
        for skill in load {
            args.extend(["--load", skill]);
        }
        json(&args)
    };
    let (before, after) = (allowed(&[]), allowed(&["dataAnalysis"]));
    assert_eq!(before["tools"], after["tools"]);
    let names = |v: &serde_json::Value| -> Vec<String> {
        v["tool_choice"]["allowed_tools"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(!names(&before).contains(&"analyzeStatistics".to_owned()));
    assert!(names(&after).contains(&"analyzeStatistics".to_owned()));
}

#[test]
fn call_prints_a_meta_tools_result_as_the_model_receives_it() {
    let out = call_researcher(&["loadSkill", r#"{"skillName": "dataAnalysis"}"#]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let result: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(result["success"], true);
    assert!(result["content"].as_str().unwrap().starts_with("# Data analysis"));
    assert!(result.get("toolSpecs").is_none());

    let dispatcher = call_researcher(&["loadSkill", r#"{"skillName": "dataAnalysis"}"#, "--mode", "dispatcher"]);
    let result: serde_json::Value = serde_json::from_str(&stdout(&dispatcher)).unwrap();
    assert!(result["toolSpecs"].is_array(), "dispatcher results carry the schemas");

    // An error result is printed too, with status 1.
    let out = call_researcher(&["loadSkill", r#"{"skillName": "dataAnalyss"}"#]);
    assert_eq!(out.status.code(), Some(1));
    let result: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(result["similar"], serde_json::json!(["dataAnalysis"]));
    let out = call_researcher(&["loadSkill", "{not json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("not valid JSON"), "{}", stdout(&out));

    // Files of a loaded skill; a domain tool is a usage error.
    let out = call_researcher(&[
        "loadSkillFile",
        r#"{"skillName": "dataAnalysis", "path": "templates/report.md"}"#,
        "--load",
        "dataAnalysis",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = call_researcher(&["basicSearch"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("`carnet call` runs meta-tools"));
}

/// DESIGN §7, for every command that reads content: 1 when the content (a directory or a
/// `--manifest` file) is missing, unreadable, special or invalid; 2 when the invocation is
/// wrong (unknown names, bad flags, an output path that cannot be written).
#[test]
fn every_command_exits_alike_for_the_same_failure() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("m.json");
    let built = carnet(&["build", "--dir", &example(), "--out", manifest.to_str().unwrap()]);
    assert_eq!(built.status.code(), Some(0), "{}", stderr(&built));
    let invalid = dir.path().join("invalid.json");
    fs::write(&invalid, "{not json").unwrap();
    let out = dir.path().join("out.json");
    let commands: &[&[&str]] = &[
        &["check"],
        &["build", "--out", out.to_str().unwrap()],
        &["list"],
        &["show", "agent", "researcher"],
        &["prompt", "researcher"],
        &["tools", "researcher"],
        &["stats", "researcher", "--no-skill-costs"],
        &["serve-mcp", "researcher", "--http", "127.0.0.1:0"],
    ];
    let mut sources: Vec<(Vec<String>, i32)> = vec![
        (vec!["--dir".into(), "/no/such/dir".into()], 1),
        (vec!["--dir".into(), broken()], 1),
        (vec!["--manifest".into(), "/no/such/file.json".into()], 1),
        (vec!["--manifest".into(), invalid.to_string_lossy().into_owned()], 1),
    ];
    if cfg!(unix) {
        sources.push((vec!["--manifest".into(), "/dev/zero".into()], 1));
        sources.push((vec!["--manifest".into(), "/dev/null".into()], 1));
    }
    let mut wrong = Vec::new();
    for command in commands {
        for (source, expected) in &sources {
            let mut args: Vec<&str> = command.to_vec();
            args.extend(source.iter().map(String::as_str));
            let output = carnet(&args);
            if output.status.code() != Some(*expected) {
                wrong.push(format!("{args:?}: {:?} (expected {expected})", output.status.code()));
            }
        }
    }
    // Unknown names, with the content fine: usage errors everywhere.
    let m = manifest.to_str().unwrap();
    let unknown: &[&[&str]] = &[
        &["list", "nobody", "--manifest", m],
        &["show", "agent", "nobody", "--manifest", m],
        &["show", "skill", "nothing", "--manifest", m],
        &["prompt", "nobody", "--manifest", m],
        &["tools", "nobody", "--manifest", m],
        &["stats", "nobody", "--manifest", m],
        &["serve-mcp", "nobody", "--manifest", m],
        &["prompt", "researcher", "--load", "nothing", "--manifest", m],
        &["tools", "researcher", "--load", "nothing", "--manifest", m],
        &["stats", "researcher", "--load", "nothing", "--manifest", m],
        &["build", "--manifest", m],
        &["build", "--manifest", m, "--out", "/dev/null/x/manifest.json"],
        &["serve-mcp", "researcher", "--manifest", m, "--http", "192.0.2.1:80"],
    ];
    for args in unknown {
        let output = carnet(args);
        if output.status.code() != Some(2) {
            wrong.push(format!("{args:?}: {:?} (expected 2)", output.status.code()));
        }
    }
    assert!(wrong.is_empty(), "wrong exit codes:\n{}", wrong.join("\n"));
}

#[cfg(unix)]
#[test]
fn special_files_never_hang_a_command() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("manifest.json");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let start = std::time::Instant::now();
    let output = carnet(&["list", "--manifest", fifo.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("is a FIFO, not a regular file"),
        "{}",
        stderr(&output)
    );
    let content = dir.path().join("carnet");
    copy_dir(Path::new(&example()), &content);
    assert!(
        Command::new("mkfifo")
            .arg(content.join("skills/pipe.md"))
            .status()
            .unwrap()
            .success()
    );
    for command in [&["check"][..], &["build", "--out", "-"], &["serve-mcp", "researcher"]] {
        let mut args = command.to_vec();
        args.extend(["--dir", content.to_str().unwrap()]);
        let output = carnet(&args);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {}", stderr(&output));
        assert!(stderr(&output).contains("error[E0030]"), "{}", stderr(&output));
    }
    assert!(start.elapsed() < std::time::Duration::from_secs(30));
}

#[test]
fn control_characters_in_a_manifest_are_printed_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("m.json");
    fs::write(
        &manifest,
        r#"{"agents": {"a": {"name": "a", "description": "evil \u001b]0;owned\u0007 agent", "skills": [], "prompt": ""}}, "skills": {}, "toolsets": {}}"#,
    )
    .unwrap();
    for args in [
        &["list", "--manifest", manifest.to_str().unwrap()][..],
        &["show", "agent", "a", "--manifest", manifest.to_str().unwrap()],
    ] {
        let output = carnet(args);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let text = stdout(&output);
        assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'), "{text:?}");
        assert!(text.contains("\\u{1b}]0;owned\\u{7}"), "{text}");
    }
}

#[test]
fn prompt_catalog_xml_stats_modes_and_envelope_results() {
    let dir = example();
    let out = carnet(&["--dir", &dir, "prompt", "researcher", "--catalog", "xml"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let prompt = stdout(&out);
    assert!(
        prompt.contains("<available_skills>\n<skill>\n<name>\ndataAnalysis\n</name>"),
        "{prompt}"
    );
    assert!(prompt.contains("<location>\nskill://dataAnalysis/SKILL.md\n</location>"));

    let out = call_researcher(&[
        "loadSkill",
        r#"{"skillName": "reportWriting"}"#,
        "--results",
        "envelope",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("<skill_context name=\"reportWriting\">\n"), "{text}");
    assert!(text.trim_end().ends_with("</skill_context>"));

    // A call costs prompt, tools and the history; the modes that keep the prefix have a
    // cache-stable share, dynamic has none.
    let stats = |mode: &str| -> serde_json::Value {
        let out = carnet(&[
            "--dir",
            &dir,
            "--format",
            "json",
            "stats",
            "researcher",
            "--load",
            "dataAnalysis",
            "--no-skill-costs",
            "--mode",
            mode,
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap()[0].clone()
    };
    let dynamic = stats("dynamic");
    let deferred = stats("deferred");
    let load = &dynamic["turns"][1];
    assert!(
        load["history"].as_u64().unwrap() > 1000,
        "the load result stays in the history: {load}"
    );
    assert_eq!(
        load["call"].as_u64().unwrap(),
        load["system"].as_u64().unwrap() + load["tools"].as_u64().unwrap() + load["history"].as_u64().unwrap()
    );
    assert_eq!(dynamic["conversation"]["cacheStable"], 0);
    assert_eq!(deferred["turns"][1]["cacheStable"], deferred["turns"][0]["call"]);
    assert!(deferred["conversation"]["cacheStableShare"].as_f64().unwrap() > 10.0);
}

#[test]
fn card_prints_the_a2a_agent_card_naming_the_url_given() {
    let out = carnet(&[
        "--dir",
        &example(),
        "card",
        "researcher",
        "--url",
        "https://agents.example.com/mcp",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let card: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(card["name"], "researcher");
    assert_eq!(card["supportedInterfaces"][0]["url"], "https://agents.example.com/mcp");
    assert_eq!(card["supportedInterfaces"][0]["protocolVersion"], "1.0");
    let ids: Vec<&str> = card["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"dataAnalysis") && ids.windows(2).all(|w| w[0] < w[1]),
        "{ids:?}"
    );
    for skill in card["skills"].as_array().unwrap() {
        assert!(skill["tags"].is_array() && skill["description"].is_string(), "{skill}");
    }
    let unknown = carnet(&[
        "--dir",
        &example(),
        "card",
        "reseacher",
        "--url",
        "http://127.0.0.1:8080/mcp",
    ]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("did you mean `researcher`?"),
        "{}",
        stderr(&unknown)
    );
}

#[test]
fn card_a2a_prints_the_card_serve_a2a_serves_and_serve_a2a_refuses_bad_models() {
    let out = carnet(&[
        "--dir",
        &example(),
        "card",
        "researcher",
        "--url",
        "https://agents.example.com",
        "--a2a",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let card: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let bindings: Vec<&str> = card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["protocolBinding"].as_str().unwrap())
        .collect();
    assert_eq!(bindings, ["JSONRPC", "HTTP+JSON"]);
    assert_eq!(card["supportedInterfaces"][1]["url"], "https://agents.example.com");
    assert_eq!(card["capabilities"]["streaming"], true);

    let serve = |model: &str, agent: &str| {
        Command::new(env!("CARGO_BIN_EXE_carnet"))
            .args([
                "--dir",
                &example(),
                "serve-a2a",
                agent,
                "--http",
                "127.0.0.1:0",
                "--model",
                model,
            ])
            .env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_API_KEY")
            .output()
            .unwrap()
    };
    let unknown = serve("mystery:x", "researcher");
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("unknown provider `mystery`"),
        "{}",
        stderr(&unknown)
    );
    let no_key = serve("anthropic:claude-x", "researcher");
    assert_eq!(no_key.status.code(), Some(2));
    assert!(stderr(&no_key).contains("ANTHROPIC_API_KEY"), "{}", stderr(&no_key));
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    std::fs::write(&script, r#"{"replies": [{"steps": []}]}"#).unwrap();
    let empty = serve(&format!("scripted:{}", script.display()), "researcher");
    assert_eq!(empty.status.code(), Some(2));
    assert!(stderr(&empty).contains("has no steps"), "{}", stderr(&empty));
    std::fs::write(&script, r#"{"replies": [{"steps": [{"text": "hi"}]}]}"#).unwrap();
    let agent = serve(&format!("scripted:{}", script.display()), "reseacher");
    assert_eq!(agent.status.code(), Some(2));
    assert!(
        stderr(&agent).contains("did you mean `researcher`?"),
        "{}",
        stderr(&agent)
    );
}

#[test]
fn serve_mcp_refuses_a_session_key_too_short_to_seal_handles() {
    let out = Command::new(env!("CARGO_BIN_EXE_carnet"))
        .args([
            "--dir",
            &example(),
            "serve-mcp",
            "researcher",
            "--mode",
            "dispatcher",
            "--http",
            "127.0.0.1:0",
        ])
        .env("CARNET_SESSION_KEY", "short")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("CARNET_SESSION_KEY") && stderr(&out).contains("at least 32 bytes"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn stats_svg_draws_every_mode_and_everything_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("stats.svg");
    let output = carnet(&[
        "--dir",
        &example(),
        "stats",
        "researcher",
        "--load",
        "dataAnalysis",
        "--load",
        "reportWriting",
        "--no-skill-costs",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("whole conversation (3 calls)"),
        "the table still prints"
    );
    let text = fs::read_to_string(&svg).unwrap();
    let document = roxmltree::Document::parse(&text).expect("the chart is well-formed XML");
    let root = document.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.attribute("width"), Some("800"));
    let texts: Vec<&str> = document
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .map(str::trim)
        .collect();
    let series = [
        "everything up front",
        "progressive, dynamic",
        "progressive, dispatcher",
        "progressive, deferred",
        "progressive, allowed-tools",
    ];
    for label in series {
        // One legend for both panels, above them (inside, it covered a line).
        assert_eq!(texts.iter().filter(|t| **t == label).count(), 1, "{label} in {texts:?}");
    }
    for title in [
        "tokens (o200k_base)",
        "model call (the loads before it)",
        "0: start",
        "1: +dataAnalysis",
        "2: +reportWriting",
    ] {
        assert!(texts.contains(&title), "{title} in {texts:?}");
    }
    // A line of three points (one per model call) per series in each panel.
    let lines = document
        .descendants()
        .filter(|n| n.has_tag_name("polyline"))
        .filter(|n| n.attribute("points").is_some_and(|p| p.split_whitespace().count() == 3))
        .count();
    assert_eq!(lines, 2 * series.len());

    let bad = carnet(&["--dir", &example(), "stats", "nobody", "--svg", svg.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2));
}

/// `carnet search`: the ranked tools as `searchTools` gives them, as a table or JSON.
#[test]
fn search_ranks_the_tools_an_agent_can_reach() {
    let table = carnet(&[
        "search",
        "researcher",
        "convert miles to kilometres",
        "--dir",
        &example(),
    ]);
    assert!(table.status.success(), "{}", stderr(&table));
    let text = stdout(&table);
    let first = text.lines().nth(1).unwrap_or_default();
    assert!(
        first.starts_with("convertUnits ") && first.contains("unitConversion"),
        "{text}"
    );

    let json = carnet(&[
        "search",
        "researcher",
        "chart a dataset",
        "--limit",
        "2",
        "--format",
        "json",
        "--dir",
        &example(),
    ]);
    let value: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    let hits = value["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0]["name"], "visualizeData");
    assert_eq!(hits[0]["loaded"], false);

    // `--explain`: under each hit, the terms it holds; they add up to its score.
    let explained = carnet(&[
        "search",
        "researcher",
        "convert miles to kilometres",
        "--limit",
        "3",
        "--explain",
        "--dir",
        &example(),
    ]);
    assert!(explained.status.success(), "{}", stderr(&explained));
    let text = stdout(&explained);
    assert!(text.contains("convert (a word of the query;"), "{text}");
    assert!(text.contains("unit (a synonym of `mile`;"), "{text}");
    let json = carnet(&[
        "search",
        "researcher",
        "convertUnits",
        "--explain",
        "--format",
        "json",
        "--dir",
        &example(),
    ]);
    let value: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    for hit in value["hits"].as_array().unwrap() {
        let explain = &hit["explain"];
        let terms: f64 = explain["terms"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["score"].as_f64().unwrap())
            .sum();
        let exact = if explain["exactName"] == true { 100.0 } else { 0.0 };
        let score = hit["score"].as_f64().unwrap();
        assert!((terms + exact - score).abs() < 0.01, "{hit}");
        assert!((explain["score"].as_f64().unwrap() - score).abs() < 0.01, "{hit}");
    }
    assert_eq!(value["hits"][0]["name"], "convertUnits");
    assert_eq!(value["hits"][0]["explain"]["exactName"], true);

    // Another agent's tools are not found; mistakes are usage errors.
    let analyst = carnet(&["search", "analyst", "search the web", "--dir", &example()]);
    assert!(!stdout(&analyst).contains("basicSearch"), "{}", stdout(&analyst));
    assert_eq!(
        carnet(&["search", "researcher", " ", "--dir", &example()])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        carnet(&["search", "nobody", "x", "--dir", &example()]).status.code(),
        Some(2)
    );
    assert_eq!(
        carnet(&["search", "researcher", "x", "--limit", "0", "--dir", &example()])
            .status
            .code(),
        Some(2)
    );
}

/// `stats` prices the conversation with prompt caching too: the cacheable prefix at
/// `--cached-price` of the full price, against everything up front, cached after its first
/// call. A mode that breaks the cache can cost more than sending everything: it shows.
#[test]
fn stats_prices_prompt_caching() {
    let run = |mode: &str, price: &str| -> serde_json::Value {
        let out = carnet(&[
            "stats",
            "researcher",
            "--load",
            "dataAnalysis",
            "--load",
            "reportWriting",
            "--mode",
            mode,
            "--cached-price",
            price,
            "--no-skill-costs",
            "--format",
            "json",
            "--dir",
            &example(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap()[0]["withCaching"].clone()
    };
    let dynamic = run("dynamic", "0.1");
    let deferred = run("deferred", "0.1");
    let up_front = dynamic["upFront"].as_f64().unwrap();
    assert_eq!(deferred["upFront"], dynamic["upFront"]);
    // Deferred keeps its prefix and costs less than dynamic, whose prefix changes each load.
    assert!(deferred["progressive"].as_f64().unwrap() < dynamic["progressive"].as_f64().unwrap());
    assert!(dynamic["progressive"].as_f64().unwrap() > up_front, "{dynamic}");
    // No discount: caching changes nothing.
    let full = run("dynamic", "1");
    assert_eq!(full["cachedPrice"], 1.0);
    let bad = carnet(&["stats", "researcher", "--cached-price", "2", "--dir", &example()]);
    assert_eq!(bad.status.code(), Some(2));
}

/// `stats` sets a search round trip (`searchTools` for one of a skill's tools, then
/// `loadTool` of the best hit, and the model call between them at the cached price) beside
/// loading the whole skill, in the mode asked for.
#[test]
fn stats_prices_a_search_round_trip_against_loading_the_skill() {
    let run = |mode: &str, price: &str| -> serde_json::Value {
        let out = carnet(&[
            "stats",
            "researcher",
            "--mode",
            mode,
            "--cached-price",
            price,
            "--format",
            "json",
            "--dir",
            &example(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap()[0]["skills"].clone()
    };
    let mut extra_calls = Vec::new();
    for mode in ["dynamic", "dispatcher", "deferred", "allowed-tools"] {
        let skills = run(mode, "0.1");
        let skill = skills
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["skill"] == "unitConversion")
            .unwrap_or_else(|| panic!("{skills}"));
        let trip = &skill["searchRoundTrip"];
        assert_eq!(trip["tool"], "convertUnits", "{mode}: {trip}");
        assert_eq!(trip["hit"], "convertUnits", "{mode}: the tool's own words find it");
        let [search, load_tool, extra, total] =
            ["search", "loadTool", "extraCall", "total"].map(|k| trip[k].as_f64().unwrap());
        assert!(search > 0.0 && load_tool > 0.0 && extra > 0.0, "{mode}: {trip}");
        assert!((search + load_tool + extra - total).abs() <= 1.0, "{mode}: {trip}");
        assert!(
            total < skill["total"].as_f64().unwrap(),
            "{mode}: one tool costs less than the whole skill here: {skill}"
        );
        extra_calls.push(extra);
        // The extra call is the context at the cached price: free at 0, whole at 1.
        let free = run(mode, "0");
        let whole = run(mode, "1");
        let at = |v: &serde_json::Value| {
            v.as_array()
                .unwrap()
                .iter()
                .find(|s| s["skill"] == "unitConversion")
                .unwrap()["searchRoundTrip"]["extraCall"]
                .as_f64()
                .unwrap()
        };
        assert!(at(&free).abs() < f64::EPSILON, "{mode}");
        assert!(
            (at(&whole) - extra * 10.0).abs() <= 10.0,
            "{mode}: {} vs {extra}",
            at(&whole)
        );
    }
    // The modes that send every tool resend more between the two calls.
    assert!(extra_calls[2] > extra_calls[0], "{extra_calls:?}");

    let out = carnet(&["stats", "researcher", "--mode", "dispatcher", "--dir", &example()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("or a search round trip for one of its tools (dispatcher mode"),
        "{text}"
    );
    assert!(text.contains("convertUnits"), "{text}");
    // Without skill costs there is nothing to compare.
    let out = carnet(&["stats", "researcher", "--no-skill-costs", "--dir", &example()]);
    assert!(!stdout(&out).contains("search round trip"));
}
