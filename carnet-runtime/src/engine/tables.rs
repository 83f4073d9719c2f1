//! The engine's tables, built once from the manifest: implementations bound to their
//! declared tools, domain tools numbered and indexed by name, each agent's skills.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use serde_json::{Value, json};

use super::carnet::{AgentTables, DomainTool, skill_ix, toolset_ix};
use super::options::BuildError;
use super::remote::pinned_schema;
use crate::dispatch::{ToolImpl, ToolsetImpl};
use crate::index::{SkillIx, ToolIx, ToolsetIx};
use crate::manifest::Manifest;
use crate::names;
use crate::search::{Field, SearchIndex, for_each_parameter};
use crate::suggest::closest;
use crate::tool::{ToolKind, ToolSpec};

/// Puts each implementation in its declared tool's slot: `slots[toolset][tool]`.
pub(super) fn bind(
    manifest: &Manifest,
    toolsets: Vec<ToolsetImpl>,
    allow_unimplemented: bool,
) -> Result<Vec<Vec<Option<ToolImpl>>>, BuildError> {
    let mut slots: Vec<Vec<Option<ToolImpl>>> = manifest.toolsets.iter().map(|t| vec![None; t.tools.len()]).collect();
    for set in toolsets {
        let Some(ti) = toolset_ix(manifest, &set.toolset) else {
            let similar = closest(&set.toolset, manifest.toolsets.iter().map(|t| &*t.name));
            return Err(BuildError::UnknownToolset {
                toolset: set.toolset.into_owned(),
                similar,
            });
        };
        let toolset = &manifest.toolsets[ti.get()];
        for tool in set.tools {
            let Some(j) = toolset.tools.iter().position(|t| t.name == tool.name) else {
                return Err(BuildError::UndeclaredTool {
                    toolset: toolset.name.to_string(),
                    tool: tool.name.into_owned(),
                    declared: toolset.tools.iter().map(|t| t.name.to_string()).collect(),
                });
            };
            if tool.input_schema.get("type").and_then(Value::as_str) != Some("object") {
                return Err(BuildError::InvalidSchema {
                    tool: tool.name.into_owned(),
                });
            }
            let slot = &mut slots[ti.get()][j];
            if slot.is_some() {
                return Err(BuildError::DuplicateTool {
                    toolset: toolset.name.to_string(),
                    tool: tool.name.into_owned(),
                });
            }
            *slot = Some(tool);
        }
    }
    if !allow_unimplemented {
        let missing: Vec<String> = manifest
            .toolsets
            .iter()
            .zip(&slots)
            .flat_map(|(t, slots)| {
                t.tools
                    .iter()
                    .zip(slots)
                    .filter(|(_, s)| s.is_none())
                    .map(move |(tool, _)| format!("{}/{}", t.name, tool.name))
            })
            .collect();
        if !missing.is_empty() {
            return Err(BuildError::MissingTools { tools: missing });
        }
    }
    Ok(slots)
}

type ToolTables = (Vec<DomainTool>, Vec<u32>, HashMap<String, Vec<ToolIx>>);

/// Numbers the domain tools toolset by toolset and indexes them by name and alias.
pub(super) fn tool_tables(manifest: &Manifest, implementations: Vec<Vec<Option<ToolImpl>>>) -> ToolTables {
    let mut tools = Vec::new();
    let mut toolset_first_tool = Vec::with_capacity(manifest.toolsets.len() + 1);
    let mut tool_names: HashMap<String, Vec<ToolIx>> = HashMap::new();
    for (ti, (toolset, slots)) in manifest.toolsets.iter().zip(implementations).enumerate() {
        toolset_first_tool.push(tools.len() as u32);
        for (tool, implementation) in toolset.tools.iter().zip(slots) {
            let id = ToolIx::new(tools.len());
            let description = if tool.description.is_empty() {
                implementation
                    .as_ref()
                    .and_then(|i| i.description.clone())
                    .unwrap_or(Cow::Borrowed(""))
            } else {
                tool.description.clone()
            };
            let input_schema = implementation.as_ref().map_or_else(
                || Arc::new(pinned_schema(tool.remote.as_deref()).unwrap_or_else(open_schema)),
                |i| i.input_schema.clone(),
            );
            tool_names.entry(tool.name.to_string()).or_default().push(id);
            if let Ok(alias) = names::alias(&tool.name)
                && alias != tool.name
            {
                tool_names.entry(alias.into_owned()).or_default().push(id);
            }
            tools.push(DomainTool {
                toolset: ToolsetIx::new(ti),
                spec: ToolSpec {
                    name: tool.name.to_string(),
                    description: description.into_owned(),
                    input_schema,
                    kind: ToolKind::Domain,
                    toolset: Some(toolset.name.to_string()),
                    output_schema: implementation.as_ref().and_then(|i| i.output_schema.clone()),
                    title: tool.title.as_deref().map(str::to_owned),
                    annotations: tool.annotations,
                },
                implementation,
            });
        }
    }
    toolset_first_tool.push(tools.len() as u32);
    (tools, toolset_first_tool, tool_names)
}

/// Each agent's initial and reachable skills, deduplicated, in declaration order.
pub(super) fn agent_tables(manifest: &Manifest) -> Vec<AgentTables> {
    let dedup = |names: &mut dyn Iterator<Item = &str>, into: &mut Vec<SkillIx>| {
        for s in names.filter_map(|s| skill_ix(manifest, s)) {
            if !into.contains(&s) {
                into.push(s);
            }
        }
    };
    manifest
        .agents
        .iter()
        .map(|a| {
            let mut initial = Vec::new();
            dedup(
                &mut a
                    .initial_skills
                    .iter()
                    .chain(manifest.app.global_initial_skills.iter())
                    .map(|s| &**s),
                &mut initial,
            );
            let mut reachable = initial.clone();
            dedup(
                &mut a.skills.iter().chain(manifest.app.global_skills.iter()).map(|s| &**s),
                &mut reachable,
            );
            AgentTables {
                initial,
                reachable,
                prefix: OnceLock::new(),
                all_tools: OnceLock::new(),
                meta_tools: OnceLock::new(),
                task_tools: OnceLock::new(),
                reachable_tools: OnceLock::new(),
            }
        })
        .collect()
}

/// The input schema of a declared tool without an implementation: any object.
fn open_schema() -> Value {
    json!({"type": "object", "additionalProperties": true})
}

/// The search index over every domain tool (numbered as `tools`, the manifest's order): the
/// compiled manifest's, built with it, or one built from the manifest now; then what only the
/// program knows, the same way on both paths: the parameters of tools written in Rust (their
/// input schemas' top-level properties) and the doc comment of those the manifest does not
/// describe.
pub(super) fn search_index(manifest: &Manifest, tools: &[DomainTool], compiled: Option<&'static [u8]>) -> SearchIndex {
    let mut index = compiled
        .and_then(|bytes| SearchIndex::from_bytes(Cow::Borrowed(bytes)))
        .filter(|index| index.fingerprint() == manifest.fingerprint && index.tools() as usize == tools.len())
        .unwrap_or_else(|| SearchIndex::build(manifest));
    let declared = manifest.toolsets.iter().flat_map(|t| t.tools.iter());
    for (number, (declared, tool)) in declared.zip(tools).enumerate() {
        if tool.implementation.is_none() || declared.remote.is_some() {
            continue;
        }
        let number = u32::try_from(number).unwrap_or(u32::MAX);
        if declared.description.is_empty() {
            index.add(number, Field::Description, &tool.spec.description);
        }
        for_each_parameter(&tool.spec.input_schema, |text| {
            index.add(number, Field::Parameter, text);
        });
    }
    index
}
