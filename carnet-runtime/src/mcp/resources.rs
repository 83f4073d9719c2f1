//! Skills as MCP resources: `skill://<skill>/SKILL.md` and `skill://<skill>/<path>`, with the
//! size and `sha256` digest of every file computed once, when the server is created.

use std::fmt::Write as _;
use std::sync::Arc;

use base64::Engine as _;
use rmcp::model::{Resource, ResourceContents, Skill as McpSkill, SkillFrontmatter, SkillResource, SkillResources};
use serde_json::{Map, Value};

use crate::manifest::{Manifest, Skill};

/// The URI scheme of skill resources: `skill://<skill>/SKILL.md`, `skill://<skill>/<path>`.
pub const SKILL_URI_SCHEME: &str = "skill";

/// The skill's `SKILL.md` as served over MCP: the frontmatter rebuilt from the manifest (every
/// field the author wrote, values written as JSON, which YAML reads unchanged) and the
/// instructions.
///
/// # Examples
///
/// ```
/// # let manifest = carnet_runtime::Manifest::from_json(r#"{"skills": [{"name": "notes",
/// #     "description": "Take notes", "content": "Write things down."}]}"#)?;
/// let skill = manifest.skill("notes").unwrap();
/// assert_eq!(
///     carnet_runtime::mcp::skill_md(skill),
///     "---\nname: \"notes\"\ndescription: \"Take notes\"\n---\n\nWrite things down.\n",
/// );
/// # Ok::<(), carnet_runtime::ManifestError>(())
/// ```
#[must_use]
pub fn skill_md(skill: &Skill) -> String {
    let mut text = String::from("---\n");
    for (key, value) in frontmatter_fields(skill) {
        let _ = writeln!(text, "{key}: {value}");
    }
    text.push_str("---\n\n");
    text.push_str(&skill.content);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// The frontmatter in its written order: `name`, `description`, then the optional fields.
fn frontmatter_fields(skill: &Skill) -> Vec<(String, Value)> {
    let mut fields = vec![
        ("name".to_owned(), Value::from(&*skill.name)),
        ("description".to_owned(), Value::from(&*skill.description)),
    ];
    if let Some(license) = &skill.license {
        fields.push(("license".to_owned(), Value::from(&**license)));
    }
    if let Some(compatibility) = &skill.compatibility {
        fields.push(("compatibility".to_owned(), Value::from(&**compatibility)));
    }
    if !skill.allowed_tools.is_empty() {
        let tools: Vec<&str> = skill.allowed_tools.iter().map(|t| &**t).collect();
        fields.push(("allowed-tools".to_owned(), Value::from(tools.join(" "))));
    }
    if let Some(metadata) = object(&skill.metadata).filter(|m| !m.is_empty()) {
        fields.push(("metadata".to_owned(), Value::Object(metadata)));
    }
    if !skill.toolsets.is_empty() {
        let toolsets: Vec<Value> = skill.toolsets.iter().map(|t| Value::from(&**t)).collect();
        fields.push(("toolsets".to_owned(), Value::Array(toolsets)));
    }
    for (key, value) in object(&skill.extra).unwrap_or_default() {
        if fields.iter().all(|(k, _)| *k != key) {
            fields.push((key, value));
        }
    }
    fields
}

fn object(json: &str) -> Option<Map<String, Value>> {
    match serde_json::from_str(json) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// `uri` with every byte outside RFC 3986's unreserved set and `/` percent-encoded.
fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// The URI of a skill's file (`None`: its `SKILL.md`).
pub(super) fn uri(skill: &str, path: Option<&str>) -> String {
    format!(
        "{SKILL_URI_SCHEME}://{}/{}",
        encode_path(skill),
        encode_path(path.unwrap_or("SKILL.md"))
    )
}

/// One resource: a skill's `SKILL.md` (`file: None`) or one of its files.
#[derive(Debug)]
struct Entry {
    uri: String,
    skill: usize,
    file: Option<usize>,
    size: u64,
    digest: String,
}

/// The resources of one agent, sorted by URI.
#[derive(Debug, Clone, Default)]
pub(super) struct Index {
    entries: Arc<[Entry]>,
    /// The rendered `SKILL.md` of each skill of the manifest the agent can reach.
    skill_mds: Arc<[(usize, String)]>,
}

impl Index {
    /// Indexes the skills `agent` can reach: its own and the global ones.
    pub(super) fn new(manifest: &Manifest, agent: &str) -> Index {
        let Some(agent) = manifest.agent(agent) else {
            return Index::default();
        };
        let mut skills: Vec<usize> = agent
            .all_skills()
            .chain(manifest.app.global_initial_skills.iter().map(|s| &**s))
            .chain(manifest.app.global_skills.iter().map(|s| &**s))
            .filter_map(|name| manifest.skills.iter().position(|s| *s.name == *name))
            .collect();
        skills.sort_unstable();
        skills.dedup();
        let mut entries = Vec::new();
        let mut skill_mds = Vec::new();
        for &index in &skills {
            let skill = &manifest.skills[index];
            let text = skill_md(skill);
            entries.push(entry(uri(&skill.name, None), index, None, text.as_bytes()));
            for (file_index, file) in skill.files.iter().enumerate() {
                entries.push(entry(
                    uri(&skill.name, Some(&file.path)),
                    index,
                    Some(file_index),
                    &file.data,
                ));
            }
            skill_mds.push((index, text));
        }
        entries.sort_by(|a, b| a.uri.cmp(&b.uri));
        Index {
            entries: entries.into(),
            skill_mds: skill_mds.into(),
        }
    }

    fn skill_md(&self, skill: usize) -> &str {
        self.skill_mds
            .iter()
            .find(|(index, _)| *index == skill)
            .map_or("", |(_, text)| text)
    }

    /// `resources/list`: every `SKILL.md` and skill file.
    pub(super) fn list(&self, manifest: &Manifest) -> Vec<Resource> {
        self.entries
            .iter()
            .map(|entry| {
                let skill = &manifest.skills[entry.skill];
                let (name, description, media_type) = match entry.file {
                    None => (
                        format!("{}/SKILL.md", skill.name),
                        format!("Instructions of the skill `{}`: {}", skill.name, skill.description),
                        "text/markdown",
                    ),
                    Some(file) => {
                        let file = &skill.files[file];
                        (
                            format!("{}/{}", skill.name, file.path),
                            file.description
                                .as_deref()
                                .map_or_else(|| format!("A file of the skill `{}`", skill.name), str::to_owned),
                            &*file.media_type,
                        )
                    }
                };
                let mut resource = Resource::new(entry.uri.clone(), name).with_mime_type(media_type);
                resource.description = Some(description);
                resource.size = Some(entry.size);
                resource
            })
            .collect()
    }

    /// `resources/read`: the contents at `uri`, text or base64 blob.
    pub(super) fn read(&self, manifest: &Manifest, uri: &str) -> Option<ResourceContents> {
        let entry = self.find(uri)?;
        let skill = &manifest.skills[entry.skill];
        let contents = match entry.file {
            None => ResourceContents::TextResourceContents {
                uri: entry.uri.clone(),
                mime_type: Some("text/markdown".to_owned()),
                text: self.skill_md(entry.skill).to_owned(),
                meta: None,
            },
            Some(file) => {
                let file = &skill.files[file];
                match file.text() {
                    Some(text) => ResourceContents::TextResourceContents {
                        uri: entry.uri.clone(),
                        mime_type: Some(file.media_type.to_string()),
                        text: text.to_owned(),
                        meta: None,
                    },
                    None => ResourceContents::BlobResourceContents {
                        uri: entry.uri.clone(),
                        mime_type: Some(file.media_type.to_string()),
                        blob: base64::engine::general_purpose::STANDARD.encode(&file.data),
                        meta: None,
                    },
                }
            }
        };
        Some(contents)
    }

    fn find(&self, uri: &str) -> Option<&Entry> {
        self.entries
            .binary_search_by(|e| (*e.uri).cmp(uri))
            .ok()
            .map(|i| &self.entries[i])
    }

    /// `skills/list`: every skill with its file manifest.
    pub(super) fn skills(&self, manifest: &Manifest) -> Vec<McpSkill> {
        self.skill_mds
            .iter()
            .map(|&(index, _)| self.skill(manifest, index))
            .collect()
    }

    /// `skills/get`: the skill whose `SKILL.md` is at `uri`.
    pub(super) fn skill_at(&self, manifest: &Manifest, uri: &str) -> Option<McpSkill> {
        let entry = self.find(uri).filter(|e| e.file.is_none())?;
        Some(self.skill(manifest, entry.skill))
    }

    fn skill(&self, manifest: &Manifest, index: usize) -> McpSkill {
        let skill = &manifest.skills[index];
        let mut fields = frontmatter_fields(skill).into_iter().skip(2);
        let mut frontmatter = SkillFrontmatter::new(&*skill.name, &*skill.description);
        for (key, value) in fields.by_ref() {
            frontmatter = frontmatter.with_field(key, value);
        }
        let files = self
            .entries
            .iter()
            .filter(|e| e.skill == index)
            .map(|e| SkillResource::new(e.uri.clone(), e.digest.clone(), e.size))
            .collect();
        McpSkill::new(uri(&skill.name, None), frontmatter, SkillResources::Files(files))
    }
}

fn entry(uri: String, skill: usize, file: Option<usize>, bytes: &[u8]) -> Entry {
    let described = SkillResource::from_bytes(uri.clone(), bytes);
    Entry {
        uri,
        skill,
        file,
        size: described.size,
        digest: described.digest,
    }
}
