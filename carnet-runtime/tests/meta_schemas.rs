//! The meta-tools' schemas are made once per agent of an engine, `enum`s of names included
//! (issue 24): every session state of the agent shares them, another agent or another
//! engine has its own.

use std::sync::Arc;

use carnet_runtime::session::NameEnums;
use carnet_runtime::{Carnet, ExposureMode, Manifest, Preset, PromptOptions, Session, ToolSpec, block_on};
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
                {"name": "basicSearch", "description": "Basic search"}]},
            "stats": {"name": "stats", "description": "Statistics", "content": "", "tools": [
                {"name": "analyzeStatistics", "description": "Compute statistics"}]},
            "writing": {"name": "writing", "description": "Writing", "content": "", "tools": [
                {"name": "formatCitation", "description": "Formats a citation"}]}
        }
    }))
    .unwrap()
}

/// An engine whose meta-tools list skill, toolset and tool names.
fn engine(mode: ExposureMode) -> Carnet {
    Carnet::builder(&manifest())
        .allow_unimplemented()
        .preset(Preset::Full)
        .mode(mode)
        .prompt_options(PromptOptions {
            name_enums: NameEnums {
                skills: 64,
                toolsets: 64,
                tools: 64,
            },
            ..PromptOptions::default()
        })
        .build()
        .unwrap()
}

fn tool<'a>(session: &'a Session, name: &str) -> &'a ToolSpec {
    session
        .tools()
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("`{name}` is offered"))
}

fn schema(session: &Session, name: &str) -> Arc<Value> {
    Arc::clone(&tool(session, name).input_schema)
}

/// The meta-tools whose name parameter lists names, and the parameter.
const LISTING: [(&str, &str); 3] = [
    ("loadSkill", "skillName"),
    ("loadToolset", "toolsetName"),
    ("loadTool", "toolName"),
];

#[test]
fn every_state_of_an_agent_shares_its_meta_tool_schemas() {
    for mode in [ExposureMode::Dynamic, ExposureMode::Deferred] {
        let carnet = engine(mode);
        let first = carnet.session("researcher").unwrap();
        let mut loaded = carnet.session("researcher").unwrap();
        let out = block_on(loaded.call("loadSkill", json!({"skillName": "dataAnalysis"})));
        assert!(!out.is_error, "{}", out.to_text());
        let out = block_on(loaded.call("loadToolset", json!({"toolsetName": "stats"})));
        assert!(!out.is_error, "{}", out.to_text());
        if mode == ExposureMode::Dynamic {
            assert_ne!(first.tools().len(), loaded.tools().len(), "another state's list");
        }
        for (name, param) in LISTING {
            let before = schema(&first, name);
            assert!(
                before["properties"][param]["enum"].is_array(),
                "{mode:?}: `{name}` lists names: {before}"
            );
            assert!(
                Arc::ptr_eq(&before, &schema(&loaded, name)),
                "{mode:?}: `{name}`'s schema is made once for the agent"
            );
        }

        // Another agent: its own names, its own schemas.
        let writer = carnet.session("writer").unwrap();
        for (name, param) in LISTING {
            let mine = schema(&writer, name);
            assert!(!Arc::ptr_eq(&mine, &schema(&first, name)), "{mode:?}: `{name}`");
            assert_ne!(mine["properties"][param], schema(&first, name)["properties"][param]);
        }
        assert_eq!(
            schema(&writer, "loadSkill")["properties"]["skillName"]["enum"],
            json!(["reportWriting"])
        );

        // Another engine of the same manifest: the same bytes, made for it.
        let again = engine(mode).session("researcher").unwrap();
        for (name, _) in LISTING {
            assert!(!Arc::ptr_eq(&schema(&again, name), &schema(&first, name)));
            assert_eq!(schema(&again, name), schema(&first, name));
        }
    }
}
