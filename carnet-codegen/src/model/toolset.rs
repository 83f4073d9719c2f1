//! Parsing a toolset's `TOOLSET.md`: its `tools` list (names or mappings with a title,
//! annotation hints and parameter descriptions) and a remote toolset's `mcp:` block.

use super::document::{Document, ItemText, item_text, list_items, parse_document, wrong_type};
use super::{Spanned, ToolDecl, ToolsetDef};
use crate::diagnostic::{Builder, Code, Diagnostics};
use crate::frontmatter::{Node, Value};
use crate::limits::YamlLimits;
use crate::messages;
use crate::source::{FileId, Sources, Span};

pub(crate) fn parse_toolset(
    file: FileId,
    sources: &Sources,
    yaml: &YamlLimits,
    diags: &mut Diagnostics,
) -> Option<ToolsetDef> {
    let mut doc = parse_document(file, &crate::fields::TOOLSET, sources, yaml, diags)?;
    let name = doc.string("toolset", "name", diags);
    let description = doc.string("toolset", "description", diags);
    let tools_listed = doc.has("tools");
    let tools = parse_tool_decls(&mut doc, diags);
    let mcp = doc.raw("mcp");
    let a2a = doc.raw("a2a");
    if let (Some(_), Some((key, _))) = (&mcp, &a2a) {
        let span = Span::new(file, key.start, key.end);
        diags.push(Builder::new(Code::InvalidMcpServer, messages::MCP_AND_A2A).at(span));
    }
    let remote = match (mcp, a2a) {
        (Some((key, value)), None) => Some((key, value, crate::remote::RemoteProtocol::Mcp)),
        (None, Some((key, value))) => Some((key, value, crate::remote::RemoteProtocol::A2a)),
        _ => None,
    };
    let mut mcp =
        remote.and_then(|(key, value, protocol)| crate::remote::parse_server(&key, &value, file, protocol, diags));
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
                let item = ("tools", i, span);
                let name = match item_text(doc, &entries, item, "name", None, diags) {
                    ItemText::Text(name) => Some(name),
                    ItemText::Blank | ItemText::WrongType => None,
                    ItemText::Missing => {
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
                let description = match item_text(doc, &entries, item, "description", None, diags) {
                    ItemText::Text(description) => Some(description.value),
                    ItemText::Missing => None,
                    ItemText::Blank | ItemText::WrongType => Some(String::new()),
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
        // The keys a tool entry takes are those of its table (crate::fields::TOOL).
        if crate::fields::TOOL.field(key_name).is_none() {
            diags.push(
                Builder::new(Code::UnknownToolKey, messages::unknown_tool_key(key_name, tool))
                    .at(doc.span(key))
                    .help_opt(
                        crate::diagnostic::did_you_mean(key_name, crate::fields::TOOL.keys())
                            .map(messages::did_you_mean),
                    )
                    .note(messages::TOOL_KEYS),
            );
            continue;
        }
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
                debug_assert!(
                    false,
                    "crate::fields::TOOL has `{other}`, which parse_tool_hints does not read"
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
