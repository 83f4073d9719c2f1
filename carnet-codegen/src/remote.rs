//! Remote toolsets: a `TOOLSET.md` whose `mcp:` block names an MCP server, and the pin of that
//! server's tool list (`mcp.lock.json` beside it) that the build checks against.
//!
//! The build never opens a connection: the tools of a remote toolset are the ones its pin
//! recorded (`carnet mcp pin` writes it), narrowed by the toolset's `tools:` list when it has
//! one. From then on they are declared tools like any other (typed ids, collisions, provider
//! aliases), with the schemas the server gave.
//!
//! The pin's format (written by `carnet_runtime::remote::Pin`, read here):
//!
//! ```json
//! {
//!   "digest": "sha256:...",            // of the pin but `digest`, as compact JSON, keys sorted
//!   "instructions": "...",             // the server's, when it gave some
//!   "pin": 1,
//!   "protocolVersion": "2025-11-25",
//!   "serverInfo": {"name": "...", "version": "..."},
//!   "skills": [{"uri", "frontmatter": {"name", "description", ...}, "resources": [{"uri", "digest", "size"}]}],
//!   "tools": [{"name", "title"?, "description"?, "inputSchema", "outputSchema"?, "annotations"?}]
//! }
//! ```
//!
//! `skills` (MCP's Skills extension, when the server serves it) become skills of the
//! directory, narrowed by the toolset's `skills:` list: their name and description come from
//! the pin, they bring the toolset, and their instructions are read from the server on load,
//! checked against the digest of their `SKILL.md` (`tools: []` offers a server's skills
//! without its tools).

use serde_json::{Map, Value, json};

use crate::diagnostic::{Builder, Code, Diagnostics, did_you_mean};
use crate::frontmatter::{Node, Value as Yaml};
use crate::messages;
use crate::model::{Spanned, ToolDecl, ToolsetDef};
use crate::source::{FileId, Sources, Span};

/// The pin file's name, beside `TOOLSET.md`.
pub(crate) const PIN_FILE: &str = "mcp.lock.json";

/// The pin format this crate reads and `carnet mcp pin` writes.
pub(crate) const PIN_VERSION: u64 = 1;

/// The `mcp:` block of a `TOOLSET.md`, checked.
#[derive(Debug, Clone)]
pub(crate) struct McpDef {
    /// `{"command", "args"?, "env"?}` or `{"url", "headers"?}`, `${VAR}` as written.
    pub(crate) server: Value,
    /// The `mcp` key, for errors about the toolset as a whole.
    pub(crate) span: Span,
    /// What the pin recorded of the server: `{"serverInfo", "protocolVersion", "digest"}`.
    pub(crate) pin: Option<Value>,
    /// `skills:`: the server's skills to offer (all of them when empty).
    pub(crate) skills: Vec<Spanned<String>>,
    /// Whether `tools:` was written: `tools: []` offers none of the server's tools (a server
    /// used for its skills), no `tools:` all of them.
    pub(crate) tools_listed: bool,
}

impl McpDef {
    /// The manifest's [`carnet_runtime::Toolset::mcp`] JSON.
    pub(crate) fn to_json(&self) -> String {
        let mut object = Map::new();
        object.insert("server".into(), self.server.clone());
        if let Some(pin) = &self.pin {
            object.insert("pin".into(), pin.clone());
        }
        Value::Object(object).to_string()
    }
}

const STDIO_KEYS: [&str; 3] = ["command", "args", "env"];
const HTTP_KEYS: [&str; 2] = ["url", "headers"];

/// Checks an `mcp:` block: a mapping with `command` (and `args`, `env`) or `url` (and
/// `headers`), strings everywhere. Every problem is reported; `None` when there was one.
pub(crate) fn parse_server(key: &Node, value: &Node, file: FileId, diags: &mut Diagnostics) -> Option<McpDef> {
    let span = |node: &Node| Span::new(file, node.start, node.end);
    let key_span = span(key);
    let Yaml::Map(entries) = &value.value else {
        diags.push(
            Builder::new(
                Code::InvalidMcpServer,
                messages::wrong_type("mcp", messages::A_MAPPING, value.value.kind()),
            )
            .at(span(value))
            .help(messages::MCP_BLOCK_FORM),
        );
        return None;
    };
    let errors = diags.error_count();
    let mut server = Map::new();
    for (k, v) in entries {
        let name = match &k.value {
            Yaml::String(s) => s.as_str(),
            _ => "",
        };
        match name {
            "command" | "url" => match &v.value {
                Yaml::String(s) if !s.trim().is_empty() => {
                    if name == "url" && !is_http_url(s) {
                        diags.push(
                            Builder::new(Code::InvalidMcpServer, messages::mcp_url_scheme(s))
                                .at(span(v))
                                .label(messages::MCP_URL_LABEL),
                        );
                    }
                    server.insert(name.into(), Value::String(s.clone()));
                }
                other => {
                    diags.push(
                        Builder::new(
                            Code::InvalidMcpServer,
                            messages::wrong_type(&format!("mcp.{name}"), "a non-empty string", other.kind()),
                        )
                        .at(span(v).max_with(span(k))),
                    );
                }
            },
            "args" => match &v.value {
                Yaml::List(items) => {
                    let mut args = Vec::with_capacity(items.len());
                    for (i, item) in items.iter().enumerate() {
                        match &item.value {
                            Yaml::String(s) => args.push(Value::String(s.clone())),
                            other => diags.push(
                                Builder::new(
                                    Code::InvalidMcpServer,
                                    messages::wrong_type(
                                        &messages::item("mcp.args", i),
                                        messages::A_STRING,
                                        other.kind(),
                                    ),
                                )
                                .at(span(item))
                                .help(messages::QUOTE_MCP_VALUE),
                            ),
                        }
                    }
                    server.insert("args".into(), Value::Array(args));
                }
                Yaml::Null => {}
                other => diags.push(
                    Builder::new(
                        Code::InvalidMcpServer,
                        messages::wrong_type("mcp.args", messages::A_LIST, other.kind()),
                    )
                    .at(span(v)),
                ),
            },
            "env" | "headers" => match &v.value {
                Yaml::Map(pairs) => {
                    let mut map = Map::new();
                    for (pk, pv) in pairs {
                        let pname = match &pk.value {
                            Yaml::String(s) if !s.is_empty() => s.clone(),
                            _ => {
                                diags.push(
                                    Builder::new(
                                        Code::InvalidMcpServer,
                                        messages::wrong_type(
                                            &format!("a key of mcp.{name}"),
                                            messages::A_STRING,
                                            pk.value.kind(),
                                        ),
                                    )
                                    .at(span(pk)),
                                );
                                continue;
                            }
                        };
                        match &pv.value {
                            Yaml::String(s) => {
                                map.insert(pname, Value::String(s.clone()));
                            }
                            other => diags.push(
                                Builder::new(
                                    Code::InvalidMcpServer,
                                    messages::wrong_type(
                                        &format!("mcp.{name}.{pname}"),
                                        messages::A_STRING,
                                        other.kind(),
                                    ),
                                )
                                .at(span(pv))
                                .help(messages::QUOTE_MCP_VALUE),
                            ),
                        }
                    }
                    server.insert(name.into(), Value::Object(map));
                }
                Yaml::Null => {}
                other => diags.push(
                    Builder::new(
                        Code::InvalidMcpServer,
                        messages::wrong_type(&format!("mcp.{name}"), messages::A_MAPPING, other.kind()),
                    )
                    .at(span(v)),
                ),
            },
            _ => {
                let known = STDIO_KEYS.iter().chain(&HTTP_KEYS).copied();
                diags.push(
                    Builder::new(Code::InvalidMcpServer, messages::unknown_mcp_key(name))
                        .at(span(k))
                        .help_opt(did_you_mean(name, known).map(messages::did_you_mean))
                        .note(messages::MCP_KEYS),
                );
            }
        }
    }
    let stdio = STDIO_KEYS.iter().any(|k| server.contains_key(*k));
    let http = HTTP_KEYS.iter().any(|k| server.contains_key(*k));
    if stdio && http {
        diags.push(
            Builder::new(Code::InvalidMcpServer, messages::MCP_BOTH_TRANSPORTS)
                .at(key_span)
                .help(messages::MCP_BLOCK_FORM),
        );
    } else if !server.contains_key("command") && !server.contains_key("url") {
        diags.push(
            Builder::new(Code::InvalidMcpServer, messages::MCP_NO_TRANSPORT)
                .at(key_span)
                .help(messages::MCP_BLOCK_FORM),
        );
    }
    if diags.error_count() > errors {
        return None;
    }
    Some(McpDef {
        server: Value::Object(server),
        span: key_span,
        pin: None,
        skills: Vec::new(),
        tools_listed: false,
    })
}

fn is_http_url(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    // `${VAR}` may stand for the whole URL; it is checked when the server starts.
    lower.starts_with("http://") || lower.starts_with("https://") || s.starts_with("${")
}

/// The pin's tools whose JSON is too deep to be a schema anyone meant: past this, a pin is
/// refused (`serde_json`'s own limit, 128, stops parsing deeper documents first).
const MAX_SCHEMA_DEPTH: usize = 64;

/// Reads the pin of a remote toolset (`pin`: its file, `None` when it does not exist) and
/// makes its tools the toolset's declared tools: all of them, or the ones `tools:` names.
pub(crate) fn apply_pin(
    toolset: &mut ToolsetDef,
    folder: &str,
    pin: Option<FileId>,
    sources: &Sources,
    diags: &mut Diagnostics,
) -> Vec<PinnedSkill> {
    let Some(mcp) = &mut toolset.mcp else {
        return Vec::new();
    };
    let Some(file) = pin else {
        diags.push(
            Builder::new(Code::MissingPin, messages::missing_pin(&toolset.name.value))
                .at(mcp.span)
                .label(messages::MCP_SERVER_HERE)
                .help(messages::run_mcp_pin(&toolset.name.value, folder)),
        );
        toolset.tools.clear();
        return Vec::new();
    };
    let name = toolset.name.value.clone();
    let Some(mut pinned) = read_pin(file, sources, &name, folder, diags) else {
        toolset.tools.clear();
        return Vec::new();
    };
    mcp.pin = Some(pinned.summary.clone());
    let skills = offered_skills(&mut pinned, mcp, &name, diags);
    let subset = std::mem::take(&mut toolset.tools);
    if subset.is_empty() && mcp.tools_listed {
        return skills;
    }
    if subset.is_empty() {
        // Every pinned tool, each pointed at the `mcp` key (its TOOLSET.md names none).
        let span = mcp.span;
        toolset.tools = pinned
            .tools
            .into_iter()
            .map(|tool| tool.into_decl(span, None))
            .collect();
        return skills;
    }
    let names: Vec<String> = pinned.tools.iter().map(|t| t.name.clone()).collect();
    let mut pool: Vec<Option<PinnedTool>> = pinned.tools.into_iter().map(Some).collect();
    for decl in subset {
        match names.iter().position(|n| *n == decl.name.value) {
            Some(i) => match pool[i].take() {
                Some(tool) => toolset.tools.push(tool.into_decl(decl.name.span, decl.description)),
                // Named twice: the duplicate check of the toolset's tools reports it.
                None => toolset.tools.push(decl),
            },
            None if let Some(why) = pinned.unusable.get(&decl.name.value) => diags.push(
                Builder::new(Code::InvalidPin, messages::unusable_remote_tool(&decl.name.value, why))
                    .at(decl.name.span)
                    .label(messages::NOT_OFFERABLE),
            ),
            None => diags.push(
                Builder::new(
                    Code::UnknownRemoteTool,
                    messages::unknown_remote_tool(&decl.name.value, &name),
                )
                .at(decl.name.span)
                .label(messages::NOT_IN_THE_PIN)
                .help_opt(did_you_mean(&decl.name.value, names.iter().map(String::as_str)).map(messages::did_you_mean))
                .note(messages::pinned_tools(&names)),
            ),
        }
    }
    skills
}

struct Pinned {
    summary: Value,
    tools: Vec<PinnedTool>,
    /// The server's skills (MCP's Skills extension) whose `SKILL.md` has a digest.
    skills: Vec<PinnedSkill>,
    /// Skills that cannot be checked (no digest for their `SKILL.md`), and why.
    unusable_skills: std::collections::HashMap<String, String>,
    /// Tools the server lists that carnet cannot offer (an input schema that is not an
    /// object schema), and why: left out, an error only where `tools:` names one.
    unusable: std::collections::HashMap<String, String>,
}

struct PinnedTool {
    name: String,
    description: String,
    remote: Value,
}

impl PinnedTool {
    fn into_decl(self, span: Span, description: Option<String>) -> ToolDecl {
        ToolDecl {
            name: Spanned { value: self.name, span },
            // The author's description (`- {name: x, description: ...}`) wins over the server's.
            description_written: description.is_some(),
            description: Some(description.unwrap_or(self.description)),
            content: String::new(),
            remote: Some(self.remote.to_string()),
        }
    }
}

fn read_pin(file: FileId, sources: &Sources, toolset: &str, folder: &str, diags: &mut Diagnostics) -> Option<Pinned> {
    let text = &sources.get(file).text;
    let whole = Span::new(file, 0, text.len().min(1));
    let invalid = |message: String| {
        Builder::new(Code::InvalidPin, message)
            .at(whole)
            .help(messages::run_mcp_pin(toolset, folder))
    };
    let root: Value = match serde_json::from_str(text) {
        Ok(root) => root,
        Err(e) => {
            let offset = offset_of(text, e.line(), e.column());
            diags.push(
                Builder::new(Code::InvalidPin, messages::pin_not_json(&e.to_string()))
                    .at(Span::new(file, offset, (offset + 1).min(text.len())))
                    .help(messages::run_mcp_pin(toolset, folder)),
            );
            return None;
        }
    };
    let Some(root) = root.as_object() else {
        diags.push(invalid(messages::pin_shape("the pin is not a JSON object")));
        return None;
    };
    if root.get("pin").and_then(Value::as_u64) != Some(PIN_VERSION) {
        diags.push(invalid(messages::pin_shape(
            "`pin` is not 1 (a pin from another version of carnet?)",
        )));
        return None;
    }
    let Some(tools) = root.get("tools").and_then(Value::as_array) else {
        diags.push(invalid(messages::pin_shape("`tools` is not a list")));
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
            diags.push(invalid(messages::pin_shape(&format!("tool `{name}` is listed twice"))));
            continue;
        }
        match pinned_tool(tool) {
            Ok(tool) => pinned.push(tool),
            Err(Problem::Unusable(why)) => {
                unusable.insert(name.to_owned(), why);
            }
            Err(Problem::Invalid(problem)) => {
                diags.push(invalid(messages::pin_shape(&format!("`tools[{i}]`: {problem}"))));
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
                        diags.push(invalid(messages::pin_shape(&format!("`skills[{i}]`: {problem}"))));
                    }
                }
            }
            (offered, unusable)
        }
        Some(_) => {
            diags.push(invalid(messages::pin_shape("`skills` is not a list")));
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
    /// The manifest's [`carnet_runtime::Skill::remote`] JSON.
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
            .filter(|d| is_sha256(d)),
        _ => None,
    }
    .ok_or_else(|| Problem::Unusable("its `SKILL.md` has no SHA-256 digest to check what is read against".into()))?;
    let metadata = frontmatter
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "name" | "description"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok(PinnedSkill {
        name: name.to_owned(),
        description: description.to_owned(),
        metadata,
        uri: uri.to_owned(),
        digest: digest.to_owned(),
        span,
    })
}

fn is_sha256(digest: &str) -> bool {
    digest
        .strip_prefix("sha256:")
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
}

/// The pinned skills the toolset offers: all of them, or those `skills:` names.
fn offered_skills(pinned: &mut Pinned, mcp: &McpDef, toolset: &str, diags: &mut Diagnostics) -> Vec<PinnedSkill> {
    let all = std::mem::take(&mut pinned.skills);
    if mcp.skills.is_empty() {
        return all
            .into_iter()
            .map(|mut s| {
                s.span = mcp.span;
                s
            })
            .collect();
    }
    let names: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
    let mut offered = Vec::new();
    for wanted in &mcp.skills {
        match all.iter().find(|s| s.name == wanted.value) {
            Some(skill) => {
                let mut skill = skill.clone();
                skill.span = wanted.span;
                offered.push(skill);
            }
            None if let Some(why) = pinned.unusable_skills.get(&wanted.value) => diags.push(
                Builder::new(Code::InvalidPin, messages::unusable_remote_skill(&wanted.value, why))
                    .at(wanted.span)
                    .label(messages::NOT_OFFERABLE),
            ),
            None => diags.push(
                Builder::new(
                    Code::UnknownRemoteSkill,
                    messages::unknown_remote_skill(&wanted.value, toolset),
                )
                .at(wanted.span)
                .label(messages::NOT_A_PINNED_SKILL)
                .help_opt(did_you_mean(&wanted.value, names.iter().copied()).map(messages::did_you_mean)),
            ),
        }
    }
    offered
}

/// Why a pinned tool is not taken.
enum Problem {
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
            keys.sort();
            Value::Object(keys.into_iter().map(|k| (k.clone(), sorted(&map[k]))).collect())
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
