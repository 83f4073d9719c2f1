//! The manifest compiled by `build.rs` is `'static` data with typed ids.

use research_agent::manifest::{MANIFEST, agents, skills, tools, toolsets};

#[test]
fn typed_ids_resolve() {
    assert_eq!(agents::RESEARCHER.name(), "researcher");
    assert_eq!(skills::DATA_ANALYSIS.name(), "dataAnalysis");
    assert_eq!(toolsets::SEARCH_TOOLS.name(), "search-tools");
    assert_eq!(tools::BASIC_SEARCH.toolset(), "search-tools");
    assert_eq!(tools::search_tools::ADVANCED_SEARCH.name(), "advancedSearch");
    assert!(MANIFEST.agent(agents::ANALYST.name()).is_some());
}

#[test]
fn manifest_holds_the_content() {
    let researcher = MANIFEST.agent("researcher").unwrap();
    assert_eq!(&*researcher.initial_skills, ["webSearch"]);
    assert_eq!(&*researcher.skills, ["dataAnalysis", "unitConversion", "reportWriting"]);
    assert!(
        researcher
            .prompt
            .starts_with("You are a careful research assistant working for {{ ORGANIZATION }}.")
    );
    let search = MANIFEST.toolset("search-tools").unwrap();
    let names: Vec<&str> = search.tools.iter().map(|t| &*t.name).collect();
    assert_eq!(names, ["basicSearch", "advancedSearch", "filterResults"]);
    // Described by the tool file beside TOOLSET.md (TS Carnet 0.3.0 form).
    let basic = search.tool("basicSearch").unwrap();
    assert_eq!(
        basic.description,
        "Search the collection for documents matching the query words"
    );
    assert!(basic.content.contains("ten most relevant"));
    assert_eq!(MANIFEST.variable("ORGANIZATION"), Some("Carnet Labs"));
}

#[test]
fn skill_files_are_embedded() {
    let web = MANIFEST.skill("webSearch").unwrap();
    let file = web.file("references/query-syntax.md").unwrap();
    assert!(file.is_listed());
    assert_eq!(file.media_type, "text/markdown");
    assert_eq!(
        file.text().unwrap(),
        include_str!("../carnet/skills/webSearch/references/query-syntax.md")
    );
}

#[test]
fn static_manifest_equals_its_json_round_trip() {
    let json = MANIFEST.to_json();
    let loaded = carnet::Manifest::from_json(&json).unwrap();
    assert_eq!(loaded, *MANIFEST);
    assert_eq!(loaded.fingerprint, MANIFEST.fingerprint);
    assert_eq!(MANIFEST.compute_fingerprint(), MANIFEST.fingerprint);
}
