//! Hints for hosts that defer MCP tools behind a search of their own (Claude Code does, by
//! default): `tools/list` items carry `_meta` keys such a host reads.
//!
//! - The meta-tools carry `anthropic/alwaysLoad: true`: a host that hid `loadSkill` behind its
//!   own tool search would add a search before every load, and carnet's catalog in the
//!   instructions would name a tool the model cannot see.
//! - Domain tools carry `anthropic/searchHint`: what the skills that bring their toolset say
//!   of themselves (name, first sentence of the description, tags), words the tool's own
//!   description often lacks ("statistics" for a tool named `computeMean`).
//!
//! Hosts that know neither key ignore `_meta`, as MCP asks of unknown keys.

use std::collections::HashMap;
use std::sync::Arc;

use carnet_manifest::order;
use serde_json::{Map, Value, json};

use crate::manifest::Manifest;
use crate::tool::{ToolKind, ToolSpec};

/// The `_meta` key asking a host never to defer the tool.
pub(super) const ALWAYS_LOAD: &str = "anthropic/alwaysLoad";
/// The `_meta` key giving a host's tool search words to find the tool by.
pub(super) const SEARCH_HINT: &str = "anthropic/searchHint";
/// The longest search hint, in characters: a hint is a few keywords, not a document.
const MAX_HINT_CHARS: usize = 200;

/// The search hint of each toolset an agent can reach, computed once per server.
#[derive(Debug, Clone, Default)]
pub(super) struct Hints {
    by_toolset: Arc<HashMap<String, String>>,
}

impl Hints {
    /// The hints of the toolsets `agent`'s skills (its own and the global ones) bring.
    pub(super) fn new(manifest: &Manifest, agent: &str) -> Hints {
        let Some(agent) = manifest.agent(agent) else {
            return Hints::default();
        };
        let mut names: Vec<&str> = agent
            .all_skills()
            .chain(manifest.app.global_initial_skills.iter().map(|s| &**s))
            .chain(manifest.app.global_skills.iter().map(|s| &**s))
            .collect();
        order::sort(&mut names);
        names.dedup();
        let mut parts: HashMap<String, Vec<String>> = HashMap::new();
        for skill in names.into_iter().filter_map(|name| manifest.skill(name)) {
            let mut part = format!("{}: {}", skill.name, first_sentence(&skill.description));
            let tags = super::card::skill_tags(skill);
            if !tags.is_empty() {
                part.push_str(&format!(" ({})", tags.join(", ")));
            }
            for toolset in skill.toolsets.iter() {
                parts.entry(toolset.to_string()).or_default().push(part.clone());
            }
        }
        let by_toolset = parts
            .into_iter()
            .map(|(toolset, parts)| (toolset, truncate(&parts.join("; "))))
            .collect();
        Hints {
            by_toolset: Arc::new(by_toolset),
        }
    }

    /// Adds the hints of `spec` to `tool`, its `tools/list` item.
    pub(super) fn apply(&self, spec: &ToolSpec, tool: &mut Value) {
        let hint = match spec.kind {
            ToolKind::Meta => json!({ ALWAYS_LOAD: true }),
            ToolKind::Domain => match spec.toolset.as_deref().and_then(|t| self.by_toolset.get(t)) {
                Some(hint) => json!({ SEARCH_HINT: hint }),
                None => return,
            },
        };
        let Value::Object(tool) = tool else { return };
        let meta = tool.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        if let (Value::Object(meta), Value::Object(hint)) = (meta, hint) {
            meta.extend(hint);
        }
    }
}

/// The text up to the end of its first sentence (a `.`, `!` or `?` followed by a space or the
/// end), or the first line.
fn first_sentence(text: &str) -> &str {
    let line = text.lines().next().unwrap_or("").trim();
    let bytes = line.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if matches!(b, b'.' | b'!' | b'?') && bytes.get(i + 1).is_none_or(|next| *next == b' ') {
            return &line[..=i];
        }
    }
    line
}

/// `text` cut to [`MAX_HINT_CHARS`] characters, at a word's end where there is one.
fn truncate(text: &str) -> String {
    match text.char_indices().nth(MAX_HINT_CHARS) {
        None => text.to_owned(),
        Some((end, _)) => {
            let cut = &text[..end];
            let cut = cut.rfind(' ').map_or(cut, |space| &cut[..space]);
            format!("{}…", cut.trim_end_matches([' ', ',', ';', ':']))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_are_short_first_sentences() {
        assert_eq!(first_sentence("Computes stats. Then more."), "Computes stats.");
        assert_eq!(first_sentence("Version 1.5 of it\nsecond line"), "Version 1.5 of it");
        assert_eq!(first_sentence(""), "");
        let long = "word ".repeat(100);
        let cut = truncate(&long);
        assert!(cut.chars().count() <= MAX_HINT_CHARS + 1, "{cut}");
        assert!(cut.ends_with("word…"), "{cut}");
        let accents = "é".repeat(300);
        assert_eq!(truncate(&accents).chars().count(), MAX_HINT_CHARS + 1);
    }
}
