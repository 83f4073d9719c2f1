//! [`Session`]: one conversation's progressive-loading state, its prompt and tools.
//!
//! One job per file: [`state`] opens, saves and resumes sessions; `reach` knows what the
//! agent can load and what is exposed; `call` is the call pipeline; [`meta`] is everything
//! about the meta-tools; [`explain`] says why a tool is or is not exposed.

mod base;
mod batch;
mod call;
mod checks;
pub mod discovery;
pub mod explain;
pub mod meta;
mod reach;
pub mod state;
mod types;

pub use base::Session;
pub use explain::{Baseline, Explanation};
pub use meta::{MetaTool, NameEnums, NameKind};
pub use types::{LoadError, SessionAgent, SessionError, SessionState, SkillName, ToolName, ToolsetName};
