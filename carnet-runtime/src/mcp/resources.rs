//! Skills as MCP resources: `skill://<skill>/SKILL.md` and `skill://<skill>/<path>`, with the
//! size and `sha256` digest of every file. A file's digest is the manifest's, computed at
//! build time by `carnet_codegen` (or computed here, once, for manifests without them); a
//! `SKILL.md`'s is computed here from the text served, which is rendered here too.

use carnet_manifest::order;
use std::fmt::Write as _;
use std::sync::Arc;

use base64::Engine as _;
use carnet_manifest::digest::{is_sha256_digest, sha256_digest};
use serde_json::{Map, Value, json};

use crate::manifest::Manifest;

/// The URI scheme of skill resources: `skill://<skill>/SKILL.md`, `skill://<skill>/<path>`.
pub const SKILL_URI_SCHEME: &str = "skill";

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

/// `text` with every `%XX` decoded; `None` when that is not UTF-8.
fn decode_path(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// The skill and path a `skill://` URI names, decoded, so that equivalent spellings (`%7e`,
/// `%7E` and `~`; an unencoded space) find the same file.
fn parse_uri(uri: &str) -> Option<(String, String)> {
    let rest = uri.strip_prefix(SKILL_URI_SCHEME)?.strip_prefix("://")?;
    let (skill, path) = rest.split_once('/')?;
    Some((decode_path(skill)?, decode_path(path)?))
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
    /// The skill's name and the file's path (`SKILL.md` for the instructions).
    key: (String, String),
    uri: String,
    skill: usize,
    file: Option<usize>,
    size: u64,
    digest: String,
}

/// The resources of one agent, sorted by skill and path.
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
            .filter_map(|name| manifest.skills.binary_search_by(|s| (*s.name).cmp(name)).ok())
            // A skill another MCP server serves is read from it on load; its resources are
            // that server's to serve (with their digests), not this one's.
            .filter(|&index| manifest.skills[index].remote.is_none())
            .collect();
        order::sort(&mut skills);
        skills.dedup();
        let mut entries = Vec::new();
        let mut skill_mds = Vec::new();
        for &index in &skills {
            let skill = &manifest.skills[index];
            let text = skill.to_skill_md();
            entries.push(entry(&skill.name, None, index, text.as_bytes(), None));
            for (file_index, file) in skill.files.iter().enumerate() {
                entries.push(entry(
                    &skill.name,
                    Some((file_index, &file.path)),
                    index,
                    &file.data,
                    file.digest.as_deref(),
                ));
            }
            skill_mds.push((index, text));
        }
        // Content checked by `carnet_codegen` has no two resources with one URI (E0035), but
        // a manifest written by hand may: a file listed as `SKILL.md`, or skill `a`'s file
        // `b/SKILL.md` beside a skill named `a/b`. The instructions win, then the first file.
        let mut seen: std::collections::HashSet<String> = entries
            .iter()
            .filter(|e| e.file.is_none())
            .map(|e| e.uri.clone())
            .collect();
        entries.retain(|e| e.file.is_none() || seen.insert(e.uri.clone()));
        order::sort_by(&mut entries, |a, b| a.key.cmp(&b.key));
        Index {
            entries: entries.into(),
            skill_mds: skill_mds.into(),
        }
    }

    fn skill_md(&self, skill: usize) -> &str {
        // In the order of the skills' indexes, which were sorted.
        self.skill_mds
            .binary_search_by_key(&skill, |(index, _)| *index)
            .map_or("", |i| &self.skill_mds[i].1)
    }

    /// `resources/list`: every `SKILL.md` and skill file.
    pub(super) fn list(&self, manifest: &Manifest) -> Vec<Value> {
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
                json!({
                    "uri": entry.uri,
                    "name": name,
                    "description": description,
                    "mimeType": media_type,
                    "size": entry.size,
                })
            })
            .collect()
    }

    /// `resources/read`: the contents at `uri`, text or base64 blob.
    pub(super) fn read(&self, manifest: &Manifest, uri: &str) -> Option<Value> {
        let entry = self.find(uri)?;
        let skill = &manifest.skills[entry.skill];
        let contents = match entry.file {
            None => json!({ "uri": entry.uri, "mimeType": "text/markdown", "text": self.skill_md(entry.skill) }),
            Some(file) => {
                let file = &skill.files[file];
                match file.text() {
                    Some(text) => json!({ "uri": entry.uri, "mimeType": &*file.media_type, "text": text }),
                    None => json!({
                        "uri": entry.uri,
                        "mimeType": &*file.media_type,
                        "blob": base64::engine::general_purpose::STANDARD.encode(&file.data),
                    }),
                }
            }
        };
        Some(contents)
    }

    /// Whether `uri` is one of these resources.
    pub(super) fn contains(&self, uri: &str) -> bool {
        self.find(uri).is_some()
    }

    fn find(&self, uri: &str) -> Option<&Entry> {
        let key = parse_uri(uri)?;
        self.entries
            .binary_search_by(|e| e.key.cmp(&key))
            .ok()
            .map(|i| &self.entries[i])
    }

    /// `skills/list`: every skill with its file manifest. A skill the Skills extension cannot
    /// describe (a name that is no URI segment as written, such as `a/b` or `my skill`:
    /// `carnet_codegen` refuses those, E0034, but a manifest written by hand may have one)
    /// is left out rather than failing the whole list; its resources are still served.
    pub(super) fn skills(&self, manifest: &Manifest) -> Vec<Value> {
        let mut uris = std::collections::HashSet::new();
        self.skill_mds
            .iter()
            .filter_map(|&(index, _)| self.skill(manifest, index))
            .filter(|skill| uris.insert(skill["uri"].as_str().unwrap_or_default().to_owned()))
            .collect()
    }

    /// `skills/get`: the skill whose `SKILL.md` is at `uri`.
    pub(super) fn skill_at(&self, manifest: &Manifest, uri: &str) -> Option<Value> {
        let entry = self.find(uri).filter(|e| e.file.is_none())?;
        self.skill(manifest, entry.skill)
    }

    /// The Skills extension's entry of a skill, or `None` when the extension's rules cannot
    /// describe it (its name is no URI segment as written, or a file path leaves the skill).
    fn skill(&self, manifest: &Manifest, index: usize) -> Option<Value> {
        let skill = &manifest.skills[index];
        let skill_uri = uri(&skill.name, None);
        if skill_name_from_uri(&skill_uri) != Some(&*skill.name) {
            return None;
        }
        let mut frontmatter = Map::new();
        frontmatter.insert("name".to_owned(), json!(&*skill.name));
        frontmatter.insert("description".to_owned(), json!(&*skill.description));
        for (key, value) in skill.frontmatter() {
            if key != "name" && key != "description" {
                frontmatter.insert(key, value);
            }
        }
        // Entries are sorted by skill name first, so a skill's files are contiguous.
        let start = self.entries.partition_point(|e| *e.key.0 < *skill.name);
        let root = skill_uri.strip_suffix(SKILL_MD)?;
        let mut keys = std::collections::HashSet::new();
        let mut files = Vec::new();
        for e in self.entries[start..].iter().take_while(|e| e.skill == index) {
            let key = resolved_path(e.uri.strip_prefix(root)?)?;
            if !keys.insert(key) {
                return None;
            }
            files.push(json!({ "uri": e.uri, "digest": e.digest, "size": e.size }));
        }
        Some(json!({ "uri": skill_uri, "frontmatter": frontmatter, "resources": files }))
    }
}

/// The name of a skill's entry point.
const SKILL_MD: &str = "SKILL.md";

/// The skill name a `SKILL.md` URI names: the path segment before `SKILL.md` (the Skills
/// extension's rule).
pub(super) fn skill_name_from_uri(uri: &str) -> Option<&str> {
    if uri.contains(['?', '#']) {
        return None;
    }
    let path = uri.strip_suffix(SKILL_MD)?.strip_suffix('/')?;
    let name = path.rsplit('/').next()?;
    (!name.is_empty()).then_some(name)
}

/// A file's path under its skill with `.` and `..` resolved; `None` when it leaves the skill
/// or names a directory. (Paths here are written by [`uri`], so their escapes are already in
/// the normal form the extension compares.)
fn resolved_path(relative: &str) -> Option<String> {
    let mut segments = relative.split('/');
    let file = segments.next_back()?;
    if matches!(file, "" | "." | "..") {
        return None;
    }
    let mut resolved = Vec::new();
    for segment in segments {
        match segment {
            "." => {}
            ".." => {
                resolved.pop()?;
            }
            _ => resolved.push(segment),
        }
    }
    resolved.push(file);
    Some(resolved.join("/"))
}

/// The entry of a skill's file (`None`: its `SKILL.md`), with the digest computed at build
/// time when the manifest has one.
fn entry(skill: &str, file: Option<(usize, &str)>, index: usize, bytes: &[u8], digest: Option<&str>) -> Entry {
    let digest = match digest {
        Some(digest) if is_sha256_digest(digest) => digest.to_owned(),
        _ => sha256_digest(bytes),
    };
    let path = file.map_or("SKILL.md", |(_, path)| path);
    Entry {
        key: (skill.to_owned(), path.to_owned()),
        uri: uri(skill, file.map(|(_, path)| path)),
        skill: index,
        file: file.map(|(i, _)| i),
        size: bytes.len() as u64,
        digest,
    }
}
