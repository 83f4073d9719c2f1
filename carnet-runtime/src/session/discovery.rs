//! Browse-only tool discovery (`listTools`, `describeTool`) and skills as tools
//! (`task.<skill>`): the two-level disclosure of the tool-discovery design. Browsing never
//! changes what is exposed; calling a skill's tool loads the skill.

use carnet_manifest::order;
use std::sync::Arc;

use serde_json::{Value, json};

use super::reach::Loaded;
use super::tags::TagsAndExamples;
use crate::dispatch::ToolOutput;
use crate::engine::Inner;
use crate::index::{SkillIx, ToolIx};
use crate::manifest::Annotations;
use crate::names;
use crate::suggest::similar;
use crate::tool::{ToolKind, ToolSpec};

/// The namespace of the skills' tools: `task.<skill>`.
pub const TASK_NAMESPACE: &str = "task";

/// A tool's namespace: the dotted prefix of its name (`file.read` → `file`), else its toolset.
#[must_use]
pub fn namespace(spec: &ToolSpec) -> &str {
    match spec.name.rsplit_once('.') {
        Some((prefix, _)) => prefix,
        None => spec.toolset.as_deref().unwrap_or_default(),
    }
}

/// The first sentence of a description: up to the first `.`, `!` or `?` followed by a space
/// or the end, or the first line break.
#[must_use]
pub fn summary(description: &str) -> &str {
    let line = description.trim().lines().next().unwrap_or_default();
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if matches!(b, b'.' | b'!' | b'?') && bytes.get(i + 1).is_none_or(u8::is_ascii_whitespace) {
            return &line[..=i];
        }
    }
    line
}

/// What a skill's tool does to the world: loading a skill reads content; it changes the
/// conversation only.
pub(crate) const TASK_ANNOTATIONS: Annotations = Annotations::__new(Some(true), Some(false), Some(true), Some(false));

/// A skill's tool takes no arguments.
pub(crate) fn task_input_schema() -> Arc<Value> {
    Arc::new(json!({"type": "object", "properties": {}, "additionalProperties": false}))
}

/// The tool of skill `s`, when skills are tools: `task.<skill>`, described by the skill's
/// description followed by its tags and examples (within
/// [`TAGS_AND_EXAMPLES_WORDS`](super::tags::TAGS_AND_EXAMPLES_WORDS)), no parameters.
pub(crate) fn task_spec(inner: &Inner, s: SkillIx) -> ToolSpec {
    let skill = inner.skill(s);
    ToolSpec {
        name: format!("{TASK_NAMESPACE}.{}", skill.name),
        description: TagsAndExamples::of(skill).describe(&skill.description),
        input_schema: task_input_schema(),
        kind: ToolKind::Meta,
        toolset: None,
        output_schema: None,
        title: None,
        annotations: TASK_ANNOTATIONS,
    }
}

/// The skill whose tool `name` is (`task.<skill>` or its alias `task_<skill>`), if skills
/// are tools and the agent can load it.
pub(crate) fn task_skill(inner: &Inner, loaded: &Loaded, name: &str) -> Option<SkillIx> {
    if !inner.skills_as_tools {
        return None;
    }
    let skill = name.strip_prefix("task.").or_else(|| name.strip_prefix("task_"))?;
    loaded.reachable_skill(inner, skill)
}

/// What a browsed tool is: a skill's tool or a domain tool.
#[derive(Clone, Copy)]
enum Browsed {
    Task(SkillIx),
    Domain(ToolIx),
}

/// Every tool the agent can reach, by name: its skills' tools (if skills are tools), then
/// the domain tools, sorted by name.
fn browsable(inner: &Inner, loaded: &Loaded) -> Vec<(ToolSpec, Browsed)> {
    let mut tools: Vec<(ToolSpec, Browsed)> = Vec::new();
    if inner.skills_as_tools {
        tools.extend(
            loaded
                .reachable_skills(inner)
                .iter()
                .map(|&s| (task_spec(inner, s), Browsed::Task(s))),
        );
    }
    for t in loaded.reachable_toolsets(inner) {
        tools.extend(
            inner
                .toolset_tools(t)
                .map(|id| (inner.tool(id).spec.clone(), Browsed::Domain(id))),
        );
    }
    order::sort_by(&mut tools, |a, b| a.0.name.cmp(&b.0.name));
    tools
}

/// A domain tool's `title` and annotations (MCP's names), where the content gives them: what
/// the tool does to the world, for a model choosing between tools. Meta-tools' are left out
/// (they are the same for each).
fn annotate(entry: &mut Value, spec: &ToolSpec) {
    if spec.kind == ToolKind::Meta {
        return;
    }
    if let Some(title) = &spec.title {
        entry["title"] = json!(title);
    }
    if !spec.annotations.is_empty() {
        entry["annotations"] = Value::Object(spec.annotations.to_json());
    }
}

pub(crate) fn list_tools(inner: &Inner, loaded: &Loaded, wanted: &str) -> ToolOutput {
    let tools = browsable(inner, loaded);
    let listed: Vec<Value> = tools
        .iter()
        .filter(|(spec, _)| wanted.is_empty() || namespace(spec) == wanted)
        .map(|(spec, browsed)| {
            let mut entry =
                json!({"name": spec.name, "summary": summary(&spec.description), "namespace": namespace(spec)});
            annotate(&mut entry, spec);
            if let Browsed::Task(s) = browsed {
                // The summary is the description's first sentence: the tags and examples
                // that follow it in the tool's description are given whole.
                let cues = TagsAndExamples::of(inner.skill(*s));
                if !cues.tags.is_empty() {
                    entry["tags"] = json!(cues.tags);
                }
                if !cues.examples.is_empty() {
                    entry["examples"] = json!(cues.examples);
                }
            }
            entry
        })
        .collect();
    if listed.is_empty() && !wanted.is_empty() {
        let mut namespaces: Vec<&str> = tools.iter().map(|(spec, _)| namespace(spec)).collect();
        order::sort(&mut namespaces);
        namespaces.dedup();
        return ToolOutput::error(
            format!("no namespace `{wanted}`"),
            json!({"available": namespaces, "similar": similar(wanted, namespaces.iter().copied(), 3)}),
        );
    }
    ToolOutput::ok(json!({"success": true, "tools": listed}))
}

pub(crate) fn describe_tool(inner: &Inner, loaded: &Loaded, name: &str) -> ToolOutput {
    let tools = browsable(inner, loaded);
    let found = tools
        .iter()
        .find(|(spec, _)| spec.name == name || names::alias(&spec.name).is_ok_and(|alias| alias == name));
    let Some((spec, id)) = found else {
        let names: Vec<&str> = tools.iter().map(|(spec, _)| spec.name.as_str()).collect();
        return ToolOutput::error(
            format!("unknown tool `{name}`"),
            json!({"tool": name, "similar": similar(name, names.iter().copied(), 3)}),
        );
    };
    let mut value = json!({
        "success": true,
        "name": spec.name,
        "description": spec.description,
        "namespace": namespace(spec),
        "inputSchema": *spec.input_schema,
    });
    if let Some(schema) = &spec.output_schema {
        value["outputSchema"] = Value::clone(schema);
    }
    annotate(&mut value, spec);
    match id {
        Browsed::Domain(id) => {
            let toolset = inner.toolset(inner.tool(*id).toolset);
            value["toolset"] = json!(toolset.name);
            value["callable"] = json!(loaded.is_exposed(inner, *id));
            // The tool's own documentation (its markdown file), examples included.
            if let Some(declared) = toolset.tool(&spec.name).filter(|t| !t.content.trim().is_empty()) {
                value["documentation"] = json!(inner.variables.inject(&declared.content));
            }
            if !loaded.is_exposed(inner, *id) {
                let skills: Vec<&str> = loaded
                    .skills_with_toolset(inner, inner.tool(*id).toolset)
                    .iter()
                    .map(|&s| &*inner.skill(s).name)
                    .collect();
                value["loadWith"] = json!(skills);
            }
        }
        Browsed::Task(_) => value["callable"] = json!(true),
    }
    ToolOutput::ok(value)
}

/// The most hits `searchTools` returns, and how many without a `limit`.
const MAX_HITS: u64 = 50;
const DEFAULT_HITS: u64 = 8;
/// The longest query, as the input schema's `maxLength` says.
const MAX_QUERY_CHARS: usize = 1024;

/// `searchTools {query, limit?}`: the domain tools the agent can reach, ranked for `query`
/// (see [`crate::search`]); each hit says whether it is callable and which skill brings it.
/// Exposes nothing, unless the engine loads what search finds (tool-level loading): then the
/// hits are loaded as `loadTool` loads a tool, their input schemas in the result. Returns
/// whether the session changed.
pub(crate) fn search_tools(inner: &Inner, loaded: &mut Loaded, query: &str, limit: Option<u64>) -> (ToolOutput, bool) {
    let refuse = |message: String, field: &str| (ToolOutput::error(message, json!({"field": field})), false);
    if query.trim().is_empty() {
        return refuse(
            "the query is empty: describe what the tool should do in a few words".to_owned(),
            "query",
        );
    }
    if query.chars().count() > MAX_QUERY_CHARS {
        return refuse(
            format!(
                "the query is longer than {MAX_QUERY_CHARS} characters: describe what the tool should do in a few words"
            ),
            "query",
        );
    }
    let limit = match limit {
        None => DEFAULT_HITS,
        Some(limit) if (1..=MAX_HITS).contains(&limit) => limit,
        Some(limit) => {
            return refuse(
                format!("`limit` must be between 1 and {MAX_HITS}, not {limit}"),
                "limit",
            );
        }
    };
    let limit = usize::try_from(limit).unwrap_or(8);
    let mut allowed = vec![false; inner.toolset_first_tool.len().saturating_sub(1)];
    for t in loaded.reachable_toolsets(inner) {
        allowed[t.get()] = true;
    }
    let found = inner.search.search(query, limit, |tool| {
        allowed[inner.tool(ToolIx::new(tool as usize)).toolset.get()]
    });
    if found.is_empty() {
        let output = ToolOutput::ok(json!({
            "success": true,
            "hits": [],
            "note": "no tool matches: try other words, or list the skills with their descriptions",
        }));
        return (output, false);
    }
    let mut changed = false;
    let mut exposed = Vec::new();
    let mut hits = Vec::with_capacity(found.len());
    for hit in &found {
        let id = ToolIx::new(hit.tool as usize);
        let tool = inner.tool(id);
        if inner.search_loads_tools {
            changed |= loaded.load_tool(inner, id);
            exposed.push(tool.spec.name.clone());
        }
        let skills = loaded.skills_with_toolset(inner, tool.toolset);
        let mut entry = json!({
            "name": tool.spec.name,
            "summary": summary(&tool.spec.description),
            "skill": skills.first().map(|&s| &*inner.skill(s).name),
            "loaded": loaded.is_exposed(inner, id),
            "score": (f64::from(hit.score) * 1000.0).round() / 1000.0,
        });
        annotate(&mut entry, &tool.spec);
        if inner.search_loads_tools {
            entry["inputSchema"] = Value::clone(&tool.spec.input_schema);
        }
        hits.push(entry);
    }
    (
        ToolOutput::ok(json!({"success": true, "hits": hits})).exposing(exposed),
        changed,
    )
}
