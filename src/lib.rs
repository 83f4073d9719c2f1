#![doc = include_str!("../README.md")]
//!
//! # Crate features
//!
//! - `tokens`: [`tokens`], token counts (o200k_base) of prompts and tool lists.

pub use carnet_macros::{tool, toolset};
pub use carnet_runtime::*;

/// Includes the module `carnet_codegen::compile` generated in `build.rs`.
///
/// `include_manifest!()` declares `mod manifest`; `include_manifest!(pub mod content)`
/// chooses the visibility and the name. The module holds `MANIFEST` (the whole manifest as
/// `'static` data) and the typed ids `agents::*`, `skills::*`, `toolsets::*`, `tools::*`.
#[macro_export]
macro_rules! include_manifest {
    () => {
        $crate::include_manifest!(mod manifest);
    };
    ($vis:vis mod $name:ident) => {
        /// The carnet manifest compiled by `build.rs`.
        #[allow(clippy::all, clippy::pedantic, unreachable_pub)]
        $vis mod $name {
            ::core::include!(::core::concat!(::core::env!("OUT_DIR"), "/carnet/manifest.rs"));
        }
    };
}

/// Implementation details of the generated code. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use carnet_runtime::binding::*;
    pub use carnet_runtime::{
        Agent, AgentId, App, BoundToolset, BoxFuture, Context, Manifest, Skill, SkillFile, SkillId, Tool, ToolError,
        ToolId, ToolImpl, Toolset, ToolsetId, ToolsetImpl,
    };
    pub use std::borrow::Cow;
}
