//! Finding entities by name (binary searches: lists are sorted by name), and a skill as its
//! `SKILL.md`.

use super::{Agent, Manifest, Skill, SkillFile, Tool, Toolset};
use crate::order;

fn find<'a, T>(items: &'a [T], name: &str, key: impl Fn(&T) -> &str) -> Option<&'a T> {
    items
        .binary_search_by(|item| key(item).cmp(name))
        .ok()
        .map(|index| &items[index])
}

impl Manifest {
    /// The agent named `name`.
    #[must_use]
    pub fn agent(&self, name: &str) -> Option<&Agent> {
        find(&self.agents, name, |a| &a.name)
    }

    /// The skill named `name`.
    #[must_use]
    pub fn skill(&self, name: &str) -> Option<&Skill> {
        find(&self.skills, name, |s| &s.name)
    }

    /// The toolset named `name`.
    #[must_use]
    pub fn toolset(&self, name: &str) -> Option<&Toolset> {
        find(&self.toolsets, name, |t| &t.name)
    }

    /// Every toolset declaring a tool named `name`, with the tool, in toolset-name order.
    ///
    /// Tool names are unique among the tools one agent can reach, not across the whole
    /// manifest, hence an iterator.
    pub fn tools_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = (&'a Toolset, &'a Tool)> {
        self.toolsets.iter().filter_map(move |toolset| {
            toolset
                .tools
                .iter()
                .find(|tool| tool.name == name)
                .map(|tool| (toolset, tool))
        })
    }

    /// The value of the default variable `name` (`variables` in `carnet.config.json`).
    #[must_use]
    pub fn variable(&self, name: &str) -> Option<&str> {
        find(&self.variables, name, |(k, _)| k).map(|(_, v)| &**v)
    }
}

impl Agent {
    /// The initial skills followed by the on-demand skills, without repeats.
    pub fn all_skills(&self) -> impl Iterator<Item = &str> {
        let mut seen = Vec::<&str>::new();
        self.initial_skills
            .iter()
            .chain(self.skills.iter())
            .map(|s| &**s)
            .filter(move |s| {
                if seen.contains(s) {
                    false
                } else {
                    seen.push(s);
                    true
                }
            })
    }
}

impl Skill {
    /// The file at `path` (relative to the skill's folder).
    #[must_use]
    pub fn file(&self, path: &str) -> Option<&SkillFile> {
        find(&self.files, path, |f| &f.path)
    }

    /// The frontmatter: `name`, `description`, then `license`, `compatibility`,
    /// `allowed-tools` (space-separated), `metadata`, `toolsets` and the keys carnet does not
    /// know (sorted), each present only when set.
    #[must_use]
    pub fn frontmatter(&self) -> Vec<(String, serde_json::Value)> {
        use serde_json::Value;
        let object = |json: &str| match serde_json::from_str(json) {
            Ok(Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        let mut fields = vec![
            ("name".to_owned(), Value::from(&*self.name)),
            ("description".to_owned(), Value::from(&*self.description)),
        ];
        if let Some(license) = &self.license {
            fields.push(("license".to_owned(), Value::from(&**license)));
        }
        if let Some(compatibility) = &self.compatibility {
            fields.push(("compatibility".to_owned(), Value::from(&**compatibility)));
        }
        if !self.allowed_tools.is_empty() {
            let tools: Vec<&str> = self.allowed_tools.iter().map(|t| &**t).collect();
            fields.push(("allowed-tools".to_owned(), Value::from(tools.join(" "))));
        }
        let metadata = object(&self.metadata);
        if !metadata.is_empty() {
            fields.push(("metadata".to_owned(), Value::Object(metadata)));
        }
        if !self.toolsets.is_empty() {
            let toolsets: Vec<Value> = self.toolsets.iter().map(|t| Value::from(&**t)).collect();
            fields.push(("toolsets".to_owned(), Value::Array(toolsets)));
        }
        let mut extra: Vec<(String, Value)> = object(&self.extra).into_iter().collect();
        order::sort_by(&mut extra, |a, b| a.0.cmp(&b.0));
        for (key, value) in extra {
            if fields.iter().all(|(k, _)| *k != key) {
                fields.push((key, value));
            }
        }
        fields
    }

    /// The skill as a `SKILL.md` file (what MCP serves at `skill://<name>/SKILL.md`): the
    /// [frontmatter](Skill::frontmatter), each value written as JSON with object keys sorted
    /// (which YAML reads unchanged, and which is the same text whatever `serde_json` features
    /// are on), then the instructions.
    ///
    /// # Examples
    ///
    /// ```
    /// # let manifest = carnet_manifest::Manifest::from_json(r#"{"agents": {}, "toolsets": {}, "skills": {
    /// #     "notes": {"name": "notes", "description": "Take notes", "content": "Write things down."}}}"#)?;
    /// let skill = manifest.skill("notes").unwrap();
    /// assert_eq!(
    ///     skill.to_skill_md(),
    ///     "---\nname: \"notes\"\ndescription: \"Take notes\"\n---\n\nWrite things down.\n",
    /// );
    /// # Ok::<(), carnet_manifest::ManifestError>(())
    /// ```
    #[must_use]
    pub fn to_skill_md(&self) -> String {
        use std::fmt::Write as _;
        let mut text = String::from("---\n");
        for (key, value) in self.frontmatter() {
            let _ = writeln!(text, "{key}: {}", sorted_json(&value));
        }
        text.push_str("---\n\n");
        text.push_str(&self.content);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text
    }
}

/// `value` as compact JSON with every object's keys in sorted order.
fn sorted_json(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            order::sort_by(&mut entries, |a, b| a.0.cmp(b.0));
            let fields: Vec<String> = entries
                .into_iter()
                .map(|(k, v)| format!("{}:{}", Value::from(k.as_str()), sorted_json(v)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(sorted_json).collect::<Vec<_>>().join(",")),
        other => other.to_string(),
    }
}

impl SkillFile {
    /// The file's content as text, if it is UTF-8 text.
    #[must_use]
    pub fn text(&self) -> Option<&str> {
        if self.is_text {
            std::str::from_utf8(&self.data).ok()
        } else {
            None
        }
    }

    /// Whether the skill lists this file in its frontmatter `files`.
    #[must_use]
    pub fn is_listed(&self) -> bool {
        self.description.is_some()
    }
}

impl Toolset {
    /// The tool named `name`.
    #[must_use]
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }
}
