//! The frontmatter most files have, read without the YAML machinery (at a thousand skills
//! the full parser was most of a build script's time at opt-level 0): top-level
//! `key: value` lines whose values are plain words, flow lists of plain words
//! (`toolsets: [a, b]`) or block lists of them (`- a`). Anything else (quotes, comments,
//! nesting, anchors, continuation lines, tabs, CR, duplicate keys, a value that is not a
//! string) is left to the full parser. The tree, spans included, is what the full parser
//! builds: a test compares the two on every shape this accepts.

use super::tree::resolve_plain;
use super::{Node, Value};

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
