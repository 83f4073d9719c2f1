//! Diagnostics: every problem found in a carnet directory, with a stable code, its
//! location and a rendering as source snippets (like rustc's).

use std::fmt;
use std::ops::Range;
use std::path::PathBuf;

use crate::messages;
use crate::source::{FileId, Sources, Span};

mod render;

pub(crate) use render::render;

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The content works, but probably not as intended.
    Warning,
    /// The content cannot be compiled.
    Error,
}

impl Severity {
    /// `"error"` or `"warning"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

macro_rules! codes {
    ($($(#[doc = $doc:literal])* $variant:ident = $code:literal, $name:literal, $severity:ident;)*) => {
        /// A stable diagnostic code. Codes never change meaning; `E` codes are errors and
        /// `W` codes warnings.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum Code {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Code {
            /// Every code, in order.
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The code as written in messages (`E0006`).
            #[must_use]
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $code,)* }
            }

            /// A kebab-case name for the code (`unknown-skill`).
            #[must_use]
            pub fn name(self) -> &'static str {
                match self { $(Code::$variant => $name,)* }
            }

            /// The severity of every diagnostic with this code.
            #[must_use]
            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$severity,)* }
            }

            /// What the code means, in one line.
            #[must_use]
            pub fn summary(self) -> &'static str {
                match self { $(Code::$variant => concat!($($doc),*).trim_ascii(),)* }
            }
        }
    };
}

codes! {
    /// The frontmatter is not valid YAML.
    YamlSyntax = "E0001", "yaml-syntax", Error;
    /// A required field is missing.
    MissingField = "E0002", "missing-field", Error;
    /// A required field is empty.
    EmptyField = "E0003", "empty-field", Error;
    /// A field has the wrong type.
    WrongType = "E0004", "wrong-type", Error;
    /// Two entities of the same kind have the same name.
    DuplicateName = "E0005", "duplicate-name", Error;
    /// An agent references a skill that does not exist.
    UnknownSkill = "E0006", "unknown-skill", Error;
    /// A skill references a toolset that does not exist.
    UnknownToolset = "E0007", "unknown-toolset", Error;
    /// `app.globalSkills` or `app.globalInitialSkills` names a skill that does not exist.
    UnknownGlobalSkill = "E0008", "unknown-global-skill", Error;
    /// A toolset declares the same tool twice.
    DuplicateTool = "E0009", "duplicate-tool", Error;
    /// An agent reaches two toolsets declaring a tool of the same name.
    ToolCollision = "E0010", "tool-collision", Error;
    /// A tool is named like a meta-tool.
    ReservedToolName = "E0011", "reserved-tool-name", Error;
    /// A tool name that no provider accepts, even after aliasing.
    InvalidToolName = "E0012", "invalid-tool-name", Error;
    /// Two tools one agent reaches get the same provider alias.
    AliasCollision = "E0013", "alias-collision", Error;
    /// A skill file does not exist.
    FileNotFound = "E0014", "file-not-found", Error;
    /// A skill file cannot be read.
    FileUnreadable = "E0015", "file-unreadable", Error;
    /// A skill file path names a directory.
    FileIsDirectory = "E0016", "file-is-directory", Error;
    /// A skill file path starts with `./`.
    FileDotSlash = "E0017", "file-dot-slash", Error;
    /// A skill file path is absolute.
    FileAbsolute = "E0018", "file-absolute", Error;
    /// A skill file path resolves outside the skill's folder.
    FileOutsideSkill = "E0019", "file-outside-skill", Error;
    /// A symbolic link in a skill's folder leads outside it.
    SymlinkEscape = "E0020", "symlink-escape", Error;
    /// A tool file beside TOOLSET.md describes a tool the toolset does not declare.
    OrphanToolFile = "E0021", "orphan-tool-file", Error;
    /// A tool declared by name has no description (no tool file beside TOOLSET.md).
    ToolWithoutDescription = "E0022", "tool-without-description", Error;
    /// `carnet.config.json` is invalid.
    InvalidConfig = "E0023", "invalid-config", Error;
    /// A content file cannot be read or is not UTF-8.
    UnreadableSource = "E0024", "unreadable-source", Error;
    /// A skill lists the same file twice.
    DuplicateFile = "E0025", "duplicate-file", Error;
    /// The carnet directory does not exist.
    MissingDirectory = "E0026", "missing-directory", Error;
    /// An `include` or `exclude` pattern is invalid.
    InvalidGlob = "E0027", "invalid-glob", Error;
    /// The frontmatter is written in a language other than YAML.
    UnsupportedFrontmatter = "E0028", "unsupported-frontmatter", Error;
    /// A file, the directory or a frontmatter exceeds a limit (file size, bytes read,
    /// number of files, YAML depth or alias expansion); `limits` in `carnet.config.json`
    /// raises them.
    LimitExceeded = "E0029", "limit-exceeded", Error;
    /// A content or skill file is not a regular file (a FIFO, a device, a socket).
    SpecialFile = "E0030", "special-file", Error;
    /// A folder of the carnet directory cannot be read.
    UnreadableDirectory = "E0031", "unreadable-directory", Error;
    /// A name holds a control character.
    ControlCharacter = "E0032", "control-character", Error;
    /// A single-file skill (`skills/foo.md`): Agent Skills needs a folder per skill.
    SingleFileSkill = "E0033", "single-file-skill", Error;
    /// A skill's name has characters a resource URI must percent-encode (MCP clients match
    /// the name to the URI's segment as written).
    SkillNameNotUriSafe = "E0034", "skill-name-not-uri-safe", Error;
    /// Two resources of the MCP server would get the same `skill://` URI.
    ResourceUriCollision = "E0035", "resource-uri-collision", Error;
    /// A toolset's `mcp:` block does not say how to reach its server (`command` or `url`),
    /// or says it with the wrong types.
    InvalidMcpServer = "E0036", "invalid-mcp-server", Error;
    /// A remote toolset has no pin (`mcp.lock.json`): run `carnet mcp pin`.
    MissingPin = "E0037", "missing-pin", Error;
    /// A pin is not what `carnet mcp pin` writes (not JSON, a wrong shape, a digest that
    /// does not match its tools).
    InvalidPin = "E0038", "invalid-pin", Error;
    /// A remote toolset's `tools:` names a tool its server's pin does not have.
    UnknownRemoteTool = "E0039", "unknown-remote-tool", Error;
    /// A remote toolset's `skills:` names a skill its server's pin does not have.
    UnknownRemoteSkill = "E0040", "unknown-remote-skill", Error;
    /// A skill an MCP server serves is an initial skill (its instructions are only read on
    /// load).
    RemoteInitialSkill = "E0041", "remote-initial-skill", Error;
    /// The frontmatter has no opening `---` line (a `---` line below it closes it).
    UnopenedFrontmatter = "E0042", "unopened-frontmatter", Error;
    /// A tool declared read-only and destructive: the hints contradict each other.
    ContradictoryAnnotations = "E0043", "contradictory-annotations", Error;
    /// No agent reaches the skill.
    UnreachableSkill = "W0001", "unreachable-skill", Warning;
    /// No skill uses the toolset.
    UnusedToolset = "W0002", "unused-toolset", Warning;
    /// The skill's name does not follow the Agent Skills rules (a-z, 0-9, `-`, 64 chars).
    SkillNameStyle = "W0003", "skill-name-style", Warning;
    /// A description is longer than the 1024 characters Agent Skills allows.
    LongDescription = "W0004", "long-description", Warning;
    /// A skill's name differs from its folder's name (an Agent Skills rule).
    NameFolderMismatch = "W0005", "name-folder-mismatch", Warning;
    /// A file is very large.
    LargeFile = "W0006", "large-file", Warning;
    /// The frontmatter has no closing `---` line.
    UnclosedFrontmatter = "W0007", "unclosed-frontmatter", Warning;
    /// An agent lists the same skill twice.
    DuplicateReference = "W0008", "duplicate-reference", Warning;
    /// Two names map to the same Rust identifier in the generated code.
    IdentCollision = "W0009", "ident-collision", Warning;
    /// The directory holds no agent.
    NoAgents = "W0010", "no-agents", Warning;
    /// `carnet.config.json` has a key carnet does not know (a typo, most often).
    UnknownConfigKey = "W0011", "unknown-config-key", Warning;
    /// An `include` or `exclude` pattern matches no file.
    UnmatchedPattern = "W0012", "unmatched-pattern", Warning;
    /// `envPrefix` holds the empty prefix: every environment variable reaches the prompts.
    WholeEnvironment = "W0013", "whole-environment", Warning;
    /// A description holds a control character other than tab and line breaks.
    ControlCharacterInText = "W0014", "control-character-in-text", Warning;
    /// A skill's `compatibility` is longer than Agent Skills allows (500 characters).
    LongCompatibility = "W0015", "long-compatibility", Warning;
    /// A key of a tool entry in `TOOLSET.md` that carnet does not read (a misspelt
    /// annotation would silently be lost).
    UnknownToolKey = "W0016", "unknown-tool-key", Warning;
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A place in a content file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file, as given to the compiler (the carnet directory joined with the file's path).
    pub path: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// Byte range in the file.
    pub range: Range<usize>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = printable(self.path.display().to_string());
        write!(f, "{path}:{}:{}", self.line, self.column)
    }
}

/// A secondary place a diagnostic points at (the other site of a collision, say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    /// Where.
    pub location: Location,
    /// What is there.
    pub message: String,
}

/// One problem found in a carnet directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The stable code.
    pub code: Code,
    /// The message: lowercase, no final period, names in backticks.
    pub message: String,
    /// Where the problem is, when it is in a file.
    pub location: Option<Location>,
    /// A label under the primary location.
    pub label: Option<String>,
    /// Other places involved.
    pub related: Vec<Related>,
    /// A suggestion (`did you mean ...`).
    pub help: Option<String>,
    /// Extra context.
    pub notes: Vec<String>,
    file: Option<FileId>,
}

impl Diagnostic {
    /// The diagnostic's severity (that of its code).
    #[must_use]
    pub fn severity(&self) -> Severity {
        self.code.severity()
    }

    /// Whether this is an error.
    #[must_use]
    pub fn is_error(&self) -> bool {
        self.severity() == Severity::Error
    }

    /// The diagnostic as JSON: `{code, name, severity, message, file, line, column, ...}`.
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        let loc = |l: &Location| {
            serde_json::json!({
                "file": l.path.to_string_lossy(),
                "line": l.line,
                "column": l.column,
            })
        };
        serde_json::json!({
            "code": self.code.as_str(),
            "name": self.code.name(),
            "severity": self.severity().as_str(),
            "message": self.message,
            "location": self.location.as_ref().map(loc),
            "label": self.label,
            "related": self.related.iter().map(|r| {
                let mut v = loc(&r.location);
                v["message"] = r.message.clone().into();
                v
            }).collect::<Vec<_>>(),
            "help": self.help,
            "notes": self.notes,
        })
    }
}

impl fmt::Display for Diagnostic {
    /// One line per diagnostic: `path:line:col: error[E0006]: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(location) = &self.location {
            write!(f, "{location}: ")?;
        }
        write!(f, "{}[{}]: {}", self.severity().as_str(), self.code, self.message)?;
        if let Some(help) = &self.help {
            write!(f, " (help: {help})")?;
        }
        Ok(())
    }
}

/// Builds one diagnostic; finished by [`Diagnostics::push`].
#[derive(Debug)]
#[must_use = "a diagnostic is reported only when pushed"]
pub(crate) struct Builder {
    code: Code,
    message: String,
    span: Option<Span>,
    label: Option<String>,
    related: Vec<(Span, String)>,
    help: Option<String>,
    notes: Vec<String>,
}

impl Builder {
    pub(crate) fn new(code: Code, message: impl Into<String>) -> Self {
        Builder {
            code,
            message: message.into(),
            span: None,
            label: None,
            related: Vec::new(),
            help: None,
            notes: Vec::new(),
        }
    }

    pub(crate) fn at(mut self, span: Span) -> Self {
        self.span = Some(span);
        self
    }

    pub(crate) fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    pub(crate) fn related(mut self, span: Span, message: impl Into<String>) -> Self {
        self.related.push((span, message.into()));
        self
    }

    pub(crate) fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub(crate) fn help_opt(mut self, help: Option<String>) -> Self {
        self.help = help.or(self.help);
        self
    }

    pub(crate) fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
}

/// Collects diagnostics while the pipeline runs. Like `serde_derive`'s `Ctxt`, it must be
/// drained with [`Diagnostics::finish`]: dropping it with diagnostics inside is a bug.
#[derive(Debug, Default)]
pub(crate) struct Diagnostics {
    items: Vec<Builder>,
    /// Files that gave no entity ([`Diagnostics::mark_cause`]).
    causes: Vec<FileId>,
    finished: bool,
}

impl Diagnostics {
    pub(crate) fn push(&mut self, builder: Builder) {
        self.items.push(builder);
    }

    /// Moves `other`'s diagnostics into these.
    pub(crate) fn append(&mut self, mut other: Diagnostics) {
        self.items.append(&mut other.items);
        for file in other.causes.drain(..) {
            self.mark_cause(file);
        }
        other.finished = true;
    }

    /// Marks `file` as one that gave no entity (its frontmatter or its `name` could not be
    /// read): its diagnostics are printed before all others, being the cause of what is
    /// reported about the entity it would have given.
    pub(crate) fn mark_cause(&mut self, file: FileId) {
        if !self.causes.contains(&file) {
            self.causes.push(file);
        }
    }

    /// Drops diagnostics on purpose (about content that is not used).
    pub(crate) fn discard(mut self) {
        self.finished = true;
    }

    /// How many errors were pushed so far (to tell whether a step added one).
    pub(crate) fn error_count(&self) -> usize {
        self.items
            .iter()
            .filter(|b| b.code.severity() == Severity::Error)
            .count()
    }

    /// Adds `note` to the first error about `file` (what keeps an entity from being read),
    /// so a consequence elsewhere is told there instead of as an error of its own that
    /// would be printed first. Returns whether `file` had an error to take the note.
    pub(crate) fn note_on_error_in(&mut self, file: FileId, note: String) -> bool {
        let first = self
            .items
            .iter_mut()
            .filter(|b| b.code.severity() == Severity::Error && b.span.is_some_and(|s| s.file == file))
            .min_by_key(|b| b.span.map(|s| s.start));
        match first {
            Some(builder) => {
                if !builder.notes.contains(&note) {
                    builder.notes.push(note);
                }
                true
            }
            None => false,
        }
    }

    pub(crate) fn has_errors(&self) -> bool {
        self.items.iter().any(|b| b.code.severity() == Severity::Error)
    }

    /// Resolves spans to locations; sorted by file, position, then code, so the output is
    /// deterministic whatever order the rules ran in, the files that gave no entity first
    /// (the causes, before what refers to their entities).
    pub(crate) fn finish(mut self, sources: &Sources, allowed: &[Code]) -> Vec<Diagnostic> {
        self.finished = true;
        let mut out: Vec<Diagnostic> = std::mem::take(&mut self.items)
            .into_iter()
            .filter(|b| b.code.severity() == Severity::Error || !allowed.contains(&b.code))
            // Names and values from the content are printed to terminals: control characters
            // (an ANSI escape in a skill's name, say) are escaped here, once for every output.
            .map(|b| Diagnostic {
                code: b.code,
                message: printable(b.message),
                location: b.span.map(|s| sources.location(s)),
                label: b.label.map(printable),
                related: b
                    .related
                    .into_iter()
                    .map(|(span, message)| Related {
                        location: sources.location(span),
                        message: printable(message),
                    })
                    .collect(),
                help: b.help.map(printable),
                notes: b.notes.into_iter().map(printable).collect(),
                file: b.span.map(|s| s.file),
            })
            .collect();
        carnet_manifest::order::sort_by(&mut out, |a, b| {
            let key = |d: &Diagnostic| {
                (
                    !d.file.is_some_and(|file| self.causes.contains(&file)),
                    d.location.as_ref().map(|l| (l.path.clone(), l.range.start)),
                    d.code,
                    d.message.clone(),
                )
            };
            key(a).cmp(&key(b))
        });
        out.dedup();
        out
    }
}

impl Drop for Diagnostics {
    fn drop(&mut self) {
        assert!(
            !(!self.finished && !self.items.is_empty() && !std::thread::panicking()),
            "diagnostics dropped without being reported"
        );
    }
}

/// `text` with control characters but line breaks and tabs escaped (`\u{1b}`).
fn printable(text: String) -> String {
    if text
        .chars()
        .any(|c| messages::is_control(c) && !matches!(c, '\n' | '\t'))
    {
        text.split('\n').map(messages::escape).collect::<Vec<_>>().join("\n")
    } else {
        text
    }
}

/// The closest candidate to `name`, if one is close enough to suggest.
pub(crate) fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (crate::similar::jaro_winkler(&lower, &c.to_lowercase()), c))
        .filter(|(score, c)| *score >= 0.8 && *c != name)
        .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)))
        .map(|(_, c)| c)
}
