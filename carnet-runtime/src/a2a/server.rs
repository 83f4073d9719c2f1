//! [`Server`]: one agent of a [`Carnet`] served as an A2A 1.0 agent, its conversations run
//! on the models a factory makes.

use std::io;
use std::sync::Arc;

use tokio::net::ToSocketAddrs;

use super::http::HttpServer;
use super::limits::Limits;
use super::shared::{ModelFactory, Shared};
use super::store::{MemoryStore, TaskStore};
use super::worker;
use crate::chat::{ChatModel, ModelError};
use crate::engine::Carnet;
use crate::session::SessionError;

/// One agent of a [`Carnet`] as an A2A 1.0 server: each A2A context is a carnet session
/// (skills loaded by one message stay loaded for the next), each message a task run by
/// [`chat::run`](crate::chat::run) on the context's model.
///
/// See the [module docs](super) for what is served and an example.
pub struct Server {
    carnet: Carnet,
    agent: String,
    version: String,
    models: Arc<ModelFactory>,
    limits: Limits,
    store: Option<Arc<dyn TaskStore>>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("agent", &self.agent)
            .field("version", &self.version)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Serves `agent` of `carnet`; `models` makes the model of each new context, given its
    /// id (a client from the environment, a scripted model in tests).
    ///
    /// # Errors
    ///
    /// When the engine has no such agent.
    pub fn new<F>(carnet: &Carnet, agent: impl AsRef<str>, models: F) -> Result<Self, SessionError>
    where
        F: Fn(&str) -> Result<Box<dyn ChatModel>, ModelError> + Send + Sync + 'static,
    {
        let agent = agent.as_ref();
        // Checked now, so a typo fails at start-up, not at the first message.
        carnet.session(agent)?;
        Ok(Server {
            carnet: carnet.clone(),
            agent: agent.to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            models: Arc::new(models),
            limits: Limits::default(),
            store: None,
        })
    }

    /// Sets the agent's version the card gives (default: carnet's).
    #[must_use]
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// Sets the server's [`Limits`].
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Keeps tasks in `store` (default: a [`MemoryStore`] of [`Limits::max_tasks`] tasks,
    /// finished ones kept [`Limits::task_ttl`]).
    #[must_use]
    pub fn store(mut self, store: impl TaskStore) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// Binds `addr`, a loopback address (`127.0.0.1:0` picks a free port): the server has
    /// no authentication, so serving other machines is a proxy's job (one that
    /// authenticates).
    ///
    /// # Errors
    ///
    /// When the address is not a loopback one, or cannot be bound.
    pub async fn bind(self, addr: impl ToSocketAddrs) -> io::Result<HttpServer> {
        let store = self
            .store
            .unwrap_or_else(|| Arc::new(MemoryStore::new(self.limits.max_tasks, self.limits.task_ttl)));
        let shared = Arc::new(Shared::new(
            self.carnet,
            self.agent,
            self.version,
            self.models,
            self.limits,
            store,
        ));
        if shared.store.is_shared() {
            worker::sweep(&shared);
        }
        HttpServer::bind(shared, addr).await
    }
}
