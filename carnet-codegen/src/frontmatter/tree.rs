//! The full YAML reader: drives `yaml-rust2`'s event parser and builds the [`Node`] tree
//! with byte spans, bounded by the nesting and alias-expansion limits, reporting duplicate
//! keys, and resolving plain scalars with the YAML 1.2 core schema.

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use std::collections::HashMap;

use super::{Node, Value, YamlError};
use crate::limits::YamlLimits;
use crate::messages;

/// [`parse_yaml`](super::parse_yaml) with the full YAML parser.
pub(super) fn parse_full(text: &str, range: std::ops::Range<usize>, limits: &YamlLimits) -> Result<Node, YamlError> {
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
pub(super) fn resolve_plain(text: String) -> Value {
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
