//! Frontmatter: splitting a markdown file the way gray-matter does, and parsing the YAML
//! into a tree that remembers where every value came from.
//!
//! We do not use the `gray_matter` crate: it returns YAML values without positions, and
//! every diagnostic must point at `file:line:col`. The split below reproduces gray-matter
//! 4's rules exactly (they decide what the body of a skill is, byte for byte), and YAML
//! parsing uses `yaml-rust2`'s event parser, the YAML 1.2 parser `gray_matter` itself uses.
//!
//! The parts live in child modules: [`tree`] builds the positioned tree with the full YAML
//! parser, [`simple`] reads the common plain frontmatter without it, and [`cause`] finds
//! the plainer cause of a YAML error.

mod cause;
mod simple;
#[cfg(test)]
mod tests;
mod tree;

pub(crate) use cause::{Cause, cause};
use tree::parse_full;

use crate::limits::YamlLimits;
use crate::messages;

/// The parts of a markdown file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Split {
    /// Byte range of the YAML text, when the file has frontmatter.
    pub(crate) matter: Option<std::ops::Range<usize>>,
    /// Byte offset where the body starts.
    pub(crate) body_start: usize,
    /// The frontmatter has no closing `---` line (gray-matter then takes the whole file as
    /// frontmatter and the body is empty).
    pub(crate) unclosed: bool,
    /// Byte range of a language given after the opening `---` (`---toml`).
    pub(crate) language: Option<std::ops::Range<usize>>,
}

/// Splits `text` into frontmatter and body with gray-matter's rules: the file must start
/// with `---` (not `----`); the frontmatter ends at the first `\n---`; the body is what
/// follows that delimiter minus one `\r` and one `\n`. A leading BOM is ignored.
pub(crate) fn split(text: &str) -> Split {
    let base = if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    let s = &text[base..];
    if !s.starts_with("---") || s[3..].starts_with('-') {
        return Split {
            matter: None,
            body_start: base,
            unclosed: false,
            language: None,
        };
    }
    let mut start = base + 3;
    let mut language = None;
    // gray-matter reads a language name from the rest of the opening line.
    let first_line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let first_line = text[start..first_line_end].trim_end_matches('\r');
    if !first_line.trim().is_empty() {
        let lead = first_line.len() - first_line.trim_start().len();
        language = Some(start + lead..start + lead + first_line.trim().len());
        start += first_line.len();
    }
    match text[start..].find("\n---") {
        Some(close) => {
            let matter_end = start + close;
            let mut body_start = matter_end + 4;
            if text[body_start..].starts_with('\r') {
                body_start += 1;
            }
            if text[body_start..].starts_with('\n') {
                body_start += 1;
            }
            Split {
                matter: Some(start..matter_end),
                body_start,
                unclosed: false,
                language,
            }
        }
        None => Split {
            matter: Some(start..text.len()),
            body_start: text.len(),
            unclosed: true,
            language,
        },
    }
}

/// A YAML value with its byte range in the file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    pub(crate) value: Value,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// A YAML value (core schema).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    String(String),
    List(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

impl Value {
    /// What the value is, for "expected ..., found ..." messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Value::Null => messages::NULL,
            Value::Bool(_) => messages::A_BOOLEAN,
            Value::Int(_) => messages::AN_INTEGER,
            Value::Float(_) => messages::A_NUMBER,
            Value::String(_) => messages::A_STRING,
            Value::List(_) => messages::A_LIST,
            Value::Map(_) => messages::A_MAPPING,
        }
    }

    /// The value as JSON (for `extra` and `metadata`).
    pub(crate) fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => (*b).into(),
            Value::Int(i) => (*i).into(),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(serde_json::Value::Null, Into::into),
            Value::String(s) => s.clone().into(),
            Value::List(items) => items.iter().map(|n| n.value.to_json()).collect(),
            Value::Map(entries) => {
                carnet_manifest::order::object(entries.iter().map(|(k, v)| (k.value.key_string(), v.value.to_json())))
                    .into()
            }
        }
    }

    fn key_string(&self) -> String {
        match self {
            Value::String(s) => s.clone(),
            other => other.to_json().to_string(),
        }
    }
}

/// A YAML problem, at a byte offset of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct YamlError {
    pub(crate) offset: usize,
    pub(crate) end: usize,
    pub(crate) message: String,
    pub(crate) related: Option<(usize, usize, String)>,
    /// The `limits` key of `carnet.config.json` this error is about, when it is a limit.
    pub(crate) limit: Option<&'static str>,
}

/// Parses the YAML at `range` of `text`. An empty (or comment-only) frontmatter is an
/// empty mapping, as in gray-matter.
///
/// Parsing is bounded: nesting deeper than `limits.max_depth` and aliases copying more
/// than `limits.max_alias_expansion` stop it with an error at the guilty node (a
/// 300-byte billion-laughs frontmatter would otherwise expand to gigabytes). Duplicate keys
/// are found with a hash per mapping, so time is linear in the number of keys.
pub(crate) fn parse_yaml(text: &str, range: std::ops::Range<usize>, limits: &YamlLimits) -> Result<Node, YamlError> {
    let yaml = &text[range.clone()];
    let empty = || Node {
        value: Value::Map(Vec::new()),
        start: range.start,
        end: range.start,
    };
    if yaml
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        return Ok(empty());
    }
    if let Some(node) = simple::parse(yaml, range.start) {
        return Ok(node);
    }
    parse_full(text, range, limits)
}

/// A file whose frontmatter lacks its opening `---`: it starts with `key: value` lines and a
/// `---` line ends them. gray-matter sees no frontmatter there (so TS Carnet would too: the
/// file is an error either way), but the author meant one: this is the split the file would
/// have with the line added, so the entity can still be read and the one error says what
/// to add, instead of one error per required key. `None` for any other file (prose whose
/// first line happens to hold a colon has lines that are not keys).
pub(crate) fn unopened(text: &str) -> Option<Split> {
    let base = if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    let mut offset = base;
    let mut keys = 0;
    for line in text[base..].split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        if content.trim_end() == "---" {
            if keys == 0 {
                return None;
            }
            // The frontmatter ends at the line break before `---` and the body starts after
            // that line's break, as in `split`.
            let mut body_start = start + 3;
            if text[body_start..].starts_with('\r') {
                body_start += 1;
            }
            if text[body_start..].starts_with('\n') {
                body_start += 1;
            }
            return Some(Split {
                matter: Some(base..start.saturating_sub(1).max(base)),
                body_start,
                unclosed: false,
                language: None,
            });
        }
        if content.trim().is_empty() {
            continue;
        }
        let indented = content.starts_with([' ', '\t']);
        if indented || content.starts_with('#') || (keys > 0 && content.starts_with('-')) {
            if keys == 0 {
                return None;
            }
            continue;
        }
        if !is_key_line(content) {
            return None;
        }
        keys += 1;
    }
    None
}

/// `key:` or `key: value` with a plain key (letters, digits, `_`, `-`).
fn is_key_line(line: &str) -> bool {
    let Some((key, rest)) = line.split_once(':') else {
        return false;
    };
    key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && (rest.is_empty() || rest.starts_with([' ', '\t']))
}

/// For the fuzz target: where the simple reader accepts the frontmatter of `text`, it
/// builds what the full parser builds.
#[doc(hidden)]
pub(crate) fn check_simple_reader(text: &str) {
    let split = split(text);
    if let Some(range) = split.matter
        && let Some(fast) = simple::parse(&text[range.clone()], range.start)
    {
        let full = parse_full(text, range, &YamlLimits::default());
        assert_eq!(Ok(fast), full, "the simple reader differs from the full parser");
    }
}
