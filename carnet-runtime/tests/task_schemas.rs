//! The skills' tools (`task.<skill>`, skills offered as tools) are made once per agent of an
//! engine (issue 24): every session state of the agent shares their schemas, another agent
//! or another engine has its own.

use std::sync::Arc;

use carnet_runtime::{Carnet, ExposureMode, Manifest, Preset, Session, ToolSpec, block_on};
use serde_json::{Value, json};

fn manifest() -> Manifest {
    Manifest::from_value(&json!({
        "agents": {
            "researcher": {"name": "researcher", "description": "Researches", "initialSkills": ["webSearch"],
                "skills": ["dataAnalysis"], "prompt": "P"},
            "writer": {"name": "writer", "description": "Writes", "skills": ["reportWriting", "dataAnalysis"], "prompt": "P"}
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

fn engine(mode: ExposureMode) -> Carnet {
    Carnet::builder(&manifest())
        .allow_unimplemented()
        .preset(Preset::Full)
        .mode(mode)
        .skills_as_tools(true)
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

#[test]
fn every_state_of_an_agent_shares_its_skill_tool_schemas() {
    for mode in [
        ExposureMode::Dynamic,
        ExposureMode::Dispatcher,
        ExposureMode::Deferred,
        ExposureMode::AllowedTools,
    ] {
        let carnet = engine(mode);
        let first = carnet.session("researcher").unwrap();
        let mut loaded = carnet.session("researcher").unwrap();
        let out = block_on(loaded.call("loadSkill", json!({"skillName": "dataAnalysis"})));
        assert!(!out.is_error, "{}", out.to_text());
        if mode == ExposureMode::Dynamic {
            assert_ne!(first.tools().len(), loaded.tools().len(), "another state's list");
        }
        let mut tasks: Vec<&str> = first
            .tools()
            .iter()
            .filter(|t| t.name.starts_with("task."))
            .map(|t| t.name.as_str())
            .collect();
        tasks.sort_unstable();
        assert_eq!(tasks, ["task.dataAnalysis", "task.webSearch"], "{mode:?}");
        for name in ["task.webSearch", "task.dataAnalysis"] {
            assert!(
                Arc::ptr_eq(&schema(&first, name), &schema(&loaded, name)),
                "{mode:?}: `{name}`'s schema is made once for the agent"
            );
            assert_eq!(tool(&first, name), tool(&loaded, name), "{mode:?}: `{name}`");
        }

        // Another agent reaching the same skill: the same bytes, its own schema.
        let writer = carnet.session("writer").unwrap();
        let name = "task.dataAnalysis";
        assert!(!Arc::ptr_eq(&schema(&writer, name), &schema(&first, name)), "{mode:?}");
        assert_eq!(tool(&writer, name), tool(&first, name), "{mode:?}");

        // Another engine of the same manifest: the same bytes, made for it.
        let again = engine(mode).session("researcher").unwrap();
        assert!(!Arc::ptr_eq(&schema(&again, name), &schema(&first, name)), "{mode:?}");
        assert_eq!(tool(&again, name), tool(&first, name), "{mode:?}");
    }
}
