//! What names a session and what is kept of one: [`SessionAgent`] (a typed agent id or a
//! name), [`SessionState`] (a session's state by names, to save and resume), and
//! [`SessionError`].

use serde::{Deserialize, Serialize};

use crate::manifest::AgentId;

/// Why a session could not be created or resumed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// No agent of that name.
    #[error("unknown agent `{agent}`{}", .similar.as_ref().map(|s| format!(": did you mean `{s}`?")).unwrap_or_default())]
    UnknownAgent {
        /// The name asked for.
        agent: String,
        /// The closest agent name.
        similar: Option<String>,
    },
    /// The state was saved against different content.
    #[error("the session state was saved with manifest {found}, this engine runs manifest {expected}")]
    ManifestChanged {
        /// This engine's manifest fingerprint.
        expected: String,
        /// The state's.
        found: String,
    },
    /// The state names something the agent cannot load.
    #[error("the session state names {kind} `{name}`, which agent `{agent}` cannot load")]
    InvalidState {
        /// The agent.
        agent: String,
        /// `skill`, `toolset` or `tool`.
        kind: &'static str,
        /// The name.
        name: String,
    },
}

/// A session's state by names, serialisable: save it, resume it on another worker with
/// [`Carnet::resume`](crate::Carnet::resume).
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
    /// The manifest's fingerprint (hex).
    pub fingerprint: String,
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
}

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
