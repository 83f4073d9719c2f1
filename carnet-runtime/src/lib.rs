//! Runtime of [carnet](https://docs.rs/carnet): the manifest types the generated code and
//! the manifest JSON use, tool names and their provider-safe aliases.
//!
//! Most users depend on the `carnet` facade, which re-exports this crate.

pub mod manifest;
pub mod media_type;
pub mod names;
pub mod tool;

mod json;

pub use json::ManifestError;
pub use tool::{ToolCall, ToolKind, ToolSpec};
pub use manifest::{
    Agent, AgentId, App, Bytes, List, Manifest, Skill, SkillFile, SkillId, Text, Tool, ToolId, Toolset, ToolsetId,
};
