//! Reading a markdown file's frontmatter: [`parse_document`] splits the file and parses
//! its YAML (explaining syntax errors), and [`Document`] hands out its keys as typed,
//! spanned values, reporting missing keys and wrong types so the entity parsers keep going.

use super::Spanned;
use crate::diagnostic::{Builder, Code, Diagnostics};
use crate::fields::{Table, Type};
use crate::frontmatter::{self, Node, Value};
use crate::limits::YamlLimits;
use crate::messages;
use crate::source::{FileId, Sources, Span};

/// A parsed markdown file: its frontmatter mapping and its body.
pub(crate) struct Document<'a> {
    file: FileId,
    /// The fields this kind of file has: only these are read.
    table: &'static Table,
    entries: Vec<(Node, Node)>,
    used: Vec<bool>,
    pub(crate) body: String,
    whole: Span,
    sources: &'a Sources,
    has_frontmatter: bool,
    /// Whether the file's missing frontmatter was reported (once for every missing key).
    reported_no_frontmatter: bool,
}

/// Splits and parses a markdown file; reports YAML problems. `None` when the frontmatter
/// cannot be parsed at all.
pub(crate) fn parse_document<'a>(
    file: FileId,
    table: &'static Table,
    sources: &'a Sources,
    yaml: &YamlLimits,
    diags: &mut Diagnostics,
) -> Option<Document<'a>> {
    let text = &sources.get(file).text;
    let mut split = frontmatter::split(text);
    if split.matter.is_none()
        && let Some(unopened) = frontmatter::unopened(text)
    {
        // Read as the frontmatter it was meant to be: the entity is known and this is
        // the file's one error, not one per required key.
        let first = unopened.matter.clone().unwrap_or_default();
        let first_line = text[first.clone()].lines().next().unwrap_or_default().trim_end();
        diags.push(
            Builder::new(Code::UnopenedFrontmatter, messages::UNOPENED_FRONTMATTER)
                .at(Span::new(file, first.start, first.start + first_line.len()))
                .label(messages::FRONTMATTER_STARTS_HERE)
                .help(messages::add_opening_line(first_line)),
        );
        split = unopened;
    }
    let body = text[split.body_start..].to_owned();
    let whole = Span::file_start(file);
    let Some(matter) = split.matter.clone() else {
        return Some(Document {
            file,
            table,
            entries: Vec::new(),
            used: Vec::new(),
            body,
            whole,
            sources,
            has_frontmatter: false,
            reported_no_frontmatter: false,
        });
    };
    if let Some(lang) = split.language.clone() {
        let name = &text[lang.clone()];
        if !matches!(name, "yaml" | "yml") {
            diags.push(
                Builder::new(Code::UnsupportedFrontmatter, messages::unsupported_frontmatter(name))
                    .at(Span::new(file, lang.start, lang.end))
                    .label(messages::ONLY_YAML)
                    .help(messages::WRITE_YAML),
            );
            return None;
        }
    }
    if split.unclosed {
        diags.push(
            Builder::new(Code::UnclosedFrontmatter, messages::UNCLOSED_FRONTMATTER)
                .at(Span::new(file, 0, 3))
                .label(messages::OPENED_HERE)
                .help(messages::CLOSE_FRONTMATTER),
        );
    }
    match frontmatter::parse_yaml(text, matter.clone(), yaml) {
        Ok(node) => match node.value {
            Value::Map(entries) => {
                let used = vec![false; entries.len()];
                Some(Document {
                    file,
                    table,
                    entries,
                    used,
                    body,
                    whole,
                    sources,
                    has_frontmatter: true,
                    reported_no_frontmatter: false,
                })
            }
            other => {
                diags.push(
                    Builder::new(Code::WrongType, messages::frontmatter_not_a_mapping(other.kind()))
                        .at(Span::new(file, node.start, node.end))
                        .label(messages::EXPECTED_KEY_VALUE_LINES),
                );
                None
            }
        },
        Err(e) => {
            let at = Span::new(file, e.offset, e.end.max(e.offset + 1).min(matter.end.max(e.offset)));
            if let Some(cause) = frontmatter::cause(text, matter.clone(), &e) {
                diags.push(explain_yaml_error(cause, file, at, &e.message));
                return None;
            }
            let mut b = match e.limit {
                Some(key) => Builder::new(Code::LimitExceeded, e.message)
                    .at(at)
                    .label(if key == "maxYamlDepth" {
                        messages::TOO_DEEP
                    } else {
                        messages::THIS_ALIAS
                    })
                    .help(messages::raise_limit(key)),
                None => Builder::new(Code::YamlSyntax, messages::invalid_yaml(&e.message)).at(at),
            };
            if let Some((start, end, message)) = e.related {
                b = b.related(Span::new(file, start, end), message);
            }
            diags.push(b);
            None
        }
    }
}

/// The diagnostic for a YAML error whose likelier cause [`frontmatter::cause`] found: at
/// the cause, with the parser's own position and words as a secondary label.
fn explain_yaml_error(cause: frontmatter::Cause, file: FileId, parser_at: Span, parser_says: &str) -> Builder {
    match cause {
        frontmatter::Cause::UnclosedFlow { open, bracket } => {
            Builder::new(Code::YamlSyntax, messages::unclosed_flow(bracket))
                .at(Span::new(file, open, open + 1))
                .label(messages::never_closed(bracket))
                .related(parser_at, messages::parser_stopped_here(parser_says))
                .help(messages::close_flow(bracket))
        }
        frontmatter::Cause::ColonInValue { key, colon, quoted } => {
            Builder::new(Code::YamlSyntax, messages::colon_in_value(&key))
                .at(Span::new(file, colon, colon + 1))
                .label(messages::COLON_STARTS_A_KEY)
                .help(messages::quote_the_value(&quoted))
        }
    }
}

impl Document<'_> {
    pub(super) fn span(&self, node: &Node) -> Span {
        Span::new(self.file, node.start, node.end)
    }

    /// The entry `key`, marked used. `ty` is the type the caller reads it as (none for a
    /// value it inspects itself): a key its file's table lacks, or gives another type, is a
    /// bug in the parser or the table, caught by every test that parses a file.
    fn take(&mut self, key: &str, ty: Option<Type>) -> Option<(Node, Node)> {
        let field = self.table.field(key);
        debug_assert!(
            field.is_some(),
            "the parser reads `{key}` from {}, which crate::fields::{} lacks",
            self.table.place,
            self.table.title
        );
        debug_assert!(
            ty.is_none() || field.map(|f| f.ty) == ty,
            "the parser reads `{key}` of {} as {ty:?}, crate::fields says {:?}",
            self.table.title,
            field.map(|f| f.ty)
        );
        let index = self
            .entries
            .iter()
            .position(|(k, _)| matches!(&k.value, Value::String(s) if s == key))?;
        self.used[index] = true;
        let (k, v) = &self.entries[index];
        Some((k.clone(), v.clone()))
    }

    fn missing(&mut self, kind: &str, key: &str, diags: &mut Diagnostics) {
        if !self.has_frontmatter {
            // One error for the one cause, not one per required key.
            if !std::mem::replace(&mut self.reported_no_frontmatter, true) {
                diags.push(
                    Builder::new(Code::MissingField, messages::no_frontmatter(kind))
                        .at(self.whole)
                        .help(messages::START_WITH_FRONTMATTER),
                );
            }
            return;
        }
        let mut b = Builder::new(Code::MissingField, messages::missing_field(kind, key)).at(self.whole);
        if let Some((first, _)) = self.entries.first() {
            b = b.at(self.span(first)).label(messages::field_is_required(key));
        }
        diags.push(b);
    }

    /// A required non-empty string.
    pub(crate) fn string(&mut self, kind: &str, key: &str, diags: &mut Diagnostics) -> Option<Spanned<String>> {
        let Some((k, v)) = self.take(key, Some(Type::String)) else {
            self.missing(kind, key, diags);
            return None;
        };
        let (vspan, kspan) = (self.span(&v), self.span(&k));
        match v.value {
            Value::String(s) if s.trim().is_empty() => {
                diags.push(
                    Builder::new(Code::EmptyField, messages::empty_field(key))
                        .at(vspan.max_with(kspan))
                        .label(messages::MUST_NOT_BE_EMPTY),
                );
                None
            }
            Value::String(s) => Some(Spanned { value: s, span: vspan }),
            Value::Null => {
                diags.push(
                    Builder::new(Code::EmptyField, messages::empty_field(key))
                        .at(kspan)
                        .label(messages::KEY_HAS_NO_VALUE),
                );
                None
            }
            other => {
                diags.push(wrong_type(key, messages::A_STRING, &other, vspan));
                None
            }
        }
    }

    /// An optional string.
    pub(crate) fn opt_string(&mut self, key: &str, diags: &mut Diagnostics) -> Option<Spanned<String>> {
        let (_, v) = self.take(key, Some(Type::String))?;
        let vspan = self.span(&v);
        match v.value {
            Value::Null => None,
            Value::String(s) => Some(Spanned { value: s, span: vspan }),
            other => {
                diags.push(wrong_type(key, messages::A_STRING, &other, vspan));
                None
            }
        }
    }

    /// An optional list of strings (a missing key or `null` is an empty list).
    pub(crate) fn string_list(&mut self, key: &str, diags: &mut Diagnostics) -> Vec<Spanned<String>> {
        let Some((_, v)) = self.take(key, Some(Type::Strings)) else {
            return Vec::new();
        };
        let span = self.span(&v);
        match v.value {
            Value::Null => Vec::new(),
            Value::List(items) => items
                .into_iter()
                .enumerate()
                .filter_map(|(i, item)| {
                    let span = self.span(&item);
                    match item.value {
                        Value::String(s) if !s.trim().is_empty() => Some(Spanned { value: s, span }),
                        Value::String(_) => {
                            diags.push(
                                Builder::new(Code::EmptyField, messages::empty_field(&messages::item(key, i)))
                                    .at(span)
                                    .label(messages::MUST_BE_A_NAME),
                            );
                            None
                        }
                        other => {
                            diags.push(wrong_type(&messages::item(key, i), messages::A_STRING, &other, span));
                            None
                        }
                    }
                })
                .collect(),
            other => {
                let mut b = wrong_type(key, messages::A_LIST, &other, span);
                if matches!(other, Value::String(_)) {
                    b = b.help(messages::write_a_list(key));
                }
                diags.push(b);
                Vec::new()
            }
        }
    }

    /// An optional mapping, as JSON.
    pub(crate) fn map(&mut self, key: &str, diags: &mut Diagnostics) -> serde_json::Map<String, serde_json::Value> {
        let Some((_, v)) = self.take(key, Some(Type::Mapping)) else {
            return serde_json::Map::new();
        };
        match &v.value {
            Value::Null => serde_json::Map::new(),
            Value::Map(_) => match v.value.to_json() {
                serde_json::Value::Object(map) => map,
                _ => serde_json::Map::new(),
            },
            other => {
                diags.push(wrong_type(key, messages::A_MAPPING, other, self.span(&v)));
                serde_json::Map::new()
            }
        }
    }

    /// Frontmatter keys nobody asked for, as JSON.
    pub(crate) fn extra(&self) -> serde_json::Map<String, serde_json::Value> {
        carnet_manifest::order::object(self.entries.iter().zip(&self.used).filter(|(_, used)| !**used).map(
            |((k, v), _)| {
                let key = match &k.value {
                    Value::String(s) => s.clone(),
                    other => other.to_json().to_string(),
                };
                (key, v.value.to_json())
            },
        ))
    }

    /// Whether the frontmatter has `key` (used or not).
    pub(super) fn has(&self, key: &str) -> bool {
        self.entries
            .iter()
            .any(|(k, _)| matches!(&k.value, Value::String(s) if s == key))
    }

    pub(super) fn raw(&mut self, key: &str) -> Option<(Node, Node)> {
        self.take(key, None)
    }

    pub(crate) fn file(&self) -> FileId {
        self.file
    }

    pub(crate) fn sources(&self) -> &Sources {
        self.sources
    }
}

impl Span {
    pub(crate) fn max_with(self, other: Span) -> Span {
        if self.end > self.start { self } else { other }
    }
}

pub(super) fn wrong_type(key: &str, expected: &str, found: &Value, span: Span) -> Builder {
    Builder::new(Code::WrongType, messages::wrong_type(key, expected, found.kind()))
        .at(span)
        .label(messages::expected(expected))
}

/// The items of the list under `key` (none when the key is absent or null; a non-list is
/// reported).
pub(super) fn list_items(doc: &mut Document<'_>, key: &str, diags: &mut Diagnostics) -> Vec<Node> {
    let Some((_, v)) = doc.raw(key) else {
        return Vec::new();
    };
    let span = doc.span(&v);
    match v.value {
        Value::Null => Vec::new(),
        Value::List(items) => items,
        other => {
            diags.push(wrong_type(key, messages::A_LIST, &other, span));
            Vec::new()
        }
    }
}

/// What an item's string field (`files[0].description`, `tools[1].name`) holds.
pub(super) enum ItemText {
    /// A string with more than blanks in it.
    Text(Spanned<String>),
    /// Blank or null: reported as an empty field.
    Blank,
    /// Of another type: reported as the wrong type.
    WrongType,
    /// Not there: the caller says whether that is an error.
    Missing,
}

/// Reads field `key` of item `i` of the list `list` (the item's `entries`, at `item_span`),
/// reporting a blank value (labelled `blank_label`, when given) or a value of another type.
pub(super) fn item_text(
    doc: &Document<'_>,
    entries: &[(Node, Node)],
    (list, i, item_span): (&str, usize, Span),
    key: &str,
    blank_label: Option<&str>,
    diags: &mut Diagnostics,
) -> ItemText {
    let Some((_, v)) = entries
        .iter()
        .find(|(k, _)| matches!(&k.value, Value::String(s) if s == key))
    else {
        return ItemText::Missing;
    };
    match &v.value {
        Value::String(s) if !s.trim().is_empty() => ItemText::Text(Spanned {
            value: s.clone(),
            span: doc.span(v),
        }),
        Value::String(_) | Value::Null => {
            let mut builder = Builder::new(
                Code::EmptyField,
                messages::empty_field(&messages::item_field(list, i, key)),
            )
            .at(doc.span(v).max_with(item_span));
            if let Some(label) = blank_label {
                builder = builder.label(label);
            }
            diags.push(builder);
            ItemText::Blank
        }
        other => {
            diags.push(wrong_type(
                &messages::item_field(list, i, key),
                messages::A_STRING,
                other,
                doc.span(v),
            ));
            ItemText::WrongType
        }
    }
}
