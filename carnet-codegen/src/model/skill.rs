//! Parsing a skill's `SKILL.md`: the Agent Skills fields, `allowed-tools`, and the
//! `files` list of documents the skill can load.

use super::document::{Document, ItemText, item_text, list_items, parse_document, wrong_type};
use super::{FileRef, SkillDef, Spanned};
use crate::diagnostic::{Builder, Code, Diagnostics};
use crate::frontmatter::{Node, Value};
use crate::limits::YamlLimits;
use crate::messages;
use crate::source::{FileId, Sources, Span};

pub(crate) fn parse_skill(
    file: FileId,
    dir: &str,
    sources: &Sources,
    yaml: &YamlLimits,
    diags: &mut Diagnostics,
) -> Option<SkillDef> {
    let mut doc = parse_document(file, &crate::fields::SKILL, sources, yaml, diags)?;
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
        let description = match item_text(
            doc,
            &entries,
            ("files", i, span),
            "description",
            Some(messages::TELL_WHEN_TO_LOAD),
            diags,
        ) {
            ItemText::Text(text) => Some(text.value),
            ItemText::Blank | ItemText::WrongType => None,
            ItemText::Missing => {
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
