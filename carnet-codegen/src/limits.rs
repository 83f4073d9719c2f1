//! Limits: how much content one check may read and build, so that hostile content (an
//! Agent Skills folder downloaded from a marketplace, say) cannot make `cargo build` hang or
//! exhaust memory. Every limit is linear in the input: time and memory stay proportional to
//! the bytes read.
//!
//! | limit | default | `limits` key in `carnet.config.json` |
//! | --- | --- | --- |
//! | size of one file (content, config, skill file) | 16 MiB | `maxFileSize` |
//! | bytes read in all | 256 MiB | `maxTotalSize` |
//! | files under the carnet directory | 20,000 | `maxFiles` |
//! | nesting depth of a frontmatter's YAML | 64 | `maxYamlDepth` |
//! | values YAML aliases may copy in one frontmatter | 10,000 | `maxYamlAliasExpansion` |
//!
//! A YAML alias copies the value its anchor names; a value copied counts one per node
//! (scalar, list or mapping) plus one per 64 bytes of scalar text, so a billion-laughs
//! document stops at the first alias over the budget. Exceeding a limit is an error at the
//! place it happened (`E0029`), never a hang or a crash.

use serde::Deserialize;

/// The limits of one check; see the [crate docs](crate#limits) for the table.
///
/// # Examples
///
/// ```no_run
/// // build.rs: allow larger skill files than the default 16 MiB.
/// let mut limits = carnet_codegen::Limits::default();
/// limits.max_file_size = 64 * 1024 * 1024;
/// carnet_codegen::Config::new().limits(limits).compile().unwrap_or_else(|e| e.exit());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The largest file read, in bytes (`maxFileSize`).
    pub max_file_size: u64,
    /// The most bytes read in all (`maxTotalSize`).
    pub max_total_size: u64,
    /// The most files under the carnet directory (`maxFiles`).
    pub max_files: usize,
    /// The deepest nesting of lists and mappings in a frontmatter (`maxYamlDepth`).
    pub max_yaml_depth: usize,
    /// How much YAML aliases may copy in one frontmatter (`maxYamlAliasExpansion`): one per
    /// value plus one per 64 bytes of scalar text.
    pub max_yaml_alias_expansion: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_size: 16 * 1024 * 1024,
            max_total_size: 256 * 1024 * 1024,
            max_files: 20_000,
            max_yaml_depth: 64,
            max_yaml_alias_expansion: 10_000,
        }
    }
}

/// `limits` in `carnet.config.json`: the keys it sets, each over the same limit of
/// [`crate::Config::limits`] (a key left out keeps the program's value).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(clippy::struct_field_names, reason = "the keys of `limits`, as `Limits` names them")]
pub(crate) struct LimitsSet {
    max_file_size: Option<u64>,
    max_total_size: Option<u64>,
    max_files: Option<usize>,
    max_yaml_depth: Option<usize>,
    max_yaml_alias_expansion: Option<usize>,
}

impl Limits {
    /// These limits with the keys `set` gives replaced.
    pub(crate) fn with(self, set: &LimitsSet) -> Limits {
        Limits {
            max_file_size: set.max_file_size.unwrap_or(self.max_file_size),
            max_total_size: set.max_total_size.unwrap_or(self.max_total_size),
            max_files: set.max_files.unwrap_or(self.max_files),
            max_yaml_depth: set.max_yaml_depth.unwrap_or(self.max_yaml_depth),
            max_yaml_alias_expansion: set.max_yaml_alias_expansion.unwrap_or(self.max_yaml_alias_expansion),
        }
    }

    /// The YAML part.
    pub(crate) fn yaml(&self) -> YamlLimits {
        YamlLimits {
            max_depth: self.max_yaml_depth,
            max_alias_expansion: self.max_yaml_alias_expansion,
        }
    }
}

/// The limits YAML parsing enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct YamlLimits {
    pub(crate) max_depth: usize,
    pub(crate) max_alias_expansion: usize,
}

impl Default for YamlLimits {
    fn default() -> Self {
        Limits::default().yaml()
    }
}
