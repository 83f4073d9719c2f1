//! `carnet call`: a meta-tool's result exactly as the model receives it.

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

// One parameter per flag of `carnet call`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    manifest: &Manifest,
    agent: &str,
    tool: &str,
    arguments: Option<&str>,
    load: &[String],
    mode: tools::Mode,
    preset: tools::PresetArg,
    results: Results,
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
    call_on(&mut session, tool, arguments, false)
}

/// Calls `tool` on `session` and prints its result as the model reads it; meta-tools only
/// unless `domain` (a program with the tools' implementations). An error result is printed
/// too, and exits with status 1.
pub(crate) fn call_on(session: &mut Session, tool: &str, arguments: Option<&str>, domain: bool) -> Result<(), Failure> {
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
/// a table (or the meta-tool's JSON).
pub(crate) fn search(manifest: &Manifest, agent: &str, query: &str, limit: u64, as_json: bool) -> Result<(), Failure> {
    let mut session = crate::prompt::session(manifest, agent, &[], |b| b.preset(carnet_runtime::Preset::Discovery))?;
    let output =
        carnet_runtime::block_on(session.call("searchTools", serde_json::json!({"query": query, "limit": limit})));
    if output.is_error {
        return Err(Failure::usage(format!(
            "error: {}",
            output.error_message().unwrap_or_default()
        )));
    }
    if as_json {
        outln!("{}", output.to_text());
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
        outln!(
            "{:<width$}  {:>6.2}  {:<20}  {}",
            hit["name"].as_str().unwrap_or_default(),
            hit["score"].as_f64().unwrap_or_default(),
            hit["skill"].as_str().unwrap_or("-"),
            hit["summary"].as_str().unwrap_or_default()
        );
    }
    Ok(())
}
