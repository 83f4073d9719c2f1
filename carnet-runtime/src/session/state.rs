//! A session's state by names ([`SessionState`]), how sessions are opened and resumed, and
//! why that can fail.

use serde::{Deserialize, Serialize};

use super::Session;
use super::reach::Loaded;
use crate::engine::Carnet;
use crate::manifest::AgentId;
use crate::suggest::closest;

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
/// [`Carnet::resume`].
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

/// What [`Carnet::session`] accepts: a typed id of the generated manifest
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

impl Carnet {
    /// A new session for `agent`, with its initial (and global initial) skills loaded.
    ///
    /// With a typed id (`manifest::agents::RESEARCHER`) this returns the [`Session`]; with a
    /// name given as a string, a `Result`.
    ///
    /// # Errors
    ///
    /// For a name: [`SessionError::UnknownAgent`].
    ///
    /// # Panics
    ///
    /// For a typed id of another manifest than the engine's.
    ///
    /// # Examples
    ///
    /// ```
    /// # use carnet_runtime::{Carnet, Manifest};
    /// # let manifest = Manifest::from_json(r#"{"agents": {"helper": {"name": "helper", "description": "Helps", "prompt": "Be kind."}}, "skills": {}, "toolsets": {}}"#)?;
    /// let carnet = Carnet::builder(&manifest).build()?;
    /// let session = carnet.session("helper")?;
    /// assert_eq!(session.agent(), "helper");
    /// assert!(carnet.session("helpr").unwrap_err().to_string().contains("did you mean `helper`?"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn session<A: SessionAgent>(&self, agent: A) -> A::Output<Session> {
        A::wrap(self.checked_session(agent.name()))
    }

    pub(crate) fn checked_session(&self, name: &str) -> Result<Session, SessionError> {
        let inner = &self.inner;
        let agent = inner.agent_index(name).ok_or_else(|| SessionError::UnknownAgent {
            agent: name.to_owned(),
            similar: closest(name, inner.manifest.agents.iter().map(|a| &*a.name)),
        })?;
        Ok(Session::new(self.clone(), Loaded::initial(inner, agent)))
    }

    /// Resumes a session from its saved state.
    ///
    /// # Errors
    ///
    /// [`SessionError::ManifestChanged`] when the state comes from other content,
    /// [`SessionError::UnknownAgent`] or [`SessionError::InvalidState`] when it names
    /// something this agent cannot load.
    pub fn resume(&self, state: &SessionState) -> Result<Session, SessionError> {
        let inner = &self.inner;
        let expected = format!("{:016x}", inner.manifest.fingerprint);
        if state.fingerprint != expected {
            return Err(SessionError::ManifestChanged {
                expected,
                found: state.fingerprint.clone(),
            });
        }
        let session = self.checked_session(&state.agent)?;
        let invalid = |kind, name: &str| SessionError::InvalidState {
            agent: state.agent.clone(),
            kind,
            name: name.to_owned(),
        };
        let mut loaded = session.loaded;
        loaded.skills.clear();
        for name in &state.skills {
            let s = loaded
                .reachable_skill(inner, name)
                .ok_or_else(|| invalid("skill", name))?;
            loaded.load_skill(s);
        }
        for name in &state.toolsets {
            let t = loaded
                .reachable_toolset(inner, name)
                .ok_or_else(|| invalid("toolset", name))?;
            loaded.load_toolset(t);
        }
        for name in &state.tools {
            let id = loaded
                .reachable_tool(inner, name)
                .ok_or_else(|| invalid("tool", name))?;
            loaded.tools.push(id);
        }
        Ok(Session::new(self.clone(), loaded))
    }
}

impl Session {
    /// The session's state by names, for [`Carnet::resume`].
    #[must_use]
    pub fn state(&self) -> SessionState {
        let inner = &*self.carnet.inner;
        SessionState {
            agent: self.agent().to_owned(),
            skills: self.loaded_skills().map(str::to_owned).collect(),
            toolsets: self
                .loaded
                .toolsets
                .iter()
                .map(|&t| inner.toolset(t).name.to_string())
                .collect(),
            tools: self
                .loaded
                .tools
                .iter()
                .map(|&id| inner.tool(id).spec.name.clone())
                .collect(),
            fingerprint: format!("{:016x}", inner.manifest.fingerprint),
        }
    }
}
