//! Reading: the wire structs as they come in, and their checked conversion into the model.
//!
//! Reading runs in two passes over a parsed [`Value`]. serde fills the wire structs below,
//! checking every type on the way ([`super::strict`]: `expected a string, found a number`,
//! with `serde_path_to_error` giving the JSON pointer); then [`WireManifest::into_manifest`]
//! checks what types cannot say (required fields, names matching their keys, tool names
//! resolving, references) and builds the [`Manifest`]. Both passes are linear in the input;
//! lookups are binary searches in sorted vectors.
//!
//! Absent and `null` fields mean the same (`Option`), and unknown keys are ignored, as in TS
//! Carnet's zod schemas.

use crate::order;
use std::borrow::Cow;
use std::collections::HashSet;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::Deserialize;
use serde_json::Value;

use super::references::check_references;
use super::strict::{Bool, Map, Named, Obj, Seq, Str, ToolEntry};
use super::{ManifestError, child, invalid};
use crate::manifest::{
    Agent, Annotations, App, DEFAULT_ENV_PREFIXES, List, MANIFEST_VERSION, Manifest, Skill, SkillFile, Text, Tool,
    Toolset,
};

/// The manifest as read. `version` is read beforehand by [`version`].
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct WireManifest {
    app: Option<Obj<WireApp>>,
    agents: Option<Named<Obj<WireAgent>>>,
    skills: Option<Named<Obj<WireSkill>>>,
    toolsets: Option<Named<Obj<WireToolset>>>,
    /// TS Carnet 0.3.0's descriptions of the tools its toolsets name.
    tools: Option<Map<Obj<WireTool>>>,
    variables: Option<Map<Str>>,
    env_prefix: Option<Seq<Str>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireApp {
    global_initial_skills: Option<Seq<Str>>,
    global_skills: Option<Seq<Str>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireAgent {
    name: Option<Str>,
    description: Option<Str>,
    initial_skills: Option<Seq<Str>>,
    skills: Option<Seq<Str>>,
    prompt: Option<Str>,
    extra: Option<Obj<JsonObject>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireSkill {
    name: Option<Str>,
    description: Option<Str>,
    toolsets: Option<Seq<Str>>,
    files: Option<Seq<Obj<WireFile>>>,
    content: Option<Str>,
    license: Option<Str>,
    compatibility: Option<Str>,
    allowed_tools: Option<Seq<Str>>,
    metadata: Option<Obj<JsonObject>>,
    extra: Option<Obj<JsonObject>>,
    remote: Option<Obj<JsonObject>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireFile {
    path: Option<Str>,
    description: Option<Str>,
    listed: Option<Bool>,
    content: Option<Str>,
    encoding: Option<Str>,
    media_type: Option<Str>,
    digest: Option<Str>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireToolset {
    name: Option<Str>,
    description: Option<Str>,
    /// Names (TS Carnet 0.3.0) or `{name, description}` objects (its later form); ignored
    /// when `toolDefinitions` (ours) is present.
    tools: Option<Seq<ToolEntry<WireTool>>>,
    tool_definitions: Option<Seq<Obj<WireTool>>>,
    content: Option<Str>,
    mcp: Option<Obj<JsonObject>>,
}

#[derive(Deserialize, Clone)]
struct WireTool {
    name: Option<Str>,
    description: Option<Str>,
    content: Option<Str>,
    remote: Option<Obj<JsonObject>>,
    title: Option<Str>,
    annotations: Option<Obj<WireAnnotations>>,
}

/// MCP's names for the hints.
#[derive(Deserialize, Clone)]
#[serde(rename_all = "camelCase")]
#[allow(clippy::struct_field_names)] // MCP's names
struct WireAnnotations {
    read_only_hint: Option<Bool>,
    destructive_hint: Option<Bool>,
    idempotent_hint: Option<Bool>,
    open_world_hint: Option<Bool>,
}

type JsonObject = serde_json::Map<String, Value>;

/// Reads the manifest's `version` before anything else: a manifest newer than this crate may
/// have any shape, and then "upgrade carnet" is the one useful message. Absent (TS Carnet
/// writes it, but its schema defaults it) means [`MANIFEST_VERSION`].
pub(super) fn version(root: &Value) -> Result<u32, ManifestError> {
    let Some(value) = root.get("version").filter(|v| !v.is_null()) else {
        return Ok(MANIFEST_VERSION);
    };
    let found = value
        .as_u64()
        .ok_or_else(|| invalid("/version", format!("expected a version number, found {value}")))?;
    u32::try_from(found)
        .ok()
        .filter(|v| *v <= MANIFEST_VERSION)
        .ok_or(ManifestError::UnsupportedVersion {
            found,
            supported: MANIFEST_VERSION,
        })
}

fn text(Str(s): Str) -> Text {
    Cow::Owned(s)
}

fn texts(list: Option<Seq<Str>>) -> List<Text> {
    Cow::Owned(list.map_or_else(Vec::new, |Seq(items)| items.into_iter().map(text).collect()))
}

fn optional(value: Option<Str>) -> Text {
    value.map(text).unwrap_or_default()
}

/// A required string field `key` of the object at `path`.
fn required(value: Option<Str>, path: &str, key: &str, non_empty: bool) -> Result<Text, ManifestError> {
    match value {
        None => Err(invalid(&child(path, key), "missing required field")),
        Some(Str(s)) if non_empty && s.is_empty() => Err(invalid(&child(path, key), "must not be empty")),
        Some(s) => Ok(text(s)),
    }
}

/// A JSON object kept as its text (`{}` when absent).
fn json_text(value: Option<Obj<JsonObject>>) -> Text {
    match value {
        None => Cow::Borrowed("{}"),
        Some(Obj(object)) => Cow::Owned(Value::Object(object).to_string()),
    }
}

/// `name` may be omitted in hand-written manifests: the key names the entity.
fn name_or_key(name: Option<Str>, key: String) -> Text {
    name.map_or(Cow::Owned(key), text)
}

/// The entities of `agents`, `skills` or `toolsets`, sorted by name; each name must equal its
/// key. Keys are unique (the input is a parsed JSON object), so names are too.
fn entities<W, T>(
    key: &str,
    map: Option<Named<Obj<W>>>,
    mut read: impl FnMut(W, &str, String) -> Result<T, ManifestError>,
    name: fn(&T) -> &str,
) -> Result<Vec<T>, ManifestError> {
    let path = child("", key);
    let Named(map) = map.ok_or_else(|| invalid(&path, "missing required field"))?;
    let mut out = Vec::with_capacity(map.len());
    for (k, Obj(wire)) in map {
        let entry_path = child(&path, &k);
        let item = read(wire, &entry_path, k.clone())?;
        if name(&item) != k {
            return Err(invalid(
                &child(&entry_path, "name"),
                format!("name `{}` differs from its key `{k}`", name(&item)),
            ));
        }
        out.push(item);
    }
    order::sort_by(&mut out, |a, b| name(a).cmp(name(b)));
    Ok(out)
}

impl WireManifest {
    /// The second pass: what types cannot say, checked in a fixed order (agents, skills,
    /// toolsets, then references), so the same input always reports the same error.
    pub(super) fn into_manifest(self, version: u32) -> Result<Manifest, ManifestError> {
        let app = self.app.map_or_else(App::default, |Obj(app)| App {
            global_initial_skills: texts(app.global_initial_skills),
            global_skills: texts(app.global_skills),
        });
        let top_tools = self.tools.map(|Map(mut tools)| {
            order::sort_by(&mut tools, |a, b| a.0.cmp(&b.0));
            tools
        });
        let agents = entities("agents", self.agents, WireAgent::into_agent, |a| &a.name)?;
        let skills = entities("skills", self.skills, WireSkill::into_skill, |s| &s.name)?;
        let toolsets = entities(
            "toolsets",
            self.toolsets,
            |wire, path, key| wire.into_toolset(path, key, top_tools.as_deref()),
            |t| &t.name,
        )?;
        let variables = self.variables.map_or_else(Vec::new, |Map(variables)| {
            variables.into_iter().map(|(k, v)| (Cow::Owned(k), text(v))).collect()
        });
        let env_prefixes = match self.env_prefix {
            None => DEFAULT_ENV_PREFIXES.iter().map(|p| Cow::Borrowed(*p)).collect(),
            Some(list) => texts(Some(list)).into_owned(),
        };
        let mut manifest = Manifest {
            version,
            app,
            agents: Cow::Owned(agents),
            skills: Cow::Owned(skills),
            toolsets: Cow::Owned(toolsets),
            variables: Cow::Owned(variables),
            env_prefixes: Cow::Owned(env_prefixes),
            fingerprint: 0,
        };
        check_references(&manifest)?;
        manifest.fingerprint = manifest.compute_fingerprint();
        Ok(manifest)
    }
}

impl WireAgent {
    fn into_agent(self, path: &str, key: String) -> Result<Agent, ManifestError> {
        Ok(Agent {
            name: name_or_key(self.name, key),
            description: required(self.description, path, "description", true)?,
            initial_skills: texts(self.initial_skills),
            skills: texts(self.skills),
            prompt: required(self.prompt, path, "prompt", false)?,
            extra: json_text(self.extra),
        })
    }
}

impl WireSkill {
    fn into_skill(self, path: &str, key: String) -> Result<Skill, ManifestError> {
        let files_path = child(path, "files");
        let mut files = match self.files {
            None => Vec::new(),
            Some(Seq(files)) => files
                .into_iter()
                .enumerate()
                .map(|(i, Obj(file))| file.into_file(&format!("{files_path}/{i}")))
                .collect::<Result<Vec<_>, _>>()?,
        };
        order::sort_by(&mut files, |a, b| a.path.cmp(&b.path));
        if let Some(pair) = files.windows(2).find(|w| w[0].path == w[1].path) {
            return Err(invalid(&files_path, format!("file `{}` is listed twice", pair[0].path)));
        }
        Ok(Skill {
            name: name_or_key(self.name, key),
            description: required(self.description, path, "description", true)?,
            toolsets: texts(self.toolsets),
            files: Cow::Owned(files),
            content: required(self.content, path, "content", false)?,
            license: self.license.map(text),
            compatibility: self.compatibility.map(text),
            allowed_tools: texts(self.allowed_tools),
            metadata: json_text(self.metadata),
            extra: json_text(self.extra),
            remote: self
                .remote
                .map(|Obj(object)| Cow::Owned(Value::Object(object).to_string())),
        })
    }
}

impl WireFile {
    fn into_file(self, path: &str) -> Result<SkillFile, ManifestError> {
        let file_path = required(self.path, path, "path", true)?;
        let description = required(self.description, path, "description", true)?;
        let listed = self.listed.is_none_or(|Bool(listed)| listed);
        let content = self.content.map(|Str(s)| s).unwrap_or_default();
        let (data, is_text) = match self.encoding.as_ref().map(|Str(e)| e.as_str()) {
            None | Some("utf-8" | "utf8") => (content.into_bytes(), true),
            Some("base64") => {
                let bytes = BASE64
                    .decode(content.as_bytes())
                    .map_err(|e| invalid(&child(path, "content"), format!("invalid base64: {e}")))?;
                (bytes, false)
            }
            Some(other) => {
                return Err(invalid(
                    &child(path, "encoding"),
                    format!("unknown encoding `{other}` (expected `base64` or `utf-8`)"),
                ));
            }
        };
        let media_type = match self.media_type {
            Some(media_type) => text(media_type),
            None => Cow::Borrowed(crate::media_type::from_path(&file_path)),
        };
        Ok(SkillFile {
            path: file_path,
            description: listed.then_some(description),
            media_type,
            is_text,
            data: Cow::Owned(data),
            digest: digest(self.digest, path)?,
        })
    }
}

/// The optional `digest`: `sha256:` and 64 lowercase hex digits.
fn digest(digest: Option<Str>, path: &str) -> Result<Option<Text>, ManifestError> {
    let Some(Str(digest)) = digest else {
        return Ok(None);
    };
    let hex = digest.strip_prefix("sha256:").unwrap_or_default();
    if hex.len() != 64 || !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(invalid(
            &child(path, "digest"),
            format!("expected `sha256:` and 64 lowercase hex digits, found `{digest}`"),
        ));
    }
    Ok(Some(Cow::Owned(digest)))
}

impl WireToolset {
    fn into_toolset(
        self,
        path: &str,
        key: String,
        top_tools: Option<&[(String, Obj<WireTool>)]>,
    ) -> Result<Toolset, ManifestError> {
        let tools_path = child(path, "tools");
        let tools = if let Some(Seq(definitions)) = self.tool_definitions {
            let definitions_path = child(path, "toolDefinitions");
            definitions
                .into_iter()
                .enumerate()
                .map(|(i, Obj(tool))| tool.into_tool(&format!("{definitions_path}/{i}")))
                .collect::<Result<Vec<_>, _>>()?
        } else {
            let Seq(entries) = self
                .tools
                .ok_or_else(|| invalid(&tools_path, "missing required field"))?;
            let mut tools = Vec::with_capacity(entries.len());
            for (i, entry) in entries.into_iter().enumerate() {
                tools.push(match entry {
                    ToolEntry::Name(name) => resolve(name, top_tools, &format!("{tools_path}/{i}"))?,
                    ToolEntry::Inline(tool) => tool.into_tool(&format!("{tools_path}/{i}"))?,
                });
            }
            tools
        };
        let mut seen = HashSet::with_capacity(tools.len());
        if let Some(twice) = tools.iter().find(|t| !seen.insert(&*t.name)) {
            return Err(invalid(&tools_path, format!("tool `{}` is declared twice", twice.name)));
        }
        Ok(Toolset {
            name: name_or_key(self.name, key),
            description: required(self.description, path, "description", true)?,
            tools: Cow::Owned(tools),
            content: optional(self.content),
            mcp: self
                .mcp
                .map(|Obj(object)| Cow::Owned(Value::Object(object).to_string())),
        })
    }
}

/// A tool a TS Carnet 0.3.0 toolset names, described by the top-level `tools` map.
fn resolve(name: String, top_tools: Option<&[(String, Obj<WireTool>)]>, path: &str) -> Result<Tool, ManifestError> {
    let definition = top_tools
        .and_then(|tools| {
            let i = tools.binary_search_by(|(k, _)| k.as_str().cmp(&name)).ok()?;
            Some(&tools[i].1.0)
        })
        .ok_or_else(|| invalid(path, format!("tool `{name}` is not in the top-level `tools` map")))?;
    let mut tool = definition.clone().into_tool(&child("/tools", &name))?;
    tool.name = Cow::Owned(name);
    Ok(tool)
}

impl WireTool {
    fn into_tool(self, path: &str) -> Result<Tool, ManifestError> {
        Ok(Tool {
            name: required(self.name, path, "name", true)?,
            // May be empty in hand-written manifests: the implementation's doc comment fills in.
            description: optional(self.description),
            content: optional(self.content),
            remote: self
                .remote
                .map(|Obj(object)| Cow::Owned(Value::Object(object).to_string())),
            title: self.title.map(text),
            annotations: self.annotations.map_or(Annotations::NONE, |Obj(a)| {
                let hint = |b: Option<Bool>| b.map(|Bool(b)| b);
                Annotations::__new(
                    hint(a.read_only_hint),
                    hint(a.destructive_hint),
                    hint(a.idempotent_hint),
                    hint(a.open_world_hint),
                )
            }),
        })
    }
}
