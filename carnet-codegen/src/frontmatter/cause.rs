//! The plainer cause of a YAML error: what the text shows the author most likely got
//! wrong (an unclosed `[` or `{`, a `: ` inside a plain value), when the parser's own
//! message points elsewhere.

use super::YamlError;

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
pub(super) fn colon_in_value(text: &str, colon: usize) -> Option<Cause> {
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
pub(super) fn unclosed_flow(yaml: &str) -> Option<(usize, char)> {
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
