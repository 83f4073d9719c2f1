//! The manifest's JSON form: a superset of TS Carnet's `carnet.manifest.json`.
//!
//! What we write loads in the published TS runtime (`@upstart.gg/carnet` 0.3.0): maps keyed
//! by name, toolset `tools` as names and a top-level `tools` map of `{name, description,
//! content}`, and skill files with their `content` embedded. Keys TS Carnet does not know
//! are ignored by it (zod strips them) and carry what it cannot express:
//!
//! | key | where | holds |
//! | --- | --- | --- |
//! | `toolDefinitions` | toolset | the toolset's own tools, so two toolsets may declare the same name |
//! | `encoding`, `mediaType`, `listed` | skill file | `"base64"` for binary data, the media type, whether `files` lists it |
//! | `digest` | skill file | `sha256:<hex>` of the file's bytes, for MCP's Skills extension (trusted as written) |
//! | `license`, `compatibility`, `allowedTools`, `metadata` | skill | Agent Skills keys |
//! | `extra` | agent, skill | unknown frontmatter keys |
//! | `variables`, `envPrefix` | top level | settings of `carnet.config.json` |
//!
//! What we read: our own output, manifests of TS Carnet 0.3.0 (tools as names resolved
//! through the top-level `tools` map) and of its later form (tools as `{name, description}`
//! objects, file `content` optional), refusing a `version` newer than [`MANIFEST_VERSION`].
//!
//! Both directions go through private serde wire structs mirroring the format:
//! [`read`] (owned, every field optional and strictly typed, then checked into the model) and
//! [`write`] (borrowing from the model). [`fingerprint`] hashes the model itself.

mod fingerprint;
mod read;
mod references;
mod strict;
mod write;

use serde::{Serialize, Serializer};
use serde_json::Value;

#[cfg(doc)]
use crate::manifest::MANIFEST_VERSION;
use crate::manifest::Manifest;

/// Why a manifest could not be loaded.
#[derive(Debug)]
#[non_exhaustive]
pub enum ManifestError {
    /// The input is not JSON.
    Syntax(serde_json::Error),
    /// The JSON does not have the manifest's shape; `path` is a JSON pointer to the culprit.
    Invalid {
        /// JSON pointer to the offending value (`/skills/notes/toolsets/0`).
        path: String,
        /// What is wrong there.
        message: String,
    },
    /// The manifest's `version` is newer than the format this crate reads
    /// ([`MANIFEST_VERSION`]): it was written by a newer carnet.
    UnsupportedVersion {
        /// The manifest's `version`.
        found: u64,
        /// The newest version this crate reads ([`MANIFEST_VERSION`]).
        supported: u32,
    },
}

impl std::fmt::Display for ManifestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Syntax(inner) => write!(f, "manifest is not valid JSON: {inner}"),
            Self::Invalid { path, message } => write!(f, "invalid manifest at `{path}`: {message}"),
            Self::UnsupportedVersion { found, supported } => write!(
                f,
                "manifest version {found} is newer than this carnet supports ({supported}): upgrade carnet"
            ),
        }
    }
}

impl std::error::Error for ManifestError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Syntax(inner) => Some(inner),
            _ => None,
        }
    }
}

impl From<serde_json::Error> for ManifestError {
    fn from(inner: serde_json::Error) -> Self {
        Self::Syntax(inner)
    }
}

fn invalid(path: &str, message: impl Into<String>) -> ManifestError {
    ManifestError::Invalid {
        path: if path.is_empty() {
            "/".to_owned()
        } else {
            path.to_owned()
        },
        message: message.into(),
    }
}

/// The JSON pointer of `key` in the object at `path`.
fn child(path: &str, key: &str) -> String {
    format!("{path}/{}", key.replace('~', "~0").replace('/', "~1"))
}

impl Serialize for Manifest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        write::WireManifest::from(self).serialize(serializer)
    }
}

impl Manifest {
    /// Loads a manifest from JSON: ours (`carnet build`), or one written by TS Carnet's
    /// `carnet build` (0.3.0 with tool names and a top-level `tools` map, or the later form
    /// with `{name, description}` tools).
    ///
    /// # Errors
    ///
    /// [`ManifestError::Syntax`] when the input is not JSON,
    /// [`ManifestError::UnsupportedVersion`] when its `version` is newer than
    /// [`MANIFEST_VERSION`], [`ManifestError::Invalid`] with a JSON pointer when a field is
    /// missing or mistyped, a name differs from its map key, or a reference (agent → skill,
    /// skill → toolset, global skill) does not resolve.
    // `#[inline]` here and below: the reader (serde's and `serde_path_to_error`'s code for
    // every wire type, a third of this crate's code) is then compiled in the crates that
    // read manifests (the runtime), not here, so a build script and a proc macro that only
    // build and write manifests do not compile it for the host (issue 31: `cargo check`
    // compiles the host side in full).
    #[inline]
    pub fn from_json(json: &str) -> Result<Self, ManifestError> {
        let value: Value = serde_json::from_str(json)?;
        Self::from_value(&value)
    }

    /// Like [`Manifest::from_json`], from an already parsed JSON value.
    ///
    /// # Errors
    ///
    /// As [`Manifest::from_json`].
    #[inline]
    pub fn from_value(value: &Value) -> Result<Self, ManifestError> {
        let version = read::version(value)?;
        strict::deserialize::<strict::Obj<read::WireManifest>>(value)?
            .0
            .into_manifest(version)
    }

    /// The manifest as pretty-printed JSON (2-space indent, like TS Carnet's `carnet build`),
    /// loadable by TS Carnet 0.3.0 and by [`Manifest::from_json`].
    #[must_use]
    #[allow(clippy::missing_panics_doc)] // string keys and values only: serialising cannot fail
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a manifest always serialises")
    }

    /// Writes the manifest as pretty-printed JSON (what [`Manifest::to_json_pretty`] returns)
    /// to `writer`, without building the string first.
    ///
    /// # Errors
    ///
    /// The writer's.
    pub fn write_json_pretty(&self, writer: impl std::io::Write) -> std::io::Result<()> {
        serde_json::to_writer_pretty(writer, self).map_err(std::io::Error::other)
    }

    /// The manifest as compact JSON.
    #[must_use]
    #[allow(clippy::missing_panics_doc)] // string keys and values only: serialising cannot fail
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a manifest always serialises")
    }
}
