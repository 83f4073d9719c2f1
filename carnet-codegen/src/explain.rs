//! The error index: for every [`Code`], a page saying what it means, an example that
//! produces it and the example fixed, written as rustc's error index is
//! (`src/explain/E0006.md`). `carnet explain CODE` prints the page, and the guide's
//! error index (`docs/reference/errors.md`) is generated from the same files, so the two
//! cannot differ.
//!
//! An example is a carnet directory written out: each file starts with a
//! `==> path <==` line (as `head` prints several files), in a fence whose info string is
//! `carnet` and, for the example that goes wrong, the code it must produce
//! (```` ```carnet,E0006 ````). `tests/explain.rs` writes every example to a directory,
//! checks it, and fails when the wrong one does not produce its code or the fixed one still
//! has an error.

use crate::diagnostic::Code;

macro_rules! explanations {
    ($($variant:ident = $file:literal,)*) => {
        impl Code {
            /// The page of the error index for this code, as markdown: what the code means, an
            /// example that produces it and the same example fixed (what `carnet explain`
            /// prints).
            ///
            /// ```
            /// let page = carnet_codegen::Code::ALL[0].explanation();
            /// assert!(page.starts_with("# E0001"));
            /// ```
            #[must_use]
            pub fn explanation(self) -> &'static str {
                // A match, not a table: a code added without its page does not compile.
                match self {
                    $(Code::$variant => include_str!(concat!("explain/", $file, ".md")),)*
                }
            }
        }
    };
}

/// A code from its text (`E0006`, `e0006`) or its name (`unknown-skill`).
#[must_use]
pub fn parse_code(text: &str) -> Option<Code> {
    let text = text.trim();
    Code::ALL
        .iter()
        .copied()
        .find(|c| c.as_str().eq_ignore_ascii_case(text) || c.name() == text)
}

/// The code or name closest to a misspelt one (`E0060` → `E0006`, `unknown-skil` →
/// `unknown-skill`), for a did-you-mean.
#[must_use]
pub fn closest<'a>(text: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    crate::diagnostic::did_you_mean(text, candidates)
}

explanations! {
    YamlSyntax = "E0001",
    MissingField = "E0002",
    EmptyField = "E0003",
    WrongType = "E0004",
    DuplicateName = "E0005",
    UnknownSkill = "E0006",
    UnknownToolset = "E0007",
    UnknownGlobalSkill = "E0008",
    DuplicateTool = "E0009",
    ToolCollision = "E0010",
    ReservedToolName = "E0011",
    InvalidToolName = "E0012",
    AliasCollision = "E0013",
    FileNotFound = "E0014",
    FileUnreadable = "E0015",
    FileIsDirectory = "E0016",
    FileDotSlash = "E0017",
    FileAbsolute = "E0018",
    FileOutsideSkill = "E0019",
    SymlinkEscape = "E0020",
    OrphanToolFile = "E0021",
    ToolWithoutDescription = "E0022",
    InvalidConfig = "E0023",
    UnreadableSource = "E0024",
    DuplicateFile = "E0025",
    MissingDirectory = "E0026",
    InvalidGlob = "E0027",
    UnsupportedFrontmatter = "E0028",
    LimitExceeded = "E0029",
    SpecialFile = "E0030",
    UnreadableDirectory = "E0031",
    ControlCharacter = "E0032",
    SingleFileSkill = "E0033",
    SkillNameNotUriSafe = "E0034",
    ResourceUriCollision = "E0035",
    InvalidMcpServer = "E0036",
    MissingPin = "E0037",
    InvalidPin = "E0038",
    UnknownRemoteTool = "E0039",
    UnknownRemoteSkill = "E0040",
    RemoteInitialSkill = "E0041",
    UnopenedFrontmatter = "E0042",
    ContradictoryAnnotations = "E0043",
    UnreachableSkill = "W0001",
    UnusedToolset = "W0002",
    SkillNameStyle = "W0003",
    LongDescription = "W0004",
    NameFolderMismatch = "W0005",
    LargeFile = "W0006",
    UnclosedFrontmatter = "W0007",
    DuplicateReference = "W0008",
    IdentCollision = "W0009",
    NoAgents = "W0010",
    UnknownConfigKey = "W0011",
    UnmatchedPattern = "W0012",
    WholeEnvironment = "W0013",
    ControlCharacterInText = "W0014",
    LongCompatibility = "W0015",
    UnknownToolKey = "W0016",
}
