//! Progressive disclosure for LLM agents, checked at compile time.
//!
//! An agent's model starts with a short catalog of skills and a few meta-tools (`loadSkill`,
//! `loadSkillFile`, ...); it loads a skill's instructions when it needs them, and the skill's
//! tools become callable only then. Agents, skills and toolsets are markdown, compiled by
//! `build.rs` into typed Rust ([`carnet_codegen`](https://docs.rs/carnet-codegen)), and
//! [`toolset`](macro@toolset) binds your functions to the tools the markdown declares.
//!
//! The guide ([getting started](https://github.com/carnet-rs/carnet/blob/main/docs/getting-started.md), the
//! [content format](https://github.com/carnet-rs/carnet/blob/main/docs/reference/format.md), the [error index](https://github.com/carnet-rs/carnet/blob/main/docs/reference/errors.md),
//! testing, models, MCP, A2A) is in the repository's [`docs/`](https://github.com/carnet-rs/carnet/blob/main/docs/introduction.md)
//! (`mdbook build docs`).
//!
//! # Example
//!
//! Compiled content, the usual way (not a doctest: it needs a build script):
//!
//! ```rust,ignore
//! // build.rs
//! fn main() { carnet_codegen::compile("carnet").unwrap_or_else(|e| e.exit()) }
//!
//! // src/main.rs
//! carnet::include_manifest!(); // mod manifest: MANIFEST, agents::*, skills::*, tools::*, Toolsets
//!
//! #[carnet::toolset("search-tools")]            // the name in toolsets/.../TOOLSET.md
//! mod search {
//!     #[carnet::tool]                           // binds to the declared tool `basicSearch`
//!     pub async fn basic_search(query: String, limit: Option<u32>) -> Result<Vec<String>, String> { todo!() }
//! }
//!
//! use manifest::{MANIFEST, Toolsets};
//! let carnet = carnet::Carnet::new(&MANIFEST, Toolsets { search_tools: search::toolset() }) // forget one: compile error
//!     .build()?;
//! let mut session = carnet.session(manifest::agents::RESEARCHER);       // typo in a name: compile error
//! ```
//!
//! The same engine over a manifest given at run time, as JSON:
//!
//! ```rust
//! use carnet::tools::{ToolImpl, ToolsetImpl, block_on};
//! use carnet::{Carnet, Manifest};
//! use serde_json::json;
//!
//! let manifest = Manifest::from_json(r#"{
//!   "agents": {"helper": {"name": "helper", "description": "Helps", "skills": ["math"], "prompt": "You help."}},
//!   "skills": {"math": {"name": "math", "description": "Arithmetic", "toolsets": ["ops"], "content": "Use `add`."}},
//!   "toolsets": {"ops": {"name": "ops", "description": "Operations", "content": "",
//!                        "tools": [{"name": "add", "description": "Adds two integers"}]}}
//! }"#)?;
//! let add = ToolImpl::from_fn("add", json!({"type": "object", "required": ["x", "y"]}), |a| async move {
//!     Ok(json!(a["x"].as_i64().unwrap_or(0) + a["y"].as_i64().unwrap_or(0)))
//! });
//! let carnet = Carnet::builder(&manifest).toolset(ToolsetImpl::new("ops", [add])).build()?;
//!
//! let mut session = carnet.session("helper")?;               // one per conversation
//! assert!(session.system_prompt().contains("- **math**: Arithmetic"));   // the catalog
//! assert!(block_on(session.call("add", json!({"x": 2, "y": 3}))).is_error); // not loaded yet
//! block_on(session.call("loadSkill", json!({"skillName": "math"})));
//! assert_eq!(block_on(session.call("add", json!({"x": 2, "y": 3}))).value, json!(5));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The API
//!
//! The crate root holds what an agent author names on day one: the attributes
//! [`toolset`](macro@toolset) and [`tool`](macro@tool), [`include_manifest!`], the
//! [`Carnet`] engine and its [`Session`]s, the [`Manifest`], and what a tool sees and
//! returns ([`Context`], [`ToolOutput`], [`ToolError`]), and [`schemars`] for the
//! `JsonSchema` a tool's input struct derives. Everything else lives in a module named for
//! what you look for; each module lists its whole topic, root items included:
//!
//! | module | holds |
//! | --- | --- |
//! | [`manifest`] | the manifest types, typed ids, [`manifest::ManifestError`], `load_dir` (feature `load`) |
//! | [`engine`] | [`Carnet`] and its builder and options ([`engine::Preset`], [`engine::ExposureMode`], ...), [`Session`]s, their state and errors, [`engine::MetaTool`], [`engine::Variables`], [`engine::Extensions`] |
//! | [`tools`] | implementing and calling tools ([`tools::ToolImpl`], [`tools::ToolSpec`], [`tools::block_on`]), hooks around calls ([`tools::Hook`]), arguments checked against a schema ([`tools::schema`]) |
//! | [`chat`] | the provider-agnostic agent loop |
//! | [`providers`] | tool lists, calls and request bodies in OpenAI, Anthropic, Gemini and MCP formats |
//! | [`telemetry`] | spans after the OpenTelemetry `GenAI` conventions |
//! | `models` | clients for real models (features `openai`, `anthropic`, `gemini`) |
//! | `mcp` | an agent as an MCP server (features `mcp`, `mcp-http`) |
//! | `a2a` | an agent as an A2A 1.0 server (feature `a2a`) |
//! | `remote` | toolsets served by MCP servers (feature `remote`) |
//! | `tokens` | token counts (feature `tokens`) |
//!
//! # Crate features
//!
//! - `tokens`: `carnet::tokens`, token counts (o200k_base) of prompts and tool lists.
//! - `load`: `carnet::manifest::load_dir`, reading content at run time with every build-time
//!   check.
//! - `mcp`: `carnet::mcp`, an agent served over the Model Context Protocol on stdio;
//!   `mcp-http` adds streamable HTTP.
//! - `a2a`: `carnet::a2a`, an agent served as an A2A 1.0 agent over HTTP, on a model you
//!   give.
//! - `remote`: `carnet::remote`, toolsets whose tools an MCP server serves.
//! - `remote-tls`: HTTPS for remote toolsets (rustls with ring, the platform's roots or
//!   `SSL_CERT_FILE`).
//! - `remote-oauth`: `carnet::remote::oauth`, signing in to remote toolsets' servers (OAuth
//!   2.1, enterprise-managed authorization, tokens in a file or the OS keyring).
//! - `remote-a2a`: `carnet::remote::a2a`, toolsets whose tools are the skills of a remote A2A
//!   agent (docs/a2a.md).
//! - `openai`, `anthropic`, `gemini`: `carnet::models`, clients for real models (`OpenAI`
//!   Chat Completions and Responses and every server that speaks them; Anthropic Messages;
//!   Gemini's `generateContent`).
//! - `otel`: `carnet::telemetry::otlp`, the spans exported over OTLP/HTTP.
#![cfg_attr(docsrs, feature(doc_cfg))]

// The root: what an agent author uses on day one. `tests/api.rs` pins this list; a new root
// item goes there too, everything else into a module below.
pub use carnet_macros::{tool, toolset};
pub use carnet_runtime::{Carnet, Context, Manifest, Session, ToolError, ToolOutput};
/// The `schemars` crate (feature `derive` on), whose `JsonSchema` a tool's input struct
/// derives (see [`toolset`](macro@toolset)): with `use carnet::schemars::{self, JsonSchema};`
/// in scope, `#[derive(JsonSchema)]` needs no dependency of its own.
pub use schemars;

#[cfg(feature = "a2a")]
pub use carnet_runtime::a2a;
#[cfg(feature = "mcp")]
pub use carnet_runtime::mcp;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
pub use carnet_runtime::models;
#[cfg(feature = "remote")]
pub use carnet_runtime::remote;
#[cfg(feature = "testing")]
pub use carnet_runtime::testing;

#[cfg(feature = "cli")]
pub mod cli {
    //! Your program as the command line (feature `cli`): the `carnet` commands that show what
    //! a model gets and does, over your engine, with your tools' implementations and schemas.
    //!
    //! ```no_run
    //! # fn engine() -> carnet::Carnet { unimplemented!() }
    //! fn main() -> std::process::ExitCode {
    //!     let carnet = engine(); // Carnet::new(&MANIFEST, Toolsets { .. }).build()
    //!     if std::env::args().len() > 1 {
    //!         // my-agent tools researcher --provider anthropic
    //!         // my-agent call researcher basicSearch '{"query": "x"}' --load webSearch
    //!         // my-agent stats researcher --load dataAnalysis
    //!         // my-agent serve-mcp researcher
    //!         return carnet::cli::run(&carnet);
    //!     }
    //!     // ... what the program does otherwise
    //!     std::process::ExitCode::SUCCESS
    //! }
    //! ```
    //!
    //! The engine is used as built (its mode, preset, hooks): what the commands show is what
    //! your model gets.

    pub use carnet_cli::program::{run, run_from};
}
#[cfg(feature = "tokens")]
pub use carnet_runtime::tokens;
pub use carnet_runtime::{chat, providers, telemetry};

pub mod manifest {
    //! The manifest: every agent, skill, toolset and tool of a carnet directory, as the
    //! generated code's `'static` data, read with [`Manifest::from_json`], or (feature `load`)
    //! compiled from a directory at run time with `load_dir`; and [`search`], the ranked
    //! index over its tools that `searchTools` queries.

    pub use carnet_runtime::ManifestError;
    pub use carnet_runtime::manifest::*;
    pub use carnet_runtime::search;

    /// Reads and validates a carnet directory at run time (feature `load`), with every
    /// check of the build step; bind its tools with [`ToolImpl`](crate::tools::ToolImpl)
    /// and [`CarnetBuilder::toolset`](crate::engine::CarnetBuilder::toolset), whose checks
    /// return [`BuildError`](crate::engine::BuildError)s.
    ///
    /// # Errors
    ///
    /// [`carnet_codegen::Error`] with every diagnostic when the content has errors.
    #[cfg(feature = "load")]
    pub fn load_dir(dir: impl AsRef<std::path::Path>) -> Result<Manifest, carnet_codegen::Error> {
        carnet_codegen::Config::new().dir(dir).manifest()
    }
}

pub mod engine {
    //! The [`Carnet`] engine, built once from a manifest and the toolsets' implementations and
    //! shared by every conversation: its builder and options; and its [`Session`]s, one per
    //! conversation: their saved state, errors, variables and typed values.

    pub use carnet_runtime::extensions::Extensions;
    pub use carnet_runtime::session::{
        Baseline, Explanation, HISTORY_CAP, LoadAction, LoadCall, LoadError, LoadEvent, LoadKind, LoadedToolset,
        MetaTool, Session, SessionAgent, SessionError, SessionState, SkillName, TAGS_AND_EXAMPLES_WORDS, ToolName,
        ToolsetName,
    };
    pub use carnet_runtime::variables::{InvalidName, Placeholders, Variables};
    pub use carnet_runtime::{
        Bound, BuildError, Carnet, CarnetBuilder, CatalogFormat, Checked, CompiledManifest, CompiledToolsets,
        DriftPolicy, ExposureMode, Naming, Need, Preset, PromptOptions, Provides, RemoteOptions, ResultFormat,
        RuntimeManifest, StateType, States, ToolsetOf,
    };
}

pub mod tools {
    //! Tools: implementing them at run time ([`ToolImpl`], [`ToolsetImpl`]), what they see and
    //! return, tools as the model sees them ([`ToolSpec`]) and calls as it makes them
    //! ([`ToolCall`]), [`Hook`]s around calls, and arguments checked against an input schema
    //! ([`schema`]).
    //!
    //! `#[carnet::toolset]` generates the [`BoundToolset`] of a compiled manifest's toolset;
    //! [`ToolImpl`] and [`ToolsetImpl`] are for content read at run time.

    pub use carnet_runtime::binding::ToolsetNamed;
    pub use carnet_runtime::hook::{Before, CallInfo, Hook, confirm_destructive};
    pub use carnet_runtime::schema;
    pub use carnet_runtime::tool::*;
    pub use carnet_runtime::{
        BoundToolset, BoxFuture, Cancellation, Cancelled, Context, FromRef, State, ToolError, ToolHandler, ToolImpl,
        ToolOutput, ToolsetImpl, block_on,
    };
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
        #[allow(clippy::all, clippy::pedantic, unreachable_pub, dead_code, unused_imports, missing_docs)]
        $vis mod $name {
            // `$crate`: the generated code finds carnet under whatever name the crate gave it.
            use $crate::__private as rt;
            ::core::include!(::core::concat!(::core::env!("OUT_DIR"), "/carnet/manifest.rs"));
        }
    };
}

/// Implementation details of the generated code. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use carnet_runtime::binding::*;
    pub use carnet_runtime::manifest::{__annotated_tool, __remote_tool, __text, __tool};
    pub use carnet_runtime::{
        Agent, AgentId, App, BoundToolset, BoxFuture, CompiledManifest, CompiledToolsets, Context, Manifest, Skill,
        SkillFile, SkillId, Tool, ToolError, ToolId, ToolImpl, Toolset, ToolsetId, ToolsetImpl, ToolsetOf,
    };
    pub use std::borrow::Cow;
}

/// The README's and the guide's Rust examples, compiled and run by `cargo test --doc` with
/// the crate's real dependencies (`mdbook test` cannot see them). A page joins once its
/// fences are labelled (rustdoc reads a bare ```` ``` ```` as Rust).
#[cfg(doctest)]
mod guide {
    #[doc = include_str!("../README.md")]
    struct Readme;
    #[doc = include_str!("../docs/getting-started.md")]
    struct GettingStarted;
    #[doc = include_str!("../docs/checks.md")]
    struct Checks;
    #[doc = include_str!("../docs/runtime.md")]
    struct Runtime;
    #[doc = include_str!("../docs/testing.md")]
    struct Testing;
    #[doc = include_str!("../docs/models.md")]
    struct Models;
    #[doc = include_str!("../docs/own-loop.md")]
    struct OwnLoop;
    #[doc = include_str!("../docs/rig.md")]
    struct Rig;
    #[doc = include_str!("../docs/mcp-toolsets.md")]
    struct McpToolsets;
    #[doc = include_str!("../docs/mcp-gateway.md")]
    struct McpGateway;
    #[cfg(feature = "remote")]
    #[doc = include_str!("../docs/remote-toolsets.md")]
    struct RemoteToolsets;
    #[cfg(feature = "remote-oauth")]
    #[doc = include_str!("../docs/oauth.md")]
    struct OAuth;
    #[doc = include_str!("../docs/serving.md")]
    struct Serving;
    #[doc = include_str!("../docs/a2a.md")]
    struct A2a;
    #[doc = include_str!("../docs/telemetry.md")]
    struct Telemetry;
    #[doc = include_str!("../docs/cli.md")]
    struct Cli;
    #[doc = include_str!("../docs/build-cost.md")]
    struct BuildCost;
    #[doc = include_str!("../docs/differences.md")]
    struct Differences;
}
