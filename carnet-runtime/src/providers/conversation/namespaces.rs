//! The `OpenAI` Responses namespaces of deferred domain tools: one per toolset, in the tools
//! list, in an `additional_tools` item after a load, in a client-executed search's output,
//! and on a deferred call sent back.

use serde_json::{Value, json};

use super::super::common::{Aliases, wire_name};
use super::super::openai::tools as openai;
use super::options::OpenAiOptions;
use crate::tool::{ToolCall, ToolKind, ToolSpec};

pub(super) fn openai_tools_options(options: &OpenAiOptions) -> openai::Options {
    openai::Options { strict: options.strict }
}

/// A Responses function tool; `defer_loading` for the deferred ones.
pub(super) fn responses_function(spec: &ToolSpec, alias: &str, options: openai::Options, deferred: bool) -> Value {
    let mut tool = openai::responses_tools(std::slice::from_ref(spec), &options)
        .ok()
        .and_then(|tools| tools.as_array().and_then(|t| t.first().cloned()))
        .unwrap_or_else(|| json!({"type": "function"}));
    tool["name"] = Value::String(alias.to_owned());
    if deferred {
        tool["defer_loading"] = Value::Bool(true);
    }
    tool
}

/// The Responses namespace a deferred domain tool is declared in: its toolset's alias.
fn namespace_name(spec: &ToolSpec) -> String {
    namespace_alias(spec.toolset.as_deref().unwrap_or_default())
}

fn namespace_alias(toolset: &str) -> String {
    crate::names::alias(toolset).map_or_else(|_| toolset.to_owned(), std::borrow::Cow::into_owned)
}

/// Domain tools grouped in one namespace per toolset, in the order of `specs`.
pub(super) fn namespaces(
    specs: &[&ToolSpec],
    aliases: &Aliases,
    options: &OpenAiOptions,
    deferred: bool,
) -> Vec<Value> {
    let tool_options = openai_tools_options(options);
    let mut groups: Vec<(String, Vec<Value>)> = Vec::new();
    for spec in specs {
        let toolset = spec.toolset.clone().unwrap_or_default();
        let function = responses_function(spec, &wire_name(aliases, &spec.name), tool_options, deferred);
        match groups.iter_mut().find(|(name, _)| *name == toolset) {
            Some((_, tools)) => tools.push(function),
            None => groups.push((toolset, vec![function])),
        }
    }
    groups
        .into_iter()
        .map(|(toolset, tools)| {
            let description = options
                .namespaces
                .get(&toolset)
                .cloned()
                .unwrap_or_else(|| format!("Tools of toolset {toolset}"));
            let name = namespace_alias(&toolset);
            json!({"type": "namespace", "name": name, "description": description, "tools": tools})
        })
        .collect()
}

/// The namespace a call of a deferred domain tool goes back with, as the model made it:
/// its toolset's alias (`None` for a meta-tool or a tool not listed).
pub(in crate::providers) fn call_namespace(tools: &[ToolSpec], call: &ToolCall) -> Option<String> {
    tools
        .iter()
        .find(|t| t.name == call.name && t.kind != ToolKind::Meta)
        .map(namespace_name)
}

/// The namespaces of a Responses `additional_tools` item: the tools a load exposed.
pub(in crate::providers) fn loaded_namespaces(
    tools: &[ToolSpec],
    exposes: &[String],
    aliases: &Aliases,
    options: &OpenAiOptions,
) -> Vec<Value> {
    let loaded: Vec<&ToolSpec> = exposes
        .iter()
        .filter_map(|name| tools.iter().find(|t| t.name == *name))
        .collect();
    namespaces(&loaded, aliases, options, false)
}

/// The namespaces of a client-executed search's `tool_search_output`: the tools found, in
/// the order found, deferred as the hosted search's output holds them.
pub(in crate::providers) fn searched_namespaces(
    tools: &[ToolSpec],
    found: &[String],
    aliases: &Aliases,
    options: &OpenAiOptions,
) -> Vec<Value> {
    let found: Vec<&ToolSpec> = found
        .iter()
        .filter_map(|name| tools.iter().find(|t| t.name == *name))
        .collect();
    namespaces(&found, aliases, options, true)
}
