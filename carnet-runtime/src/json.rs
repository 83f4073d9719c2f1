//! The manifest's JSON form: a superset of TS Carnet's `carnet.manifest.json`.
//!
//! What we write loads in the published TS runtime (`@upstart.gg/carnet` 0.3.0): maps keyed
//! by name, toolset `tools` as names and a top-level `tools` map of `{name, description,
//! content}`, and skill files with their `content` embedded. Keys TS Carnet does not know
//! are ignored by it (zod strips them) and carry what it cannot express:
//!
//! | key | where | holds |
//! | --- | --- | --- |
//! | `toolDefinitions` | toolset | the toolset's own tools, so two toolsets may declare the same name |
//! | `encoding`, `mediaType`, `listed` | skill file | `"base64"` for binary data, the media type, whether `files` lists it |
//! | `digest` | skill file | `sha256:<hex>` of the file's bytes, for MCP's Skills extension (trusted as written) |
//! | `license`, `compatibility`, `allowedTools`, `metadata` | skill | Agent Skills keys |
//! | `extra` | agent, skill | unknown frontmatter keys |
//! | `variables`, `envPrefix` | top level | settings of `carnet.config.json` |
//!
//! What we read: our own output, manifests of TS Carnet 0.3.0 (tools as names resolved
//! through the top-level `tools` map) and of its later form (tools as `{name, description}`
//! objects, file `content` optional).

use std::borrow::Cow;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::manifest::{
    Agent, App, DEFAULT_ENV_PREFIXES, List, MANIFEST_VERSION, Manifest, Skill, SkillFile, Text, Tool, Toolset,
};

/// Why a manifest could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The input is not JSON.
    #[error("manifest is not valid JSON: {0}")]
    Syntax(#[from] serde_json::Error),
    /// The JSON does not have the manifest's shape; `path` is a JSON pointer to the culprit.
    #[error("invalid manifest at `{path}`: {message}")]
    Invalid {
        /// JSON pointer to the offending value (`/skills/notes/toolsets/0`).
        path: String,
        /// What is wrong there.
        message: String,
    },
}

fn invalid(path: &str, message: impl Into<String>) -> ManifestError {
    ManifestError::Invalid {
        path: if path.is_empty() {
            "/".to_owned()
        } else {
            path.to_owned()
        },
        message: message.into(),
    }
}

// ---------------------------------------------------------------------------------------
// Writing

struct ByName<'a, T>(&'a [T], fn(&T) -> &str);

impl<T> Serialize for ByName<'_, T>
where
    for<'b> Wire<'b, T>: Serialize,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|item| ((self.1)(item), Wire(item))))
    }
}

/// Serialises a manifest entity in its JSON form.
struct Wire<'a, T>(&'a T);

fn is_empty_object(text: &str) -> bool {
    text.trim() == "{}" || text.trim().is_empty()
}

fn json_object(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::Object(Map::new()))
}

impl Serialize for Wire<'_, Manifest> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let m = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("version", &m.version)?;
        map.serialize_entry("app", &Wire(&m.app))?;
        map.serialize_entry("agents", &ByName(&m.agents, |a| &a.name))?;
        map.serialize_entry("skills", &ByName(&m.skills, |s| &s.name))?;
        map.serialize_entry("toolsets", &ByName(&m.toolsets, |t| &t.name))?;
        map.serialize_entry("tools", &TopLevelTools(m))?;
        map.serialize_entry("variables", &Pairs(&m.variables))?;
        map.serialize_entry("envPrefix", &*m.env_prefixes)?;
        map.end()
    }
}

impl Serialize for Wire<'_, App> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("globalInitialSkills", &*self.0.global_initial_skills)?;
        map.serialize_entry("globalSkills", &*self.0.global_skills)?;
        map.end()
    }
}

impl Serialize for Wire<'_, Agent> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let a = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", &a.name)?;
        map.serialize_entry("description", &a.description)?;
        map.serialize_entry("initialSkills", &*a.initial_skills)?;
        map.serialize_entry("skills", &*a.skills)?;
        map.serialize_entry("prompt", &a.prompt)?;
        if !is_empty_object(&a.extra) {
            map.serialize_entry("extra", &json_object(&a.extra))?;
        }
        map.end()
    }
}

impl Serialize for Wire<'_, Skill> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let s = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", &s.name)?;
        map.serialize_entry("description", &s.description)?;
        map.serialize_entry("toolsets", &*s.toolsets)?;
        map.serialize_entry("files", &Files(s))?;
        map.serialize_entry("content", &s.content)?;
        if let Some(license) = &s.license {
            map.serialize_entry("license", license)?;
        }
        if let Some(compatibility) = &s.compatibility {
            map.serialize_entry("compatibility", compatibility)?;
        }
        if !s.allowed_tools.is_empty() {
            map.serialize_entry("allowedTools", &*s.allowed_tools)?;
        }
        if !is_empty_object(&s.metadata) {
            map.serialize_entry("metadata", &json_object(&s.metadata))?;
        }
        if !is_empty_object(&s.extra) {
            map.serialize_entry("extra", &json_object(&s.extra))?;
        }
        map.end()
    }
}

struct Files<'a>(&'a Skill);

impl Serialize for Files<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.files.len()))?;
        for file in &*self.0.files {
            seq.serialize_element(&WireFile(&self.0.name, file))?;
        }
        seq.end()
    }
}

struct WireFile<'a>(&'a str, &'a SkillFile);

impl Serialize for WireFile<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let WireFile(skill, f) = *self;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("path", &f.path)?;
        // TS Carnet requires a non-empty description; files found in the skill's folder but
        // not listed in its frontmatter get one that says what they are.
        match &f.description {
            Some(description) => map.serialize_entry("description", description)?,
            None => map.serialize_entry(
                "description",
                &format!("File `{}` of skill `{skill}` ({})", f.path, f.media_type),
            )?,
        }
        if let Some(text) = f.text() {
            map.serialize_entry("content", text)?;
        } else {
            map.serialize_entry("content", &BASE64.encode(&f.data))?;
            map.serialize_entry("encoding", "base64")?;
        }
        map.serialize_entry("mediaType", &f.media_type)?;
        map.serialize_entry("listed", &f.is_listed())?;
        if let Some(digest) = &f.digest {
            map.serialize_entry("digest", digest)?;
        }
        map.end()
    }
}

impl Serialize for Wire<'_, Toolset> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", &t.name)?;
        map.serialize_entry("description", &t.description)?;
        map.serialize_entry("tools", &Names(&t.tools))?;
        map.serialize_entry("content", &t.content)?;
        map.serialize_entry("toolDefinitions", &ToolList(&t.tools))?;
        map.end()
    }
}

struct Names<'a>(&'a [Tool]);

impl Serialize for Names<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|t| &t.name))
    }
}

struct ToolList<'a>(&'a [Tool]);

impl Serialize for ToolList<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(Wire))
    }
}

impl Serialize for Wire<'_, Tool> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("name", &self.0.name)?;
        map.serialize_entry("description", &self.0.description)?;
        map.serialize_entry("content", &self.0.content)?;
        map.end()
    }
}

/// TS Carnet 0.3.0's top-level `tools` map. A tool name declared by several toolsets
/// (allowed when no agent reaches two of them) appears once, from the first toolset in
/// name order; `toolDefinitions` keeps every declaration.
struct TopLevelTools<'a>(&'a Manifest);

impl Serialize for TopLevelTools<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut tools: Vec<&Tool> = self.0.toolsets.iter().flat_map(|t| t.tools.iter()).collect();
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        tools.dedup_by(|a, b| a.name == b.name);
        serializer.collect_map(tools.into_iter().map(|t| (&t.name, Wire(t))))
    }
}

struct Pairs<'a>(&'a [(Text, Text)]);

impl Serialize for Pairs<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

impl Serialize for Manifest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Wire(self).serialize(serializer)
    }
}

impl Manifest {
    /// The manifest as pretty-printed JSON (2-space indent, like TS Carnet's `carnet build`),
    /// loadable by TS Carnet 0.3.0 and by [`Manifest::from_json`].
    #[must_use]
    #[allow(clippy::missing_panics_doc)] // string keys and values only: serialising cannot fail
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a manifest always serialises")
    }

    /// Writes the manifest as pretty-printed JSON (what [`Manifest::to_json_pretty`] returns)
    /// to `writer`, without building the string first.
    ///
    /// # Errors
    ///
    /// The writer's.
    pub fn write_json_pretty(&self, writer: impl std::io::Write) -> std::io::Result<()> {
        serde_json::to_writer_pretty(writer, self).map_err(std::io::Error::other)
    }

    /// The manifest as compact JSON.
    #[must_use]
    #[allow(clippy::missing_panics_doc)] // string keys and values only: serialising cannot fail
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a manifest always serialises")
    }

    /// Computes the fingerprint of the manifest's content (ignores the `fingerprint` field):
    /// a 64-bit hash of every field, each length-prefixed, in a fixed order. Stable across
    /// platforms and releases as long as the manifest's fields do not change.
    #[must_use]
    pub fn compute_fingerprint(&self) -> u64 {
        let mut h = FingerprintHasher::default();
        let text = |h: &mut FingerprintHasher, s: &str| {
            h.bytes(&(s.len() as u64).to_le_bytes());
            h.bytes(s.as_bytes());
        };
        let texts = |h: &mut FingerprintHasher, list: &[Text]| {
            h.bytes(&(list.len() as u64).to_le_bytes());
            for s in list {
                text(h, s);
            }
        };
        let option = |h: &mut FingerprintHasher, s: Option<&Text>| match s {
            Some(s) => {
                h.bytes(&[1]);
                text(h, s);
            }
            None => h.bytes(&[0]),
        };
        h.bytes(&self.version.to_le_bytes());
        texts(&mut h, &self.app.global_initial_skills);
        texts(&mut h, &self.app.global_skills);
        h.bytes(&(self.agents.len() as u64).to_le_bytes());
        for a in &*self.agents {
            for s in [&a.name, &a.description, &a.prompt, &a.extra] {
                text(&mut h, s);
            }
            texts(&mut h, &a.initial_skills);
            texts(&mut h, &a.skills);
        }
        h.bytes(&(self.skills.len() as u64).to_le_bytes());
        for s in &*self.skills {
            for t in [&s.name, &s.description, &s.content, &s.metadata, &s.extra] {
                text(&mut h, t);
            }
            texts(&mut h, &s.toolsets);
            texts(&mut h, &s.allowed_tools);
            option(&mut h, s.license.as_ref());
            option(&mut h, s.compatibility.as_ref());
            h.bytes(&(s.files.len() as u64).to_le_bytes());
            for f in &*s.files {
                text(&mut h, &f.path);
                option(&mut h, f.description.as_ref());
                text(&mut h, &f.media_type);
                h.bytes(&[u8::from(f.is_text)]);
                h.bytes(&(f.data.len() as u64).to_le_bytes());
                h.bytes(&f.data);
            }
        }
        h.bytes(&(self.toolsets.len() as u64).to_le_bytes());
        for t in &*self.toolsets {
            for s in [&t.name, &t.description, &t.content] {
                text(&mut h, s);
            }
            h.bytes(&(t.tools.len() as u64).to_le_bytes());
            for tool in &*t.tools {
                for s in [&tool.name, &tool.description, &tool.content] {
                    text(&mut h, s);
                }
            }
        }
        h.bytes(&(self.variables.len() as u64).to_le_bytes());
        for (k, v) in &*self.variables {
            text(&mut h, k);
            text(&mut h, v);
        }
        texts(&mut h, &self.env_prefixes);
        h.finish()
    }
}

/// A stable 64-bit hash taking the input 8 bytes at a time (little-endian words, so the
/// same on every platform).
struct FingerprintHasher {
    hash: u64,
    pending: [u8; 8],
    filled: usize,
    length: u64,
}

impl Default for FingerprintHasher {
    fn default() -> Self {
        FingerprintHasher {
            hash: 0xcbf2_9ce4_8422_2325,
            pending: [0; 8],
            filled: 0,
            length: 0,
        }
    }
}

impl FingerprintHasher {
    fn word(&mut self, word: u64) {
        self.hash = (self.hash ^ word).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
    }

    fn finish(mut self) -> u64 {
        let mut tail = [0u8; 8];
        tail[..self.filled].copy_from_slice(&self.pending[..self.filled]);
        self.word(u64::from_le_bytes(tail));
        self.word(self.length);
        let mut h = self.hash;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h
    }
}

impl FingerprintHasher {
    fn bytes(&mut self, mut bytes: &[u8]) {
        self.length += bytes.len() as u64;
        if self.filled > 0 {
            let take = (8 - self.filled).min(bytes.len());
            self.pending[self.filled..self.filled + take].copy_from_slice(&bytes[..take]);
            self.filled += take;
            bytes = &bytes[take..];
            if self.filled < 8 {
                return;
            }
            self.word(u64::from_le_bytes(self.pending));
            self.filled = 0;
        }
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.word(u64::from_le_bytes(chunk.try_into().expect("chunks of 8")));
        }
        let rest = chunks.remainder();
        self.pending[..rest.len()].copy_from_slice(rest);
        self.filled = rest.len();
    }
}

// ---------------------------------------------------------------------------------------
// Reading

/// A JSON value with the pointer that leads to it, for error messages.
#[derive(Clone, Copy)]
struct At<'a> {
    value: &'a Value,
    path: &'a str,
}

impl<'a> At<'a> {
    fn object(self) -> Result<&'a Map<String, Value>, ManifestError> {
        self.value
            .as_object()
            .ok_or_else(|| invalid(self.path, format!("expected an object, found {}", kind(self.value))))
    }

    fn field(self, key: &str) -> Result<Option<&'a Value>, ManifestError> {
        Ok(self.object()?.get(key).filter(|v| !v.is_null()))
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn child(path: &str, key: &str) -> String {
    format!("{path}/{}", key.replace('~', "~0").replace('/', "~1"))
}

fn string(value: &Value, path: &str) -> Result<Text, ManifestError> {
    value
        .as_str()
        .map(|s| Cow::Owned(s.to_owned()))
        .ok_or_else(|| invalid(path, format!("expected a string, found {}", kind(value))))
}

fn required_string(obj: At<'_>, key: &str, non_empty: bool) -> Result<Text, ManifestError> {
    let path = child(obj.path, key);
    let value = obj
        .field(key)?
        .ok_or_else(|| invalid(&path, "missing required field"))?;
    let text = string(value, &path)?;
    if non_empty && text.is_empty() {
        return Err(invalid(&path, "must not be empty"));
    }
    Ok(text)
}

fn optional_string(obj: At<'_>, key: &str) -> Result<Option<Text>, ManifestError> {
    obj.field(key)?.map(|v| string(v, &child(obj.path, key))).transpose()
}

fn string_list(obj: At<'_>, key: &str) -> Result<List<Text>, ManifestError> {
    let path = child(obj.path, key);
    let Some(value) = obj.field(key)? else {
        return Ok(Cow::Owned(Vec::new()));
    };
    let items = value
        .as_array()
        .ok_or_else(|| invalid(&path, format!("expected an array, found {}", kind(value))))?;
    items
        .iter()
        .enumerate()
        .map(|(i, v)| string(v, &format!("{path}/{i}")))
        .collect::<Result<Vec<_>, _>>()
        .map(Cow::Owned)
}

fn json_text(obj: At<'_>, key: &str) -> Result<Text, ManifestError> {
    match obj.field(key)? {
        None => Ok(Cow::Borrowed("{}")),
        Some(v @ Value::Object(_)) => Ok(Cow::Owned(v.to_string())),
        Some(v) => Err(invalid(
            &child(obj.path, key),
            format!("expected an object, found {}", kind(v)),
        )),
    }
}

/// Reads `agents`, `skills` or `toolsets`: a map whose keys are the entities' names.
fn entities<T>(
    root: At<'_>,
    key: &str,
    read: impl Fn(At<'_>, &str) -> Result<T, ManifestError>,
    name: impl Fn(&T) -> &str,
) -> Result<Vec<T>, ManifestError> {
    let path = child(root.path, key);
    let value = root
        .field(key)?
        .ok_or_else(|| invalid(&path, "missing required field"))?;
    let map = At { value, path: &path }.object()?;
    let mut out = Vec::with_capacity(map.len());
    for (k, v) in map {
        let entry_path = child(&path, k);
        let entry = At {
            value: v,
            path: &entry_path,
        };
        if k.is_empty() {
            return Err(invalid(&entry_path, "names must not be empty"));
        }
        let item = read(entry, k)?;
        if name(&item) != k {
            return Err(invalid(
                &child(&entry_path, "name"),
                format!("name `{}` differs from its key `{k}`", name(&item)),
            ));
        }
        out.push(item);
    }
    out.sort_by(|a, b| name(a).cmp(name(b)));
    Ok(out)
}

/// `name` may be omitted in hand-written manifests: the key names the entity.
fn name_or_key(obj: At<'_>, key: &str) -> Result<Text, ManifestError> {
    Ok(optional_string(obj, "name")?.unwrap_or_else(|| Cow::Owned(key.to_owned())))
}

fn read_agent(obj: At<'_>, key: &str) -> Result<Agent, ManifestError> {
    obj.object()?;
    Ok(Agent {
        name: name_or_key(obj, key)?,
        description: required_string(obj, "description", true)?,
        initial_skills: string_list(obj, "initialSkills")?,
        skills: string_list(obj, "skills")?,
        prompt: required_string(obj, "prompt", false)?,
        extra: json_text(obj, "extra")?,
    })
}

fn read_skill(obj: At<'_>, key: &str) -> Result<Skill, ManifestError> {
    obj.object()?;
    let files_path = child(obj.path, "files");
    let mut files = match obj.field("files")? {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                read_file(At {
                    value: v,
                    path: &format!("{files_path}/{i}"),
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
        Some(v) => return Err(invalid(&files_path, format!("expected an array, found {}", kind(v)))),
    };
    files.sort_by(|a, b| a.path.cmp(&b.path));
    if let Some(pair) = files.windows(2).find(|w| w[0].path == w[1].path) {
        return Err(invalid(&files_path, format!("file `{}` is listed twice", pair[0].path)));
    }
    Ok(Skill {
        name: name_or_key(obj, key)?,
        description: required_string(obj, "description", true)?,
        toolsets: string_list(obj, "toolsets")?,
        files: Cow::Owned(files),
        content: required_string(obj, "content", false)?,
        license: optional_string(obj, "license")?,
        compatibility: optional_string(obj, "compatibility")?,
        allowed_tools: string_list(obj, "allowedTools")?,
        metadata: json_text(obj, "metadata")?,
        extra: json_text(obj, "extra")?,
    })
}

fn read_file(obj: At<'_>) -> Result<SkillFile, ManifestError> {
    obj.object()?;
    let path = required_string(obj, "path", true)?;
    let description = required_string(obj, "description", true)?;
    let listed = match obj.field("listed")? {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(v) => {
            return Err(invalid(
                &child(obj.path, "listed"),
                format!("expected a boolean, found {}", kind(v)),
            ));
        }
    };
    let content = optional_string(obj, "content")?.unwrap_or_default();
    let encoding = optional_string(obj, "encoding")?;
    let (data, is_text) = match encoding.as_deref() {
        None | Some("utf-8" | "utf8") => (content.into_owned().into_bytes(), true),
        Some("base64") => {
            let bytes = BASE64
                .decode(content.as_bytes())
                .map_err(|e| invalid(&child(obj.path, "content"), format!("invalid base64: {e}")))?;
            (bytes, false)
        }
        Some(other) => {
            return Err(invalid(
                &child(obj.path, "encoding"),
                format!("unknown encoding `{other}` (expected `base64` or `utf-8`)"),
            ));
        }
    };
    let media_type = match optional_string(obj, "mediaType")? {
        Some(media_type) => media_type,
        None => Cow::Borrowed(crate::media_type::from_path(&path)),
    };
    Ok(SkillFile {
        path,
        description: listed.then_some(description),
        media_type,
        is_text,
        data: Cow::Owned(data),
        digest: digest(obj)?,
    })
}

/// The optional `digest`: `sha256:` and 64 lowercase hex digits.
fn digest(obj: At<'_>) -> Result<Option<Text>, ManifestError> {
    let digest = optional_string(obj, "digest")?;
    if let Some(digest) = &digest {
        let hex = digest.strip_prefix("sha256:").unwrap_or_default();
        if hex.len() != 64 || !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(invalid(
                &child(obj.path, "digest"),
                format!("expected `sha256:` and 64 lowercase hex digits, found `{digest}`"),
            ));
        }
    }
    Ok(digest)
}

fn read_toolset(obj: At<'_>, key: &str, top_tools: Option<&Map<String, Value>>) -> Result<Toolset, ManifestError> {
    obj.object()?;
    let tools = if let Some(defs) = obj.field("toolDefinitions")? {
        let path = child(obj.path, "toolDefinitions");
        let items = defs
            .as_array()
            .ok_or_else(|| invalid(&path, format!("expected an array, found {}", kind(defs))))?;
        items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                read_tool(At {
                    value: v,
                    path: &format!("{path}/{i}"),
                })
            })
            .collect::<Result<Vec<_>, _>>()?
    } else {
        let path = child(obj.path, "tools");
        let value = obj
            .field("tools")?
            .ok_or_else(|| invalid(&path, "missing required field"))?;
        let items = value
            .as_array()
            .ok_or_else(|| invalid(&path, format!("expected an array, found {}", kind(value))))?;
        let mut tools = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let item_path = format!("{path}/{i}");
            match item {
                // TS Carnet 0.3.0: a name, described by the top-level `tools` map.
                Value::String(name) => {
                    let def = top_tools.and_then(|m| m.get(name)).ok_or_else(|| {
                        invalid(&item_path, format!("tool `{name}` is not in the top-level `tools` map"))
                    })?;
                    let mut tool = read_tool(At {
                        value: def,
                        path: &child("/tools", name),
                    })?;
                    tool.name = Cow::Owned(name.clone());
                    tools.push(tool);
                }
                // TS Carnet's later form: `{name, description}`.
                Value::Object(_) => tools.push(read_tool(At {
                    value: item,
                    path: &item_path,
                })?),
                other => {
                    return Err(invalid(
                        &item_path,
                        format!(
                            "expected a tool name or a `{{name, description}}` object, found {}",
                            kind(other)
                        ),
                    ));
                }
            }
        }
        tools
    };
    for (i, tool) in tools.iter().enumerate() {
        if tools[..i].iter().any(|t| t.name == tool.name) {
            return Err(invalid(
                &child(obj.path, "tools"),
                format!("tool `{}` is declared twice", tool.name),
            ));
        }
    }
    Ok(Toolset {
        name: name_or_key(obj, key)?,
        description: required_string(obj, "description", true)?,
        tools: Cow::Owned(tools),
        content: optional_string(obj, "content")?.unwrap_or_default(),
    })
}

fn read_tool(obj: At<'_>) -> Result<Tool, ManifestError> {
    obj.object()?;
    Ok(Tool {
        name: required_string(obj, "name", true)?,
        // May be empty in hand-written manifests: the implementation's doc comment fills in.
        description: optional_string(obj, "description")?.unwrap_or_default(),
        content: optional_string(obj, "content")?.unwrap_or_default(),
    })
}

fn check_references(m: &Manifest) -> Result<(), ManifestError> {
    for agent in &*m.agents {
        for (key, list) in [("initialSkills", &agent.initial_skills), ("skills", &agent.skills)] {
            for (i, skill) in list.iter().enumerate() {
                if m.skill(skill).is_none() {
                    return Err(invalid(
                        &format!("{}/{key}/{i}", child("/agents", &agent.name)),
                        format!("agent `{}` references unknown skill `{skill}`", agent.name),
                    ));
                }
            }
        }
    }
    for skill in &*m.skills {
        for (i, toolset) in skill.toolsets.iter().enumerate() {
            if m.toolset(toolset).is_none() {
                return Err(invalid(
                    &format!("{}/toolsets/{i}", child("/skills", &skill.name)),
                    format!("skill `{}` references unknown toolset `{toolset}`", skill.name),
                ));
            }
        }
    }
    for (key, list) in [
        ("globalInitialSkills", &m.app.global_initial_skills),
        ("globalSkills", &m.app.global_skills),
    ] {
        for (i, skill) in list.iter().enumerate() {
            if m.skill(skill).is_none() {
                return Err(invalid(&format!("/app/{key}/{i}"), format!("unknown skill `{skill}`")));
            }
        }
    }
    Ok(())
}

impl Manifest {
    /// Loads a manifest from JSON: ours (`carnet build`), or one written by TS Carnet's
    /// `carnet build` (0.3.0 with tool names and a top-level `tools` map, or the later form
    /// with `{name, description}` tools).
    ///
    /// # Errors
    ///
    /// [`ManifestError::Syntax`] when the input is not JSON, [`ManifestError::Invalid`] with a
    /// JSON pointer when a field is missing or mistyped, a name differs from its map key, or
    /// a reference (agent → skill, skill → toolset, global skill) does not resolve.
    pub fn from_json(json: &str) -> Result<Self, ManifestError> {
        let value: Value = serde_json::from_str(json)?;
        Self::from_value(&value)
    }

    /// Like [`Manifest::from_json`], from an already parsed JSON value.
    ///
    /// # Errors
    ///
    /// As [`Manifest::from_json`].
    pub fn from_value(value: &Value) -> Result<Self, ManifestError> {
        let root = At { value, path: "" };
        root.object()?;
        let version = match root.field("version")? {
            None => MANIFEST_VERSION,
            Some(v) => v
                .as_u64()
                .and_then(|v| u32::try_from(v).ok())
                .ok_or_else(|| invalid("/version", format!("expected a version number, found {v}")))?,
        };
        let app = match root.field("app")? {
            None => App::default(),
            Some(value) => {
                let app = At { value, path: "/app" };
                App {
                    global_initial_skills: string_list(app, "globalInitialSkills")?,
                    global_skills: string_list(app, "globalSkills")?,
                }
            }
        };
        let top_tools = match root.field("tools")? {
            None => None,
            Some(value) => Some(At { value, path: "/tools" }.object()?),
        };
        let agents = entities(root, "agents", read_agent, |a| &a.name)?;
        let skills = entities(root, "skills", read_skill, |s| &s.name)?;
        let toolsets = entities(
            root,
            "toolsets",
            |obj, key| read_toolset(obj, key, top_tools),
            |t| &t.name,
        )?;
        let variables = match root.field("variables")? {
            None => Vec::new(),
            Some(value) => {
                let map = At {
                    value,
                    path: "/variables",
                }
                .object()?;
                map.iter()
                    .map(|(k, v)| Ok((Cow::Owned(k.clone()), string(v, &child("/variables", k))?)))
                    .collect::<Result<Vec<_>, ManifestError>>()?
            }
        };
        let env_prefixes = match root.field("envPrefix")? {
            None => DEFAULT_ENV_PREFIXES.iter().map(|p| Cow::Borrowed(*p)).collect(),
            Some(_) => string_list(root, "envPrefix")?.into_owned(),
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
