//! Texts of the diagnostics on reading the carnet directory: `carnet.config.json` and its
//! keys and patterns, sources that are not UTF-8 or cannot be read, the directory itself, the
//! read limits, special files, single-file skills and a project without agents.

use std::fmt::Display;
use std::path::Path;

// E0023 invalid-config.

/// `carnet.config.json` does not parse.
pub(crate) fn invalid_config(error: &str) -> String {
    format!("invalid `carnet.config.json`: {error}")
}

/// Note on an unparsable `carnet.config.json`.
pub(crate) const DEFAULTS_USED: &str = "the defaults are used for every setting";

/// `allow` names an error.
pub(crate) fn error_cannot_be_allowed(code: &str) -> String {
    format!("error `{code}` cannot be allowed")
}

/// Label on an allowed error.
pub(crate) const ONLY_WARNINGS_SILENCED: &str = "only warnings can be silenced";

/// `allow` names no warning.
pub(crate) fn unknown_warning(code: &str) -> String {
    format!("unknown warning `{code}`")
}

// E0024 unreadable-source.

/// A content file is not UTF-8.
pub(crate) fn not_utf8(relative: &str) -> String {
    format!("`{relative}` is not UTF-8 text")
}

/// Note on the first invalid byte.
pub(crate) fn invalid_byte_at(offset: usize) -> String {
    format!("invalid byte at offset {offset}")
}

/// A content file cannot be read.
pub(crate) fn unreadable_source(relative: &str, error: &impl Display) -> String {
    format!("cannot read `{relative}`: {error}")
}

// E0026 missing-directory.

/// The carnet directory does not exist.
pub(crate) fn missing_directory(root: &Path) -> String {
    format!("carnet directory `{}` does not exist", root.display())
}

/// Help for a missing carnet directory.
pub(crate) const CREATE_DIRECTORY: &str =
    "create it with `carnet init`, or point `--dir` (or `Config::dir`) at your content";

// E0027 invalid-glob.

/// An `include` or `exclude` pattern is invalid.
pub(crate) fn invalid_pattern(pattern: &str) -> String {
    format!("invalid pattern `{pattern}`")
}

/// Label on an empty pattern.
pub(crate) const EMPTY_PATTERN: &str = "the pattern is empty";
/// Label on an absolute, backslashed or climbing pattern.
pub(crate) const PATTERN_FORM: &str = "patterns are `/`-separated and relative to the carnet directory";

// E0029 limit-exceeded.

/// A file is larger than `limits.maxFileSize`.
pub(crate) fn file_too_large(relative: &str, limit: u64) -> String {
    format!("`{relative}` is larger than {}, the most carnet reads", bytes(limit))
}

/// Help naming the setting that raises a limit.
pub(crate) fn raise_limit(key: &str) -> String {
    format!("raise `limits.{key}` in `carnet.config.json` if the content is trusted")
}

/// The bytes read in all exceed `limits.maxTotalSize`.
pub(crate) fn total_too_large(relative: &str, limit: u64) -> String {
    format!(
        "reading `{relative}` goes over {} read in all, the most carnet reads",
        bytes(limit)
    )
}

/// The directory holds more files than `limits.maxFiles`.
pub(crate) fn too_many_files(root: &Path, limit: usize) -> String {
    format!(
        "`{}` holds more than {limit} files; the rest are not read",
        root.display()
    )
}

/// The frontmatter nests deeper than `limits.maxYamlDepth`.
pub(crate) fn yaml_too_deep(limit: usize) -> String {
    format!("YAML nests deeper than {limit} levels")
}

/// YAML aliases copy more than `limits.maxYamlAliasExpansion`.
pub(crate) fn yaml_alias_expansion(limit: usize) -> String {
    format!("YAML aliases expand to more than {limit} values")
}

/// Label on the alias that went over the budget.
pub(crate) const THIS_ALIAS: &str = "this alias goes over the limit";
/// Label on the collection that went too deep.
pub(crate) const TOO_DEEP: &str = "too deep";

/// "16 MiB", "1000 bytes".
pub(crate) fn bytes(n: u64) -> String {
    if n >= 1024 * 1024 && n.is_multiple_of(1024 * 1024) {
        format!("{} MiB", n / (1024 * 1024))
    } else if n >= 1024 && n.is_multiple_of(1024) {
        format!("{} KiB", n / 1024)
    } else {
        format!("{n} bytes")
    }
}

/// Why a read stopped: the file is larger than the limit.
pub(crate) fn larger_than(limit: u64) -> String {
    format!("it is larger than {}", bytes(limit))
}

/// Why a read stopped: the bytes read in all went over the limit.
pub(crate) fn over_total(limit: u64) -> String {
    format!("more than {} read in all", bytes(limit))
}

// E0030 special-file.

/// A file is not a regular file.
pub(crate) fn not_a_regular_file(kind: &str) -> String {
    format!("it is {kind}, not a regular file")
}

/// A content or skill file is not a regular file.
pub(crate) fn special_file(relative: &str, kind: &str) -> String {
    format!("`{relative}` is {kind}, not a regular file")
}

/// Note on a special file.
pub(crate) const SPECIAL_FILES_NOT_READ: &str =
    "carnet reads regular files only: a FIFO would block the build, a device would never end";

/// File kinds.
pub(crate) const A_FIFO: &str = "a FIFO";
/// File kinds.
pub(crate) const A_SOCKET: &str = "a socket";
/// File kinds.
pub(crate) const A_CHARACTER_DEVICE: &str = "a character device";
/// File kinds.
pub(crate) const A_BLOCK_DEVICE: &str = "a block device";
/// File kinds.
pub(crate) const A_DIRECTORY: &str = "a directory";
/// File kinds.
pub(crate) const A_SPECIAL_FILE: &str = "a special file";

// E0031 unreadable-directory.

/// A folder cannot be listed.
pub(crate) fn unreadable_directory(relative: &str, error: &impl Display) -> String {
    format!("cannot read directory `{relative}`: {error}")
}

/// A content folder is not a directory.
pub(crate) fn not_a_directory(relative: &str) -> String {
    format!("`{relative}` is not a directory")
}

/// Note on an unreadable folder.
pub(crate) const CONTENT_MAY_BE_MISSING: &str = "its agents, skills or toolsets are missing from the check";

// E0033 single-file-skill.

/// `skills/foo.md` with a skill frontmatter.
pub(crate) fn single_file_skill(relative: &str) -> String {
    format!("skill `{relative}` is a single file")
}

/// Label on a single-file skill.
pub(crate) const SKILLS_ARE_FOLDERS: &str = "Agent Skills are folders holding a `SKILL.md`";

/// Help converting a single-file skill.
pub(crate) fn move_to_folder(from: &str, to: &str) -> String {
    format!(
        "move it: `mkdir -p {} && git mv {from} {to}`",
        to.trim_end_matches("/SKILL.md")
    )
}

// W0010 no-agents.

/// The directory holds no agent.
pub(crate) fn no_agents(root: &Path) -> String {
    format!("no agent in `{}`", root.display())
}

/// Help for a directory without agents.
pub(crate) const ADD_AN_AGENT: &str =
    "add `agents/<name>/AGENT.md` with `name`, `description` and the skills it may load";

// W0011 unknown-config-key.

/// `carnet.config.json` has an unknown key.
pub(crate) fn unknown_config_key(key: &str) -> String {
    format!("unknown key `{key}` in `carnet.config.json`")
}

/// Label on an unknown configuration key.
pub(crate) const IGNORED: &str = "ignored";

/// Note listing the known keys.
pub(crate) fn known_keys(keys: &[&str]) -> String {
    format!(
        "known keys: {}",
        keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
    )
}

// W0012 unmatched-pattern.

/// An `include` or `exclude` pattern matches no file.
pub(crate) fn unmatched_pattern(key: &str, pattern: &str) -> String {
    format!("`{key}` pattern `{pattern}` matches no file")
}

/// Note on patterns.
pub(crate) const PATTERNS_ARE_RELATIVE: &str =
    "patterns are relative to the carnet directory: `agents/**`, `skills/pdf`, `toolsets/*/TOOLSET.md`";

// W0013 whole-environment.

/// `envPrefix` holds `""`.
pub(crate) const EMPTY_ENV_PREFIX: &str =
    "`envPrefix` holds the empty prefix: every environment variable can reach the prompts";

/// Label on the empty prefix.
pub(crate) const MATCHES_EVERY_VARIABLE: &str = "matches every variable, secrets included";

/// Help for the empty prefix.
pub(crate) const NAME_A_PREFIX: &str = "name a prefix, such as `CARNET_` or `PUBLIC_`";
