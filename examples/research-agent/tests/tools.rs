//! Every tool of the example, bound with `#[carnet::toolset]`, called through the runtime
//! with JSON arguments, as a model would.

use carnet::tools::{ToolKind, block_on};
use carnet::{Carnet, Session, ToolOutput};
use research_agent::manifest::{MANIFEST, agents};
use research_agent::tools;
use serde_json::{Value, json};

fn session() -> Session {
    let carnet = Carnet::new(&MANIFEST, tools::toolsets()).build().unwrap();
    carnet.session(agents::RESEARCHER)
}

fn call(session: &mut Session, tool: &str, args: Value) -> ToolOutput {
    block_on(session.call(tool, args))
}

#[test]
fn every_tool_runs_through_the_runtime() {
    let mut s = session();
    let hits = call(
        &mut s,
        "basicSearch",
        json!({"query": "solar battery storage", "limit": 3}),
    );
    assert!(!hits.is_error, "{:?}", hits.value);
    let titles: Vec<&str> = hits
        .value
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles[0], "Battery storage costs keep falling");
    assert_eq!(titles.len(), 3);

    let advanced = call(
        &mut s,
        "advancedSearch",
        json!({"query": "rust -async site:blog.rust-lang.org"}),
    );
    let titles: Vec<&str> = advanced
        .value
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["title"].as_str().unwrap())
        .collect();
    // "Rust 2024 edition released" mentions async closures: excluded.
    assert_eq!(titles, ["Type-safe configuration in Rust"]);
    let phrase = call(&mut s, "advancedSearch", json!({"query": "\"memory safety\""}));
    assert_eq!(phrase.value[0]["title"], "Memory safety without garbage collection");
    let empty = call(&mut s, "advancedSearch", json!({"query": "-rust"}));
    assert_eq!(
        empty.error_message(),
        Some("the query `-rust` has no words to search for")
    );

    let energy = call(
        &mut s,
        "basicSearch",
        json!({"query": "energy power solar wind battery heat"}),
    );
    let filtered = call(&mut s, "filterResults", json!({"hits": energy.value, "term": "wind"}));
    assert_eq!(filtered.value.as_array().unwrap().len(), 1);
    let by_date = call(
        &mut s,
        "filterByDate",
        json!({"hits": energy.value, "from": "2024-06-01"}),
    );
    assert!(
        by_date
            .value
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["date"].as_str().unwrap() >= "2024-06-01")
    );
    let bad_date = call(&mut s, "filterByDate", json!({"hits": energy.value, "to": "June"}));
    assert_eq!(
        bad_date.error_message(),
        Some("`June` is not a date (expected YYYY-MM-DD)")
    );
    let by_domain = call(
        &mut s,
        "filterByDomain",
        json!({"hits": energy.value, "domains": ["www.energy.example.com"]}),
    );
    assert!(
        by_domain
            .value
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["domain"] == "energy.example.com")
    );

    // Statistics and charts come with `dataAnalysis`: refused until it loads.
    let early = call(
        &mut s,
        "analyzeStatistics",
        json!({"dataset": "monthly_sales", "column": "units"}),
    );
    assert!(early.is_error);
    assert_eq!(
        call(&mut s, "loadSkill", json!({"skillName": "dataAnalysis"})).value["success"],
        true
    );
    let stats = call(
        &mut s,
        "analyzeStatistics",
        json!({"dataset": "monthly_sales", "column": "units"}),
    );
    assert_eq!(
        stats.value,
        json!({"count": 12, "mean": 194.25, "median": 194.0, "std_dev": 52.54, "min": 120.0, "max": 300.0})
    );
    let missing = call(
        &mut s,
        "analyzeStatistics",
        json!({"dataset": "monthly_sales", "column": "profit"}),
    );
    assert_eq!(
        missing.error_message(),
        Some("no column `profit`; the columns are: units, revenue")
    );

    let dir = std::env::temp_dir().join(format!("carnet-chart-{}.svg", std::process::id()));
    let chart = call(
        &mut s,
        "visualizeData",
        json!({"dataset": "monthly_sales", "column": "revenue", "kind": "line", "path": dir.to_string_lossy()}),
    );
    assert!(!chart.is_error, "{:?}", chart.value);
    let svg = std::fs::read_to_string(&dir).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("<polyline"));
    assert_eq!(chart.value["svg"], svg);
    std::fs::remove_file(dir).unwrap();
}

#[test]
fn schemas_come_from_the_signatures() {
    let s = session();
    let spec = |name: &str| s.tools().iter().find(|t| t.name == name).unwrap().clone();
    let basic = spec("basicSearch");
    assert_eq!(
        basic.description, "Search the collection for documents matching the query words",
        "the manifest wins"
    );
    assert_eq!(basic.input_schema["required"], json!(["query"]));
    assert_eq!(
        basic.input_schema["properties"]["query"],
        json!({"type": "string", "description": "Words to search for; operators are not interpreted."}),
        "a parameter's doc comment is its description"
    );
    assert_eq!(basic.input_schema["additionalProperties"], false);
    let advanced = spec("advancedSearch");
    assert_eq!(advanced.input_schema["type"], "object");
    assert_eq!(
        advanced.input_schema["additionalProperties"], false,
        "closed as named parameters are"
    );
    assert_eq!(advanced.input_schema["required"], json!(["query"]));
    assert_eq!(
        advanced.input_schema["properties"]["query"]["description"],
        "Words, `\"exact phrases\"`, `-excluded` words and `site:domain`."
    );
    let filter = spec("filterResults");
    assert_eq!(
        filter.input_schema["properties"]["hits"]["items"]["$ref"],
        "#/$defs/Hit"
    );
    assert_eq!(
        filter.input_schema["$defs"]["Hit"]["required"],
        json!(["title", "domain", "date", "snippet", "score"])
    );
}

#[test]
fn argument_errors_name_the_field() {
    let mut s = session();
    let out = call(&mut s, "basicSearch", json!({"query": "rust", "limit": -1}));
    assert_eq!(
        out.error_message(),
        Some("invalid value for `limit`: invalid value: integer `-1`, expected u32")
    );
    let out = call(&mut s, "filterResults", json!({"hits": [{"title": "x"}], "term": "x"}));
    assert_eq!(
        out.error_message(),
        Some("invalid arguments for `filterResults`: missing required field `domain`")
    );
    assert_eq!(out.value["field"], "/hits/0/domain");
    // One rule for unknown fields, whichever form the input takes.
    let out = call(&mut s, "advancedSearch", json!({"query": "x", "colour": "red"}));
    assert_eq!(
        out.error_message(),
        Some("invalid arguments for `advancedSearch`: unknown field `colour`, expected one of `limit`, `query`")
    );
    let out = call(&mut s, "basicSearch", json!({"query": "x", "colour": "red"}));
    assert_eq!(
        out.error_message(),
        Some("invalid arguments for `basicSearch`: unknown field `colour`, expected one of `limit`, `query`")
    );
}

/// The input schema of every tool, as the model receives it, against
/// `tests/snapshots/schemas.json` (re-bless with `CARNET_BLESS=1`).
#[test]
fn schema_snapshots() {
    let carnet = Carnet::new(&MANIFEST, tools::toolsets()).build().unwrap();
    let mut session = carnet.session(agents::RESEARCHER);
    for skill in ["dataAnalysis", "unitConversion", "reportWriting"] {
        session.load_skill(skill).unwrap();
    }
    let schemas: serde_json::Map<String, Value> = session
        .tools()
        .iter()
        .filter(|t| t.kind == ToolKind::Domain)
        .map(|t| (t.name.clone(), (*t.input_schema).clone()))
        .collect();
    assert_eq!(schemas.len(), 11);
    let actual = serde_json::to_string_pretty(&schemas).unwrap() + "\n";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/schemas.json");
    if std::env::var_os("CARNET_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path).expect("tests/snapshots/schemas.json (CARNET_BLESS=1 creates it)");
    assert!(
        expected == actual,
        "the tool schemas changed (CARNET_BLESS=1 to accept):\n{actual}"
    );
}

/// The domain tools' definitions as each provider receives them (OpenAI Chat Completions
/// plain and strict, Responses, Anthropic, Gemini, MCP), against
/// `tests/snapshots/schemas-by-provider.json` (re-bless with `CARNET_BLESS=1`): the rewrites
/// of optional parameters, closed objects and formats are visible per provider.
#[test]
fn schema_snapshots_per_provider() {
    use carnet::providers::{anthropic, gemini, mcp, openai};

    let carnet = Carnet::new(&MANIFEST, tools::toolsets()).build().unwrap();
    let mut session = carnet.session(agents::RESEARCHER);
    for skill in ["dataAnalysis", "unitConversion", "reportWriting"] {
        session.load_skill(skill).unwrap();
    }
    let specs: Vec<_> = session
        .tools()
        .iter()
        .filter(|t| t.kind == ToolKind::Domain)
        .cloned()
        .collect();
    let strict = openai::Options { strict: true };
    let by_provider = json!({
        "openai-chat": openai::chat_tools(&specs, &openai::Options::default()).unwrap(),
        "openai-chat-strict": openai::chat_tools(&specs, &strict).unwrap(),
        "openai-responses-strict": openai::responses_tools(&specs, &strict).unwrap(),
        "anthropic": anthropic::tools(&specs).unwrap(),
        "gemini": gemini::tools(&specs).unwrap(),
        "mcp": mcp::tools(&specs).unwrap(),
    });
    // Strict mode accepts every tool of the example: optional parameters become nullable
    // and required there, and nothing else.
    for tool in by_provider["openai-chat-strict"].as_array().unwrap() {
        assert_eq!(tool["function"]["strict"], true, "{tool}");
    }
    let actual = serde_json::to_string_pretty(&by_provider).unwrap() + "\n";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/schemas-by-provider.json");
    if std::env::var_os("CARNET_BLESS").is_some() {
        std::fs::write(&path, &actual).unwrap();
    }
    let expected =
        std::fs::read_to_string(&path).expect("tests/snapshots/schemas-by-provider.json (CARNET_BLESS=1 creates it)");
    assert!(
        expected == actual,
        "the tools as the providers receive them changed (CARNET_BLESS=1 to accept):\n{actual}"
    );
}
