//! Writing: the wire structs as they go out, borrowing from the [`Manifest`] (contents are
//! never copied; only base64 data and unlisted files' descriptions are made up on the way).

use std::borrow::Cow;
use std::collections::BTreeMap;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::manifest::{Agent, Manifest, Skill, SkillFile, Text, Tool, Toolset};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct WireManifest<'a> {
    version: u32,
    app: WireApp<'a>,
    agents: ByName<'a, WireAgent<'a>>,
    skills: ByName<'a, WireSkill<'a>>,
    toolsets: ByName<'a, WireToolset<'a>>,
    /// TS Carnet 0.3.0's map of the tools its toolsets name.
    tools: BTreeMap<&'a str, WireTool<'a>>,
    variables: ByName<'a, &'a str>,
    env_prefix: &'a [Text],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireApp<'a> {
    global_initial_skills: &'a [Text],
    global_skills: &'a [Text],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireAgent<'a> {
    name: &'a str,
    description: &'a str,
    initial_skills: &'a [Text],
    skills: &'a [Text],
    prompt: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    extra: Option<Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireSkill<'a> {
    name: &'a str,
    description: &'a str,
    toolsets: &'a [Text],
    files: Vec<WireFile<'a>>,
    content: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    license: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    compatibility: Option<&'a str>,
    #[serde(skip_serializing_if = "is_empty")]
    allowed_tools: &'a [Text],
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    extra: Option<Value>,
    /// A remote skill's server and pin ([`Skill::remote`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    remote: Option<Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireFile<'a> {
    path: &'a str,
    description: Cow<'a, str>,
    /// The text, or the data in base64 (then `encoding` says so).
    content: Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    encoding: Option<&'static str>,
    media_type: &'a str,
    listed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    digest: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireToolset<'a> {
    name: &'a str,
    description: &'a str,
    /// Names, for TS Carnet 0.3.0.
    tools: Vec<&'a str>,
    content: &'a str,
    /// The toolset's own tools, so two toolsets may declare the same name.
    tool_definitions: Vec<WireTool<'a>>,
    /// A remote toolset's server and pin ([`Toolset::mcp`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    mcp: Option<Value>,
}

#[derive(Serialize)]
struct WireTool<'a> {
    name: &'a str,
    description: &'a str,
    content: &'a str,
    /// A remote tool's pinned listing ([`Tool::remote`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    remote: Option<Value>,
    /// [`Tool::title`].
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    /// [`Tool::annotations`], with MCP's names, when any is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<serde_json::Map<String, Value>>,
}

#[allow(clippy::ref_option_ref, clippy::trivially_copy_pass_by_ref)] // serde passes a reference
fn is_empty(list: &&[Text]) -> bool {
    list.is_empty()
}

/// A JSON object of `(key, value)` pairs in the manifest's order (sorted by name).
struct ByName<'a, T>(Vec<(&'a str, T)>);

impl<T: Serialize> Serialize for ByName<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

fn by_name<'a, T: 'a, W>(items: &'a [T], name: fn(&T) -> &str, wire: fn(&'a T) -> W) -> ByName<'a, W> {
    ByName(items.iter().map(|item| (name(item), wire(item))).collect())
}

/// `extra` and `metadata` are JSON objects kept as text; `{}` (or nothing) is not written.
fn json_object(text: &str) -> Option<Value> {
    let text = text.trim();
    if text.is_empty() || text == "{}" {
        return None;
    }
    Some(serde_json::from_str(text).unwrap_or_else(|_| Value::Object(serde_json::Map::new())))
}

impl<'a> From<&'a Manifest> for WireManifest<'a> {
    fn from(m: &'a Manifest) -> Self {
        // A tool name declared by several toolsets (allowed when no agent reaches two of
        // them) appears once, from the first toolset in name order; `toolDefinitions` keeps
        // every declaration.
        let mut tools = BTreeMap::new();
        for tool in m.toolsets.iter().flat_map(|t| t.tools.iter()) {
            tools.entry(&*tool.name).or_insert_with(|| WireTool::from(tool));
        }
        WireManifest {
            version: m.version,
            app: WireApp {
                global_initial_skills: &m.app.global_initial_skills,
                global_skills: &m.app.global_skills,
            },
            agents: by_name(&m.agents, |a| &a.name, WireAgent::from),
            skills: by_name(&m.skills, |s| &s.name, WireSkill::from),
            toolsets: by_name(&m.toolsets, |t| &t.name, WireToolset::from),
            tools,
            variables: ByName(m.variables.iter().map(|(k, v)| (&**k, &**v)).collect()),
            env_prefix: &m.env_prefixes,
        }
    }
}

impl<'a> From<&'a Agent> for WireAgent<'a> {
    fn from(a: &'a Agent) -> Self {
        WireAgent {
            name: &a.name,
            description: &a.description,
            initial_skills: &a.initial_skills,
            skills: &a.skills,
            prompt: &a.prompt,
            extra: json_object(&a.extra),
        }
    }
}

impl<'a> From<&'a Skill> for WireSkill<'a> {
    fn from(s: &'a Skill) -> Self {
        WireSkill {
            name: &s.name,
            description: &s.description,
            toolsets: &s.toolsets,
            files: s.files.iter().map(|f| WireFile::new(&s.name, f)).collect(),
            content: &s.content,
            license: s.license.as_deref(),
            compatibility: s.compatibility.as_deref(),
            allowed_tools: &s.allowed_tools,
            metadata: json_object(&s.metadata),
            extra: json_object(&s.extra),
            remote: s.remote.as_deref().map(json_value),
        }
    }
}

impl<'a> WireFile<'a> {
    fn new(skill: &str, f: &'a SkillFile) -> Self {
        // TS Carnet requires a non-empty description; files found in the skill's folder but
        // not listed in its frontmatter get one that says what they are.
        let description = match &f.description {
            Some(description) => Cow::Borrowed(&**description),
            None => Cow::Owned(format!("File `{}` of skill `{skill}` ({})", f.path, f.media_type)),
        };
        let (content, encoding) = match f.text() {
            Some(text) => (Cow::Borrowed(text), None),
            None => (Cow::Owned(BASE64.encode(&f.data)), Some("base64")),
        };
        WireFile {
            path: &f.path,
            description,
            content,
            encoding,
            media_type: &f.media_type,
            listed: f.is_listed(),
            digest: f.digest.as_deref(),
        }
    }
}

impl<'a> From<&'a Toolset> for WireToolset<'a> {
    fn from(t: &'a Toolset) -> Self {
        WireToolset {
            name: &t.name,
            description: &t.description,
            tools: t.tools.iter().map(|tool| &*tool.name).collect(),
            content: &t.content,
            tool_definitions: t.tools.iter().map(WireTool::from).collect(),
            mcp: t.mcp.as_deref().map(json_value),
        }
    }
}

impl<'a> From<&'a Tool> for WireTool<'a> {
    fn from(t: &'a Tool) -> Self {
        WireTool {
            name: &t.name,
            description: &t.description,
            content: &t.content,
            remote: t.remote.as_deref().map(json_value),
            title: t.title.as_deref(),
            annotations: (!t.annotations.is_empty()).then(|| t.annotations.to_json()),
        }
    }
}

/// JSON kept as text in the manifest, written as JSON (text that does not parse, which only a
/// hand-made manifest can hold, is written as a string).
fn json_value(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}
