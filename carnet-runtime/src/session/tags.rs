//! A skill's `tags` and `examples` as the model reads them: in the description of its tool
//! (`task.<skill>`), in that tool's `listTools` entry and in the skill's
//! `listAvailableSkills` entry (whose `query` matches tags too), within a budget of words.
//!
//! Both are optional frontmatter keys (kept in [`Skill::extra`]; or keys of the Agent Skills
//! `metadata` object), as in Agent Skills (which has neither) and TS Carnet, where the design
//! documents require them: a skill without them is described by its description alone. A2A's
//! agent card reads the same keys. `tags` is a list, or one string split at commas (else at
//! spaces); `examples` is a list of requests the skill handles, or one.
//!
//! Where they go, and where not: only into text that stays the same all conversation long.
//! A skill's tool is built once per agent and sent, unchanged, in every request and every
//! exposure mode; a `listTools` or `listAvailableSkills` result is a message of the
//! conversation, never rewritten.
//! So they move no byte of a provider's cached prefix after the first request. They are left
//! out of the system prompt (the catalog, and the sections that change as skills load) and
//! of the `loadSkill` result: the catalog is read every turn by every agent, skills as tools
//! or not, and a load's result already holds the whole skill.

use serde_json::{Map, Value};

use crate::manifest::Skill;

/// The most words a skill's tags and examples add to its tool's description (and to its
/// `listTools` entry): tags first, then examples, each whole or not at all, in the order the
/// skill gives them, until the next one would pass the budget. A run of more than
/// [`WORD_CHARS`] characters without a space counts as one word per [`WORD_CHARS`], so the
/// budget bounds bytes too.
pub const TAGS_AND_EXAMPLES_WORDS: usize = 40;

/// See [`TAGS_AND_EXAMPLES_WORDS`].
pub const WORD_CHARS: usize = 24;

/// The tags and examples of a skill the model reads, within [`TAGS_AND_EXAMPLES_WORDS`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TagsAndExamples {
    pub(crate) tags: Vec<String>,
    pub(crate) examples: Vec<String>,
}

impl TagsAndExamples {
    /// `skill`'s, within the budget.
    pub(crate) fn of(skill: &Skill) -> Self {
        let object = |json: &str| match serde_json::from_str(json) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        let (extra, metadata) = (object(&skill.extra), object(&skill.metadata));
        let field = |key: &str| extra.get(key).or_else(|| metadata.get(key));
        let all_tags = field("tags").map(|v| strings(v, true)).unwrap_or_default();
        let examples = field("examples").map(|v| strings(v, false)).unwrap_or_default();
        let every_tag = all_tags.len();
        let mut left = TAGS_AND_EXAMPLES_WORDS;
        let mut within = |text: &String| {
            let cost = words(text);
            let fits = cost <= left;
            if fits {
                left -= cost;
            }
            fits
        };
        let tags: Vec<String> = all_tags.into_iter().take_while(&mut within).collect();
        // An example is read only after every tag fitted: the order stays the skill's.
        let examples = if tags.len() == every_tag {
            examples.into_iter().take_while(&mut within).collect()
        } else {
            Vec::new()
        };
        TagsAndExamples { tags, examples }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.tags.is_empty() && self.examples.is_empty()
    }

    /// `description` followed by the tags and examples:
    ///
    /// ```text
    /// Greets people by name
    ///
    /// Tags: greeting, people
    /// Example requests:
    /// - Say hello to Ada
    /// ```
    pub(crate) fn describe(&self, description: &str) -> String {
        if self.is_empty() {
            return description.to_owned();
        }
        let mut text = description.trim_end().to_owned();
        text.push('\n');
        if !self.tags.is_empty() {
            text.push_str("\nTags: ");
            text.push_str(&self.tags.join(", "));
        }
        if !self.examples.is_empty() {
            text.push_str("\nExample requests:");
            for example in &self.examples {
                text.push_str("\n- ");
                text.push_str(example);
            }
        }
        text
    }
}

/// The words `text` counts for in the budget.
fn words(text: &str) -> usize {
    text.split_whitespace()
        .map(|word| word.chars().count().div_ceil(WORD_CHARS).max(1))
        .sum()
}

/// A list of strings, or one string: split at commas (or, without commas, at whitespace)
/// when `split`, else taken whole. Blank items are left out; line breaks inside an item
/// become spaces (an item is one line of the description).
fn strings(value: &Value, split: bool) -> Vec<String> {
    let items: Vec<&str> = match value {
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
        Value::String(text) if !split => vec![text],
        Value::String(text) if text.contains(',') => text.split(',').collect(),
        Value::String(text) => text.split_whitespace().collect(),
        _ => Vec::new(),
    };
    items
        .into_iter()
        .map(|item| item.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|item| !item.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Manifest;

    #[allow(clippy::needless_pass_by_value)] // called with `json!(..)`
    fn skill(frontmatter: serde_json::Value) -> Skill {
        let mut skill = serde_json::json!({"name": "greet", "description": "Greets people by name", "content": ""});
        skill
            .as_object_mut()
            .unwrap()
            .extend(frontmatter.as_object().unwrap().clone());
        let manifest = Manifest::from_value(&serde_json::json!({
            "agents": {}, "skills": {"greet": skill}, "toolsets": {}
        }))
        .unwrap();
        manifest.skills[0].clone()
    }

    #[test]
    fn tags_and_examples_follow_the_description() {
        let cues = TagsAndExamples::of(&skill(serde_json::json!({"extra": {
            "tags": "greeting, people", "examples": ["Say hello to Ada", "  Greet\nthe team  "]
        }})));
        assert_eq!(
            cues.describe("Greets people by name\n"),
            "Greets people by name\n\nTags: greeting, people\nExample requests:\n- Say hello to Ada\n- Greet the team"
        );
        let plain = TagsAndExamples::of(&skill(serde_json::json!({})));
        assert!(plain.is_empty());
        assert_eq!(plain.describe("Greets people by name"), "Greets people by name");
    }

    #[test]
    fn the_budget_keeps_whole_items_in_order() {
        let long = "word ".repeat(TAGS_AND_EXAMPLES_WORDS - 3);
        let cues = TagsAndExamples::of(&skill(serde_json::json!({"extra": {
            "tags": ["a", "b"], "examples": [long.clone(), "one two", "x"]
        }})));
        assert_eq!(cues.tags, ["a", "b"]);
        // `one two` would pass the budget: neither it nor the shorter `x` after it is read.
        assert_eq!(cues.examples, [long.trim()]);
        let unbroken = "x".repeat(WORD_CHARS * TAGS_AND_EXAMPLES_WORDS + 1);
        let cues = TagsAndExamples::of(&skill(serde_json::json!({"extra": {"examples": [unbroken, "short"]}})));
        assert!(cues.is_empty(), "one run of characters past the budget: {cues:?}");
    }

    #[test]
    fn the_metadata_object_gives_them_too() {
        let cues = TagsAndExamples::of(&skill(serde_json::json!({
            "metadata": {"tags": ["a"], "examples": "Do a thing"}
        })));
        assert_eq!(
            (cues.tags, cues.examples),
            (vec!["a".to_owned()], vec!["Do a thing".to_owned()])
        );
    }
}
