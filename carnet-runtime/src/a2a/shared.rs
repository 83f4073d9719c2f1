//! What every request of one A2A server shares: the engine and agent, the model factory,
//! the task store, the conversations (one carnet session per A2A context) and the tasks
//! running in this process.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use a2a_types::{A2AError, StreamResponse};
use tokio::sync::broadcast;

use super::limits::Limits;
use super::retry;
use super::store::TaskStore;
use crate::Cancellation;
use crate::chat::{ChatModel, Message, ModelError};
use crate::engine::Carnet;
use crate::session::Session;
use crate::telemetry::ConversationId;

/// Makes the model of a new conversation, given its A2A `contextId`: each context gets its
/// own (a model client may keep state, a scripted one its place in the script).
pub type ModelFactory = dyn Fn(&str) -> Result<Box<dyn ChatModel>, ModelError> + Send + Sync;

/// Events buffered for a slow subscriber before it is sent the task as a whole instead.
pub(super) const EVENT_BUFFER: usize = 64;

pub(super) struct Shared {
    pub(super) carnet: Carnet,
    pub(super) agent: String,
    pub(super) version: String,
    pub(super) models: Arc<ModelFactory>,
    pub(super) limits: Limits,
    pub(super) store: Arc<dyn TaskStore>,
    contexts: Mutex<HashMap<String, Arc<Conversation>>>,
    live: Mutex<HashMap<String, Live>>,
}

/// A task running in this process: its events, and the signal that cancels it.
#[derive(Clone)]
pub(super) struct Live {
    pub(super) events: broadcast::Sender<StreamResponse>,
    pub(super) cancel: Cancellation,
}

/// One A2A context: a carnet session, its messages and its model. Its messages run one at
/// a time, in the order they arrived.
pub(super) struct Conversation {
    pub(super) turns: tokio::sync::Mutex<Turns>,
    last_used: Mutex<Instant>,
    /// Tasks given to this conversation and not finished: a busy conversation is never
    /// ended to make room.
    busy: AtomicUsize,
}

pub(super) struct Turns {
    pub(super) session: Session,
    pub(super) messages: Vec<Message>,
    pub(super) model: Box<dyn ChatModel>,
    /// How many messages of this context have run, here or (with a shared store) on any
    /// replica: a saved state of a higher version replaces this one.
    pub(super) version: u64,
}

impl Shared {
    pub(super) fn new(
        carnet: Carnet,
        agent: String,
        version: String,
        models: Arc<ModelFactory>,
        limits: Limits,
        store: Arc<dyn TaskStore>,
    ) -> Shared {
        Shared {
            carnet,
            agent,
            version,
            models,
            limits,
            store,
            contexts: Mutex::new(HashMap::new()),
            live: Mutex::new(HashMap::new()),
        }
    }

    /// The conversation of context `id`, made when there is none (or it expired), marked
    /// busy until [`Shared::release`]. Idle conversations past `context_idle` are ended
    /// first; at `max_contexts`, the one unused longest is ended, and when all are busy the
    /// request is refused.
    pub(super) fn conversation(&self, id: &str) -> Result<Arc<Conversation>, A2AError> {
        let mut contexts = self.contexts.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        let idle = self.limits.context_idle;
        contexts.retain(|_, c| c.is_busy() || now.duration_since(c.last_used()) < idle);
        if let Some(conversation) = contexts.get(id) {
            conversation.busy.fetch_add(1, Ordering::AcqRel);
            conversation.touch();
            return Ok(conversation.clone());
        }
        if contexts.len() >= self.limits.max_contexts {
            let oldest = contexts
                .iter()
                .filter(|(_, c)| !c.is_busy())
                .min_by_key(|(_, c)| c.last_used())
                .map(|(id, _)| id.clone());
            let Some(oldest) = oldest else {
                return Err(retry::later(format!(
                    "the server holds {} conversations, all busy, as many as it may; try again later",
                    self.limits.max_contexts
                )));
            };
            contexts.remove(&oldest);
        }
        let mut session = self
            .carnet
            .session(self.agent.as_str())
            .map_err(|e| A2AError::internal(format!("cannot start a session: {e}")))?;
        session.extensions_mut().insert(ConversationId(id.to_owned()));
        let model = (self.models)(id).map_err(|e| A2AError::internal(format!("cannot start the model: {e}")))?;
        let conversation = Arc::new(Conversation {
            turns: tokio::sync::Mutex::new(Turns {
                session,
                messages: Vec::new(),
                model,
                version: 0,
            }),
            last_used: Mutex::new(now),
            busy: AtomicUsize::new(1),
        });
        contexts.insert(id.to_owned(), conversation.clone());
        Ok(conversation)
    }

    /// A task given by [`Shared::conversation`] is over.
    pub(super) fn release(conversation: &Conversation) {
        conversation.touch();
        conversation.busy.fetch_sub(1, Ordering::AcqRel);
    }

    /// Registers a running task, its events going to subscribers until [`Shared::finish`];
    /// `None` when it runs already (two messages continuing one task at once: one runs).
    pub(super) fn start(&self, task_id: &str) -> Option<Live> {
        let mut running = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        if running.contains_key(task_id) {
            return None;
        }
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        let live = Live {
            events,
            cancel: Cancellation::new(),
        };
        running.insert(task_id.to_owned(), live.clone());
        Some(live)
    }

    /// The running task `task_id`, if this process runs it.
    pub(super) fn live(&self, task_id: &str) -> Option<Live> {
        self.live
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(task_id)
            .cloned()
    }

    /// The task stopped running: its subscribers' streams end once they have read its last
    /// events.
    pub(super) fn finish(&self, task_id: &str) {
        self.live.lock().unwrap_or_else(PoisonError::into_inner).remove(task_id);
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("agent", &self.agent)
            .field("version", &self.version)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Conversation {
    fn is_busy(&self) -> bool {
        self.busy.load(Ordering::Acquire) > 0
    }

    fn last_used(&self) -> Instant {
        *self.last_used.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn touch(&self) {
        *self.last_used.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }
}
