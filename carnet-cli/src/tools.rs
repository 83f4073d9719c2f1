//! `carnet tools`: the tool list an agent's model receives, in a provider's wire format.

use carnet_runtime::chat::ChatRequest;
use carnet_runtime::providers::{anthropic, gemini, mcp, openai};
use carnet_runtime::session::NameEnums;
use carnet_runtime::{ExposureMode, Manifest, PromptOptions, Session, ToolKind};
use clap::ValueEnum;
use serde_json::{Value, json};

use crate::Failure;
use crate::unseen::{Source, Unseen};

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
    /// Every tool, domain tools deferred the provider's way (Anthropic, OpenAI Responses).
    Deferred,
    /// Every tool, restricted to the exposed ones by the provider's switch (OpenAI, Gemini).
    AllowedTools,
}

/// Which meta-tools the model gets (`--preset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum PresetArg {
    /// The six loading meta-tools: `listAvailableSkills`, `loadSkill`, `listSkillToolsets`,
    /// `loadToolset`, `loadTool`, `loadSkillFile`.
    Full,
    /// `loadSkill` and `loadSkillFile` only.
    Minimal,
    /// The six, and `listTools`, `describeTool` and `searchTools` to browse and rank tools
    /// without loading them.
    Discovery,
}

impl From<PresetArg> for carnet_runtime::Preset {
    fn from(preset: PresetArg) -> Self {
        match preset {
            PresetArg::Full => carnet_runtime::Preset::Full,
            PresetArg::Minimal => carnet_runtime::Preset::Minimal,
            PresetArg::Discovery => carnet_runtime::Preset::Discovery,
        }
    }
}

impl From<Mode> for ExposureMode {
    fn from(mode: Mode) -> Self {
        match mode {
            Mode::Dynamic => ExposureMode::Dynamic,
            Mode::Dispatcher => ExposureMode::Dispatcher,
            Mode::Deferred => ExposureMode::Deferred,
            Mode::AllowedTools => ExposureMode::AllowedTools,
        }
    }
}

/// How `carnet tools` builds the session whose tools it prints.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Options {
    pub(crate) mode: Mode,
    pub(crate) preset: PresetArg,
    pub(crate) strict: bool,
    /// Name parameters list the reachable names as `enum`s (the engine's default caps).
    pub(crate) name_enums: bool,
}

pub(crate) fn run(
    manifest: &Manifest,
    dir: Option<&std::path::Path>,
    agent: &str,
    load: &[String],
    provider: Option<Provider>,
    options: Options,
) -> Result<(), Failure> {
    let mode = ExposureMode::from(options.mode);
    let prompt = PromptOptions {
        name_enums: if options.name_enums {
            NameEnums::default()
        } else {
            NameEnums::OFF
        },
        ..PromptOptions::default()
    };
    let session = crate::prompt::session(manifest, agent, load, |b| {
        b.mode(mode).preset(options.preset.into()).prompt_options(prompt)
    })?;
    let source = Source::Markdown(dir);
    print_tools(&session, source, agent, load, provider, options.strict)
}

/// The tools `session` gives its model, in `provider`'s format (carnet's own without one).
/// From markdown, the tools implemented in Rust are said on stderr and, in carnet's own
/// format, marked `"inputSchemaKnown": false`.
pub(crate) fn print_tools(
    session: &Session,
    source: Source<'_>,
    agent: &str,
    load: &[String],
    provider: Option<Provider>,
    strict: bool,
) -> Result<(), Failure> {
    let specs = session.tools();
    let domain = specs
        .iter()
        .filter(|t| t.kind != ToolKind::Meta)
        .map(|t| t.name.as_str());
    let unseen = Unseen::among(session.carnet().manifest(), source, domain);
    let mut args = vec!["tools", agent];
    for skill in load {
        args.extend(["--load", skill]);
    }
    let provider_name = provider.and_then(|p| p.to_possible_value());
    if let Some(name) = &provider_name {
        args.extend(["--provider", name.get_name()]);
    }
    if strict {
        args.push("--strict");
    }
    unseen.warn(
        "they are shown with the schema `{\"type\": \"object\", \"additionalProperties\": true}`, not theirs",
        &unseen.command(&args),
    );
    let options = openai::Options { strict };
    let manifest = session.carnet().manifest();
    if let Some(provider) = provider.filter(|&p| session.carnet().mode().keeps_prefix() && p != Provider::Mcp) {
        print(&with_disclosure(manifest, session, provider, strict)?);
        return Ok(());
    }
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
                        "inputSchemaKnown": !unseen.tools.contains(&t.name),
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
    print(&rendered);
    Ok(())
}

fn print(value: &Value) {
    outln!(
        "{}",
        serde_json::to_string_pretty(value).expect("JSON values serialise")
    );
}

/// In the modes that send every tool, the tools as a request carries them (deferred the
/// provider's way), and the provider's switch restricting the model (`tool_choice`,
/// Gemini's `toolConfig`) when it has one: `{"tools": ..., "tool_choice": ...}`.
fn with_disclosure(
    manifest: &Manifest,
    session: &carnet_runtime::Session,
    provider: Provider,
    strict: bool,
) -> Result<Value, Failure> {
    let callable: Vec<String> = session.callable_tools().map(str::to_owned).collect();
    let request = ChatRequest {
        system: "",
        messages: &[],
        tools: session.tools(),
        mode: session.carnet().mode(),
        callable: &callable,
    };
    let openai_options = openai::RequestOptions {
        model: String::new(),
        strict,
        namespaces: manifest
            .toolsets
            .iter()
            .map(|t| (t.name.to_string(), t.description.to_string()))
            .collect(),
    };
    let fail = |e: carnet_runtime::providers::ProviderError| Failure::content(format!("error: {e}"));
    let body = match provider {
        Provider::Openai => openai::chat_request(&request, &openai_options).map_err(fail)?,
        Provider::OpenaiResponses => openai::responses_request(&request, &openai_options).map_err(fail)?,
        Provider::Anthropic => {
            let options = anthropic::RequestOptions {
                model: String::new(),
                max_tokens: 1,
            };
            anthropic::request(&request, &options).map_err(fail)?
        }
        Provider::Gemini => {
            let mut body = json!({"tools": gemini::tools(request.tools).map_err(fail)?});
            if let Some(config) = gemini::tool_config(&request).map_err(fail)? {
                body["toolConfig"] = config;
            }
            return Ok(body);
        }
        Provider::Mcp => unreachable!("MCP has no deferral"),
    };
    let mut out = json!({"tools": body["tools"]});
    if let Some(choice) = body.get("tool_choice") {
        out["tool_choice"] = choice.clone();
    }
    Ok(out)
}
