//! [`Session`]: one conversation's progressive-loading state, its prompt and tools.
//!
//! One job per file: [`state`] opens, saves and resumes sessions; `reach` knows what the
//! agent can load and what is exposed; `call` is the call pipeline; [`meta`] is everything
//! about the meta-tools; [`explain`] says why a tool is or is not exposed; [`history`] keeps
//! each load and unload, when and by which call; [`tags`] puts a skill's tags and examples
//! where the model chooses a skill.

mod base;
mod batch;
mod call;
mod checks;
pub mod discovery;
pub mod explain;
pub mod history;
pub mod meta;
mod reach;
pub mod state;
pub mod tags;
mod types;

pub use base::Session;
pub use explain::{Baseline, Explanation};
pub use history::{HISTORY_CAP, LoadAction, LoadCall, LoadEvent, LoadKind};
pub use meta::{MetaTool, NameEnums, NameKind};
pub use tags::TAGS_AND_EXAMPLES_WORDS;
pub use types::{LoadError, LoadedToolset, SessionAgent, SessionError, SessionState, SkillName, ToolName, ToolsetName};
