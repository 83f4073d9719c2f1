//! Diagnostics rendered as source snippets, like rustc's (codespan-reporting).

use std::path::Path;

use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term;

use super::{Diagnostic, Severity, printable};
use crate::messages;
use crate::source::Sources;

/// A snippet's source text with each control character but line breaks and tabs replaced
/// by as many `?` as it has bytes, so byte ranges still point at the same text.
fn printable_source(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .chars()
        .any(|c| messages::is_control(c) && !matches!(c, '\n' | '\t' | '\r'))
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if messages::is_control(c) && !matches!(c, '\n' | '\t' | '\r') {
            out.extend(std::iter::repeat_n('?', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Renders diagnostics as source snippets, like rustc.
pub(crate) fn render(diagnostics: &[Diagnostic], sources: &Sources, color: bool) -> String {
    // Only the files a diagnostic points into, each once, found by path in O(1): a check
    // reads thousands of files and usually reports on none of them.
    let wanted: std::collections::HashSet<&Path> = diagnostics
        .iter()
        .flat_map(|d| {
            d.location
                .iter()
                .map(|l| l.path.as_path())
                .chain(d.related.iter().map(|r| r.location.path.as_path()))
        })
        .collect();
    let mut files = SimpleFiles::new();
    let mut ids: std::collections::HashMap<&Path, usize> = std::collections::HashMap::new();
    for file in sources.iter() {
        if wanted.contains(file.display.as_path()) && !ids.contains_key(file.display.as_path()) {
            let id = files.add(
                printable(file.display.to_string_lossy().into_owned()),
                printable_source(&file.text).into_owned(),
            );
            ids.insert(file.display.as_path(), id);
        }
    }
    let file_of = |path: &Path| ids.get(path).copied();
    let config = term::Config::default();
    let mut buffer = term::termcolor::Buffer::no_color();
    let mut colored = term::termcolor::Buffer::ansi();
    for d in diagnostics {
        let severity = match d.severity() {
            Severity::Error => cs::Severity::Error,
            Severity::Warning => cs::Severity::Warning,
        };
        let mut out = cs::Diagnostic::new(severity)
            .with_code(d.code.as_str())
            .with_message(&d.message);
        let mut labels = Vec::new();
        let mut notes = Vec::new();
        match (
            &d.location,
            d.file.and_then(|_| d.location.as_ref().and_then(|l| file_of(&l.path))),
        ) {
            (Some(location), Some(id)) => {
                labels.push(
                    cs::Label::primary(id, location.range.clone()).with_message(d.label.clone().unwrap_or_default()),
                );
            }
            (Some(location), None) => notes.push(format!("at {location}")),
            (None, _) => {}
        }
        for r in &d.related {
            match file_of(&r.location.path) {
                Some(id) => labels.push(cs::Label::secondary(id, r.location.range.clone()).with_message(&r.message)),
                None => notes.push(format!("{}: {}", r.location, r.message)),
            }
        }
        notes.extend(d.help.iter().map(|h| format!("help: {h}")));
        notes.extend(d.notes.iter().map(|n| format!("note: {n}")));
        out = out.with_labels(labels).with_notes(notes);
        let result = if color {
            term::emit_to_write_style(&mut colored, &config, &files, &out)
        } else {
            term::emit_to_write_style(&mut buffer, &config, &files, &out)
        };
        if let Err(e) = result {
            // Rendering only fails on a span outside its file: fall back to the plain form.
            let target = if color { &mut colored } else { &mut buffer };
            let _ = std::io::Write::write_fmt(target, format_args!("{d} ({e})\n"));
        }
    }
    let bytes = if color {
        colored.into_inner()
    } else {
        buffer.into_inner()
    };
    String::from_utf8_lossy(&bytes).into_owned()
}
