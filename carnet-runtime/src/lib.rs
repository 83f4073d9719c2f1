//! Runtime of [carnet](https://docs.rs/carnet): the manifest types the generated code and
//! the manifest JSON use, the [`Carnet`] engine and its [`Session`]s (progressive loading,
//! meta-tools, system prompts, variables, tool dispatch), tool names and provider formats.
//!
//! Most users depend on the `carnet` facade, which re-exports this crate.

pub mod manifest;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod media_type;
#[cfg(feature = "http-client")]
pub mod models;
pub mod names;
pub mod providers;
#[cfg(feature = "remote")]
pub mod remote;
pub mod schema;
#[cfg(feature = "tokens")]
pub mod tokens;
pub mod tool;
pub mod variables;

#[doc(hidden)]
pub mod binding;
pub mod chat;
mod dispatch;
mod engine;
pub mod extensions;
mod hash;
pub mod hook;
mod index;
mod json;
mod prompt;
pub mod session;
pub mod suggest;
pub mod telemetry;

pub use dispatch::{
    BoundToolset, BoxFuture, Context, ToolError, ToolHandler, ToolImpl, ToolOutput, ToolsetImpl, block_on,
};
pub use engine::{
    BuildError, Carnet, CarnetBuilder, CatalogFormat, DriftPolicy, ExposureMode, Naming, Preset, PromptOptions,
    RemoteOptions, ResultFormat,
};
pub use hook::{Before, CallInfo, Hook};
pub use json::ManifestError;
pub use manifest::{
    Agent, AgentId, App, Bytes, List, Manifest, Skill, SkillFile, SkillId, Text, Tool, ToolId, Toolset, ToolsetId,
};
pub use session::{Baseline, Explanation, MetaTool, Session, SessionAgent, SessionError, SessionState};
pub use tool::{ToolCall, ToolKind, ToolSpec};
pub use variables::Variables;
