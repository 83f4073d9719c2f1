//! A content file that gave no entity, still known by its folder and its `name:` line.

use super::parent_folder;
use crate::source::FileId;

/// A content file that gave no entity: it could not be read, or its frontmatter or its
/// `name` could not. The entity is still known by its folder's name, and by the `name:` line
/// of its frontmatter where that line reads plainly, so a reference to it is told on the
/// file's error (the cause) instead of as an unknown name printed first.
#[derive(Debug, Clone)]
pub(crate) struct Broken {
    /// The name of the folder holding the file (`forecast` for `skills/forecast/SKILL.md`).
    pub(crate) folder: String,
    /// The frontmatter's `name:`, read line by line ([`plain_name`]).
    pub(crate) name: Option<String>,
    pub(crate) file: FileId,
}

impl Broken {
    /// `None` for a file directly in `agents/`, `skills/` or `toolsets/`: no folder names it.
    pub(super) fn new(relative: &str, file: FileId, text: &str) -> Option<Self> {
        let folder = parent_folder(relative);
        let (parent, name) = folder.rsplit_once('/')?;
        (!parent.is_empty() && !name.is_empty()).then(|| Broken {
            folder: name.to_owned(),
            name: plain_name(text),
            file,
        })
    }

    /// Whether `name` is what the entity is called: its folder's name or its `name:`.
    pub(crate) fn is_called(&self, name: &str) -> bool {
        self.folder == name || self.name.as_deref() == Some(name)
    }
}

/// The value of the top-level `name:` line of a frontmatter the YAML parser refused: a YAML
/// error elsewhere (an unquoted `: ` in the description, a `[` never closed) leaves that line
/// as plain as it was written. `None` where the line is missing or is not a plain scalar on
/// one line (a list, a block, an anchor, a value with `: ` or ` #` in it).
fn plain_name(text: &str) -> Option<String> {
    let mut lines = text.lines();
    if lines.next()?.trim_end() != "---" {
        return None;
    }
    let line = lines
        .take_while(|line| line.trim_end() != "---")
        .find_map(|line| line.strip_prefix("name:"))?;
    let value = line.trim();
    let unquoted = match value.as_bytes() {
        [b'"', .., b'"'] | [b'\'', .., b'\''] => &value[1..value.len() - 1],
        _ => value,
    };
    let plain = !unquoted.is_empty()
        && !unquoted.contains(": ")
        && !unquoted.contains(" #")
        && !unquoted.contains(['"', '\'', '\\'])
        && !unquoted.starts_with(['[', '{', '&', '*', '!', '|', '>', '%', '@', '`', '#', '-', '?']);
    plain.then(|| unquoted.to_owned())
}

#[cfg(test)]
mod tests {
    use super::plain_name;

    #[test]
    fn the_name_line_of_a_refused_frontmatter_is_read() {
        let after = "---\ndescription: Finds sources: the best ones\nname: deep-research\n---\nBody.\n";
        assert_eq!(plain_name(after).as_deref(), Some("deep-research"));
        let quoted = "---\nname: \"deep-research\"\ntoolsets: [search\n---\n";
        assert_eq!(plain_name(quoted).as_deref(), Some("deep-research"));
        assert_eq!(plain_name("---\nname: 'x'\n---\n").as_deref(), Some("x"));
    }

    #[test]
    fn a_name_that_is_not_plain_is_not_guessed() {
        for text in [
            "---\nname: a: b\n---\n",
            "---\nname: [a, b]\n---\n",
            "---\nname: &anchor a\n---\n",
            "---\nname: a # comment\n---\n",
            "---\nname:\n  a\n---\n",
            "---\nname: \"\"\n---\n",
            "---\ndescription: no name\n---\nname: body\n",
            "name: not frontmatter\n",
            "---\n  name: nested\n---\n",
        ] {
            assert_eq!(plain_name(text), None, "{text:?}");
        }
    }
}
