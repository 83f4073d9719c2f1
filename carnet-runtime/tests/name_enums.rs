//! The meta-tools' name parameters list what the agent can reach as a JSON Schema `enum`
//! (issue 26, item 6): fixed per agent, capped per kind, rendered by every provider, and
//! never in the way of the session's own checks.

use carnet_runtime::providers::{anthropic, gemini, mcp, openai};
use carnet_runtime::session::NameEnums;
use carnet_runtime::{Carnet, ExposureMode, Manifest, Naming, Preset, PromptOptions, Session, block_on};
use serde_json::{Value, json};

fn manifest() -> Manifest {
    Manifest::from_value(&json!({
        "agents": {
            "researcher": {"name": "researcher", "description": "Researches", "initialSkills": ["webSearch"],
                "skills": ["dataAnalysis"], "prompt": "P"},
            "writer": {"name": "writer", "description": "Writes", "skills": ["reportWriting"], "prompt": "P"}
        },
        "skills": {
            "webSearch": {"name": "webSearch", "description": "Search the web", "toolsets": ["search-tools"], "content": "S"},
            "dataAnalysis": {"name": "dataAnalysis", "description": "Analyse data", "toolsets": ["stats"], "content": "D"},
            "reportWriting": {"name": "reportWriting", "description": "Write reports", "toolsets": ["writing"], "content": "W"}
        },
        "toolsets": {
            "search-tools": {"name": "search-tools", "description": "Search", "content": "", "tools": [
                {"name": "basicSearch", "description": "Basic search"},
                {"name": "file.read", "description": "Reads a file"}]},
            "stats": {"name": "stats", "description": "Statistics", "content": "", "tools": [
                {"name": "analyzeStatistics", "description": "Compute statistics"}]},
            "writing": {"name": "writing", "description": "Writing", "content": "", "tools": [
                {"name": "formatCitation", "description": "Formats a citation"}]}
        }
    }))
    .unwrap()
}

fn carnet(configure: impl FnOnce(carnet_runtime::CarnetBuilder) -> carnet_runtime::CarnetBuilder) -> Carnet {
    configure(Carnet::builder(&manifest()).allow_unimplemented())
        .build()
        .unwrap()
}

/// The `enum` of meta-tool `tool`'s parameter `param`, if it has one.
fn listed(session: &Session, tool: &str, param: &str) -> Option<Vec<String>> {
    let spec = session.tools().iter().find(|t| t.name == tool)?;
    let values = spec.input_schema["properties"][param].get("enum")?;
    Some(serde_json::from_value(values.clone()).unwrap())
}

#[test]
fn name_parameters_list_what_the_agent_can_reach_sorted() {
    let every = NameEnums {
        toolsets: 64,
        tools: 32,
        ..NameEnums::default()
    };
    let carnet = carnet(|b| {
        b.preset(Preset::Discovery)
            .mode(ExposureMode::Dispatcher)
            .prompt_options(PromptOptions {
                name_enums: every,
                ..PromptOptions::default()
            })
    });
    let session = carnet.session("researcher").unwrap();
    let skills = ["dataAnalysis", "webSearch"].map(String::from).to_vec();
    assert_eq!(listed(&session, "loadSkill", "skillName"), Some(skills.clone()));
    assert_eq!(listed(&session, "listSkillToolsets", "skillName"), None, "browsing");
    assert_eq!(listed(&session, "loadSkillFile", "skillName"), Some(skills));
    assert_eq!(
        listed(&session, "loadToolset", "toolsetName"),
        Some(vec!["search-tools".into(), "stats".into()])
    );
    let tools: Vec<String> = ["analyzeStatistics", "basicSearch", "file.read"]
        .map(String::from)
        .to_vec();
    assert_eq!(listed(&session, "loadTool", "toolName"), Some(tools.clone()));
    assert_eq!(listed(&session, "describeTool", "name"), None, "browsing");
    assert_eq!(listed(&session, "callTool", "name"), Some(tools));
    for (tool, param) in [
        ("listAvailableSkills", "query"),
        ("searchTools", "query"),
        ("listTools", "namespace"),
    ] {
        assert_eq!(listed(&session, tool, param), None, "{tool} takes no name");
    }
    // Another agent of the same engine lists its own names only.
    let writer = carnet.session("writer").unwrap();
    assert_eq!(
        listed(&writer, "loadSkill", "skillName"),
        Some(vec!["reportWriting".into()])
    );
    assert_eq!(
        listed(&writer, "loadTool", "toolName"),
        Some(vec!["formatCitation".into()])
    );
}

#[test]
fn by_default_only_skill_names_are_listed() {
    let carnet = carnet(|b| b.preset(Preset::Discovery));
    let session = carnet.session("researcher").unwrap();
    assert_eq!(listed(&session, "loadSkill", "skillName").map(|v| v.len()), Some(2));
    assert_eq!(listed(&session, "loadToolset", "toolsetName"), None);
    assert_eq!(listed(&session, "loadTool", "toolName"), None);
    assert_eq!(listed(&session, "describeTool", "name"), None);
}

#[test]
fn snake_case_naming_lists_under_its_parameter_names() {
    let carnet = carnet(|b| {
        b.naming(Naming::SnakeCase).prompt_options(PromptOptions {
            name_enums: NameEnums {
                toolsets: 8,
                ..NameEnums::default()
            },
            ..PromptOptions::default()
        })
    });
    let session = carnet.session("writer").unwrap();
    assert_eq!(
        listed(&session, "load_skill", "skill_name"),
        Some(vec!["reportWriting".into()])
    );
    assert_eq!(
        listed(&session, "load_toolset", "toolset_name"),
        Some(vec!["writing".into()])
    );
}

#[test]
fn the_lists_are_fixed_per_agent_so_the_tools_keep_their_bytes() {
    for mode in ExposureMode::ALL {
        let carnet = carnet(|b| {
            b.mode(mode).prompt_options(PromptOptions {
                name_enums: NameEnums {
                    skills: 8,
                    toolsets: 8,
                    tools: 8,
                },
                ..PromptOptions::default()
            })
        });
        let mut session = carnet.session("researcher").unwrap();
        let meta = |s: &Session| -> Vec<String> {
            s.tools()
                .iter()
                .filter(|t| t.kind == carnet_runtime::ToolKind::Meta)
                .map(|t| serde_json::to_string(&*t.input_schema).unwrap())
                .collect()
        };
        let before = meta(&session);
        let first = openai::chat_tools(session.tools(), &openai::Options::default()).unwrap();
        let out = block_on(session.call("loadSkill", json!({"skillName": "dataAnalysis"})));
        assert!(out.error_message().is_none(), "{}", out.to_text());
        assert_eq!(
            meta(&session),
            before,
            "{mode:?}: the meta-tools are the same after a load"
        );
        if mode.keeps_prefix() {
            assert_eq!(
                openai::chat_tools(session.tools(), &openai::Options::default()).unwrap(),
                first,
                "{mode:?}"
            );
        }
    }
}

#[test]
fn past_a_cap_or_switched_off_a_kind_is_a_plain_string() {
    let capped = NameEnums {
        skills: 2,
        toolsets: 1,
        tools: 2,
    };
    let carnet = carnet(|b| {
        b.prompt_options(PromptOptions {
            name_enums: capped,
            ..PromptOptions::default()
        })
    });
    let session = carnet.session("researcher").unwrap();
    assert_eq!(
        listed(&session, "loadSkill", "skillName").map(|v| v.len()),
        Some(2),
        "2 ≤ 2"
    );
    assert_eq!(listed(&session, "loadToolset", "toolsetName"), None, "2 toolsets > 1");
    assert_eq!(listed(&session, "loadTool", "toolName"), None, "3 tools > 2");
    let schema = &session
        .tools()
        .iter()
        .find(|t| t.name == "loadTool")
        .unwrap()
        .input_schema;
    assert_eq!(
        **schema,
        carnet_runtime::MetaTool::LoadTool.input_schema(Naming::CamelCase),
        "the schema without the option"
    );

    let off = carnet_with(NameEnums::OFF);
    let session = off.session("researcher").unwrap();
    for t in session.tools() {
        assert!(!t.input_schema.to_string().contains("\"enum\""), "{}", t.name);
    }
    assert_eq!(NameEnums::default(), PromptOptions::default().name_enums);
}

fn carnet_with(enums: NameEnums) -> Carnet {
    carnet(|b| {
        b.prompt_options(PromptOptions {
            name_enums: enums,
            ..PromptOptions::default()
        })
    })
}

#[test]
fn a_name_outside_the_list_still_gets_the_helpful_error() {
    let carnet = carnet(|b| b);
    let mut session = carnet.session("researcher").unwrap();
    let out = block_on(session.call("loadSkill", json!({"skillName": "dataAnalysys"})));
    assert_eq!(out.error_message(), Some("Skill not found: dataAnalysys"));
    let text = out.to_text();
    assert!(text.contains("\"similar\":[\"dataAnalysis\"]"), "{text}");
    // Another agent's skill is named as such, not as a schema mismatch.
    let out = block_on(session.call("loadSkill", json!({"skillName": "reportWriting"})));
    assert_eq!(
        out.error_message(),
        Some("skill `reportWriting` is not available to agent `researcher`")
    );
    // A tool by its provider alias still loads, though the list names it canonically.
    let out = block_on(session.call("loadTool", json!({"toolName": "file_read"})));
    assert!(out.error_message().is_none(), "{}", out.to_text());
}

fn enum_of(tools: &Value, path: &[&str]) -> Vec<Value> {
    let mut v = tools;
    for key in path {
        v = match key.parse::<usize>() {
            Ok(i) => &v[i],
            Err(_) => &v[*key],
        };
    }
    v.as_array()
        .unwrap_or_else(|| panic!("no enum at {path:?} in {tools}"))
        .clone()
}

#[test]
fn every_provider_keeps_the_list() {
    let carnet = carnet(|b| b.preset(Preset::Minimal));
    let session = carnet.session("researcher").unwrap();
    let specs = session.tools();
    assert_eq!(specs[0].name, "loadSkill");
    let skills = vec![json!("dataAnalysis"), json!("webSearch")];

    let chat = openai::chat_tools(specs, &openai::Options::default()).unwrap();
    assert_eq!(
        enum_of(
            &chat,
            &["0", "function", "parameters", "properties", "skillName", "enum"]
        ),
        skills
    );
    let strict = openai::chat_tools(specs, &openai::Options { strict: true }).unwrap();
    assert_eq!(strict[0]["function"]["strict"], json!(true), "{strict}");
    assert_eq!(
        enum_of(
            &strict,
            &["0", "function", "parameters", "properties", "skillName", "enum"]
        ),
        skills
    );
    let responses = openai::responses_tools(specs, &openai::Options { strict: true }).unwrap();
    assert_eq!(
        enum_of(&responses, &["0", "parameters", "properties", "skillName", "enum"]),
        skills
    );
    let claude = anthropic::tools(specs).unwrap();
    assert_eq!(
        enum_of(&claude, &["0", "input_schema", "properties", "skillName", "enum"]),
        skills
    );
    let gemini = gemini::tools(specs).unwrap();
    let declaration = &gemini[0]["functionDeclarations"][0];
    assert_eq!(
        declaration["parameters"]["properties"]["skillName"]["type"],
        json!("string"),
        "{gemini}"
    );
    assert_eq!(
        enum_of(declaration, &["parameters", "properties", "skillName", "enum"]),
        skills
    );
    let listed = mcp::tools(specs).unwrap();
    assert_eq!(
        enum_of(
            &listed,
            &["tools", "0", "inputSchema", "properties", "skillName", "enum"]
        ),
        skills
    );
}
