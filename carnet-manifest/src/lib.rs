//! The manifest of [carnet](https://docs.rs/carnet): what `build.rs` compiles markdown agents,
//! skills and toolsets into, and what the runtime serves.
//!
//! - [`manifest`]: the data model ([`Manifest`], [`Agent`], [`Skill`], [`Toolset`], [`Tool`],
//!   typed ids), `'static` when generated, owned when read at run time;
//! - its JSON form ([`Manifest::from_json`], [`Manifest::to_json`]), a superset of TS Carnet's
//!   `carnet.manifest.json`, and the manifest's [`fingerprint`](Manifest::fingerprint);
//! - [`names`]: meta-tool names and the provider-safe aliases of tool names;
//! - [`media_type`]: media types of skill files; [`digest`]: their SHA-256 digests;
//! - [`search`]: the ranked search index over the tools, as bytes built once.
//!
//! Build time (`carnet-codegen`, on the host) and run time (`carnet-runtime`) both stand on
//! this crate and neither on the other. Depend on the `carnet` facade instead: it re-exports
//! everything here.

pub mod digest;
mod hash;
mod json;
pub mod manifest;
pub mod media_type;
pub mod names;
#[doc(hidden)]
pub mod order;
pub mod search;

pub use json::ManifestError;
pub use manifest::{
    Agent, AgentId, Annotations, App, Bytes, List, Manifest, Skill, SkillFile, SkillId, Text, Tool, ToolId, Toolset,
    ToolsetId,
};
