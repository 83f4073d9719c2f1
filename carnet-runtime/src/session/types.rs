//! What names a session and what is kept of one: [`SessionAgent`] (a typed agent id or a
//! name), [`SessionState`] (a session's state by names, to save and resume), and
//! [`SessionError`]; what names a skill, a toolset or a tool in a session's methods
//! ([`SkillName`], [`ToolsetName`], [`ToolName`]) and why a skill would not load
//! ([`LoadError`]).

use serde::{Deserialize, Serialize};

use super::history::LoadEvent;
use crate::manifest::{AgentId, SkillId, ToolId, ToolsetId};

/// Why a session could not be created or resumed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionError {
    /// No agent of that name.
    UnknownAgent {
        /// The name asked for.
        agent: String,
        /// The closest agent name.
        similar: Option<String>,
    },
    /// The state was saved against different content.
    ManifestChanged {
        /// This engine's manifest fingerprint.
        expected: String,
        /// The state's.
        found: String,
    },
    /// The state names something the agent cannot load.
    InvalidState {
        /// The agent.
        agent: String,
        /// `skill`, `toolset` or `tool`.
        kind: &'static str,
        /// The name.
        name: String,
    },
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::UnknownAgent { agent, similar } => write!(
                f,
                "unknown agent `{agent}`{}",
                similar
                    .as_ref()
                    .map(|s| format!(": did you mean `{s}`?"))
                    .unwrap_or_default()
            ),
            Self::ManifestChanged { expected, found } => write!(
                f,
                "the session state was saved with manifest {found}, this engine runs manifest {expected}"
            ),
            Self::InvalidState { agent, kind, name } => write!(
                f,
                "the session state names {kind} `{name}`, which agent `{agent}` cannot load"
            ),
        }
    }
}

impl std::error::Error for SessionError {}

/// A session's state by names, serialisable: save it, resume it on another worker with
/// [`Carnet::resume`](crate::Carnet::resume). Skills, toolsets and tools are named by their
/// names: a skill's name is its id (unique, checked at build time), there is no other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionState {
    /// The agent.
    pub agent: String,
    /// Loaded skills, in load order (initial ones first).
    pub skills: Vec<String>,
    /// Toolsets loaded one by one (`loadToolset`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub toolsets: Vec<String>,
    /// Tools loaded one by one (`loadTool`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// Every toolset in reach (at least one of its tools exposed), and why: loaded directly,
    /// brought by loaded skills, or some of its tools loaded one by one; in the order they
    /// came in reach. TS Carnet's `getSessionState().loadedToolsets`, with the reasons.
    /// Derived from the fields above: [`Carnet::resume`](crate::Carnet::resume) reads none
    /// of it (a state saved before it existed resumes the same).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loaded_toolsets: Vec<LoadedToolset>,
    /// The loads and unloads since the session opened, oldest first, each with its time and
    /// the tool call that made it (see [`LoadEvent`]); the initial skills, loaded when it
    /// opened, are not in it. At most [`HISTORY_CAP`](super::history::HISTORY_CAP) events.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<LoadEvent>,
    /// How many older events the history dropped at its cap.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub history_dropped: u64,
    /// The manifest's fingerprint (hex).
    pub fingerprint: String,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A toolset in a session's reach, and why (in [`SessionState::loaded_toolsets`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadedToolset {
    /// The toolset.
    pub name: String,
    /// Loaded directly (`loadToolset`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub direct: bool,
    /// The loaded skills that bring it, in load order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<String>,
    /// Its tools loaded one by one (`loadTool`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
}

/// What [`Carnet::session`](crate::Carnet::session) accepts: a typed id of the generated manifest
/// (`manifest::agents::RESEARCHER`), with which opening a session cannot fail, or a name
/// given as a string, which is checked.
pub trait SessionAgent: sealed::Sealed {
    /// What opening gives: `T` for a typed id, `Result<T, SessionError>` for a name.
    type Output<T>;

    #[doc(hidden)]
    fn name(&self) -> &str;

    #[doc(hidden)]
    fn wrap<T>(result: Result<T, SessionError>) -> Self::Output<T>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::manifest::AgentId {}
    impl Sealed for &str {}
    impl Sealed for &String {}
    impl Sealed for String {}

    /// Per kind, so a tool's id is not taken where a skill is named.
    pub trait Named<Kind> {}
    impl<Kind> Named<Kind> for &str {}
    impl<Kind> Named<Kind> for &String {}
    impl<Kind> Named<Kind> for String {}
    impl Named<OfSkill> for crate::manifest::SkillId {}
    impl Named<OfToolset> for crate::manifest::ToolsetId {}
    impl Named<OfTool> for crate::manifest::ToolId {}

    #[derive(Debug)]
    pub enum OfSkill {}
    #[derive(Debug)]
    pub enum OfToolset {}
    #[derive(Debug)]
    pub enum OfTool {}
}

macro_rules! kind_name {
    ($(#[$doc:meta])* $trait:ident, $kind:ident, $id:ty, $method:ident, $message:literal, $note:literal) => {
        $(#[$doc])*
        #[diagnostic::on_unimplemented(message = $message, note = $note)]
        pub trait $trait: sealed::Named<sealed::$kind> {
            #[doc(hidden)]
            fn $method(&self) -> &str;
        }

        impl $trait for $id {
            fn $method(&self) -> &str {
                self.name()
            }
        }

        impl $trait for &str {
            fn $method(&self) -> &str {
                self
            }
        }

        impl $trait for &String {
            fn $method(&self) -> &str {
                self
            }
        }

        impl $trait for String {
            fn $method(&self) -> &str {
                self
            }
        }
    };
}

kind_name!(
    /// A skill, in a [`Session`](crate::Session)'s methods: a typed id of the generated
    /// manifest (`manifest::skills::FORECAST`) or a name.
    SkillName,
    OfSkill,
    SkillId,
    skill_name,
    "`{Self}` does not name a skill",
    "a skill is named by its typed id (`manifest::skills::...`) or by its name as a string"
);
kind_name!(
    /// A toolset, in a [`Session`](crate::Session)'s methods: a typed id
    /// (`manifest::toolsets::SEARCH_TOOLS`) or a name.
    ToolsetName,
    OfToolset,
    ToolsetId,
    toolset_name,
    "`{Self}` does not name a toolset",
    "a toolset is named by its typed id (`manifest::toolsets::...`) or by its name as a string"
);
kind_name!(
    /// A tool, in a [`Session`](crate::Session)'s methods: a typed id
    /// (`manifest::tools::BASIC_SEARCH`) or a name (a meta-tool's too, where calls take one).
    ToolName,
    OfTool,
    ToolId,
    tool_name,
    "`{Self}` does not name a tool",
    "a tool is named by its typed id (`manifest::tools::...`) or by its name as a string"
);

/// Why [`Session::load_skill`](crate::Session::load_skill) did not load a skill. (The
/// `loadSkill` meta-tool tells the model the same as a result it can read.)
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadError {
    /// No skill has that name.
    UnknownSkill {
        /// The name asked for.
        skill: String,
        /// The closest skill the agent can load.
        similar: Option<String>,
        /// Every skill the agent can load.
        available: Vec<String>,
    },
    /// The skill exists, but the session's agent cannot load it (it is not among the
    /// agent's skills, initial skills or the global ones).
    NotAvailable {
        /// The session's agent.
        agent: String,
        /// The skill.
        skill: String,
    },
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::UnknownSkill { skill, similar, .. } => write!(
                f,
                "unknown skill `{skill}`{}",
                similar
                    .as_ref()
                    .map(|s| format!(": did you mean `{s}`?"))
                    .unwrap_or_default()
            ),
            Self::NotAvailable { agent, skill } => write!(f, "skill `{skill}` is not available to agent `{agent}`"),
        }
    }
}

impl std::error::Error for LoadError {}

impl SessionAgent for AgentId {
    type Output<T> = T;

    fn name(&self) -> &str {
        AgentId::name(*self)
    }

    /// A typed id names an agent of the generated manifest the engine was built from; only
    /// an engine built from other content can lack it, which is a program error.
    fn wrap<T>(result: Result<T, SessionError>) -> T {
        result.unwrap_or_else(|e| panic!("{e} (the typed id comes from another manifest than this engine's)"))
    }
}

macro_rules! by_name {
    ($($ty:ty),*) => {$(
        impl SessionAgent for $ty {
            type Output<T> = Result<T, SessionError>;

            fn name(&self) -> &str {
                self
            }

            fn wrap<T>(result: Result<T, SessionError>) -> Result<T, SessionError> {
                result
            }
        }
    )*};
}

by_name!(&str, &String, String);
