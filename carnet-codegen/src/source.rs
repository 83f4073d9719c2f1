//! Source files read by the compiler and spans into them.

use std::path::PathBuf;

use crate::diagnostic::Location;

/// Index of a file in [`Sources`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct FileId(u32);

/// A byte range in one source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Span {
    pub(crate) file: FileId,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

impl Span {
    pub(crate) fn new(file: FileId, start: usize, end: usize) -> Self {
        Span {
            file,
            start,
            end: end.max(start),
        }
    }

    /// An empty span at the start of a file: problems about a whole file.
    pub(crate) fn file_start(file: FileId) -> Self {
        Span { file, start: 0, end: 0 }
    }
}

/// A file read by the compiler.
#[derive(Debug)]
pub(crate) struct SourceFile {
    /// The path shown in diagnostics: the carnet directory joined with `relative`.
    pub(crate) display: PathBuf,
    /// The file's text (empty when it could not be read).
    pub(crate) text: String,
    /// Computed when a position is first needed: most files never need one.
    line_starts: std::sync::OnceLock<Vec<usize>>,
}

/// Every source file read, so diagnostics can show snippets and positions.
#[derive(Debug, Default)]
pub(crate) struct Sources {
    files: Vec<SourceFile>,
}

impl Sources {
    pub(crate) fn add(&mut self, display: PathBuf, text: String) -> FileId {
        self.files.push(SourceFile {
            display,
            text,
            line_starts: std::sync::OnceLock::new(),
        });
        FileId(u32::try_from(self.files.len() - 1).expect("fewer than 4 billion files"))
    }

    pub(crate) fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &SourceFile> {
        self.files.iter()
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub(crate) fn line_col(&self, id: FileId, offset: usize) -> (u32, u32) {
        let file = self.get(id);
        let offset = offset.min(file.text.len());
        let line_starts = file.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(file.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        });
        let line = line_starts.partition_point(|&start| start <= offset) - 1;
        let start = line_starts[line];
        let column = file
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line as u32 + 1, column as u32 + 1)
    }

    pub(crate) fn location(&self, span: Span) -> Location {
        let file = self.get(span.file);
        let end = span.end.min(file.text.len());
        let start = span.start.min(end);
        let (line, column) = self.line_col(span.file, start);
        Location {
            path: file.display.clone(),
            line,
            column,
            range: start..end,
        }
    }

    /// The byte offset of the first occurrence of `needle` at or after `from`, if any.
    pub(crate) fn find(&self, id: FileId, needle: &str, from: usize) -> Option<usize> {
        let text = &self.get(id).text;
        text.get(from..).and_then(|t| t.find(needle)).map(|i| i + from)
    }
}
