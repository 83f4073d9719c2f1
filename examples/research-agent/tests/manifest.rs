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

/// The search index `build.rs` compiled into the binary ranks exactly as the one an engine
/// builds from the same manifest read at run time, the Rust tools' parameters included (they
/// are known only to the program, and added the same way on both paths).
#[test]
fn search_ranks_the_same_compiled_and_read_at_run_time() {
    use carnet::Carnet;
    use carnet::engine::Preset;
    use carnet::tools::block_on;
    use serde_json::json;

    let compiled = Carnet::new(&MANIFEST, research_agent::tools::toolsets())
        .preset(Preset::Discovery)
        .build()
        .unwrap();
    let read = carnet::Manifest::from_json(&MANIFEST.to_json()).unwrap();
    let t = research_agent::tools::toolsets();
    let at_run_time = Carnet::builder(&read)
        .toolsets([
            t.search_tools.into_impl(),
            t.filter_tools.into_impl(),
            t.statistical_analysis.into_impl(),
            t.visualization.into_impl(),
            t.units.into_impl(),
            t.writing_tools.into_impl(),
        ])
        .preset(Preset::Discovery)
        .build()
        .unwrap();
    let hits = |carnet: &Carnet, query: &str| {
        let mut session = carnet.session("researcher").unwrap();
        let out = block_on(session.call("searchTools", json!({"query": query, "limit": 10})));
        assert!(!out.is_error, "{query}: {}", out.value);
        out.value["hits"].clone()
    };
    let queries = [
        "search the web for documents",
        "convert miles to kilometres",
        "draw a chart of the data",
        "mean and standard deviation",
        "cite a source in MLA style",
        "keep results from one domain",
        "advancedSearch",
        "filter_by_date",
        // Only in a Rust parameter's doc comment (`AdvancedQuery::query`).
        "excluded words",
    ];
    for query in queries {
        assert_eq!(hits(&compiled, query), hits(&at_run_time, query), "{query}");
    }
    assert_eq!(hits(&compiled, "excluded words")[0]["name"], "advancedSearch");

    // The compiled engine took the embedded index (it is the manifest's: same fingerprint,
    // same tools), and it is the bytes a manifest read at run time builds.
    let embedded: &'static [u8] = include_bytes!(concat!(env!("OUT_DIR"), "/carnet/search.bin"));
    let index = carnet::manifest::search::SearchIndex::from_bytes(embedded.into()).unwrap();
    assert_eq!(index.fingerprint(), MANIFEST.fingerprint);
    let tools: usize = MANIFEST.toolsets.iter().map(|t| t.tools.len()).sum();
    assert_eq!(index.tools() as usize, tools);
    assert_eq!(carnet::manifest::search::SearchIndex::build(&read).as_bytes(), embedded);
}
