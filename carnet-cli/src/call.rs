//! `carnet call`: a meta-tool's result exactly as the model receives it.

use std::collections::HashMap;

use carnet_runtime::search::{Explanation, Origin, SearchIndex};
use carnet_runtime::{ExposureMode, Manifest, ResultFormat, Session, ToolKind};
use clap::ValueEnum;

use crate::{Failure, tools};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Results {
    /// A JSON object (TS Carnet's shape).
    Json,
    /// `<skill_context name="…">` … `</skill_context>`.
    Envelope,
}

// One parameter per flag of `carnet call` (`--results` and `--state` as one pair).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    manifest: &Manifest,
    agent: &str,
    tool: &str,
    arguments: Option<&str>,
    load: &[String],
    mode: tools::Mode,
    preset: tools::PresetArg,
    (results, state): (Results, bool),
) -> Result<(), Failure> {
    let format = match results {
        Results::Json => ResultFormat::Json,
        Results::Envelope => ResultFormat::Envelope,
    };
    let mut session = crate::prompt::session(manifest, agent, load, |b| {
        b.mode(ExposureMode::from(mode))
            .preset(preset.into())
            .result_format(format)
    })?;
    call_then_state(&mut session, tool, arguments, false, state)
}

/// [`call_on`], then, with `state` (`--state`), the session's state printed after the result:
/// `SessionState` as pretty JSON (the loaded skills, the toolsets in reach and why, the
/// history of loads). Not after a usage error (status 2): the call did not run.
pub(crate) fn call_then_state(
    session: &mut Session,
    tool: &str,
    arguments: Option<&str>,
    domain: bool,
    state: bool,
) -> Result<(), Failure> {
    let called = call_on(session, tool, arguments, domain);
    // An error result (status 1) is a call that ran.
    if state && called.as_ref().map_or_else(|failure| failure.status == 1, |()| true) {
        let state = serde_json::to_string_pretty(&session.state()).expect("a session state serialises");
        outln!("{state}");
    }
    called
}

/// Calls `tool` on `session` and prints its result as the model reads it; meta-tools only
/// unless `domain` (a program with the tools' implementations). An error result is printed
/// too, and exits with status 1.
fn call_on(session: &mut Session, tool: &str, arguments: Option<&str>, domain: bool) -> Result<(), Failure> {
    let meta: Vec<&str> = session
        .tools()
        .iter()
        .filter(|t| t.kind == ToolKind::Meta)
        .map(|t| t.name.as_str())
        .collect();
    if !domain && !meta.contains(&tool) {
        let mut failure = crate::unknown("meta-tool", tool, meta.iter());
        failure
            .message
            .push_str("\n  = note: `carnet call` runs meta-tools; domain tools have no implementation here");
        if carnet_runtime::names::is_meta_tool(tool) {
            failure
                .message
                .push_str(&format!("\n  = help: `{tool}` is offered by `--preset discovery`"));
        }
        return Err(failure);
    }
    // A remote skill is read from its server, and async tools may need a reactor: tokio.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::content(format!("error: cannot start the async runtime: {e}")))?;
    let output = runtime.block_on(session.call_json(tool, arguments.unwrap_or("{}")));
    outln!("{}", output.to_text());
    if output.is_error {
        // The result is the report; the status says it is an error result.
        return Err(Failure::content(""));
    }
    Ok(())
}

/// `carnet search`: `searchTools` on a session of `agent` (the discovery preset), printed as
/// a table (or the meta-tool's JSON); with `explain`, each hit's matched terms under it (in
/// the JSON, an `explain` object in each hit).
pub(crate) fn search(
    manifest: &Manifest,
    agent: &str,
    query: &str,
    limit: u64,
    explain: bool,
    as_json: bool,
) -> Result<(), Failure> {
    let mut session = crate::prompt::session(manifest, agent, &[], |b| b.preset(carnet_runtime::Preset::Discovery))?;
    let mut output =
        carnet_runtime::block_on(session.call("searchTools", serde_json::json!({"query": query, "limit": limit})));
    if output.is_error {
        return Err(Failure::usage(format!(
            "error: {}",
            output.error_message().unwrap_or_default()
        )));
    }
    let explained = explain.then(|| Explained::new(manifest, session.carnet().search_index()));
    if as_json {
        let Some(explained) = &explained else {
            outln!("{}", output.to_text());
            return Ok(());
        };
        for hit in output.value["hits"].as_array_mut().into_iter().flatten() {
            let why = explained.of(query, hit["name"].as_str().unwrap_or_default());
            hit["explain"] = why.map_or(serde_json::Value::Null, |why| explanation_json(&why));
        }
        outln!("{}", output.value);
        return Ok(());
    }
    let hits = output.value["hits"].as_array().map(Vec::as_slice).unwrap_or_default();
    if hits.is_empty() {
        outln!("no tool of agent `{agent}` matches `{query}`");
        return Ok(());
    }
    let width = hits
        .iter()
        .filter_map(|h| h["name"].as_str())
        .map(str::len)
        .max()
        .unwrap_or(4)
        .max(4);
    outln!("{:<width$}  {:>6}  {:<20}  summary", "tool", "score", "skill");
    for hit in hits {
        let name = hit["name"].as_str().unwrap_or_default();
        outln!(
            "{:<width$}  {:>6.2}  {:<20}  {}",
            name,
            hit["score"].as_f64().unwrap_or_default(),
            hit["skill"].as_str().unwrap_or("-"),
            hit["summary"].as_str().unwrap_or_default()
        );
        if let Some(why) = explained.as_ref().and_then(|e| e.of(query, name)) {
            for term in &why.terms {
                outln!(
                    "{:<width$}  {:>6.2}  {} ({}; {:.1} words here, in {} tool{})",
                    "",
                    term.score,
                    term.term,
                    origin_text(&term.origin),
                    term.weight,
                    term.tools,
                    if term.tools == 1 { "" } else { "s" }
                );
            }
            if why.exact_name {
                outln!("{:<width$}  {:>6.2}  the query is its name", "", 100.0);
            }
        }
    }
    Ok(())
}

/// The engine's search index and its tools' numbers, to explain hits by name.
struct Explained<'a> {
    index: &'a SearchIndex,
    numbers: HashMap<String, u32>,
}

impl<'a> Explained<'a> {
    fn new(manifest: &Manifest, index: &'a SearchIndex) -> Self {
        let names = manifest
            .toolsets
            .iter()
            .flat_map(|t| t.tools.iter())
            .map(|t| t.name.to_string());
        Explained {
            index,
            numbers: names.zip(0..).collect(),
        }
    }

    fn of(&self, query: &str, tool: &str) -> Option<Explanation> {
        Some(self.index.explain(query, *self.numbers.get(tool)?))
    }
}

fn origin_text(origin: &Origin) -> String {
    match origin {
        Origin::Query => "a word of the query".to_owned(),
        Origin::Synonym { of } => format!("a synonym of `{of}`"),
        Origin::Begun { by } => format!("begun by `{by}`"),
        _ => "another term".to_owned(),
    }
}

/// `x` to three decimals, as JSON prints it (an `f32` widened prints its binary noise).
fn rounded(x: f32) -> f64 {
    (f64::from(x) * 1000.0).round() / 1000.0
}

fn explanation_json(why: &Explanation) -> serde_json::Value {
    let terms: Vec<serde_json::Value> = why
        .terms
        .iter()
        .map(|t| {
            let mut term = serde_json::json!({
                "term": t.term,
                "origin": match t.origin {
                    Origin::Query => "query",
                    Origin::Synonym { .. } => "synonym",
                    Origin::Begun { .. } => "begun",
                    _ => "other",
                },
                "weight": rounded(t.weight),
                "tools": t.tools,
                "score": rounded(t.score),
            });
            match &t.origin {
                Origin::Synonym { of } => term["of"] = of.as_str().into(),
                Origin::Begun { by } => term["by"] = by.as_str().into(),
                _ => {}
            }
            term
        })
        .collect();
    serde_json::json!({"terms": terms, "exactName": why.exact_name, "score": rounded(why.score)})
}
