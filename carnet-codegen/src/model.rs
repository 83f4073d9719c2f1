//! The model: agents, skills, toolsets and tools as parsed from their files, with the
//! position of every name so validation can point at it.
//!
//! Parsing is strict about types (`name: 123` is an error, not a coercion) and keeps going
//! after a problem, so one run reports everything. An entity whose `name` cannot be read
//! is dropped after its diagnostic (nothing could reference it); any other problem keeps
//! the entity with the field defaulted, so references to it still resolve.

use crate::diagnostic::{Builder, Code, Diagnostics};
use crate::frontmatter::{self, Node, Value};
use crate::limits::YamlLimits;
use crate::messages;
use crate::source::{FileId, Sources, Span};

/// A value with the span it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Spanned<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

impl Spanned<String> {
    pub(crate) fn as_str(&self) -> &str {
        &self.value
    }
}

#[derive(Debug, Clone)]
pub(crate) struct AgentDef {
    pub(crate) name: Spanned<String>,
    pub(crate) description: String,
    pub(crate) initial_skills: Vec<Spanned<String>>,
    pub(crate) skills: Vec<Spanned<String>>,
    pub(crate) prompt: String,
    pub(crate) extra: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Clone)]
pub(crate) struct FileRef {
    pub(crate) path: Spanned<String>,
    pub(crate) description: String,
}

#[derive(Debug, Clone)]
pub(crate) struct SkillDef {
    pub(crate) file: FileId,
    /// The skill's folder relative to the carnet directory.
    pub(crate) dir: String,
    pub(crate) name: Spanned<String>,
    pub(crate) description: Spanned<String>,
    pub(crate) toolsets: Vec<Spanned<String>>,
    pub(crate) files: Vec<FileRef>,
    pub(crate) content: String,
    pub(crate) license: Option<String>,
    pub(crate) compatibility: Option<Spanned<String>>,
    pub(crate) allowed_tools: Vec<String>,
    pub(crate) metadata: serde_json::Map<String, serde_json::Value>,
    pub(crate) extra: serde_json::Map<String, serde_json::Value>,
    /// A skill a remote toolset's server serves (`Skill::remote`'s JSON).
    pub(crate) remote: Option<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct ToolDecl {
    pub(crate) name: Spanned<String>,
    pub(crate) description: Option<String>,
    /// Documentation from the tool's file beside TOOLSET.md.
    pub(crate) content: String,
    /// A remote tool's pinned listing (`Tool::remote`'s JSON).
    pub(crate) remote: Option<String>,
    /// Whether `description` was written in TOOLSET.md (not taken from a pin).
    pub(crate) description_written: bool,
    /// `title` (MCP's human-readable name).
    pub(crate) title: Option<String>,
    /// `readOnly`, `destructive`, `idempotent`, `openWorld`.
    pub(crate) annotations: carnet_manifest::Annotations,
    /// The `parameters:` block: each named parameter's description, for the binding macro.
    pub(crate) parameters: Vec<(Spanned<String>, String)>,
}

#[derive(Debug, Clone)]
pub(crate) struct ToolsetDef {
    pub(crate) name: Spanned<String>,
    pub(crate) description: String,
    pub(crate) tools: Vec<ToolDecl>,
    pub(crate) content: String,
    /// The `mcp:` block of a remote toolset.
    pub(crate) mcp: Option<crate::remote::McpDef>,
}

#[derive(Debug, Clone)]
pub(crate) struct ToolFile {
    pub(crate) name: Spanned<String>,
    pub(crate) description: String,
    pub(crate) content: String,
}

/// A parsed markdown file: its frontmatter mapping and its body.
pub(crate) struct Document<'a> {
    file: FileId,
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
    fn span(&self, node: &Node) -> Span {
        Span::new(self.file, node.start, node.end)
    }

    fn take(&mut self, key: &str) -> Option<(Node, Node)> {
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
        let Some((k, v)) = self.take(key) else {
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
        let (_, v) = self.take(key)?;
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
        let Some((_, v)) = self.take(key) else {
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
        let Some((_, v)) = self.take(key) else {
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
        self.entries
            .iter()
            .zip(&self.used)
            .filter(|(_, used)| !**used)
            .map(|((k, v), _)| {
                let key = match &k.value {
                    Value::String(s) => s.clone(),
                    other => other.to_json().to_string(),
                };
                (key, v.value.to_json())
            })
            .collect()
    }

    /// Whether the frontmatter has `key` (used or not).
    fn has(&self, key: &str) -> bool {
        self.entries
            .iter()
            .any(|(k, _)| matches!(&k.value, Value::String(s) if s == key))
    }

    fn raw(&mut self, key: &str) -> Option<(Node, Node)> {
        self.take(key)
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

fn wrong_type(key: &str, expected: &str, found: &Value, span: Span) -> Builder {
    Builder::new(Code::WrongType, messages::wrong_type(key, expected, found.kind()))
        .at(span)
        .label(messages::expected(expected))
}

pub(crate) fn parse_agent(
    file: FileId,
    sources: &Sources,
    yaml: &YamlLimits,
    diags: &mut Diagnostics,
) -> Option<AgentDef> {
    let mut doc = parse_document(file, sources, yaml, diags)?;
    let name = doc.string("agent", "name", diags);
    let description = doc.string("agent", "description", diags);
    let initial_skills = doc.string_list("initialSkills", diags);
    let skills = doc.string_list("skills", diags);
    let _ = doc.raw("content"); // overridden by the body, as in TS Carnet
    let extra = doc.extra();
    Some(AgentDef {
        name: name?,
        description: description.map(|d| d.value).unwrap_or_default(),
        initial_skills,
        skills,
        prompt: doc.body,
        extra,
    })
}

pub(crate) fn parse_skill(
    file: FileId,
    dir: &str,
    sources: &Sources,
    yaml: &YamlLimits,
    diags: &mut Diagnostics,
) -> Option<SkillDef> {
    let mut doc = parse_document(file, sources, yaml, diags)?;
    let name = doc.string("skill", "name", diags);
    let description = doc.string("skill", "description", diags);
    let toolsets = doc.string_list("toolsets", diags);
    let files = parse_file_refs(&mut doc, diags);
    let license = doc.opt_string("license", diags).map(|s| s.value);
    let compatibility = doc.opt_string("compatibility", diags);
    let allowed_tools = parse_allowed_tools(&mut doc, diags);
    let metadata = doc.map("metadata", diags);
    let _ = doc.raw("content");
    let extra = doc.extra();
    let name = name?;
    Some(SkillDef {
        file,
        dir: dir.to_owned(),
        description: description.unwrap_or(Spanned {
            value: String::new(),
            span: name.span,
        }),
        name,
        toolsets,
        files,
        content: doc.body,
        license,
        compatibility,
        allowed_tools,
        metadata,
        extra,
        remote: None,
    })
}

/// Agent Skills' `allowed-tools`: a space-separated string; a list is accepted too.
fn parse_allowed_tools(doc: &mut Document<'_>, diags: &mut Diagnostics) -> Vec<String> {
    let Some((_, v)) = doc.raw("allowed-tools") else {
        return Vec::new();
    };
    let span = doc.span(&v);
    match v.value {
        Value::Null => Vec::new(),
        Value::String(s) => s.split_whitespace().map(str::to_owned).collect(),
        Value::List(items) => {
            let mut out = Vec::new();
            for item in items {
                let item_span = doc.span(&item);
                match item.value {
                    Value::String(s) => out.push(s),
                    other => diags.push(wrong_type("allowed-tools", messages::A_STRING, &other, item_span)),
                }
            }
            out
        }
        other => {
            diags.push(wrong_type("allowed-tools", messages::A_STRING, &other, span));
            Vec::new()
        }
    }
}

/// The items of the list under `key` (none when the key is absent or null; a non-list is
/// reported).
fn list_items(doc: &mut Document<'_>, key: &str, diags: &mut Diagnostics) -> Vec<Node> {
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

fn parse_file_refs(doc: &mut Document<'_>, diags: &mut Diagnostics) -> Vec<FileRef> {
    let items = list_items(doc, "files", diags);
    let mut refs = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let span = doc.span(&item);
        let Value::Map(entries) = item.value else {
            diags.push(
                wrong_type(&messages::item("files", i), messages::A_MAPPING, &item.value, span)
                    .help(messages::FILE_ENTRY_FORM),
            );
            continue;
        };
        let get = |key: &str| {
            entries
                .iter()
                .find(|(k, _)| matches!(&k.value, Value::String(s) if s == key))
        };
        let path = match get("path") {
            Some((
                _,
                Node {
                    value: Value::String(s),
                    start,
                    end,
                },
            )) if !s.is_empty() => Some(Spanned {
                value: s.clone(),
                span: Span::new(doc.file(), *start, *end),
            }),
            Some((_, v)) => {
                diags.push(wrong_type(
                    &messages::item_field("files", i, "path"),
                    messages::A_NON_EMPTY_STRING,
                    &v.value,
                    doc.span(v),
                ));
                None
            }
            None => {
                diags.push(
                    Builder::new(
                        Code::MissingField,
                        messages::missing_item_field(&messages::item("files", i), "path"),
                    )
                    .at(span)
                    .label(messages::field_is_required("path")),
                );
                None
            }
        };
        let description = match get("description") {
            Some((
                _,
                Node {
                    value: Value::String(s),
                    ..
                },
            )) if !s.trim().is_empty() => Some(s.clone()),
            Some((_, v)) if matches!(v.value, Value::String(_) | Value::Null) => {
                diags.push(
                    Builder::new(
                        Code::EmptyField,
                        messages::empty_field(&messages::item_field("files", i, "description")),
                    )
                    .at(doc.span(v).max_with(span))
                    .label(messages::TELL_WHEN_TO_LOAD),
                );
                None
            }
            Some((_, v)) => {
                diags.push(wrong_type(
                    &messages::item_field("files", i, "description"),
                    messages::A_STRING,
                    &v.value,
                    doc.span(v),
                ));
                None
            }
            None => {
                diags.push(
                    Builder::new(
                        Code::MissingField,
                        messages::missing_item_field(&messages::item("files", i), "description"),
                    )
                    .at(span)
                    .label(messages::field_is_required("description"))
                    .help(messages::FILE_DESCRIPTION_PURPOSE),
                );
                None
            }
        };
        if let (Some(path), Some(description)) = (path, description) {
            refs.push(FileRef { path, description });
        }
    }
    refs
}

pub(crate) fn parse_toolset(
    file: FileId,
    sources: &Sources,
    yaml: &YamlLimits,
    diags: &mut Diagnostics,
) -> Option<ToolsetDef> {
    let mut doc = parse_document(file, sources, yaml, diags)?;
    let name = doc.string("toolset", "name", diags);
    let description = doc.string("toolset", "description", diags);
    let tools_listed = doc.has("tools");
    let tools = parse_tool_decls(&mut doc, diags);
    let mut mcp = doc
        .raw("mcp")
        .and_then(|(key, value)| crate::remote::parse_server(&key, &value, file, diags));
    if let Some(mcp) = &mut mcp {
        mcp.skills = doc.string_list("skills", diags);
        mcp.tools_listed = tools_listed;
    }
    let _ = doc.raw("content");
    Some(ToolsetDef {
        name: name?,
        description: description.map(|d| d.value).unwrap_or_default(),
        tools,
        content: doc.body,
        mcp,
    })
}

/// `tools`: names (TS Carnet 0.3.0) or `{name, description}` objects (later TS Carnet).
fn parse_tool_decls(doc: &mut Document<'_>, diags: &mut Diagnostics) -> Vec<ToolDecl> {
    let items = list_items(doc, "tools", diags);
    let mut decls = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let span = doc.span(&item);
        match item.value {
            Value::String(name) if !name.trim().is_empty() => {
                decls.push(ToolDecl {
                    name: Spanned { value: name, span },
                    description: None,
                    content: String::new(),
                    remote: None,
                    description_written: false,
                    title: None,
                    annotations: carnet_manifest::Annotations::NONE,
                    parameters: Vec::new(),
                });
            }
            Value::Map(entries) => {
                let get = |key: &str| {
                    entries
                        .iter()
                        .find(|(k, _)| matches!(&k.value, Value::String(s) if s == key))
                };
                let name = match get("name") {
                    Some((
                        _,
                        Node {
                            value: Value::String(s),
                            start,
                            end,
                        },
                    )) if !s.trim().is_empty() => Some(Spanned {
                        value: s.clone(),
                        span: Span::new(doc.file(), *start, *end),
                    }),
                    Some((_, v)) if matches!(v.value, Value::String(_) | Value::Null) => {
                        diags.push(
                            Builder::new(
                                Code::EmptyField,
                                messages::empty_field(&messages::item_field("tools", i, "name")),
                            )
                            .at(doc.span(v).max_with(span)),
                        );
                        None
                    }
                    Some((_, v)) => {
                        diags.push(wrong_type(
                            &messages::item_field("tools", i, "name"),
                            messages::A_STRING,
                            &v.value,
                            doc.span(v),
                        ));
                        None
                    }
                    None => {
                        diags.push(
                            Builder::new(
                                Code::MissingField,
                                messages::missing_item_field(&messages::item("tools", i), "name"),
                            )
                            .at(span),
                        );
                        None
                    }
                };
                let description = match get("description") {
                    Some((
                        _,
                        Node {
                            value: Value::String(s),
                            ..
                        },
                    )) if !s.trim().is_empty() => Some(s.clone()),
                    None => None,
                    Some((_, v)) if matches!(v.value, Value::String(_) | Value::Null) => {
                        diags.push(
                            Builder::new(
                                Code::EmptyField,
                                messages::empty_field(&messages::item_field("tools", i, "description")),
                            )
                            .at(doc.span(v).max_with(span)),
                        );
                        Some(String::new())
                    }
                    Some((_, v)) => {
                        diags.push(wrong_type(
                            &messages::item_field("tools", i, "description"),
                            messages::A_STRING,
                            &v.value,
                            doc.span(v),
                        ));
                        Some(String::new())
                    }
                };
                let tool_name = name.as_ref().map_or("", |n| n.value.as_str());
                let (title, annotations) = parse_tool_hints(doc, &entries, i, tool_name, diags);
                let parameters = parse_tool_parameters(doc, &entries, i, diags);
                if let Some(name) = name {
                    decls.push(ToolDecl {
                        name,
                        description_written: description.is_some(),
                        description,
                        content: String::new(),
                        remote: None,
                        title,
                        annotations,
                        parameters,
                    });
                }
            }
            Value::String(_) => {
                diags.push(
                    Builder::new(Code::EmptyField, messages::empty_field(&messages::item("tools", i)))
                        .at(span)
                        .label(messages::MUST_BE_A_TOOL_NAME),
                );
            }
            other => diags.push(wrong_type(
                &messages::item("tools", i),
                messages::A_TOOL_NAME_OR_MAPPING,
                &other,
                span,
            )),
        }
    }
    decls
}

/// The keys a tool entry of `TOOLSET.md` takes.
const TOOL_KEYS: [&str; 8] = [
    "name",
    "description",
    "parameters",
    "title",
    "readOnly",
    "destructive",
    "idempotent",
    "openWorld",
];

/// A tool entry's `title` and annotations (`readOnly`, `destructive`, `idempotent`,
/// `openWorld`): strings and booleans, not contradicting each other; other keys are
/// warnings (a misspelt hint would be lost).
fn parse_tool_hints(
    doc: &Document<'_>,
    entries: &[(Node, Node)],
    i: usize,
    tool: &str,
    diags: &mut Diagnostics,
) -> (Option<String>, carnet_manifest::Annotations) {
    let mut title = None;
    let mut hints: [Option<(bool, Span)>; 4] = [None; 4];
    for (key, value) in entries {
        let Value::String(key_name) = &key.value else {
            continue;
        };
        let field = messages::item_field("tools", i, key_name);
        let slot = match key_name.as_str() {
            "name" | "description" | "parameters" => continue,
            "title" => {
                match &value.value {
                    Value::String(s) if !s.trim().is_empty() => title = Some(s.clone()),
                    Value::String(_) | Value::Null => diags.push(
                        Builder::new(Code::EmptyField, messages::empty_field(&field))
                            .at(doc.span(value).max_with(doc.span(key))),
                    ),
                    other => diags.push(wrong_type(&field, messages::A_STRING, other, doc.span(value))),
                }
                continue;
            }
            "readOnly" => 0,
            "destructive" => 1,
            "idempotent" => 2,
            "openWorld" => 3,
            other => {
                diags.push(
                    Builder::new(Code::UnknownToolKey, messages::unknown_tool_key(other, tool))
                        .at(doc.span(key))
                        .help_opt(crate::diagnostic::did_you_mean(other, TOOL_KEYS).map(messages::did_you_mean))
                        .note(messages::TOOL_KEYS),
                );
                continue;
            }
        };
        match &value.value {
            Value::Bool(b) => hints[slot] = Some((*b, doc.span(value))),
            other => diags.push(wrong_type(&field, messages::A_BOOLEAN, other, doc.span(value))),
        }
    }
    if let (Some((true, read_only)), Some((true, destructive))) = (hints[0], hints[1]) {
        diags.push(
            Builder::new(
                Code::ContradictoryAnnotations,
                messages::contradictory_annotations(tool),
            )
            .at(destructive)
            .label(messages::READ_ONLY_CANNOT_DESTROY)
            .related(read_only, messages::READ_ONLY_HERE)
            .help(messages::DROP_ONE_HINT),
        );
    }
    let [read_only, destructive, idempotent, open_world] = hints.map(|h| h.map(|(b, _)| b));
    (
        title,
        carnet_manifest::Annotations::__new(read_only, destructive, idempotent, open_world),
    )
}

/// A tool entry's `parameters:` block: a mapping of parameter names to descriptions, the
/// binding macro's to check against the function and put in the input schema.
fn parse_tool_parameters(
    doc: &Document<'_>,
    entries: &[(Node, Node)],
    i: usize,
    diags: &mut Diagnostics,
) -> Vec<(Spanned<String>, String)> {
    let Some((key, value)) = entries
        .iter()
        .find(|(k, _)| k.value == Value::String("parameters".to_owned()))
    else {
        return Vec::new();
    };
    let field = messages::item_field("tools", i, "parameters");
    let Value::Map(pairs) = &value.value else {
        let span = doc.span(value).max_with(doc.span(key));
        diags.push(wrong_type(&field, messages::A_PARAMETER_MAPPING, &value.value, span));
        return Vec::new();
    };
    let mut parameters = Vec::new();
    for (name, description) in pairs {
        let Value::String(name_text) = &name.value else {
            diags.push(wrong_type(
                &field,
                messages::A_PARAMETER_MAPPING,
                &name.value,
                doc.span(name),
            ));
            continue;
        };
        let entry = format!("{field}.{name_text}");
        match &description.value {
            Value::String(text) if !text.trim().is_empty() => parameters.push((
                Spanned {
                    value: name_text.clone(),
                    span: doc.span(name),
                },
                text.trim().to_owned(),
            )),
            Value::String(_) | Value::Null => diags.push(
                Builder::new(Code::EmptyField, messages::empty_field(&entry))
                    .at(doc.span(description).max_with(doc.span(name))),
            ),
            other => diags.push(wrong_type(&entry, messages::A_STRING, other, doc.span(description))),
        }
    }
    parameters
}

pub(crate) fn parse_tool_file(
    file: FileId,
    sources: &Sources,
    yaml: &YamlLimits,
    diags: &mut Diagnostics,
) -> Option<ToolFile> {
    let mut doc = parse_document(file, sources, yaml, diags)?;
    let name = doc.string("tool", "name", diags);
    let description = doc.string("tool", "description", diags);
    let _ = doc.raw("content");
    debug_assert!(std::ptr::eq(doc.sources(), sources));
    Some(ToolFile {
        name: name?,
        description: description.map(|d| d.value).unwrap_or_default(),
        content: doc.body,
    })
}
