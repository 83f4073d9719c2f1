//! How sessions are opened ([`Carnet::session`]), saved ([`Session::state`]) and resumed
//! ([`Carnet::resume`]).

use super::base::Session;
use super::history::History;
use super::reach::Loaded;
use super::types::LoadedToolset;
pub use super::types::{SessionAgent, SessionError, SessionState};
use crate::engine::Carnet;
use crate::suggest::closest;

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
    #[allow(clippy::needless_pass_by_value)] // by value so both `agents::X` and `"x"` read naturally
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

    /// Resumes a session from its saved state: its loads, and its history as it was (the
    /// newest [`HISTORY_CAP`](super::history::HISTORY_CAP) events, the others counted as
    /// dropped; an event naming what the agent cannot reach is an invalid state).
    /// [`SessionState::loaded_toolsets`] is derived, and not read.
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
        let history = History::restored(inner, &loaded, &state.history, state.history_dropped)
            .map_err(|(kind, name)| invalid(kind, &name))?;
        let mut session = Session::new(self.clone(), loaded);
        session.history = history;
        Ok(session)
    }
}

impl Session {
    /// The session's state by names, for [`Carnet::resume`]: the loaded skills, toolsets and
    /// tools, the toolsets in reach and why, and the load history.
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
            loaded_toolsets: self
                .loaded
                .loaded_toolsets(inner)
                .into_iter()
                .map(|reach| LoadedToolset {
                    name: inner.toolset(reach.toolset).name.to_string(),
                    direct: reach.direct,
                    skills: reach.skills.iter().map(|&s| inner.skill(s).name.to_string()).collect(),
                    tools: reach.tools.iter().map(|&id| inner.tool(id).spec.name.clone()).collect(),
                })
                .collect(),
            history: self.history.events(inner).collect(),
            history_dropped: self.history.dropped(),
            fingerprint: format!("{:016x}", inner.manifest.fingerprint),
        }
    }
}
