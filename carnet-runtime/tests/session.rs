//! Sessions end to end on the seed's worked example: agent `researcher` starts with
//! `webSearch` and loads `dataAnalysis` on demand; agent `analyst` shares the engine.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use carnet_runtime::block_on;
use carnet_runtime::{
    Before, BuildError, CallInfo, Carnet, Explanation, ExposureMode, Hook, Manifest, MetaTool, Naming, Preset,
    PromptOptions, Session, SessionError, ToolError, ToolImpl, ToolOutput, ToolsetImpl, Variables,
};
use serde_json::{Value, json};

const MANIFEST: &str = r##"{
  "agents": {
    "researcher": { "name": "researcher", "description": "Researches",
      "initialSkills": ["webSearch"], "skills": ["dataAnalysis"],
      "prompt": "You are a researcher working for {{ ORG }}." },
    "analyst": { "name": "analyst", "description": "Analyses", "skills": ["dataAnalysis"],
      "prompt": "You are an analyst." }
  },
  "skills": {
    "webSearch": { "name": "webSearch", "description": "Search the web", "toolsets": ["search-tools", "filter-tools"],
      "content": "# Web search\n\nSearch for {{ ORG }}." },
    "dataAnalysis": { "name": "dataAnalysis", "description": "Analyse data", "toolsets": ["statistical-analysis", "visualization"],
      "content": "# Data analysis\n\nUse the statistics tools.",
      "files": [
        { "path": "guide.md", "description": "How to analyse", "content": "# Guide\n" },
        { "path": "logo.png", "description": "The logo", "content": "AAEC/w==", "encoding": "base64", "mediaType": "image/png" }
      ] }
  },
  "toolsets": {
    "search-tools": { "name": "search-tools", "description": "Search", "content": "Search docs for {{ ORG }}.", "tools": [
      { "name": "basicSearch", "description": "Basic search" },
      { "name": "advancedSearch", "description": "Advanced search" },
      { "name": "filterResults", "description": "Filter results" } ] },
    "filter-tools": { "name": "filter-tools", "description": "Filters", "content": "", "tools": [
      { "name": "filterByDate", "description": "Filter by date" },
      { "name": "filterByDomain", "description": "Filter by domain" } ] },
    "statistical-analysis": { "name": "statistical-analysis", "description": "Statistics", "content": "", "tools": [
      { "name": "analyzeStatistics", "description": "Compute statistics" } ] },
    "visualization": { "name": "visualization", "description": "Charts", "content": "", "tools": [
      { "name": "visualizeData", "description": "Draw a chart" } ] }
  }
}"##;

const META: [&str; 6] = [
    "listAvailableSkills",
    "loadSkill",
    "listSkillToolsets",
    "loadToolset",
    "loadTool",
    "loadSkillFile",
];
const SEARCH: [&str; 5] = [
    "basicSearch",
    "advancedSearch",
    "filterResults",
    "filterByDate",
    "filterByDomain",
];

fn manifest() -> Manifest {
    Manifest::from_json(MANIFEST).unwrap()
}

fn query_schema() -> Value {
    json!({"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["query"], "additionalProperties": false})
}

fn echo(name: &'static str) -> ToolImpl {
    ToolImpl::from_fn(name, json!({"type": "object"}), move |args| async move {
        Ok(json!({"tool": name, "args": args}))
    })
}

fn toolsets() -> Vec<ToolsetImpl> {
    vec![
        ToolsetImpl::new(
            "search-tools",
            [
                ToolImpl::from_fn("basicSearch", query_schema(), |args| async move {
                    Ok(json!({"hits": [format!("result for {}", args["query"].as_str().unwrap())]}))
                }),
                ToolImpl::from_fn("advancedSearch", query_schema(), |_| async {
                    Err(ToolError::new("the search index is offline"))
                }),
                ToolImpl::from_fn("filterResults", json!({"type": "object"}), |_| async {
                    panic!("filter exploded")
                }),
            ],
        ),
        ToolsetImpl::new("filter-tools", [echo("filterByDate"), echo("filterByDomain")]),
        ToolsetImpl::new(
            "statistical-analysis",
            [ToolImpl::from_fn(
                "analyzeStatistics",
                json!({"type": "object", "properties": {"values": {"type": "array", "items": {"type": "number"}}}, "required": ["values"]}),
                |args| async move {
                    let values: Vec<f64> = args["values"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_f64().unwrap())
                        .collect();
                    let count = f64::from(u32::try_from(values.len()).unwrap());
                    Ok(json!({"mean": values.iter().sum::<f64>() / count}))
                },
            )],
        ),
        ToolsetImpl::new("visualization", [echo("visualizeData")]),
    ]
}

fn carnet() -> Carnet {
    Carnet::builder(&manifest())
        .toolsets(toolsets())
        .variables([("ORG", "Acme")])
        .env_prefixes::<&str>([])
        .build()
        .unwrap()
}

fn names(session: &Session) -> Vec<String> {
    session.tools().iter().map(|t| t.name.clone()).collect()
}

fn expected(extra: &[&[&str]]) -> Vec<String> {
    let mut all: Vec<String> = META.iter().map(|s| (*s).to_owned()).collect();
    for list in extra {
        all.extend(list.iter().map(|s| (*s).to_owned()));
    }
    all
}

fn call(session: &mut Session, tool: &str, args: Value) -> ToolOutput {
    block_on(session.call(tool, args))
}

#[test]
fn worked_example_tool_list_at_each_step() {
    let carnet = carnet();
    let mut researcher = carnet.session("researcher").unwrap();
    assert_eq!(names(&researcher), expected(&[&SEARCH]));

    let out = call(&mut researcher, "loadSkill", json!({"skillName": "dataAnalysis"}));
    assert!(!out.is_error, "{:?}", out.value);
    assert_eq!(out.value["success"], true);
    assert_eq!(out.value["content"], "# Data analysis\n\nUse the statistics tools.");
    assert_eq!(out.value["tools"], json!(["analyzeStatistics", "visualizeData"]));
    assert_eq!(
        out.value["files"][1],
        json!({"path": "logo.png", "description": "The logo", "mediaType": "image/png", "size": 4})
    );
    assert_eq!(
        names(&researcher),
        expected(&[&SEARCH, &["analyzeStatistics", "visualizeData"]])
    );

    // Loading twice is idempotent.
    let again = call(&mut researcher, "loadSkill", json!({"skillName": "dataAnalysis"}));
    assert_eq!(again.value["alreadyLoaded"], true);
    assert_eq!(
        names(&researcher),
        expected(&[&SEARCH, &["analyzeStatistics", "visualizeData"]])
    );

    let stats = call(&mut researcher, "analyzeStatistics", json!({"values": [1, 2, 3, 6]}));
    assert_eq!(stats, ToolOutput::ok(json!({"mean": 3.0})));

    // Unload and reset.
    assert!(researcher.unload_skill("dataAnalysis"));
    assert!(!researcher.unload_skill("dataAnalysis"));
    assert_eq!(names(&researcher), expected(&[&SEARCH]));
    researcher.load_skill("dataAnalysis").unwrap();
    researcher.reset();
    assert_eq!(names(&researcher), expected(&[&SEARCH]));
    assert_eq!(researcher.loaded_skills().collect::<Vec<_>>(), ["webSearch"]);
}

fn sections(prompt: &str) -> Vec<&str> {
    prompt
        .split("\n\n---\n\n")
        .map(|s| s.lines().next().unwrap_or(""))
        .collect()
}

#[test]
fn worked_example_prompt_sections_at_each_step() {
    let carnet = carnet();
    let mut researcher = carnet.session("researcher").unwrap();
    let before = researcher.system_prompt().to_owned();
    assert_eq!(
        sections(&before),
        [
            "You are a researcher working for Acme.",
            "## Skills",
            "## On-Demand Skills",
            "## How to Load Skills",
            "## Available Domain Tools"
        ]
    );
    assert!(before.contains("Search for Acme."), "variables reach skill content");
    assert!(before.contains("- **dataAnalysis**: Analyse data (toolsets: statistical-analysis, visualization)"));
    for meta in META {
        assert!(before.contains(&format!("- `{meta}()`")), "instructions name `{meta}`");
    }
    assert!(before.contains("- **basicSearch**: Basic search\n"));

    call(&mut researcher, "loadSkill", json!({"skillName": "dataAnalysis"}));
    let after = researcher.system_prompt().to_owned();
    assert_eq!(
        sections(&after),
        [
            "You are a researcher working for Acme.",
            "## Skills",
            "## On-Demand Skills",
            "## How to Load Skills",
            "## Loaded Skills",
            "## Available Domain Tools"
        ]
    );
    // The stable part is a byte-identical prefix: a provider's prompt cache survives the load.
    let stable = before.split("\n\n---\n\n## Available Domain Tools").next().unwrap();
    assert!(after.starts_with(stable));
    assert!(after.contains(
        "- **dataAnalysis**: Analyse data (toolsets: statistical-analysis, visualization)\n\n---\n\n## Available"
    ));
    assert!(after.ends_with("- **visualizeData**: Draw a chart"));
}

#[test]
fn prompt_is_cached_until_the_session_changes() {
    let carnet = carnet();
    let mut session = carnet.session("researcher").unwrap();
    let first = session.system_prompt().as_ptr();
    assert_eq!(
        session.system_prompt().as_ptr(),
        first,
        "a warm call returns the cached string"
    );
    let tools = session.tools().as_ptr();
    assert_eq!(session.tools().as_ptr(), tools);
    session.load_skill("dataAnalysis").unwrap();
    assert!(session.system_prompt().contains("## Loaded Skills"));
    // A failed call changes nothing.
    let cached = session.system_prompt().as_ptr();
    call(&mut session, "nope", json!({}));
    assert_eq!(session.system_prompt().as_ptr(), cached);
}

#[test]
fn a_state_reached_again_keeps_its_whole_prompt_for_the_sessions_after() {
    let engine = carnet();
    let loaded = |engine: &Carnet| {
        let mut session = engine.session("researcher").unwrap();
        session.load_skill("dataAnalysis").unwrap();
        session
    };
    // The first session in a state joins its prompt; so does the second (the state is
    // reached again: its whole prompt is kept from then on); the third shares it.
    let (first, second, third) = (loaded(&engine), loaded(&engine), loaded(&engine));
    assert_eq!(first.system_prompt(), second.system_prompt());
    assert_ne!(first.system_prompt().as_ptr(), second.system_prompt().as_ptr());
    assert_eq!(third.system_prompt().as_ptr(), second.system_prompt().as_ptr());
    // The same for the initial state, and every state keeps its own.
    let starts: Vec<Session> = (0..3).map(|_| engine.session("researcher").unwrap()).collect();
    let prompts: Vec<*const u8> = starts.iter().map(|s| s.system_prompt().as_ptr()).collect();
    assert_ne!(prompts[0], prompts[1]);
    assert_eq!(prompts[1], prompts[2]);
    assert_ne!(starts[2].system_prompt(), third.system_prompt());
    assert!(!starts[2].system_prompt().contains("## Loaded Skills"));
    // Whatever was kept, a session's prompt is the one a new engine builds for it.
    assert_eq!(loaded(&carnet()).system_prompt(), third.system_prompt());
}

#[test]
fn sessions_are_isolated() {
    let carnet = carnet();
    let mut researcher = carnet.session("researcher").unwrap();
    let mut analyst = carnet.session("analyst").unwrap();
    assert_eq!(names(&analyst), expected(&[]));
    call(&mut researcher, "loadSkill", json!({"skillName": "dataAnalysis"}));
    assert_eq!(
        names(&analyst),
        expected(&[]),
        "the analyst is unaffected by the researcher's load"
    );
    let refused = call(&mut analyst, "analyzeStatistics", json!({"values": [1]}));
    assert!(refused.is_error);
    assert_eq!(
        refused.error_message(),
        Some("tool `analyzeStatistics` is not available yet: load skill `dataAnalysis` first with `loadSkill`")
    );
    // A second researcher starts fresh.
    let other = carnet.session("researcher").unwrap();
    assert_eq!(names(&other), expected(&[&SEARCH]));
    // The analyst cannot reach the researcher's search tools at all.
    let out = call(&mut analyst, "basicSearch", json!({"query": "x"}));
    assert_eq!(
        out.error_message(),
        Some("tool `basicSearch` is not available to agent `analyst`")
    );
    let out = call(&mut analyst, "loadSkill", json!({"skillName": "webSearch"}));
    assert_eq!(
        out.error_message(),
        Some("skill `webSearch` is not available to agent `analyst`")
    );
    assert_eq!(out.value["available"], json!(["dataAnalysis"]));
}

#[test]
fn state_round_trips_through_json_into_a_fresh_engine() {
    let mut session = carnet().session("researcher").unwrap();
    call(&mut session, "loadSkill", json!({"skillName": "dataAnalysis"}));
    let json = serde_json::to_string(&session.state()).unwrap();
    assert!(json.contains(r#""skills":["webSearch","dataAnalysis"]"#), "{json}");

    let fresh = carnet();
    let resumed = fresh.resume(&serde_json::from_str(&json).unwrap()).unwrap();
    assert_eq!(names(&resumed), names(&session));
    assert_eq!(resumed.system_prompt(), session.system_prompt());

    let changed = Manifest::from_json(&MANIFEST.replace("Compute statistics", "Compute stats")).unwrap();
    let other = Carnet::builder(&changed).toolsets(toolsets()).build().unwrap();
    let err = other.resume(&serde_json::from_str(&json).unwrap()).unwrap_err();
    assert!(matches!(err, SessionError::ManifestChanged { .. }), "{err}");

    let mut tampered = session.state();
    tampered.skills.push("nope".into());
    let err = fresh.resume(&tampered).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the session state names skill `nope`, which agent `researcher` cannot load"
    );
}

#[test]
fn every_error_path_returns_a_structured_result_and_keeps_the_session_consistent() {
    let carnet = carnet();
    let mut s = carnet.session("researcher").unwrap();
    let tools_before = names(&s);

    let unknown = call(&mut s, "basicSerch", json!({}));
    assert_eq!(unknown.error_message(), Some("unknown tool `basicSerch`"));
    assert_eq!(unknown.value["similar"], json!(["basicSearch"]));

    let not_exposed = call(&mut s, "visualizeData", json!({}));
    assert_eq!(not_exposed.value["skills"], json!(["dataAnalysis"]));

    let malformed = block_on(s.call_json("basicSearch", "{\"query\": "));
    assert!(
        malformed
            .error_message()
            .unwrap()
            .starts_with("the arguments of `basicSearch` are not valid JSON")
    );

    let mismatch = call(&mut s, "basicSearch", json!({"query": "rust", "limit": "ten"}));
    assert_eq!(
        mismatch.error_message(),
        Some("invalid arguments for `basicSearch`: `/limit`: expected an integer, found a string")
    );
    assert_eq!(mismatch.value["field"], "/limit");
    let missing = call(&mut s, "basicSearch", json!({}));
    assert_eq!(
        missing.error_message(),
        Some("invalid arguments for `basicSearch`: missing required field `query`")
    );

    let failed = call(&mut s, "advancedSearch", json!({"query": "rust"}));
    assert_eq!(failed.error_message(), Some("the search index is offline"));

    // A panic's message is the operator's (span, log): the model reads an incident id.
    let panicked = call(&mut s, "filterResults", json!({}));
    let message = panicked.error_message().unwrap();
    assert!(
        message.starts_with("tool `filterResults` failed with an internal error (incident "),
        "{message}"
    );
    assert!(
        !panicked.to_text().contains("filter exploded"),
        "{}",
        panicked.to_text()
    );
    assert_eq!(panicked.value["code"], "internal_error");
    assert_eq!(panicked.value["incident"].as_str().map(str::len), Some(16));

    let ok = block_on(s.call_json("basicSearch", r#"{"query": "rust"}"#));
    assert_eq!(ok, ToolOutput::ok(json!({"hits": ["result for rust"]})));
    assert_eq!(names(&s), tools_before, "no error changed the session");

    let meta_bad = call(&mut s, "loadSkill", json!({"skill": "dataAnalysis"}));
    assert_eq!(
        meta_bad.error_message(),
        Some("invalid arguments for `loadSkill`: missing required field `skillName`")
    );
    let not_found = call(&mut s, "loadSkill", json!({"skillName": "dataAnalysys"}));
    assert_eq!(not_found.error_message(), Some("Skill not found: dataAnalysys"));
    assert_eq!(not_found.value["similar"], json!(["dataAnalysis"]));
}

#[test]
fn skill_files_text_and_binary() {
    let carnet = carnet();
    let mut s = carnet.session("researcher").unwrap();
    let early = call(
        &mut s,
        "loadSkillFile",
        json!({"skillName": "dataAnalysis", "path": "guide.md"}),
    );
    assert_eq!(
        early.error_message(),
        Some("skill `dataAnalysis` is not loaded: call `loadSkill` first")
    );
    s.load_skill("dataAnalysis").unwrap();
    let text = call(
        &mut s,
        "loadSkillFile",
        json!({"skillName": "dataAnalysis", "path": "guide.md"}),
    );
    assert_eq!(
        text.value,
        json!({"success": true, "path": "guide.md", "mediaType": "text/markdown", "content": "# Guide\n"})
    );
    let binary = call(
        &mut s,
        "loadSkillFile",
        json!({"skillName": "dataAnalysis", "path": "logo.png"}),
    );
    assert_eq!(binary.value["encoding"], "base64");
    assert_eq!(binary.value["content"], "AAEC/w==");
    let missing = call(
        &mut s,
        "loadSkillFile",
        json!({"skillName": "dataAnalysis", "path": "gide.md"}),
    );
    assert_eq!(missing.error_message(), Some("File not found in skill"));
    assert_eq!(missing.value["similar"], json!(["guide.md"]));
}

#[test]
fn list_and_load_granular_meta_tools() {
    let carnet = carnet();
    let mut s = carnet.session("researcher").unwrap();
    let all = call(&mut s, "listAvailableSkills", json!({}));
    assert_eq!(all.value["skills"].as_array().unwrap().len(), 2);
    assert_eq!(all.value["skills"][1]["loaded"], true);
    let filtered = call(&mut s, "listAvailableSkills", json!({"query": "ANALYSE"}));
    assert_eq!(filtered.value["skills"][0]["name"], "dataAnalysis");
    assert_eq!(filtered.value["skills"].as_array().unwrap().len(), 1);

    let toolsets = call(&mut s, "listSkillToolsets", json!({"skillName": "dataAnalysis"}));
    assert_eq!(
        toolsets.value["toolsets"][0],
        json!({"name": "statistical-analysis", "description": "Statistics", "toolCount": 1, "loaded": false})
    );

    let toolset = call(&mut s, "loadToolset", json!({"toolsetName": "visualization"}));
    assert_eq!(
        toolset.value["tools"],
        json!([{"name": "visualizeData", "description": "Draw a chart"}])
    );
    assert!(s.is_exposed("visualizeData") && !s.is_loaded("dataAnalysis"));
    let why = s.explain("visualizeData");
    assert!(
        matches!(&why, Explanation::Exposed { toolset, skill: None, event: Some(event) }
            if toolset == "visualization" && event.call.as_ref().is_some_and(|c| c.tool == "loadToolset")),
        "{why:?}"
    );

    let tool = call(&mut s, "loadTool", json!({"toolName": "analyzeStatistics"}));
    assert_eq!(tool.value["toolset"], "statistical-analysis");
    assert_eq!(tool.value["inputSchema"]["required"], json!(["values"]));
    assert!(s.is_exposed("analyzeStatistics"));

    let search_docs = call(&mut s, "loadToolset", json!({"toolsetName": "search-tools"}));
    assert_eq!(search_docs.value["content"], "Search docs for Acme.");

    // Direct loads survive a state round trip.
    let resumed = carnet.resume(&s.state()).unwrap();
    assert_eq!(names(&resumed), names(&s));
}

#[test]
fn explain_says_why() {
    let carnet = carnet();
    let s = carnet.session("researcher").unwrap();
    assert_eq!(s.explain("loadSkill"), Explanation::MetaTool);
    assert_eq!(
        s.explain("basicSearch").to_string(),
        "exposed: toolset `search-tools` of loaded skill `webSearch`"
    );
    assert_eq!(
        s.explain("analyzeStatistics").to_string(),
        "not exposed yet: toolset `statistical-analysis` comes with skill `dataAnalysis`"
    );
    let analyst = carnet.session("analyst").unwrap();
    assert!(matches!(
        analyst.explain("basicSearch"),
        Explanation::NotReachable { .. }
    ));
    assert_eq!(analyst.explain("fooBar").to_string(), "unknown tool");
}

#[derive(Default)]
struct Recorder {
    seen: Mutex<Vec<String>>,
}

struct Shared(Arc<Recorder>);

impl Hook for Shared {
    fn before(&self, call: &CallInfo<'_>) -> Before {
        self.0.seen.lock().unwrap().push(format!("before {}", call.tool));
        match call.tool {
            "filterByDomain" => Before::Deny("domain filtering is disabled".into()),
            "filterByDate" => Before::Respond(ToolOutput::ok(json!("cached"))),
            _ => Before::Continue,
        }
    }

    fn after(&self, call: &CallInfo<'_>, output: &mut ToolOutput) {
        self.0
            .seen
            .lock()
            .unwrap()
            .push(format!("after {} error={}", call.tool, output.is_error));
        if call.tool == "basicSearch" {
            output.value["audited"] = json!(true);
        }
    }
}

#[test]
fn hooks_log_authorise_and_short_circuit() {
    let recorder = Arc::new(Recorder::default());
    let carnet = Carnet::builder(&manifest())
        .toolsets(toolsets())
        .hook(Shared(recorder.clone()))
        .build()
        .unwrap();
    let mut s = carnet.session("researcher").unwrap();
    let denied = call(&mut s, "filterByDomain", json!({}));
    assert_eq!(denied.error_message(), Some("domain filtering is disabled"));
    assert_eq!(call(&mut s, "filterByDate", json!({})), ToolOutput::ok(json!("cached")));
    let audited = call(&mut s, "basicSearch", json!({"query": "q"}));
    assert_eq!(audited.value["audited"], true);
    call(&mut s, "loadSkill", json!({"skillName": "dataAnalysis"}));
    assert_eq!(
        *recorder.seen.lock().unwrap(),
        [
            "before filterByDomain",
            "after filterByDomain error=true",
            "before filterByDate",
            "after filterByDate error=false",
            "before basicSearch",
            "after basicSearch error=false",
            "before loadSkill",
            "after loadSkill error=false"
        ]
    );
}

#[test]
fn dispatcher_mode_keeps_a_fixed_tool_list() {
    let carnet = Carnet::builder(&manifest())
        .toolsets(toolsets())
        .mode(ExposureMode::Dispatcher)
        .build()
        .unwrap();
    let mut s = carnet.session("researcher").unwrap();
    let fixed = expected(&[&["callTool"]]);
    assert_eq!(names(&s), fixed);
    let loaded = call(&mut s, "loadSkill", json!({"skillName": "dataAnalysis"}));
    assert_eq!(loaded.value["toolSpecs"][0]["name"], "analyzeStatistics");
    assert_eq!(
        loaded.value["toolSpecs"][0]["inputSchema"]["required"],
        json!(["values"])
    );
    assert_eq!(names(&s), fixed, "the list does not change");
    let out = call(
        &mut s,
        "callTool",
        json!({"name": "analyzeStatistics", "arguments": {"values": [2, 4]}}),
    );
    assert_eq!(out, ToolOutput::ok(json!({"mean": 3.0})));
    let bad = call(&mut s, "callTool", json!({"name": "loadSkill", "arguments": {}}));
    assert!(bad.error_message().unwrap().contains("is a meta-tool"));
    let missing = call(&mut s, "callTool", json!({"name": "analyzeStatistics"}));
    assert_eq!(
        missing.error_message(),
        Some("invalid arguments for `callTool`: missing required field `arguments`")
    );
    assert!(
        s.system_prompt()
            .contains("you can now use these tools through `callTool`")
    );
}

#[test]
fn presets_and_naming() {
    let minimal = Carnet::builder(&manifest())
        .toolsets(toolsets())
        .preset(Preset::Minimal)
        .build()
        .unwrap();
    let s = minimal.session("researcher").unwrap();
    assert_eq!(names(&s)[..2], ["loadSkill", "loadSkillFile"]);
    let prompt = s.system_prompt();
    assert!(prompt.contains("- `loadSkill()`") && prompt.contains("- `loadSkillFile()`"));
    assert!(!prompt.contains("listAvailableSkills") && !prompt.contains("loadToolset"));

    let snake = Carnet::builder(&manifest())
        .toolsets(toolsets())
        .naming(Naming::SnakeCase)
        .build()
        .unwrap();
    let mut s = snake.session("researcher").unwrap();
    assert_eq!(
        names(&s)[..6],
        [
            "list_available_skills",
            "load_skill",
            "list_skill_toolsets",
            "load_toolset",
            "load_tool",
            "load_skill_file"
        ]
    );
    let out = call(&mut s, "load_skill", json!({"skill_name": "dataAnalysis"}));
    assert_eq!(out.value["success"], true);
    assert!(s.system_prompt().contains("use the `load_skill` tool"));
    let camel = call(&mut s, "loadSkill", json!({"skillName": "dataAnalysis"}));
    assert_eq!(camel.error_message(), Some("unknown tool `loadSkill`"));

    let custom = Carnet::builder(&manifest())
        .toolsets(toolsets())
        .meta_tools([MetaTool::LoadSkill])
        .build()
        .unwrap();
    let s = custom.session("researcher").unwrap();
    assert!(!s.system_prompt().contains("loadSkillFile"));
}

#[test]
fn prompt_sections_switch_off_and_catalog_budget() {
    let options = PromptOptions {
        initial_skills: false,
        instructions: false,
        available_tools: false,
        ..PromptOptions::default()
    };
    let carnet = Carnet::builder(&manifest())
        .toolsets(toolsets())
        .prompt_options(options)
        .build()
        .unwrap();
    let s = carnet.session("researcher").unwrap();
    assert_eq!(
        sections(s.system_prompt()),
        ["You are a researcher working for {{ ORG }}.", "## On-Demand Skills"]
    );

    let many: Vec<String> = (0..40).map(|i| format!("skill{i:02}")).collect();
    let skills: serde_json::Map<String, Value> = many
        .iter()
        .map(|n| (n.clone(), json!({"name": n, "description": "A skill with a description long enough to cost tokens", "content": "x"})))
        .collect();
    let big = Manifest::from_value(&json!({
        "agents": {"a": {"name": "a", "description": "d", "skills": many, "prompt": "P"}},
        "skills": skills, "toolsets": {}
    }))
    .unwrap();
    let budget = PromptOptions {
        catalog_token_budget: Some(100),
        ..PromptOptions::default()
    };
    let capped = Carnet::builder(&big).prompt_options(budget).build().unwrap();
    let prompt = capped.session("a").unwrap().system_prompt().to_owned();
    let catalog = prompt
        .split("\n\n---\n\n")
        .find(|s| s.starts_with("## On-Demand Skills"))
        .unwrap();
    assert!(catalog.len() / 4 <= 110, "{catalog}");
    assert!(catalog.contains("- skill00") || catalog.contains("**skill00**"));
    assert!(
        catalog.ends_with("more: call `listAvailableSkills` to list and search them all"),
        "{catalog}"
    );
    assert!(!catalog.contains("skill39"));
}

#[test]
fn variables_layers() {
    let s = carnet().session("researcher").unwrap();
    let mut call_vars = Variables::new();
    call_vars.set("ORG", "Globex").unwrap();
    assert!(
        s.system_prompt_with(&call_vars)
            .starts_with("You are a researcher working for Globex.")
    );
    assert!(s.system_prompt().starts_with("You are a researcher working for Acme."));
}

#[test]
fn build_checks_the_implementations() {
    let m = manifest();
    let err = Carnet::builder(&m)
        .toolset(ToolsetImpl::new("search-tool", []))
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown toolset `search-tool`: did you mean `search-tools`?"
    );
    let err = Carnet::builder(&m)
        .toolset(ToolsetImpl::new("visualization", [echo("drawChart")]))
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "toolset `visualization` declares no tool `drawChart` (it declares: visualizeData)"
    );
    let err = Carnet::builder(&m)
        .toolset(ToolsetImpl::new(
            "visualization",
            [echo("visualizeData"), echo("visualizeData")],
        ))
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        BuildError::DuplicateTool {
            toolset: "visualization".into(),
            tool: "visualizeData".into()
        }
    );
    let err = Carnet::builder(&m)
        .toolset(ToolsetImpl::new("visualization", [echo("visualizeData")]))
        .build()
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("6 declared tool(s) have no implementation: filter-tools/filterByDate"),
        "{err}"
    );
    let bad_schema = ToolImpl::from_fn("visualizeData", json!({"type": "string"}), |_| async {
        Ok(json!(null))
    });
    let err = Carnet::builder(&m)
        .toolset(ToolsetImpl::new("visualization", [bad_schema]))
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the input schema of tool `visualizeData` must be an object schema"
    );
    let err = Carnet::builder(&m)
        .variables([("not valid", "x")])
        .allow_unimplemented()
        .build()
        .unwrap_err();
    assert!(matches!(err, BuildError::InvalidVariable { .. }));

    // Without implementations, declared tools are listed with an open schema and refuse calls.
    let inspect = Carnet::builder(&m).allow_unimplemented().build().unwrap();
    let mut s = inspect.session("researcher").unwrap();
    assert_eq!(names(&s), expected(&[&SEARCH]));
    let out = call(&mut s, "basicSearch", json!({}));
    assert_eq!(
        out.error_message(),
        Some("tool `basicSearch` has no implementation in this program")
    );
    assert!(matches!(
        carnet().session("reseacher"),
        Err(SessionError::UnknownAgent { similar: Some(_), .. })
    ));
}

#[test]
fn tools_reach_application_state_and_the_session() {
    struct Db {
        calls: AtomicUsize,
    }
    struct Counting;
    impl carnet_runtime::ToolHandler for Counting {
        fn call<'a>(
            &'a self,
            context: &'a carnet_runtime::Context<'a>,
            _arguments: Value,
        ) -> carnet_runtime::BoxFuture<'a, Result<Value, ToolError>> {
            Box::pin(async move {
                let db = context.state::<Db>().ok_or_else(|| ToolError::new("no database"))?;
                let n = db.calls.fetch_add(1, Ordering::SeqCst) + 1;
                Ok(
                    json!({"calls": n, "agent": context.agent(), "skills": context.loaded_skills(), "tool": context.tool()}),
                )
            })
        }
    }
    let carnet = Carnet::builder(&manifest())
        .toolset(ToolsetImpl::new(
            "visualization",
            [ToolImpl::new("visualizeData", json!({"type": "object"}), Counting)],
        ))
        .allow_unimplemented()
        .state(Db {
            calls: AtomicUsize::new(0),
        })
        .build()
        .unwrap();
    let mut s = carnet.session("researcher").unwrap();
    s.load_skill("dataAnalysis").unwrap();
    call(&mut s, "visualizeData", json!({}));
    let out = call(&mut s, "visualizeData", json!({}));
    assert_eq!(
        out.value,
        json!({"calls": 2, "agent": "researcher", "skills": ["webSearch", "dataAnalysis"], "tool": "visualizeData"})
    );
}

#[test]
fn thousands_of_sessions_on_several_threads_share_one_engine() {
    let carnet = carnet();
    std::thread::scope(|scope| {
        for thread in 0..8 {
            let carnet = carnet.clone();
            scope.spawn(move || {
                for i in 0..500u32 {
                    let agent = if (thread + i) % 3 == 0 { "analyst" } else { "researcher" };
                    let mut s = carnet.session(agent).unwrap();
                    let load = i % 2 == 0;
                    if load {
                        assert_eq!(
                            call(&mut s, "loadSkill", json!({"skillName": "dataAnalysis"})).value["success"],
                            true
                        );
                    }
                    let out = call(&mut s, "analyzeStatistics", json!({"values": [i, i + 2]}));
                    assert_eq!(out.is_error, !load, "thread {thread} session {i}");
                    if load {
                        assert_eq!(out.value["mean"], json!(f64::from(i + 1)));
                    }
                    let n = s.tools().len();
                    let expected = match (agent, load) {
                        ("analyst", false) => 6,
                        ("analyst", true) => 8,
                        (_, false) => 11,
                        _ => 13,
                    };
                    assert_eq!(n, expected);
                }
            });
        }
    });
    // The engine holds no per-conversation state.
    assert_eq!(names(&carnet.session("researcher").unwrap()), expected(&[&SEARCH]));
}

#[test]
fn carnet_is_send_sync_and_sessions_are_send() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>(_: &T) {}
    send_sync::<Carnet>();
    let carnet = carnet();
    let mut session = carnet.session("researcher").unwrap();
    send(&session);
    send(&session.call("basicSearch", json!({"query": "q"})));
}

#[test]
fn global_skills_from_the_config_take_effect() {
    let mut value: Value = serde_json::from_str(MANIFEST).unwrap();
    value["app"] = json!({"globalInitialSkills": ["dataAnalysis"], "globalSkills": ["webSearch"]});
    let manifest = Manifest::from_value(&value).unwrap();
    let carnet = Carnet::builder(&manifest).toolsets(toolsets()).build().unwrap();
    // Every agent starts with the global initial skill...
    let analyst = carnet.session("analyst").unwrap();
    assert_eq!(analyst.loaded_skills().collect::<Vec<_>>(), ["dataAnalysis"]);
    assert!(analyst.is_exposed("analyzeStatistics"));
    assert!(
        analyst.system_prompt().contains("# Data analysis"),
        "its content is in the prompt"
    );
    // ...and may load the global on-demand skill, which the catalog lists.
    assert!(analyst.system_prompt().contains("- **webSearch**: Search the web"));
    let mut analyst = analyst;
    assert_eq!(
        call(&mut analyst, "loadSkill", json!({"skillName": "webSearch"})).value["success"],
        true
    );
    assert!(analyst.is_exposed("basicSearch"));
    // The researcher's own initial skill comes first.
    let researcher = carnet.session("researcher").unwrap();
    assert_eq!(
        researcher.loaded_skills().collect::<Vec<_>>(),
        ["webSearch", "dataAnalysis"]
    );
}

#[test]
fn detached_calls_answer_as_calls_do() {
    let carnet = Carnet::builder(&manifest())
        .toolsets(toolsets())
        .mode(ExposureMode::Dispatcher)
        .build()
        .unwrap();
    let mut session = carnet.session("researcher").unwrap();
    let cases = [
        ("basicSearch", json!({"query": "rust"})),
        ("basicSearch", json!({"limit": 3})),
        ("analyzeStatistics", json!({})),
        ("noSuchTool", json!({})),
        (
            "callTool",
            json!({"name": "basicSearch", "arguments": {"query": "rust"}}),
        ),
        ("callTool", json!({"name": "loadSkill", "arguments": {}})),
        ("callTool", json!({"arguments": {}})),
    ];
    for (tool, arguments) in cases {
        let detached = block_on(
            session
                .call_detached(tool, &arguments)
                .expect("not a loading meta-tool"),
        );
        assert_eq!(
            detached,
            block_on(session.call(tool, arguments.clone())),
            "{tool} {arguments}"
        );
    }
    for meta in META {
        assert!(session.call_detached(meta, &json!({})).is_none(), "{meta}");
    }
}

/// A tool sees its call's id, and a cancellation signal that fires when the call's future is
/// dropped before it finished (the conversation dropped, the MCP client cancelled), not when
/// it finished.
#[test]
fn a_tool_sees_its_call_id_and_a_signal_when_its_call_is_abandoned() {
    use carnet_runtime::{BoxFuture, Cancellation, Context, ToolHandler};
    use std::task::{Context as TaskContext, Waker};

    type Seen = Arc<Mutex<Vec<(Option<String>, Cancellation)>>>;
    struct Slow(Seen);
    impl ToolHandler for Slow {
        fn call<'a>(&'a self, context: &'a Context<'a>, arguments: Value) -> BoxFuture<'a, Result<Value, ToolError>> {
            let seen = (context.call_id().map(str::to_owned), context.cancellation().clone());
            self.0.lock().unwrap().push(seen);
            Box::pin(async move {
                if arguments["wait"] == true {
                    std::future::pending::<()>().await;
                }
                Ok(json!("done"))
            })
        }
    }
    let manifest = Manifest::from_json(
        r#"{"agents": {"a": {"name": "a", "description": "A", "initialSkills": ["s"], "skills": [], "prompt": "P"}},
            "skills": {"s": {"name": "s", "description": "S", "toolsets": ["t"], "content": "C"}},
            "toolsets": {"t": {"name": "t", "description": "T", "content": "", "tools": [{"name": "slow", "description": "Slow"}]}}}"#,
    )
    .unwrap();
    let seen = Seen::default();
    let slow = ToolImpl::new("slow", json!({"type": "object"}), Slow(Arc::clone(&seen)));
    let carnet = Carnet::builder(&manifest)
        .toolsets([ToolsetImpl::new("t", [slow])])
        .build()
        .unwrap();
    let mut session = carnet.session("a").unwrap();

    let mut abandoned = Box::pin(session.call_with_id("slow", json!({"wait": true}), Some("call-7")));
    let mut cx = TaskContext::from_waker(Waker::noop());
    assert!(abandoned.as_mut().poll(&mut cx).is_pending());
    let (id, signal) = seen.lock().unwrap()[0].clone();
    assert_eq!(id.as_deref(), Some("call-7"));
    assert!(!signal.is_cancelled(), "the call is still running");
    drop(abandoned);
    assert!(signal.is_cancelled());
    block_on(signal.cancelled());

    assert_eq!(block_on(session.call("slow", json!({}))).value, json!("done"));
    let (id, signal) = seen.lock().unwrap()[1].clone();
    assert_eq!(id, None);
    assert!(!signal.is_cancelled(), "a finished call is not cancelled");
}
