//! Reading a pin (`mcp.lock.json`): its shape, its digest, its tools and skills.

use carnet_manifest::Annotations;
use carnet_manifest::order;
use serde_json::{Map, Value, json};

use super::{PIN_VERSION, RemoteProtocol};
use crate::diagnostic::{Builder, Code, Diagnostics};
use crate::messages;
use crate::model::{Spanned, ToolDecl};
use crate::source::{FileId, Sources, Span};

/// The pin's tools whose JSON is too deep to be a schema anyone meant: past this, a pin is
/// refused (`serde_json`'s own limit, 128, stops parsing deeper documents first).
const MAX_SCHEMA_DEPTH: usize = 64;

pub(super) struct Pinned {
    pub(super) summary: Value,
    pub(super) tools: Vec<PinnedTool>,
    /// The server's skills (MCP's Skills extension) whose `SKILL.md` has a digest.
    pub(super) skills: Vec<PinnedSkill>,
    /// Skills that cannot be checked (no digest for their `SKILL.md`), and why.
    pub(super) unusable_skills: std::collections::HashMap<String, String>,
    /// Tools the server lists that carnet cannot offer (an input schema that is not an
    /// object schema), and why: left out, an error only where `tools:` names one.
    pub(super) unusable: std::collections::HashMap<String, String>,
}

pub(super) struct PinnedTool {
    pub(super) name: String,
    pub(super) description: String,
    pub(super) remote: Value,
}

impl PinnedTool {
    /// The declaration of the pinned tool; `written` is the author's entry in `TOOLSET.md`
    /// naming it, whose description, title and annotations win over the server's, hint by hint.
    pub(super) fn into_decl(self, span: Span, written: Option<ToolDecl>) -> ToolDecl {
        let listed = &self.remote;
        let hint = |key: &str| listed["annotations"][key].as_bool();
        let pinned = Annotations::__new(
            hint("readOnlyHint"),
            hint("destructiveHint"),
            hint("idempotentHint"),
            hint("openWorldHint"),
        );
        let pinned_title = listed["title"]
            .as_str()
            .or_else(|| listed["annotations"]["title"].as_str())
            .map(str::to_owned);
        let (description, title, annotations) = match written {
            Some(decl) => {
                let a = decl.annotations;
                let annotations = Annotations::__new(
                    a.read_only.or(pinned.read_only),
                    a.destructive.or(pinned.destructive),
                    a.idempotent.or(pinned.idempotent),
                    a.open_world.or(pinned.open_world),
                );
                (decl.description, decl.title.or(pinned_title), annotations)
            }
            None => (None, pinned_title, pinned),
        };
        ToolDecl {
            name: Spanned { value: self.name, span },
            // The author's description (`- {name: x, description: ...}`) wins over the server's.
            description_written: description.is_some(),
            description: Some(description.unwrap_or(self.description)),
            content: String::new(),
            remote: Some(self.remote.to_string()),
            title,
            annotations,
            // A remote tool's parameters are the server's: its pin has their schema.
            parameters: Vec::new(),
        }
    }
}

pub(super) fn read_pin(
    file: FileId,
    sources: &Sources,
    (toolset, protocol): (&str, RemoteProtocol),
    folder: &str,
    diags: &mut Diagnostics,
) -> Option<Pinned> {
    let text = &sources.get(file).text;
    let whole = Span::new(file, 0, text.len().min(1));
    let invalid = |message: String| {
        Builder::new(Code::InvalidPin, message)
            .at(whole)
            .help(messages::run_pin(protocol, toolset, folder))
    };
    let root: Value = match serde_json::from_str(text) {
        Ok(root) => root,
        Err(e) => {
            let offset = offset_of(text, e.line(), e.column());
            diags.push(
                Builder::new(Code::InvalidPin, messages::pin_not_json(&e.to_string()))
                    .at(Span::new(file, offset, (offset + 1).min(text.len())))
                    .help(messages::run_pin(protocol, toolset, folder)),
            );
            return None;
        }
    };
    let Some(root) = root.as_object() else {
        diags.push(invalid(messages::pin_shape(protocol, "the pin is not a JSON object")));
        return None;
    };
    if root.get("pin").and_then(Value::as_u64) != Some(PIN_VERSION) {
        diags.push(invalid(messages::pin_shape(
            protocol,
            "`pin` is not 1 (a pin from another version of carnet?)",
        )));
        return None;
    }
    let Some(tools) = root.get("tools").and_then(Value::as_array) else {
        diags.push(invalid(messages::pin_shape(protocol, "`tools` is not a list")));
        return None;
    };
    let digest = root.get("digest").and_then(Value::as_str).unwrap_or_default();
    if digest != pin_digest(root) {
        diags.push(invalid(messages::pin_digest_mismatch(toolset)));
        return None;
    }
    let mut pinned = Vec::with_capacity(tools.len());
    let mut unusable = std::collections::HashMap::new();
    let mut seen = std::collections::HashSet::new();
    let errors = diags.error_count();
    for (i, tool) in tools.iter().enumerate() {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
        if !name.is_empty() && !seen.insert(name.to_owned()) {
            diags.push(invalid(messages::pin_shape(
                protocol,
                &format!("tool `{name}` is listed twice"),
            )));
            continue;
        }
        match pinned_tool(tool) {
            Ok(tool) => pinned.push(tool),
            Err(Problem::Unusable(why)) => {
                unusable.insert(name.to_owned(), why);
            }
            Err(Problem::Invalid(problem)) => {
                diags.push(invalid(messages::pin_shape(
                    protocol,
                    &format!("`tools[{i}]`: {problem}"),
                )));
            }
        }
    }
    if diags.error_count() > errors {
        return None;
    }
    let mut summary = Map::new();
    for key in ["serverInfo", "protocolVersion", "digest"] {
        if let Some(value) = root.get(key) {
            summary.insert(key.into(), value.clone());
        }
    }
    let (skills, unusable_skills) = match root.get("skills") {
        None | Some(Value::Null) => (Vec::new(), std::collections::HashMap::new()),
        Some(Value::Array(skills)) => {
            let mut offered = Vec::new();
            let mut unusable = std::collections::HashMap::new();
            for (i, skill) in skills.iter().enumerate() {
                match pinned_skill(skill, Span::new(file, 0, 0)) {
                    Ok(skill) => offered.push(skill),
                    Err(Problem::Unusable(why)) => {
                        let name = skill["frontmatter"]["name"].as_str().unwrap_or_default();
                        unusable.insert(name.to_owned(), why);
                    }
                    Err(Problem::Invalid(problem)) => {
                        diags.push(invalid(messages::pin_shape(
                            protocol,
                            &format!("`skills[{i}]`: {problem}"),
                        )));
                    }
                }
            }
            (offered, unusable)
        }
        Some(_) => {
            diags.push(invalid(messages::pin_shape(protocol, "`skills` is not a list")));
            return None;
        }
    };
    if diags.error_count() > errors {
        return None;
    }
    Some(Pinned {
        summary: Value::Object(summary),
        tools: pinned,
        unusable,
        skills,
        unusable_skills,
    })
}

/// A skill a remote toolset's server serves, as its pin recorded it.
#[derive(Debug, Clone)]
pub(crate) struct PinnedSkill {
    pub(crate) name: String,
    pub(crate) description: String,
    /// Frontmatter keys other than `name` and `description`.
    pub(crate) metadata: Map<String, Value>,
    /// Its `SKILL.md` resource.
    pub(crate) uri: String,
    /// The SHA-256 its `SKILL.md` must have (`sha256:` and 64 hex digits).
    pub(crate) digest: String,
    /// Where content names it: the `skills:` entry, else the `mcp` key.
    pub(crate) span: Span,
}

impl PinnedSkill {
    /// The manifest's [`carnet_manifest::Skill::remote`] JSON.
    pub(crate) fn remote_json(&self, toolset: &str) -> String {
        json!({"toolset": toolset, "uri": self.uri, "digest": self.digest}).to_string()
    }
}

fn pinned_skill(skill: &Value, span: Span) -> Result<PinnedSkill, Problem> {
    let uri = skill
        .get("uri")
        .and_then(Value::as_str)
        .filter(|u| u.starts_with("skill://"))
        .ok_or("no `skill://` `uri`")?;
    let frontmatter = skill
        .get("frontmatter")
        .and_then(Value::as_object)
        .ok_or("no `frontmatter`")?;
    let name = frontmatter
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.trim().is_empty())
        .ok_or("no `frontmatter.name`")?;
    let description = frontmatter
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let digest = match skill.get("resources") {
        Some(Value::Array(resources)) => resources
            .iter()
            .find(|r| r["uri"] == uri)
            .and_then(|r| r["digest"].as_str())
            .filter(|d| carnet_manifest::digest::is_sha256_digest(d)),
        _ => None,
    }
    .ok_or_else(|| Problem::Unusable("its `SKILL.md` has no SHA-256 digest to check what is read against".into()))?;
    let metadata = order::object(
        frontmatter
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "name" | "description"))
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    Ok(PinnedSkill {
        name: name.to_owned(),
        description: description.to_owned(),
        metadata,
        uri: uri.to_owned(),
        digest: digest.to_owned(),
        span,
    })
}

/// Why a pinned tool is not taken.
pub(super) enum Problem {
    /// The pin is not what `carnet mcp pin` writes.
    Invalid(String),
    /// The server lists it, but no model could call it.
    Unusable(String),
}

impl From<&str> for Problem {
    fn from(problem: &str) -> Self {
        Problem::Invalid(problem.to_owned())
    }
}

impl From<String> for Problem {
    fn from(problem: String) -> Self {
        Problem::Invalid(problem)
    }
}

fn pinned_tool(tool: &Value) -> Result<PinnedTool, Problem> {
    let object = tool.as_object().ok_or("not an object")?;
    let name = object
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.trim().is_empty())
        .ok_or("no `name`")?;
    let text = |key: &str| -> Result<Option<&str>, Problem> {
        match object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(format!("`{key}` of `{name}` is not a string").into()),
        }
    };
    let description = text("description")?;
    let title = text("title")?;
    // An A2A agent's skill: its id and modes, or why no model could use it.
    let a2a = object.get("a2a").filter(|a| a.is_object());
    if let Some(why) = a2a.and_then(|a| a["unusable"].as_str()) {
        return Err(Problem::Unusable(why.to_owned()));
    }
    let input = object
        .get("inputSchema")
        .filter(|s| s.get("type").and_then(Value::as_str) == Some("object"))
        .ok_or_else(|| {
            Problem::Unusable("its `inputSchema` is not an object schema (`\"type\": \"object\"`)".into())
        })?;
    let mut remote = Map::new();
    remote.insert("inputSchema".into(), input.clone());
    for key in ["outputSchema", "annotations"] {
        match object.get(key) {
            None | Some(Value::Null) => {}
            Some(value @ Value::Object(_)) => {
                remote.insert(key.into(), value.clone());
            }
            Some(_) => return Err(format!("`{key}` of `{name}` is not an object").into()),
        }
    }
    if let Some(title) = title {
        remote.insert("title".into(), json!(title));
    }
    if let Some(a2a) = a2a {
        remote.insert("a2a".into(), a2a.clone());
    }
    if depth(tool) > MAX_SCHEMA_DEPTH {
        return Err(Problem::Unusable(format!(
            "its schemas nest deeper than {MAX_SCHEMA_DEPTH} levels"
        )));
    }
    Ok(PinnedTool {
        name: name.to_owned(),
        description: description.or(title).unwrap_or_default().to_owned(),
        remote: Value::Object(remote),
    })
}

fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// `sha256:` and the hex SHA-256 of the tools as compact JSON with sorted keys: what a pin's
/// `digest` must be.
pub(crate) fn pin_digest(pin: &Map<String, Value>) -> String {
    let mut pin = pin.clone();
    pin.remove("digest");
    crate::manifest::sha256(sorted(&Value::Object(pin)).to_string().as_bytes())
}

/// `value` with every object's keys in sorted order, whatever `serde_json`'s features (with
/// `preserve_order`, maps keep insertion order): the form pins are written and hashed in.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            order::sort(&mut keys);
            Value::Object(order::object(keys.into_iter().map(|k| (k.clone(), sorted(&map[k])))))
        }
        other => other.clone(),
    }
}

fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (start + column.saturating_sub(1)).min(text.len())
}
