//! The meta-tools, in one place: their names, descriptions and input schemas, and what each
//! returns (results, errors and the suggestions in them).

use carnet_manifest::order;
use serde_json::{Value, json};

use super::reach::Loaded;
use super::tags::TagsAndExamples;
use crate::dispatch::ToolOutput;
use crate::engine::{ExposureMode, Inner, Naming, ResultFormat};
use crate::index::{SkillIx, ToolIx};
use crate::prompt::xml_escape;
use crate::schema;
use crate::suggest::similar;
use crate::tool::ToolSpec;

pub(crate) use crate::meta_tool::param;
pub use crate::meta_tool::{META_TOOLS, META_TOOLS_SNAKE, MetaTool, NameEnums, NameKind};

/// The meta-tools as the agent's model sees them: each name parameter lists what the agent
/// can reach as an `enum`, within the engine's [`NameEnums`] caps. Fixed per agent (the
/// names reachable, not those loaded), so the tools array keeps its bytes all conversation
/// long. The arguments are still checked against the schema without the `enum`
/// ([`check_arguments`]), so a wrong name gets the error that names the right ones.
///
/// Built once per agent of an engine and kept in its tables: a session in a new state
/// clones them (the schemas are `Arc`s), rather than gathering the names and building the
/// schemas again, and the provider writers find the tools' kept bytes by the schemas'
/// address.
pub(crate) fn specs<'a>(inner: &'a Inner, loaded: &Loaded) -> &'a [ToolSpec] {
    inner
        .agent_tables(loaded.agent)
        .meta_tools
        .get_or_init(|| build(inner, loaded).into())
}

fn build(inner: &Inner, loaded: &Loaded) -> Vec<ToolSpec> {
    let caps = inner.prompt.name_enums;
    // Nothing is gathered for a kind that is off (the default for toolsets and tools): a
    // session in a new state builds its tool list, and agents can reach thousands of tools.
    let skills = listed(caps, NameKind::Skill, || {
        loaded
            .reachable_skills(inner)
            .iter()
            .map(|&s| &*inner.skill(s).name)
            .collect()
    });
    let toolsets = listed(caps, NameKind::Toolset, || {
        loaded
            .reachable_toolsets(inner)
            .into_iter()
            .map(|t| &*inner.toolset(t).name)
            .collect()
    });
    let tools = listed(caps, NameKind::Tool, || {
        loaded
            .reachable_toolsets(inner)
            .into_iter()
            .flat_map(|t| inner.toolset_tools(t))
            .map(|id| inner.tool(id).spec.name.as_str())
            .collect()
    });
    inner
        .meta
        .iter()
        .map(|&meta| {
            let names = match meta.name_parameter().filter(|_| meta.lists_names()) {
                Some((_, NameKind::Skill)) => &skills,
                Some((_, NameKind::Toolset)) => &toolsets,
                Some((_, NameKind::Tool)) => &tools,
                None => return meta.spec(inner.naming),
            };
            meta.spec_listing(inner.naming, names)
        })
        .collect()
}

/// The names of a kind, sorted and deduplicated, or none when the kind is off or there are
/// more than its cap.
fn listed<'a>(caps: NameEnums, kind: NameKind, names: impl FnOnce() -> Vec<&'a str>) -> Vec<&'a str> {
    if caps.cap(kind) == 0 {
        return Vec::new();
    }
    let mut names = names();
    order::sort(&mut names);
    names.dedup();
    if names.len() > caps.cap(kind) {
        names.clear();
    }
    names
}

/// Validates a meta-tool call's arguments.
pub(crate) fn check_arguments(meta: MetaTool, naming: Naming, name: &str, arguments: &Value) -> Result<(), ToolOutput> {
    match schema::validate(arguments, &meta.shared_input_schema(naming)) {
        Ok(()) => Ok(()),
        Err(e) => Err(ToolOutput::error(
            format!("invalid arguments for `{name}`: {e}"),
            json!({"field": e.path}),
        )),
    }
}

/// Runs a meta-tool other than `callTool` on valid arguments; returns its result and
/// whether the session changed.
/// `fetched`: a remote skill's instructions, read from its server before a `loadSkill`.
pub(crate) fn run(
    meta: MetaTool,
    inner: &Inner,
    loaded: &mut Loaded,
    arguments: &Value,
    fetched: Option<&str>,
) -> (ToolOutput, bool) {
    let arg = |camel: &'static str| {
        arguments
            .get(param(inner.naming, camel))
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    match meta {
        MetaTool::ListAvailableSkills => (list_available_skills(inner, loaded, arg("query")), false),
        MetaTool::LoadSkill => load_skill(inner, loaded, arg("skillName"), fetched),
        MetaTool::ListSkillToolsets => (list_skill_toolsets(inner, loaded, arg("skillName")), false),
        MetaTool::LoadToolset => load_toolset(inner, loaded, arg("toolsetName")),
        MetaTool::LoadTool => load_tool(inner, loaded, arg("toolName")),
        MetaTool::LoadSkillFile => (load_skill_file(inner, loaded, arg("skillName"), arg("path")), false),
        MetaTool::ListTools => (super::discovery::list_tools(inner, loaded, arg("namespace")), false),
        MetaTool::DescribeTool => (super::discovery::describe_tool(inner, loaded, arg("name")), false),
        MetaTool::SearchTools => {
            let limit = arguments.get(param(inner.naming, "limit")).and_then(Value::as_u64);
            super::discovery::search_tools(inner, loaded, arg("query"), limit)
        }
        MetaTool::CallTool => unreachable!("callTool is dispatched as a domain call"),
    }
}

/// The error for a skill the agent cannot load, with the skills it can.
pub(crate) fn skill_not_available(inner: &Inner, loaded: &Loaded, name: &str) -> ToolOutput {
    let reachable: Vec<&str> = loaded
        .reachable_skills(inner)
        .iter()
        .map(|&s| &*inner.skill(s).name)
        .collect();
    let message = if inner.skill_index(name).is_some() {
        format!(
            "skill `{name}` is not available to agent `{}`",
            inner.agent(loaded.agent).name
        )
    } else {
        format!("Skill not found: {name}")
    };
    ToolOutput::error(
        message,
        json!({"available": reachable, "similar": similar(name, reachable.iter().copied(), 3)}),
    )
}

fn list_available_skills(inner: &Inner, loaded: &Loaded, query: &str) -> ToolOutput {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let mut reachable = loaded.reachable_skills(inner).to_vec();
    reachable.sort_unstable();
    let skills: Vec<Value> = reachable
        .iter()
        .map(|&s| (s, inner.skill(s)))
        .map(|(s, skill)| (s, skill, TagsAndExamples::of(skill)))
        .filter(|(_, skill, cues)| {
            let haystack = format!("{} {} {}", skill.name, skill.description, cues.tags.join(" ")).to_lowercase();
            words.iter().all(|w| haystack.contains(w.as_str()))
        })
        .map(|(s, skill, cues)| {
            let mut entry = json!({
                "name": skill.name,
                "description": skill.description,
                "toolsets": skill.toolsets,
                "loaded": loaded.skills.contains(&s),
            });
            if !cues.tags.is_empty() {
                entry["tags"] = json!(cues.tags);
            }
            if !cues.examples.is_empty() {
                entry["examples"] = json!(cues.examples);
            }
            entry
        })
        .collect();
    ToolOutput::ok(json!({"success": true, "skills": skills}))
}

/// Full specs of tools, for dispatcher mode where loaded tools are not in the tool list.
fn tool_specs(inner: &Inner, ids: &[ToolIx]) -> Value {
    ids.iter()
        .map(|&id| {
            let spec = &inner.tool(id).spec;
            json!({"name": spec.name, "description": spec.description, "inputSchema": *spec.input_schema})
        })
        .collect()
}

fn load_skill(inner: &Inner, loaded: &mut Loaded, name: &str, fetched: Option<&str>) -> (ToolOutput, bool) {
    let Some(s) = loaded.reachable_skill(inner, name) else {
        return (skill_not_available(inner, loaded, name), false);
    };
    let changed = loaded.load_skill(s);
    inner.warm_skill(s);
    (skill_loaded(inner, s, !changed, fetched), changed)
}

/// `loadSkill`'s result for skill `s`; `fetched` is a remote skill's instructions, read from
/// its server (in place of [`crate::Skill::content`], which is empty for them).
pub(crate) fn skill_loaded(inner: &Inner, s: SkillIx, already: bool, fetched: Option<&str>) -> ToolOutput {
    let skill = inner.skill(s);
    let content = fetched.unwrap_or(&skill.content);
    let tool_ids: Vec<ToolIx> = inner
        .skill_toolsets(s)
        .iter()
        .flat_map(|&t| inner.toolset_tools(t))
        .collect();
    let files: Vec<Value> = skill
        .files
        .iter()
        .map(|f| {
            let mut v = json!({"path": f.path, "mediaType": f.media_type, "size": f.data.len()});
            if let Some(d) = &f.description {
                v["description"] = json!(d);
            }
            v
        })
        .collect();
    let mut value = json!({
        "success": true,
        "content": inner.variables.inject(content),
        "metadata": {"name": skill.name, "description": skill.description, "toolsets": skill.toolsets},
        "files": files,
        "tools": tool_ids.iter().map(|&id| &inner.tool(id).spec.name).collect::<Vec<_>>(),
    });
    if already {
        value["alreadyLoaded"] = json!(true);
    }
    if inner.mode == ExposureMode::Dispatcher {
        value["toolSpecs"] = tool_specs(inner, &tool_ids);
    }
    if inner.result_format == ResultFormat::Envelope {
        value = Value::String(envelope(inner, s, content, &tool_ids, already));
    }
    ToolOutput::ok(value).exposing(names(inner, &tool_ids))
}

/// A loaded skill as text: its instructions, files and tools inside
/// `<skill_context name="…">`, with what to do now. Names, descriptions and paths are
/// XML-escaped; the instructions stay as written, but for a closing `</skill_context` in
/// them, escaped so the envelope cannot be closed early.
fn envelope(inner: &Inner, s: SkillIx, content: &str, tools: &[ToolIx], already: bool) -> String {
    use std::fmt::Write as _;
    let skill = inner.skill(s);
    let content = inner.variables.inject(content.trim());
    let mut out = format!(
        "<skill_context name=\"{}\">\n{}\n",
        xml_escape(&skill.name),
        content.replace("</skill_context", "&lt;/skill_context")
    );
    if !skill.files.is_empty() {
        out.push_str("\n<skill_files>\n");
        for f in skill.files.iter() {
            let description = f.description.as_deref().map(xml_escape).unwrap_or_default();
            let _ = writeln!(
                out,
                "<file path=\"{}\" media_type=\"{}\" size=\"{}\">{description}</file>",
                xml_escape(&f.path),
                xml_escape(&f.media_type),
                f.data.len()
            );
        }
        out.push_str("</skill_files>\n");
    }
    let tool_names: Vec<&str> = tools.iter().map(|&id| inner.tool(id).spec.name.as_str()).collect();
    out.push('\n');
    if already {
        out.push_str("This skill was already loaded. ");
    }
    out.push_str("Follow these instructions for the task at hand.");
    if !tool_names.is_empty() {
        let how = if inner.mode == ExposureMode::Dispatcher {
            format!(" through `{}`", inner.meta_name(MetaTool::CallTool))
        } else {
            String::new()
        };
        let _ = write!(out, " You can now call{how}: {}.", xml_escape(&tool_names.join(", ")));
    }
    if !skill.files.is_empty() && inner.has_meta(MetaTool::LoadSkillFile) {
        let _ = write!(
            out,
            " Load a file listed above with `{}` when you need it.",
            inner.meta_name(MetaTool::LoadSkillFile)
        );
    }
    out.push_str("\n</skill_context>");
    out
}

fn names(inner: &Inner, ids: &[ToolIx]) -> Vec<String> {
    ids.iter().map(|&id| inner.tool(id).spec.name.clone()).collect()
}

fn list_skill_toolsets(inner: &Inner, loaded: &Loaded, name: &str) -> ToolOutput {
    let Some(s) = loaded.reachable_skill(inner, name) else {
        return skill_not_available(inner, loaded, name);
    };
    let toolsets: Vec<Value> = inner
        .skill_toolsets(s)
        .iter()
        .map(|&t| {
            let toolset = inner.toolset(t);
            let all_exposed = inner.toolset_tools(t).all(|id| loaded.is_exposed(inner, id));
            json!({"name": toolset.name, "description": toolset.description, "toolCount": toolset.tools.len(), "loaded": all_exposed})
        })
        .collect();
    ToolOutput::ok(json!({"success": true, "skill": name, "toolsets": toolsets}))
}

fn load_toolset(inner: &Inner, loaded: &mut Loaded, name: &str) -> (ToolOutput, bool) {
    let Some(t) = loaded.reachable_toolset(inner, name) else {
        let names: Vec<&str> = loaded
            .reachable_toolsets(inner)
            .iter()
            .map(|&t| &*inner.toolset(t).name)
            .collect();
        let output = ToolOutput::error(
            format!("Toolset not found: {name}"),
            json!({"available": names, "similar": similar(name, names.iter().copied(), 3)}),
        );
        return (output, false);
    };
    let changed = loaded.load_toolset(t);
    inner.warm_toolset(t);
    let toolset = inner.toolset(t);
    let ids: Vec<ToolIx> = inner.toolset_tools(t).collect();
    let mut value = json!({
        "success": true,
        "name": toolset.name,
        "description": toolset.description,
        "content": inner.variables.inject(&toolset.content),
        "tools": ids.iter().map(|&id| {
            let spec = &inner.tool(id).spec;
            json!({"name": spec.name, "description": spec.description})
        }).collect::<Vec<_>>(),
    });
    if inner.mode == ExposureMode::Dispatcher {
        value["toolSpecs"] = tool_specs(inner, &ids);
    }
    (ToolOutput::ok(value).exposing(names(inner, &ids)), changed)
}

fn load_tool(inner: &Inner, loaded: &mut Loaded, name: &str) -> (ToolOutput, bool) {
    let Some(id) = loaded.reachable_tool(inner, name) else {
        return (super::explain::not_exposed(inner, loaded, name).0, false);
    };
    let changed = loaded.load_tool(inner, id);
    let tool = inner.tool(id);
    let toolset = inner.toolset(tool.toolset);
    let declared = toolset.tools.iter().find(|t| t.name == tool.spec.name);
    let output = ToolOutput::ok(json!({
        "success": true,
        "name": tool.spec.name,
        "description": tool.spec.description,
        "toolset": toolset.name,
        "content": declared.map(|t| inner.variables.inject(&t.content).into_owned()).unwrap_or_default(),
        "inputSchema": *tool.spec.input_schema,
    }))
    .exposing(vec![tool.spec.name.clone()]);
    (output, changed)
}

fn load_skill_file(inner: &Inner, loaded: &Loaded, skill_name: &str, path: &str) -> ToolOutput {
    let Some(s) = loaded.reachable_skill(inner, skill_name) else {
        let mut output = skill_not_available(inner, loaded, skill_name);
        output.value["path"] = json!(path);
        return output;
    };
    if !loaded.skills.contains(&s) {
        return ToolOutput::error(
            format!(
                "skill `{skill_name}` is not loaded: call `{}` first",
                inner.meta_name(MetaTool::LoadSkill)
            ),
            json!({"path": path}),
        );
    }
    let skill = inner.skill(s);
    let Some(file) = skill.file(path.trim_start_matches("./")) else {
        let paths: Vec<&str> = skill.files.iter().map(|f| &*f.path).collect();
        return ToolOutput::error(
            "File not found in skill",
            json!({"path": path, "available": paths, "similar": similar(path, paths.iter().copied(), 3)}),
        );
    };
    let mut value = json!({"success": true, "path": file.path, "mediaType": file.media_type});
    if let Some(text) = file.text() {
        value["content"] = json!(text);
    } else {
        use base64::Engine as _;
        value["content"] = json!(base64::engine::general_purpose::STANDARD.encode(&file.data));
        value["encoding"] = json!("base64");
    }
    ToolOutput::ok(value)
}
