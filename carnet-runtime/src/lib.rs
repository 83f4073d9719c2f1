//! Runtime of [carnet](https://docs.rs/carnet): the manifest types the generated code and
//! the manifest JSON use, the [`Carnet`] engine and its [`Session`]s (progressive loading,
//! meta-tools, system prompts, variables, tool dispatch), tool names and provider formats.
//!
//! Most users depend on the `carnet` facade, which re-exports this crate.
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "a2a")]
pub mod a2a;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(feature = "http-client")]
pub mod models;
pub mod providers;
#[cfg(feature = "remote")]
pub mod remote;
pub mod schema;
#[cfg(feature = "testing")]
pub mod testing;
#[cfg(feature = "tokens")]
pub mod tokens;
pub mod tool;
pub mod variables;

#[doc(hidden)]
pub mod binding;
mod cancel;
pub mod chat;
mod dispatch;
mod engine;
pub mod extensions;
pub mod hook;
mod index;
mod meta_tool;
mod prompt;
#[cfg(any(feature = "mcp", feature = "remote"))]
#[cfg_attr(
    not(all(feature = "mcp", feature = "remote")),
    allow(dead_code, reason = "one side of the relay")
)]
mod relay;
pub mod session;
mod state;
pub mod suggest;
pub mod telemetry;
mod tool_error;

pub use cancel::{Cancellation, Cancelled};
pub use dispatch::{
    BoundToolset, BoxFuture, Context, ToolError, ToolHandler, ToolImpl, ToolOutput, ToolsetImpl, block_on,
};
pub use engine::{
    Bound, BuildError, Carnet, CarnetBuilder, CatalogFormat, Checked, CompiledManifest, CompiledToolsets, DriftPolicy,
    ExposureMode, Naming, Preset, PromptOptions, RemoteOptions, ResultFormat, RuntimeManifest, ToolsetOf,
};
pub use hook::{Before, CallInfo, Hook};
// The data model lives in `carnet-manifest`, shared with the build-time side: its modules
// keep their paths here.
pub use carnet_manifest::{ManifestError, manifest, media_type, names, search};
pub use manifest::{
    Agent, AgentId, App, Bytes, List, Manifest, Skill, SkillFile, SkillId, Text, Tool, ToolId, Toolset, ToolsetId,
};
pub use session::{
    Baseline, Explanation, LoadError, MetaTool, Session, SessionAgent, SessionError, SessionState, SkillName, ToolName,
    ToolsetName,
};
pub use state::{FromRef, Need, Provides, State, StateType, States};
pub use tool::{ToolCall, ToolKind, ToolSpec};
pub use variables::Variables;
