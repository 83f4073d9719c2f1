//! Frontmatter: splitting a markdown file the way gray-matter does, and parsing the YAML
//! into a tree that remembers where every value came from.
//!
//! We do not use the `gray_matter` crate: it returns YAML values without positions, and
//! every diagnostic must point at `file:line:col`. The split below reproduces gray-matter
//! 4's rules exactly (they decide what the body of a skill is, byte for byte), and YAML
//! parsing uses `yaml-rust2`'s event parser, the YAML 1.2 parser `gray_matter` itself uses.

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use std::collections::HashMap;

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
            Value::Map(entries) => entries
                .iter()
                .map(|(k, v)| (k.value.key_string(), v.value.to_json()))
                .collect::<serde_json::Map<_, _>>()
                .into(),
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

/// [`parse_yaml`] with the full YAML parser.
fn parse_full(text: &str, range: std::ops::Range<usize>, limits: &YamlLimits) -> Result<Node, YamlError> {
    let yaml = &text[range.clone()];
    let empty = || Node {
        value: Value::Map(Vec::new()),
        start: range.start,
        end: range.start,
    };
    let mut builder = TreeBuilder {
        base: range.start,
        yaml,
        char_offsets: CharOffsets::new(yaml),
        stack: Vec::new(),
        anchors: HashMap::new(),
        root: None,
        error: None,
        fatal: None,
        limits: *limits,
        expanded: 0,
    };
    // The parser's own `load` recurses once per nesting level and cannot be stopped from
    // the receiver: drive it event by event instead, and stop at the first limit.
    let mut parser = Parser::new_from_str(yaml);
    loop {
        let (event, mark) = match parser.next_token() {
            Ok(next) => next,
            Err(e) => {
                let offset = range.start + builder.char_offsets.byte(e.marker().index());
                return Err(YamlError {
                    offset,
                    end: offset,
                    message: e.info().to_owned(),
                    related: None,
                    limit: None,
                });
            }
        };
        let last = matches!(event, Event::DocumentEnd | Event::StreamEnd);
        builder.on_event(event, mark);
        if let Some(fatal) = builder.fatal.take() {
            return Err(fatal);
        }
        if last {
            break;
        }
    }
    if let Some(error) = builder.error {
        return Err(error);
    }
    Ok(builder.root.unwrap_or_else(empty))
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

/// What a YAML error most likely comes from, when the text shows a plainer cause than the
/// parser's message: the mistakes people make most in a frontmatter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cause {
    /// A `[` or `{` at byte `open` that nothing closes: the parser only stops at a later
    /// line, where the next key's `:` is out of place in a list.
    UnclosedFlow { open: usize, bracket: char },
    /// The plain value of `key` holds `: ` (the colon at byte `colon`), which YAML reads as
    /// a second key; `quoted` is the line with the value in quotes.
    ColonInValue { key: String, colon: usize, quoted: String },
}

/// yaml-rust2's message for `key: a: b`.
const MAPPING_VALUES_NOT_ALLOWED: &str = "mapping values are not allowed in this context";

/// The likelier cause of `error`, in the frontmatter at `matter` of `text`.
pub(crate) fn cause(text: &str, matter: std::ops::Range<usize>, error: &YamlError) -> Option<Cause> {
    if error.limit.is_some() {
        return None;
    }
    let yaml = &text[matter.clone()];
    if let Some((open, bracket)) = unclosed_flow(yaml)
        && matter.start + open < error.offset.max(matter.start + 1)
    {
        return Some(Cause::UnclosedFlow {
            open: matter.start + open,
            bracket,
        });
    }
    if error.message == MAPPING_VALUES_NOT_ALLOWED {
        return colon_in_value(text, error.offset);
    }
    None
}

/// The `key: value` line around the colon at `colon`, when that colon is inside a plain
/// value: the value quoted.
fn colon_in_value(text: &str, colon: usize) -> Option<Cause> {
    let line_start = text[..colon].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[colon..].find('\n').map_or(text.len(), |i| colon + i);
    let line = text[line_start..line_end].trim_end_matches('\r');
    let indent = line.len() - line.trim_start_matches([' ', '-']).len();
    let entry = &line[indent..];
    let key_end = entry.find(": ")?;
    let (key, value) = (&entry[..key_end], entry[key_end + 2..].trim());
    let value_start = line_start + indent + key_end + 2;
    if colon <= value_start || value.is_empty() || value.starts_with(['"', '\'', '[', '{', '|', '>', '&', '*', '!']) {
        return None;
    }
    // A comment after the value stays outside the quotes.
    let (value, comment) = match value.find(" #") {
        Some(i) => (value[..i].trim_end(), &value[i..]),
        None => (value, ""),
    };
    let quoted = if value.contains(['"', '\\']) {
        format!("'{}'", value.replace('\'', "''"))
    } else {
        format!("\"{value}\"")
    };
    Some(Cause::ColonInValue {
        key: key.trim_matches(['"', '\'']).to_owned(),
        colon,
        quoted: format!("{}{key}: {quoted}{comment}", &line[..indent])
            .trim_start()
            .to_owned(),
    })
}

/// The innermost `[` or `{` of `yaml` that is still open at its end (or closed by the wrong
/// bracket), as a byte offset into `yaml`. A flow collection may span lines, so only one
/// still open when the frontmatter ends is unclosed. Only a value can open one: in a plain
/// value (`description: see [1]`) or a block scalar's text, brackets are text.
fn unclosed_flow(yaml: &str) -> Option<(usize, char)> {
    let mut open: Vec<(usize, u8)> = Vec::new();
    // The indentation of a key whose value is a block scalar (`|`, `>`): deeper lines are text.
    let mut block_scalar: Option<usize> = None;
    let mut offset = 0;
    for line in yaml.split_inclusive('\n') {
        let line_start = offset;
        offset += line.len();
        let bytes = line.trim_end_matches(['\n', '\r']).as_bytes();
        let indent = bytes.iter().take_while(|&&b| b == b' ').count();
        let mut i = if open.is_empty() {
            if let Some(key_indent) = block_scalar {
                if indent == bytes.len() || indent > key_indent {
                    continue;
                }
                block_scalar = None;
            }
            let Some(start) = value_start(bytes, indent) else {
                continue;
            };
            match bytes.get(start) {
                Some(b'[' | b'{') => start,
                Some(b'|' | b'>') => {
                    block_scalar = Some(indent);
                    continue;
                }
                _ => continue,
            }
        } else {
            0
        };
        while i < bytes.len() {
            match bytes[i] {
                b @ (b'[' | b'{') => open.push((line_start + i, b)),
                b @ (b']' | b'}') => {
                    let &(at, opener) = open.last()?;
                    if (opener == b'[') != (b == b']') {
                        return Some((at, opener as char));
                    }
                    open.pop();
                    if open.is_empty() {
                        break;
                    }
                }
                quote @ (b'"' | b'\'') if i == 0 || matches!(bytes[i - 1], b' ' | b'[' | b'{' | b',' | b':') => {
                    // A quoted scalar: skip to its end on this line (`\"` and `''` escape).
                    i += 1;
                    while i < bytes.len() {
                        if quote == b'"' && bytes[i] == b'\\' {
                            i += 1;
                        } else if bytes[i] == quote {
                            if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                                i += 1;
                            } else {
                                break;
                            }
                        }
                        i += 1;
                    }
                }
                b'#' if i == 0 || bytes[i - 1] == b' ' => break,
                _ => {}
            }
            i += 1;
        }
    }
    open.last().map(|&(at, b)| (at, b as char))
}

/// Where the value of a block-context line starts: after its indentation and `- ` markers,
/// after `key: ` if it has a key. `None` for a comment.
fn value_start(bytes: &[u8], indent: usize) -> Option<usize> {
    let mut i = indent;
    while bytes.get(i) == Some(&b'-') && matches!(bytes.get(i + 1), None | Some(b' ')) {
        i += 1;
        while bytes.get(i) == Some(&b' ') {
            i += 1;
        }
    }
    match bytes.get(i) {
        None | Some(b'#') => return None,
        Some(b'[' | b'{' | b'"' | b'\'') => return Some(i),
        _ => {}
    }
    let colon = (i..bytes.len()).find(|&j| bytes[j] == b':' && matches!(bytes.get(j + 1), None | Some(b' ')))?;
    let mut start = colon + 1;
    while bytes.get(start) == Some(&b' ') {
        start += 1;
    }
    Some(start)
}

/// The frontmatter most files have, read without the YAML machinery (at a thousand skills
/// the full parser was most of a build script's time at opt-level 0): top-level
/// `key: value` lines whose values are plain words, flow lists of plain words
/// (`toolsets: [a, b]`) or block lists of them (`- a`). Anything else (quotes, comments,
/// nesting, anchors, continuation lines, tabs, CR, duplicate keys, a value that is not a
/// string) is left to the full parser. The tree, spans included, is what the full parser
/// builds: a test compares the two on every shape this accepts.
mod simple {
    use super::{Node, Value, resolve_plain};

    /// A plain scalar the full parser would read as this exact string, in block context or,
    /// with `flow`, inside `[...]`.
    fn word(s: &str, flow: bool) -> bool {
        let bytes = s.as_bytes();
        let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) else {
            return false;
        };
        if b"-?:,[]{}#&*!|>'\"%@` ".contains(&first) || last == b':' || last == b' ' {
            return false;
        }
        // One pass (build scripts run this at opt-level 0): printable ASCII only (anything
        // else is left to the full parser), no `: ` or ` #`, no flow indicator in a list.
        let mut previous = 0u8;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            i += 1;
            if !matches!(b, 0x20..=0x7e)
                || (previous == b':' && b == b' ')
                || (previous == b' ' && b == b'#')
                || (flow && matches!(b, b',' | b'[' | b']' | b'{' | b'}' | b'#'))
            {
                return false;
            }
            previous = b;
        }
        // A word starting with a letter is a string in the core schema unless it is a null
        // or a boolean; the others may also be numbers.
        if first.is_ascii_alphabetic() {
            return !matches!(
                s,
                "null" | "Null" | "NULL" | "true" | "True" | "TRUE" | "false" | "False" | "FALSE"
            );
        }
        matches!(resolve_plain(s.to_owned()), Value::String(_))
    }

    fn scalar(s: &str, start: usize) -> Node {
        Node {
            value: Value::String(s.to_owned()),
            start,
            end: start + s.len(),
        }
    }

    /// A list node as the full parser spans it: from its first mark to its last item's end.
    fn list(items: Vec<Node>, start: usize) -> Node {
        let end = items.iter().map(|n| n.end).max().unwrap_or(start + 1).max(start + 1);
        Node {
            value: Value::List(items),
            start,
            end,
        }
    }

    /// The most top-level keys this reads.
    const MAX_KEYS: usize = 32;

    /// `yaml` starts at byte `base` of its file.
    pub(super) fn parse(yaml: &str, base: usize) -> Option<Node> {
        // An indexed loop: a `[char]` pattern steps through chars at opt-level 0.
        // Only spaces and line breaks separate here: a control character (a tab, `\r`, a form
        // feed) or whitespace beyond ASCII (which `str::trim` would drop and YAML keeps) is
        // left to the full parser.
        let bytes = yaml.as_bytes();
        let mut i = 0;
        let mut ascii = true;
        while i < bytes.len() {
            let b = bytes[i];
            if (b < 0x20 && b != b'\n') || b == 0x7f {
                return None;
            }
            ascii &= b < 0x80;
            i += 1;
        }
        if !ascii
            && yaml
                .chars()
                .any(|c| c.is_control() || (c.is_whitespace() && c != ' ' && c != '\n'))
        {
            return None;
        }
        let mut entries: Vec<(Node, Node)> = Vec::new();
        // Few keys (more are left to the full parser, so this stays linear).
        let mut keys: Vec<&str> = Vec::new();
        // A key waiting for the block list below it: the key, and the items so far with the
        // list's start and the items' indentation.
        let mut pending: Option<(Node, Vec<Node>, usize, usize)> = None;
        let mut offset = base;
        for line in yaml.split_inclusive('\n') {
            let line_start = offset;
            offset += line.len();
            let line = line.strip_suffix('\n').unwrap_or(line);
            if line.trim().is_empty() {
                continue;
            }
            let indent = line.len() - line.trim_start_matches(' ').len();
            let rest = &line[indent..];
            if let Some(item) = rest.strip_prefix("- ").or_else(|| (rest == "-").then_some("")) {
                let (_, items, list_start, list_indent) = pending.as_mut()?;
                if items.is_empty() {
                    *list_start = line_start + indent;
                    *list_indent = indent;
                } else if indent != *list_indent {
                    return None;
                }
                let lead = item.len() - item.trim_start().len();
                let item = item.trim_end();
                let item = &item[lead.min(item.len())..];
                if !word(item, false) {
                    return None;
                }
                let item_start = line_start + indent + 2 + lead;
                if items.is_empty() && indent == 0 {
                    // An unindented list is marked at its first item, not its dash.
                    *list_start = item_start;
                }
                items.push(scalar(item, item_start));
                continue;
            }
            if indent > 0 {
                return None;
            }
            if let Some((key, items, list_start, _)) = pending.take() {
                if items.is_empty() {
                    return None;
                }
                entries.push((key, list(items, list_start)));
            }
            let colon = line.find(':')?;
            let (key, after) = (&line[..colon], &line[colon + 1..]);
            if !word(key, false) || key.contains(' ') || keys.contains(&key) || keys.len() == MAX_KEYS {
                return None;
            }
            keys.push(key);
            let key_node = scalar(key, line_start);
            if after.trim().is_empty() {
                pending = Some((key_node, Vec::new(), 0, 0));
                continue;
            }
            if !after.starts_with(' ') {
                return None;
            }
            let lead = after.len() - after.trim_start().len();
            let value = after.trim();
            let value_start = line_start + colon + 1 + lead;
            let node = if let Some(inner) = value.strip_prefix('[') {
                let inner = inner.strip_suffix(']')?;
                let mut items = Vec::new();
                if !inner.trim().is_empty() {
                    let mut item_offset = value_start + 1;
                    for raw in inner.split(',') {
                        let lead = raw.len() - raw.trim_start().len();
                        let item = raw.trim();
                        if !word(item, true) {
                            return None;
                        }
                        items.push(scalar(item, item_offset + lead));
                        item_offset += raw.len() + 1;
                    }
                }
                list(items, value_start)
            } else {
                if !word(value, false) {
                    return None;
                }
                scalar(value, value_start)
            };
            entries.push((key_node, node));
        }
        if let Some((key, items, list_start, _)) = pending.take() {
            if items.is_empty() {
                return None;
            }
            entries.push((key, list(items, list_start)));
        }
        // The full parser marks a block mapping where its first key ends.
        let start = entries.first()?.0.end;
        let end = entries
            .iter()
            .map(|(_, v)| v.end)
            .max()
            .unwrap_or(start + 1)
            .max(start + 1);
        Some(Node {
            value: Value::Map(entries),
            start,
            end,
        })
    }
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

/// yaml-rust2 markers count characters; spans are bytes. ASCII text (the usual case) maps
/// one to one; otherwise a table built once keeps each lookup O(1).
enum CharOffsets {
    Ascii(usize),
    Table(Vec<usize>),
}

impl CharOffsets {
    fn new(text: &str) -> Self {
        if text.is_ascii() {
            CharOffsets::Ascii(text.len())
        } else {
            let mut table: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            table.push(text.len());
            CharOffsets::Table(table)
        }
    }

    fn byte(&self, chars: usize) -> usize {
        match self {
            CharOffsets::Ascii(len) => chars.min(*len),
            CharOffsets::Table(table) => table.get(chars).copied().unwrap_or(*table.last().unwrap_or(&0)),
        }
    }
}

/// A collection being built: the node, its anchor, the weight of what it holds so far
/// (see [`weight`]) and, for a mapping, the key waiting for its value and the index of
/// every key seen.
enum Frame {
    List(Node, usize, usize),
    Map(Node, usize, usize, Option<Node>, HashMap<String, usize>),
}

/// What a scalar adds to an alias expansion: one, plus one per 64 bytes of text.
fn weight(text: &str) -> usize {
    1 + text.len() / 64
}

/// A key as a hashable string; two keys are duplicates when these are equal (`1` and `"1"`
/// differ, as in YAML).
fn key_repr(value: &Value) -> String {
    match value {
        Value::Null => "n".to_owned(),
        Value::Bool(b) => format!("b{b}"),
        Value::Int(i) => format!("i{i}"),
        Value::Float(f) => format!("f{}", f.to_bits()),
        Value::String(s) => format!("s{s}"),
        Value::List(_) | Value::Map(_) => format!("c{}", value.to_json()),
    }
}

struct TreeBuilder<'a> {
    base: usize,
    yaml: &'a str,
    char_offsets: CharOffsets,
    stack: Vec<Frame>,
    /// Each anchor's node and weight.
    anchors: HashMap<usize, (Node, usize)>,
    root: Option<Node>,
    /// The first duplicate key: reported after parsing, so a syntax error wins.
    error: Option<YamlError>,
    /// A limit was hit: parsing stops.
    fatal: Option<YamlError>,
    limits: YamlLimits,
    /// The weight aliases copied so far.
    expanded: usize,
}

impl TreeBuilder<'_> {
    fn offset(&self, mark: Marker) -> usize {
        self.base + self.char_offsets.byte(mark.index())
    }

    fn finish(&mut self, node: Node, anchor: usize, weight: usize) {
        if anchor > 0 {
            self.anchors.insert(anchor, (node.clone(), weight));
        }
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Frame::List(list, _, total)) => {
                *total += weight;
                list.end = list.end.max(node.end);
                if let Value::List(items) = &mut list.value {
                    items.push(node);
                }
            }
            Some(Frame::Map(map, _, total, key, seen)) => {
                *total += weight;
                match key.take() {
                    None => *key = Some(node),
                    Some(k) => {
                        map.end = map.end.max(node.end);
                        if let Value::Map(entries) = &mut map.value {
                            match seen.entry(key_repr(&k.value)) {
                                std::collections::hash_map::Entry::Occupied(first) => {
                                    let first = &entries[*first.get()].0;
                                    if self.error.is_none() {
                                        self.error = Some(YamlError {
                                            offset: k.start,
                                            end: k.end,
                                            message: messages::duplicated_mapping_key(&k.value.key_string()),
                                            related: Some((
                                                first.start,
                                                first.end,
                                                messages::FIRST_DEFINED_HERE.to_owned(),
                                            )),
                                            limit: None,
                                        });
                                    }
                                }
                                std::collections::hash_map::Entry::Vacant(slot) => {
                                    slot.insert(entries.len());
                                }
                            }
                            entries.push((k, node));
                        }
                    }
                }
            }
        }
    }

    /// Opens a collection, unless it nests too deep.
    fn open(&mut self, frame: Frame, start: usize) {
        if self.stack.len() >= self.limits.max_depth {
            self.fatal = Some(YamlError {
                offset: start,
                end: start + 1,
                message: messages::yaml_too_deep(self.limits.max_depth),
                related: None,
                limit: Some("maxYamlDepth"),
            });
            return;
        }
        self.stack.push(frame);
    }
}

impl MarkedEventReceiver for TreeBuilder<'_> {
    fn on_event(&mut self, event: Event, mark: Marker) {
        let start = self.offset(mark);
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                let quoted = !matches!(style, TScalarStyle::Plain);
                let len = if matches!(style, TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted) {
                    text.len() + 2
                } else {
                    text.len()
                };
                let line_end = self.yaml[(start - self.base).min(self.yaml.len())..]
                    .find('\n')
                    .map_or(self.base + self.yaml.len(), |i| start + i);
                let end = (start + len).min(line_end).max(start);
                let is_str_tag = tag
                    .as_ref()
                    .is_some_and(|t| t.suffix == "str" || t.suffix.ends_with(":str"));
                let weight = weight(&text);
                let value = if quoted || is_str_tag {
                    Value::String(text)
                } else {
                    resolve_plain(text)
                };
                self.finish(Node { value, start, end }, anchor, weight);
            }
            Event::SequenceStart(anchor, _) => {
                let node = Node {
                    value: Value::List(Vec::new()),
                    start,
                    end: start + 1,
                };
                self.open(Frame::List(node, anchor, 1), start);
            }
            Event::MappingStart(anchor, _) => {
                let node = Node {
                    value: Value::Map(Vec::new()),
                    start,
                    end: start + 1,
                };
                self.open(Frame::Map(node, anchor, 1, None, HashMap::new()), start);
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some(frame) = self.stack.pop() {
                    let (node, anchor, weight) = match frame {
                        Frame::List(node, anchor, weight) | Frame::Map(node, anchor, weight, _, _) => {
                            (node, anchor, weight)
                        }
                    };
                    self.finish(node, anchor, weight);
                }
            }
            Event::Alias(id) => {
                let weight = self.anchors.get(&id).map_or(1, |(_, w)| *w);
                self.expanded = self.expanded.saturating_add(weight);
                if self.expanded > self.limits.max_alias_expansion {
                    self.fatal = Some(YamlError {
                        offset: start,
                        end: start + 1,
                        message: messages::yaml_alias_expansion(self.limits.max_alias_expansion),
                        related: None,
                        limit: Some("maxYamlAliasExpansion"),
                    });
                    return;
                }
                let node = self.anchors.get(&id).map_or(
                    Node {
                        value: Value::Null,
                        start,
                        end: start,
                    },
                    |(n, _)| Node {
                        start,
                        end: start + 1,
                        ..n.clone()
                    },
                );
                self.finish(node, 0, weight);
            }
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentStart | Event::DocumentEnd => {}
        }
    }
}

/// Resolves a plain scalar with the YAML 1.2 core schema (as js-yaml's default schema does
/// for these forms).
fn resolve_plain(text: String) -> Value {
    match text.as_str() {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Value::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Value::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Value::Float(f64::NAN),
        _ => {}
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(&text);
    if !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && let Ok(i) = text.parse::<i64>()
    {
        return Value::Int(i);
    }
    if let Some(hex) = text.strip_prefix("0x")
        && let Ok(i) = i64::from_str_radix(hex, 16)
    {
        return Value::Int(i);
    }
    if let Some(oct) = text.strip_prefix("0o")
        && let Ok(i) = i64::from_str_radix(oct, 8)
    {
        return Value::Int(i);
    }
    let is_float = {
        let (mantissa, exponent) = match digits.find(['e', 'E']) {
            Some(i) => (&digits[..i], Some(&digits[i + 1..])),
            None => (digits, None),
        };
        let mantissa_ok = !mantissa.is_empty()
            && mantissa != "."
            && mantissa.bytes().filter(|&b| b == b'.').count() <= 1
            && mantissa.bytes().all(|b| b.is_ascii_digit() || b == b'.');
        let exponent_ok = exponent.is_none_or(|e| {
            let e = e.strip_prefix(['-', '+']).unwrap_or(e);
            !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit())
        });
        mantissa_ok && exponent_ok && (mantissa.contains('.') || exponent.is_some())
    };
    if is_float && let Ok(f) = text.parse::<f64>() {
        return Value::Float(f);
    }
    Value::String(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(text: &str) -> &str {
        &text[split(text).body_start..]
    }

    #[test]
    fn unopened_frontmatter_only_for_key_lines_closed_by_dashes() {
        let text = "name: a\ndescription: b\ntoolsets:\n  - x\n---\nBody\n";
        let s = unopened(text).expect("key lines closed by ---");
        assert_eq!(
            &text[s.matter.clone().unwrap()],
            "name: a\ndescription: b\ntoolsets:\n  - x"
        );
        assert_eq!(&text[s.body_start..], "Body\n");
        // Prose whose first line holds a colon, a horizontal rule with nothing above it,
        // a heading first: not a frontmatter. (A file of these kinds without a frontmatter
        // is an error either way: this only chooses which error explains it.)
        assert!(unopened("Read this first: the rules.\n---\nMore\n").is_none());
        assert!(unopened("---\nname: a\n---\n").is_none());
        assert!(unopened("# Title\nname: a\n---\n").is_none());
        assert!(unopened("name: a\ndescription: b\n").is_none());
    }

    #[test]
    fn unclosed_brackets_are_found_only_in_values() {
        assert_eq!(
            unclosed_flow("name: a\ntoolsets: [x, y\ndescription: d\n"),
            Some((18, '['))
        );
        assert_eq!(unclosed_flow("m: {a: 1\n"), Some((3, '{')));
        // Closed across lines, inside quotes, inside plain text or a block scalar: fine.
        assert_eq!(unclosed_flow("toolsets: [x,\n  y]\n"), None);
        assert_eq!(unclosed_flow("description: \"see [1\"\n"), None);
        assert_eq!(unclosed_flow("description: see [1 and more\n"), None);
        assert_eq!(unclosed_flow("description: |\n  a [ b\nname: a\n"), None);
        assert_eq!(unclosed_flow("# a [ comment\nname: a\n"), None);
        // The wrong closing bracket.
        assert_eq!(unclosed_flow("t: [a}\n"), Some((3, '[')));
    }

    #[test]
    fn a_colon_in_a_plain_value_is_quoted_in_the_hint() {
        let text = "name: w\ndescription: Writes reports: weekly # note\n";
        let colon = text.find("s: w").unwrap() + 1;
        let Some(Cause::ColonInValue { key, quoted, .. }) = colon_in_value(text, colon) else {
            panic!("no cause")
        };
        assert_eq!(key, "description");
        assert_eq!(quoted, "description: \"Writes reports: weekly\" # note");
        let text = "description: He said \"go\": now\n";
        let colon = text.find("\": ").unwrap() + 1;
        let Some(Cause::ColonInValue { quoted, .. }) = colon_in_value(text, colon) else {
            panic!("no cause")
        };
        assert_eq!(quoted, "description: 'He said \"go\": now'");
        // A quoted value is not the cause.
        let text = "description: \"a: b\"\n";
        assert!(colon_in_value(text, text.find("a:").unwrap() + 1).is_none());
    }

    #[test]
    fn gray_matter_body_rules() {
        assert_eq!(body("---\nname: a\n---\n\nHello"), "\nHello");
        assert_eq!(body("---\nname: a\n---\nHello\n"), "Hello\n");
        assert_eq!(body("---\r\nname: a\r\n---\r\nLine1\r\nLine2"), "Line1\r\nLine2");
        assert_eq!(body("---\nname: s\ndescription: d\n---"), "");
        assert_eq!(body("no frontmatter"), "no frontmatter");
        assert_eq!(body("----\nname: a\n----\nx"), "----\nname: a\n----\nx");
        assert_eq!(body("\u{feff}---\nname: a\n---\nx"), "x");
        let s = split("---\nname: a\n");
        assert!(s.unclosed);
        assert_eq!(body("---\nname: a\n"), "");
    }

    #[test]
    fn matter_range_keeps_file_lines() {
        let text = "---\nname: a\n---\nbody";
        let s = split(text);
        assert_eq!(&text[s.matter.unwrap()], "\nname: a");
    }

    #[test]
    fn language_after_opening_delimiter() {
        let text = "---toml\nname = 'a'\n---\nbody";
        let s = split(text);
        assert_eq!(&text[s.language.unwrap()], "toml");
        assert_eq!(body(text), "body");
    }

    #[test]
    fn yaml_positions_and_types() {
        let text = "---\nname: héllo\ncount: 12\nlist: [a, 'b']\nf: 1.5\nn: ~\n---\n";
        let s = split(text);
        let node = parse_yaml(text, s.matter.unwrap(), &YamlLimits::default()).unwrap();
        let Value::Map(entries) = node.value else { panic!() };
        assert_eq!(entries[0].1.value, Value::String("héllo".into()));
        assert_eq!(&text[entries[0].1.start..entries[0].1.end], "héllo");
        assert_eq!(entries[1].1.value, Value::Int(12));
        assert_eq!(&text[entries[1].0.start..entries[1].0.end], "count");
        let Value::List(items) = &entries[2].1.value else {
            panic!()
        };
        assert_eq!(&text[items[1].start..items[1].end], "'b'");
        assert_eq!(entries[3].1.value, Value::Float(1.5));
        assert_eq!(entries[4].1.value, Value::Null);
    }

    #[test]
    fn yaml_errors_have_offsets() {
        let text = "---\nname: a\nbad: [x\n---\n";
        let s = split(text);
        let err = parse_yaml(text, s.matter.unwrap(), &YamlLimits::default()).unwrap_err();
        assert!(err.offset > 4, "{err:?}");
        let dup = "---\nname: a\nname: b\n---\n";
        let err = parse_yaml(dup, split(dup).matter.unwrap(), &YamlLimits::default()).unwrap_err();
        assert_eq!(&dup[err.offset..err.end], "name");
        assert_eq!(err.offset, 12, "the second `name`, line 3");
    }

    #[test]
    fn the_simple_reader_leaves_other_whitespace_to_the_full_parser() {
        // Found by `cargo fuzz` (frontmatter): a form feed that `str::trim` dropped.
        for text in [
            "---\nname: main\nskills: [researc\u{c}]\n---\nbody\n",
            "---\nname: main\u{a0}\nskills: [a\u{2028}]\n---\nbody\n",
            "---\nname: \u{85}main\n---\n",
        ] {
            check_simple_reader(text);
        }
    }

    #[test]
    fn the_simple_reader_builds_what_the_full_parser_builds() {
        let limits = crate::Limits::default().yaml();
        let words = [
            "skill-00001",
            "Finds things",
            "a b c",
            "v1.2",
            "dataAnalysis",
            "x",
            "C++ tips",
            "é ü",
            "50% off",
            "a:b",
            "a#b",
            "http://x.y/z",
            "tool0x3",
            "yes",
            "no",
            "on",
            "1.2.3",
            "nullable",
            "Trueish",
            "falsehood",
            "e5",
            "E",
            "Nan",
            "inf",
        ];
        let not_simple = [
            "true", "null", "True", "FALSE", "Null", "NULL", "12", "1e3", "~", "'q'", "\"q\"", "a: b", "a #c", "-x",
            "[x", "{x}", "&a", "*a", "!t", "|", ">", "@x", "`x", "%x", "x:", "", " lead",
        ];
        let mut docs: Vec<String> = Vec::new();
        for (i, w) in words.iter().chain(&not_simple).enumerate() {
            let other = words[i % words.len()];
            docs.push(format!("name: {w}\ndescription: {other}\n"));
            docs.push(format!("name: n\ntoolsets: [{w}, {other}]\n"));
            docs.push(format!("name: n\ntoolsets: [ {w} ,{other}  ]\ndescription: d\n"));
            docs.push(format!("tools:\n  - {w}\n  - {other}\nname: x\n"));
            docs.push(format!("tools:\n- {w}\n- {other}\n"));
            docs.push(format!("tools:\n    -   {w}   \n\n    - {other}\n"));
            docs.push(format!("{w}: value\n"));
            docs.push(format!("name:   {w}   \n"));
        }
        for doc in [
            "name: a\nname: b\n",
            "tools:\n",
            "tools: []\nx: y\n",
            "a: [b,]\n",
            "a: [,b]\n",
            "a:b\n",
            "a: b\n  c\n",
            "tools:\n  - a\n   - b\n",
            "a: b # c\n",
            "# c\na: b\n",
            "a: b\r\n",
            "a:\tb\n",
            "tools:\n  - a\nb: c\n  - d\n",
            "k: [a, [b]]\n",
            "k: x\n-  y\n",
            " a: b\n",
        ] {
            docs.push(doc.to_owned());
        }
        // More keys than the simple reader takes.
        docs.push((0..40).fold(String::new(), |doc, i| doc + &format!("key{i}: value {i}\n")));
        let mut simple_count = 0;
        for doc in &docs {
            let text = format!("---\n{doc}---\nbody\n");
            let range = 4..4 + doc.len();
            let full = super::parse_full(&text, range.clone(), &limits);
            if let Some(fast) = super::simple::parse(&text[range], 4) {
                simple_count += 1;
                assert_eq!(Ok(fast), full, "{doc:?}");
            }
        }
        assert!(simple_count > 100, "{simple_count} of {} read simply", docs.len());
    }

    #[test]
    fn plain_scalars() {
        assert_eq!(resolve_plain("yes".into()), Value::String("yes".into()));
        assert_eq!(resolve_plain("-3".into()), Value::Int(-3));
        assert_eq!(resolve_plain("1e3".into()), Value::Float(1000.0));
        assert_eq!(resolve_plain("1.2.3".into()), Value::String("1.2.3".into()));
        assert_eq!(resolve_plain("v1".into()), Value::String("v1".into()));
    }
}
