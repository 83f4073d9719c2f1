//! Browse-only discovery (`listTools`, `describeTool`) never changes what is exposed; skills
//! as tools (`task.<skill>`) load their skill; both follow the presets and the naming.

use carnet_runtime::session::discovery::{namespace, summary};
use carnet_runtime::{
    Carnet, ExposureMode, Manifest, Naming, Preset, Session, ToolImpl, ToolKind, ToolOutput, ToolsetImpl, block_on,
};
use serde_json::{Value, json};

const MANIFEST: &str = r#"{
  "agents": {
    "assistant": { "name": "assistant", "description": "Helps", "initialSkills": ["notes"],
      "skills": ["files"], "prompt": "You help." }
  },
  "skills": {
    "notes": { "name": "notes", "description": "Keep notes. Short ones.", "toolsets": ["notes"], "content": "Take notes." },
    "files": { "name": "files", "description": "Read and write files", "toolsets": ["files"], "content": "Manage files." }
  },
  "toolsets": {
    "notes": { "name": "notes", "description": "Notes", "content": "", "tools": [
      { "name": "note.add", "description": "Adds a note. The note is kept for the session.", "content": "" } ] },
    "files": { "name": "files", "description": "Files", "content": "", "tools": [
      { "name": "file.read", "description": "Reads a file!\nSecond line.", "content": "Example: `file.read {\"path\": \"a.txt\"}`" },
      { "name": "listDir", "description": "Lists a folder", "content": "", "title": "List a folder",
        "annotations": {"readOnlyHint": true} } ] }
  }
}"#;

fn carnet(configure: impl FnOnce(carnet_runtime::CarnetBuilder) -> carnet_runtime::CarnetBuilder) -> Carnet {
    let manifest = Manifest::from_json(MANIFEST).unwrap();
    let echo = |name: &'static str| {
        ToolImpl::from_fn(name, json!({"type": "object"}), move |args| async move {
            Ok(json!({"tool": name, "args": args}))
        })
    };
    let read =
        echo("file.read").with_output_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}}));
    configure(
        Carnet::builder(&manifest)
            .toolsets([
                ToolsetImpl::new("notes", [echo("note.add")]),
                ToolsetImpl::new("files", [read, echo("listDir")]),
            ])
            .preset(Preset::Discovery),
    )
    .build()
    .unwrap()
}

fn call(session: &mut Session, tool: &str, arguments: Value) -> ToolOutput {
    block_on(session.call(tool, arguments))
}

fn names(session: &Session) -> Vec<String> {
    session.tools().iter().map(|t| t.name.clone()).collect()
}

#[test]
fn summaries_and_namespaces() {
    assert_eq!(summary("Adds a note. The note is kept."), "Adds a note.");
    assert_eq!(summary("Reads a file!\nSecond line."), "Reads a file!");
    assert_eq!(summary("Version 1.5 of the tool"), "Version 1.5 of the tool");
    assert_eq!(summary("  "), "");
    let manifest = Manifest::from_json(MANIFEST).unwrap();
    let carnet = Carnet::builder(&manifest).allow_unimplemented().build().unwrap();
    let spec = |name: &str| carnet.domain_tools_named(name).next().unwrap().clone();
    assert_eq!(namespace(&spec("file.read")), "file");
    assert_eq!(namespace(&spec("listDir")), "files", "no dotted prefix: the toolset");
}

#[test]
fn list_tools_and_describe_tool_only_browse() {
    let carnet = carnet(|b| b);
    let mut session = carnet.session("assistant").unwrap();
    let before = (names(&session), session.system_prompt().to_owned(), session.state());
    assert!(before.0.contains(&"listTools".to_owned()) && before.0.contains(&"describeTool".to_owned()));

    let listed = call(&mut session, "listTools", json!({}));
    assert_eq!(
        listed.value["tools"],
        json!([
            {"name": "file.read", "summary": "Reads a file!", "namespace": "file"},
            {"name": "listDir", "summary": "Lists a folder", "namespace": "files",
             "title": "List a folder", "annotations": {"readOnlyHint": true}},
            {"name": "note.add", "summary": "Adds a note.", "namespace": "note"},
        ])
    );
    let file = call(&mut session, "listTools", json!({"namespace": "file"}));
    assert_eq!(file.value["tools"].as_array().unwrap().len(), 1);
    let missing = call(&mut session, "listTools", json!({"namespace": "fil"}));
    assert_eq!(missing.error_message(), Some("no namespace `fil`"));
    assert_eq!(missing.value["similar"][0], "file");

    let described = call(&mut session, "describeTool", json!({"name": "file_read"}));
    assert_eq!(described.value["name"], "file.read");
    assert_eq!(described.value["description"], "Reads a file!\nSecond line.");
    assert_eq!(described.value["toolset"], "files");
    assert_eq!(described.value["outputSchema"]["properties"]["text"]["type"], "string");
    assert_eq!(described.value["callable"], false);
    assert_eq!(described.value["loadWith"], json!(["files"]));
    assert!(
        described.value["documentation"]
            .as_str()
            .unwrap()
            .starts_with("Example:")
    );
    let dir = call(&mut session, "describeTool", json!({"name": "listDir"}));
    assert_eq!(dir.value["title"], "List a folder");
    assert_eq!(dir.value["annotations"], json!({"readOnlyHint": true}));
    assert!(described.value.get("annotations").is_none(), "none declared");
    let unknown = call(&mut session, "describeTool", json!({"name": "file.reed"}));
    assert_eq!(unknown.value["similar"][0], "file.read");

    // Nothing changed: the same tools, prompt and state; the tool is still refused.
    assert_eq!(
        (names(&session), session.system_prompt().to_owned(), session.state()),
        before
    );
    assert!(call(&mut session, "file.read", json!({})).is_error);
    // Loading is what exposes.
    call(&mut session, "loadTool", json!({"toolName": "file.read"}));
    assert!(!call(&mut session, "file.read", json!({})).is_error);
    assert_eq!(
        call(&mut session, "describeTool", json!({"name": "file.read"})).value["callable"],
        true
    );
}

#[test]
fn presets_and_naming_cover_the_discovery_tools() {
    let full = carnet(|b| b.preset(Preset::Full));
    let session = full.session("assistant").unwrap();
    assert!(!names(&session).iter().any(|n| n == "listTools"), "Full keeps its six");
    let snake = carnet(|b| b.naming(Naming::SnakeCase));
    let mut session = snake.session("assistant").unwrap();
    assert!(names(&session).contains(&"list_tools".to_owned()));
    assert_eq!(
        call(&mut session, "describe_tool", json!({"name": "listDir"})).value["name"],
        "listDir"
    );
}

#[test]
fn skills_as_tools_load_their_skill() {
    let carnet = carnet(|b| b.skills_as_tools(true));
    let mut session = carnet.session("assistant").unwrap();
    let tools = session.tools().to_vec();
    let task = tools.iter().find(|t| t.name == "task.files").expect("the skill's tool");
    assert_eq!(task.description, "Read and write files");
    assert_eq!(task.kind, ToolKind::Meta);
    let listed = call(&mut session, "listTools", json!({"namespace": "task"}));
    let listed: Vec<&str> = listed.value["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["task.files", "task.notes"]);

    // The provider alias works as well; the call loads the skill and returns its content.
    assert!(!session.is_exposed("listDir"));
    let loaded = call(&mut session, "task_files", json!({}));
    assert_eq!(loaded.value["content"], "Manage files.");
    assert!(loaded.exposes.contains(&"listDir".to_owned()));
    assert!(session.is_loaded("files") && session.is_exposed("listDir"));
    assert_eq!(call(&mut session, "task.files", json!({})).value["alreadyLoaded"], true);
    assert!(
        call(&mut session, "task.files", json!({"x": 1})).is_error,
        "no parameters"
    );
    assert!(
        session.call_detached("task.files", &json!({})).is_none(),
        "it changes the session"
    );

    // Off by default; in the modes that keep the prefix they are eager like meta-tools.
    let off = self::carnet(|b| b);
    assert!(
        !names(&off.session("assistant").unwrap())
            .iter()
            .any(|n| n.starts_with("task."))
    );
    let deferred = self::carnet(|b| b.skills_as_tools(true).mode(ExposureMode::Deferred));
    let session = deferred.session("assistant").unwrap();
    assert!(session.callable_tools().any(|n| n == "task.files"));
}

#[test]
fn tools_only_filters_the_offered_list_for_one_call() {
    let carnet = carnet(|b| b);
    let mut session = carnet.session("assistant").unwrap();
    let only: Vec<String> = session
        .tools_only(&["loadSkill", "note_add", "file.read", "nosuch"])
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(
        only,
        ["loadSkill", "note.add"],
        "offered tools only, by name or alias, in list order"
    );
    call(&mut session, "loadSkill", json!({"skillName": "files"}));
    let only: Vec<String> = session.tools_only(&["file.read"]).into_iter().map(|t| t.name).collect();
    assert_eq!(only, ["file.read"]);
    assert!(names(&session).len() > 3, "the session's own list is untouched");
}

/// `searchTools` ranks what the agent can reach (loaded or not) and exposes nothing; its
/// hits name the skill that brings each tool and whether it is callable; hostile queries
/// give clear answers, never a panic or a scan of a megabyte.
#[test]
fn search_tools_ranks_without_exposing() {
    let engine = carnet(|b| b);
    let mut session = engine.session("assistant").unwrap();
    assert!(
        names(&session).contains(&"searchTools".to_owned()),
        "in the discovery preset"
    );
    let before = (names(&session), session.system_prompt().to_owned(), session.state());

    let hits = |session: &mut Session, query: &str| -> Vec<Value> {
        let out = call(session, "searchTools", json!({"query": query}));
        assert!(!out.is_error, "{}", out.value);
        out.value["hits"].as_array().unwrap().clone()
    };
    // By meaning: the description and the skill's words count, not only the name.
    let found = hits(&mut session, "show what is in a folder");
    assert_eq!(found[0]["name"], "listDir", "{found:?}");
    assert_eq!(found[0]["skill"], "files");
    assert_eq!(found[0]["loaded"], false);
    assert_eq!(found[0]["annotations"], json!({"readOnlyHint": true}));
    assert!(found[0]["score"].as_f64().unwrap() > 0.0);
    // Names split at dots, camelCase and snake_case; an exact name wins.
    assert_eq!(hits(&mut session, "file_read")[0]["name"], "file.read");
    assert_eq!(hits(&mut session, "read files")[0]["name"], "file.read");
    assert_eq!(hits(&mut session, "add a note")[0]["name"], "note.add");
    assert_eq!(
        hits(&mut session, "add a note")[0]["loaded"],
        true,
        "notes is an initial skill"
    );
    assert!(hits(&mut session, "zebra quantum").is_empty());
    let limited = call(
        &mut session,
        "searchTools",
        json!({"query": "files folder note read", "limit": 1}),
    );
    assert_eq!(limited.value["hits"].as_array().unwrap().len(), 1);

    // Hostile queries: empty, out of range, huge, only stop words, control characters.
    let empty = call(&mut session, "searchTools", json!({"query": "  "}));
    assert!(empty.is_error && empty.error_message().unwrap().contains("empty"));
    assert!(call(&mut session, "searchTools", json!({"query": "x", "limit": 0})).is_error);
    assert!(call(&mut session, "searchTools", json!({"query": "x", "limit": 51})).is_error);
    assert!(call(&mut session, "searchTools", json!({})).is_error);
    let huge = call(&mut session, "searchTools", json!({"query": "folder ".repeat(150_000)}));
    assert!(huge.is_error, "longer than the schema's maxLength");
    assert!(hits(&mut session, "the of and to").is_empty());
    let _ = hits(&mut session, "文件 📁 \u{202e}\u{0}folder");

    // Nothing changed: the tools, prompt and state are the same; the tool is still refused.
    assert_eq!(
        (names(&session), session.system_prompt().to_owned(), session.state()),
        before
    );
    assert!(call(&mut session, "listDir", json!({})).is_error);

    // Snake-case naming.
    let snake = carnet(|b| b.naming(Naming::SnakeCase));
    let mut session = snake.session("assistant").unwrap();
    let out = call(&mut session, "search_tools", json!({"query": "folder", "limit": 3}));
    assert_eq!(out.value["hits"][0]["name"], "listDir", "{}", out.value);
}

/// An agent's search sees only the tools it can reach: another agent's skills stay hidden.
#[test]
fn search_tools_sees_only_what_the_agent_can_reach() {
    let manifest = Manifest::from_json(&MANIFEST.replace(
        r#""skills": ["files"], "prompt": "You help." }"#,
        r#""skills": [], "prompt": "You help." },
    "reader": { "name": "reader", "description": "Reads", "skills": ["files"], "prompt": "" }"#,
    ))
    .unwrap();
    let carnet = Carnet::builder(&manifest)
        .allow_unimplemented()
        .preset(Preset::Discovery)
        .build()
        .unwrap();
    let mut assistant = carnet.session("assistant").unwrap();
    let out = call(
        &mut assistant,
        "searchTools",
        json!({"query": "read a file in a folder"}),
    );
    let names: Vec<&str> = out.value["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap())
        .collect();
    assert!(
        !names.contains(&"file.read") && !names.contains(&"listDir"),
        "{names:?}"
    );
    let mut reader = carnet.session("reader").unwrap();
    let out = call(&mut reader, "searchTools", json!({"query": "read a file"}));
    assert_eq!(out.value["hits"][0]["name"], "file.read");
}

/// Tool-level loading (`search_loads_tools(true)`): the hits are loaded as `loadTool` loads
/// a tool (schemas in the result, callable next), and only tools the agent can reach.
#[test]
fn search_can_load_what_it_finds() {
    let engine = carnet(|b| b.search_loads_tools(true));
    let mut session = engine.session("assistant").unwrap();
    assert!(!session.is_exposed("listDir"));
    let out = call(
        &mut session,
        "searchTools",
        json!({"query": "folder listing", "limit": 1}),
    );
    assert_eq!(out.value["hits"][0]["name"], "listDir", "{}", out.value);
    assert_eq!(out.value["hits"][0]["loaded"], true);
    assert_eq!(out.value["hits"][0]["inputSchema"]["type"], "object");
    assert_eq!(out.exposes, ["listDir"]);
    assert!(session.is_exposed("listDir") && !session.is_exposed("file.read"));
    assert!(names(&session).contains(&"listDir".to_owned()), "in the tool list now");
    assert!(!call(&mut session, "listDir", json!({})).is_error);
    assert!(
        call(&mut session, "file.read", json!({})).is_error,
        "not a hit: still refused"
    );
}

/// An engine without `searchTools` builds no index, and the tool is not there to call.
#[test]
fn without_search_tools_there_is_nothing_to_search() {
    let engine = carnet(|b| b.preset(Preset::Full));
    let mut session = engine.session("assistant").unwrap();
    assert!(!names(&session).contains(&"searchTools".to_owned()));
    let out = call(&mut session, "searchTools", json!({"query": "folder"}));
    assert!(out.is_error, "{}", out.value);
}
