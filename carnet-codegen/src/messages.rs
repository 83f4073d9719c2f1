//! Every text of the content diagnostics (messages, labels, notes and helps), kept together
//! so their wording stays consistent: rustc style (lowercase, no final period, names in
//! backticks). The texts shared by several codes are here; the rest sit in one child module
//! per part of the check (frontmatter, references, tools, skill files, the carnet directory,
//! names, remote toolsets), re-exported so every text is `messages::NAME`. Within a module
//! they are grouped by the code that uses them; a text shared by several codes sits with the
//! first. Fixed texts are constants, texts with names in them are functions.

mod files;
mod frontmatter;
mod names;
mod project;
mod references;
mod remote;
mod tools;

pub(crate) use files::*;
pub(crate) use frontmatter::*;
pub(crate) use names::*;
pub(crate) use project::*;
pub(crate) use references::*;
pub(crate) use remote::*;
pub(crate) use tools::*;

// Shared by several codes.

/// Help suggesting the closest existing name.
pub(crate) fn did_you_mean(name: &str) -> String {
    format!("did you mean `{name}`?")
}

/// A field path into a list item: `files[0]`.
pub(crate) fn item(key: &str, index: usize) -> String {
    format!("{key}[{index}]")
}

/// A field path into a field of a list item: `files[0].path`.
pub(crate) fn item_field(key: &str, index: usize, field: &str) -> String {
    format!("{key}[{index}].{field}")
}

/// Help for a collision between two names.
pub(crate) const RENAME_ONE_OF_THEM: &str = "rename one of them";
