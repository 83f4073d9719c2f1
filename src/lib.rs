#![doc = include_str!("../README.md")]
//!
//! # Crate features
//!
//! - `tokens`: `carnet::tokens`, token counts (o200k_base) of prompts and tool lists.
//! - `load`: `carnet::load_dir`, reading content at run time with every build-time check.

pub use carnet_macros::{tool, toolset};
pub use carnet_runtime::*;

/// Reads and validates a carnet directory at run time (feature `load`), with every check of
/// the build step; bind its tools with [`ToolImpl`] and [`CarnetBuilder::toolset`], whose
/// checks return [`BuildError`]s.
///
/// # Errors
///
/// [`carnet_codegen::Error`] with every diagnostic when the content has errors.
#[cfg(feature = "load")]
pub fn load_dir(dir: impl AsRef<std::path::Path>) -> Result<Manifest, carnet_codegen::Error> {
    carnet_codegen::Config::new().dir(dir).manifest()
}

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
