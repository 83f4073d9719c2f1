//! `carnet tools`: the tool list an agent's model receives, in a provider's wire format.

use carnet_runtime::providers::{anthropic, gemini, mcp, openai};
use carnet_runtime::{ExposureMode, Manifest, ToolKind};
use clap::ValueEnum;
use serde_json::{Value, json};

use crate::Failure;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Provider {
    /// OpenAI Chat Completions `tools`.
    Openai,
    /// OpenAI Responses API `tools`.
    OpenaiResponses,
    /// Anthropic Messages `tools`.
    Anthropic,
    /// Gemini `tools` (`functionDeclarations`, OpenAPI subset).
    Gemini,
    /// MCP `tools/list` result.
    Mcp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Mode {
    /// The list grows as skills load.
    Dynamic,
    /// A fixed list: meta-tools and `callTool`.
    Dispatcher,
}

pub(crate) fn run(
    manifest: &Manifest,
    agent: &str,
    load: &[String],
    provider: Option<Provider>,
    mode: Mode,
    strict: bool,
) -> Result<(), Failure> {
    let mode = match mode {
        Mode::Dynamic => ExposureMode::Dynamic,
        Mode::Dispatcher => ExposureMode::Dispatcher,
    };
    let session = crate::prompt::session(manifest, agent, load, |b| b.mode(mode))?;
    let specs = session.tools();
    let options = openai::Options { strict };
    let rendered = match provider {
        None => Ok(Value::Array(
            specs
                .iter()
                .map(|t| {
                    json!({
                        "name": t.name,
                        "description": t.description,
                        "inputSchema": *t.input_schema,
                        "kind": if t.kind == ToolKind::Meta { "meta" } else { "domain" },
                        "toolset": t.toolset,
                    })
                })
                .collect(),
        )),
        Some(Provider::Openai) => openai::chat_tools(specs, &options),
        Some(Provider::OpenaiResponses) => openai::responses_tools(specs, &options),
        Some(Provider::Anthropic) => anthropic::tools(specs),
        Some(Provider::Gemini) => gemini::tools(specs),
        Some(Provider::Mcp) => mcp::tools(specs),
    }
    .map_err(|e| Failure::content(format!("error: {e}")))?;
    outln!(
        "{}",
        serde_json::to_string_pretty(&rendered).expect("JSON values serialise")
    );
    Ok(())
}
