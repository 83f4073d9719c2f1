//! One remote A2A agent as the engine sees it: its card read on first use (again after a
//! failure, and when five minutes old) and compared with the pin, one A2A context per carnet session, and each call a
//! message whose task is followed to its end: streamed when the card says so, else polled.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use a2a_types::{Message, Part, Role, StreamResponse, Task, TaskState};
use serde_json::{Value, json};
use tokio::sync::Mutex;

use super::client::{Client, Endpoint, Failure, cut};
use super::pin::{jsonrpc_interface, pin_card};
use crate::engine::options::RemoteOptions;
use crate::remote::Server;

/// Sessions whose A2A context is remembered, at most (the least recently used is forgotten).
const MAX_CONTEXTS: usize = 4096;

/// A context unused this long is forgotten.
const CONTEXT_IDLE: Duration = Duration::from_hours(1);

/// How long a card read stays trusted: past this, the next call reads it again (an agent
/// that changed its card is noticed without a failure first).
const CARD_TTL: Duration = Duration::from_mins(5);

/// The first wait between two `GetTask` polls, doubled up to [`MAX_POLL`].
const FIRST_POLL: Duration = Duration::from_millis(200);
const MAX_POLL: Duration = Duration::from_secs(2);

/// The most text of an answer kept (the rest is cut, saying so): what a model can read.
const MAX_ANSWER_BYTES: usize = 1 << 20;

/// What the live card says, read on connect.
struct Live {
    /// The JSON-RPC endpoint.
    url: String,
    headers: BTreeMap<String, String>,
    streaming: bool,
    /// Pinned skills the live card no longer offers as pinned, and why.
    drift: HashMap<String, String>,
    /// When the card was read.
    read: Instant,
}

/// The A2A conversation of one carnet session: its context, and the task waiting for input.
struct Conversation {
    context_id: String,
    pending_task: Option<String>,
    used: Instant,
}

/// Who a call comes from: the session's conversation id when it has one, else the session.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) enum SessionKey {
    Conversation(String),
    Session(u64),
}

/// What a call gave: the answer's text, the task's id and its state.
pub(crate) struct Answer {
    pub(crate) text: String,
    pub(crate) task_id: Option<String>,
    pub(crate) state: TaskState,
}

/// A remote A2A agent, shared by the sessions of an engine.
pub(crate) struct Agent {
    pub(crate) toolset: String,
    /// The agent's name as its pin recorded it.
    pub(crate) name: String,
    server: Server,
    /// Tool name → the skill id it was pinned from.
    pub(crate) skills: HashMap<String, String>,
    options: RemoteOptions,
    live: Mutex<Option<Arc<Live>>>,
    contexts: std::sync::Mutex<HashMap<SessionKey, Conversation>>,
    client: std::sync::Mutex<Option<Arc<Client>>>,
    started: AtomicBool,
}

impl Agent {
    pub(crate) fn new(
        toolset: String,
        name: String,
        server: Server,
        skills: HashMap<String, String>,
        options: RemoteOptions,
    ) -> Self {
        Agent {
            toolset,
            name,
            server,
            skills,
            options,
            live: Mutex::new(None),
            contexts: std::sync::Mutex::new(HashMap::new()),
            client: std::sync::Mutex::new(None),
            started: AtomicBool::new(false),
        }
    }

    pub(crate) fn started(&self) -> bool {
        self.started.load(Ordering::Acquire)
    }

    /// Reads the card in the background when a tokio runtime runs (a skill bringing the
    /// toolset loaded); otherwise the first call does.
    pub(crate) fn warm(self: &Arc<Self>) {
        if self.started() {
            return;
        }
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let this = Arc::clone(self);
            handle.spawn(async move {
                let _ = this.live().await;
            });
        }
    }

    /// The HTTP client (one per agent: its connections are kept between calls).
    fn client(&self) -> Result<Arc<Client>, Failure> {
        let mut client = self.client.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(client) = &*client {
            return Ok(Arc::clone(client));
        }
        let made = Arc::new(Client::new(
            self.options.connect_timeout,
            self.options.max_message_bytes,
        )?);
        *client = Some(Arc::clone(&made));
        Ok(made)
    }

    /// The live card's reading, reading it first when there is none.
    async fn live(&self) -> Result<Arc<Live>, Failure> {
        let mut live = self.live.lock().await;
        if let Some(known) = live.as_ref().filter(|l| l.read.elapsed() < CARD_TTL) {
            return Ok(Arc::clone(known));
        }
        self.started.store(true, Ordering::Release);
        let read = tokio::time::timeout(self.options.connect_timeout, self.read_card())
            .await
            .unwrap_or_else(|_| {
                Err(Failure::unreachable(format!(
                    "its card did not come within {} ms",
                    self.options.connect_timeout.as_millis()
                )))
            });
        match read {
            Ok(read) => {
                let read = Arc::new(read);
                *live = Some(Arc::clone(&read));
                Ok(read)
            }
            Err(failure) => {
                tracing::warn!(target: "carnet::remote", toolset = %self.toolset, agent = %self.name, error = %failure.message, "A2A agent unavailable");
                Err(failure)
            }
        }
    }

    /// Forgets the card after a failure: the next call reads it again.
    async fn forget(&self) {
        *self.live.lock().await = None;
    }

    async fn read_card(&self) -> Result<Live, Failure> {
        let Server::Http { url, headers } = self.server.resolve().map_err(|e| Failure::unreachable(e.to_string()))?
        else {
            return Err(Failure::unreachable("an A2A agent is reached by `url`"));
        };
        let endpoint = Endpoint { url, headers };
        let card = self.client()?.card(&endpoint).await?;
        let pin = pin_card(&card).map_err(Failure::garbage)?;
        let parsed: a2a_types::AgentCard = serde_json::from_value(card).map_err(|e| Failure::garbage(e.to_string()))?;
        let interface =
            jsonrpc_interface(&parsed).ok_or_else(|| Failure::garbage("its card has no JSON-RPC interface"))?;
        let mut drift = HashMap::new();
        for (tool, skill) in &self.skills {
            let live = pin.json()["tools"]
                .as_array()
                .and_then(|tools| tools.iter().find(|t| t["a2a"]["skill"] == skill.as_str()));
            let why = match live {
                None => Some(format!("the agent no longer has skill `{skill}`")),
                Some(t) => t["a2a"]["unusable"].as_str().map(str::to_owned),
            };
            if let Some(why) = why {
                tracing::warn!(target: "carnet::remote", toolset = %self.toolset, agent = %self.name, tool = %tool, %why, "A2A agent drifted from its pin");
                drift.insert(tool.clone(), why);
            }
        }
        Ok(Live {
            url: interface.wire_url(),
            headers: endpoint.headers,
            streaming: parsed.capabilities.streaming.unwrap_or(false),
            drift,
            read: Instant::now(),
        })
    }

    fn conversation(&self, key: &SessionKey) -> (Option<String>, Option<String>) {
        let mut contexts = self.contexts.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        contexts.retain(|_, c| c.used.elapsed() < CONTEXT_IDLE);
        contexts
            .get(key)
            .map_or((None, None), |c| (Some(c.context_id.clone()), c.pending_task.clone()))
    }

    fn remember(&self, key: SessionKey, context_id: String, pending_task: Option<String>) {
        let mut contexts = self.contexts.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if contexts.len() >= MAX_CONTEXTS
            && !contexts.contains_key(&key)
            && let Some(oldest) = contexts.iter().min_by_key(|(_, c)| c.used).map(|(k, _)| k.clone())
        {
            contexts.remove(&oldest);
        }
        contexts.insert(
            key,
            Conversation {
                context_id,
                pending_task,
                used: Instant::now(),
            },
        );
    }

    /// Sends `text` to the agent for `tool` in the conversation of `key` and follows the
    /// task to its end (or until it waits for input), within the call timeout. `on_task`
    /// hears the task's id as soon as it is known.
    pub(crate) async fn ask(
        &self,
        tool: &str,
        key: SessionKey,
        text: String,
        on_task: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<Answer, Failure> {
        let live = self.live().await?;
        if let Some(why) = live.drift.get(tool) {
            return Err(Failure {
                message: format!(
                    "tool `{tool}` of toolset `{}` is refused: {why} (run `carnet a2a pin {}` and rebuild to accept the agent's new card)",
                    self.toolset, self.toolset
                ),
                code: "upstream_drift",
            });
        }
        let (context_id, pending_task) = self.conversation(&key);
        let mut message = Message::new(Role::User, vec![Part::text(text)]);
        message.context_id = context_id;
        message.task_id = pending_task;
        if let Some(skill) = self.skills.get(tool) {
            message.metadata = Some(HashMap::from([("skill".to_owned(), json!(skill))]));
        }
        let params =
            json!({"message": message, "configuration": {"acceptedOutputModes": ["text/plain", "application/json"]}});
        let mut follow = Follow::default();
        let deadline = Instant::now() + self.options.call_timeout;
        let client = self.client()?;
        let outcome =
            tokio::time::timeout_at(deadline.into(), self.run(&client, &live, params, &mut follow, on_task)).await;
        let answer = match outcome {
            Ok(Ok(answer)) => answer,
            Ok(Err(failure)) => {
                if failure.code != "upstream_error" {
                    self.forget().await;
                }
                return Err(with_task(failure, follow.task_id.as_deref()));
            }
            Err(_) => {
                if let Some(task) = &follow.task_id {
                    self.cancel(client, &live, task.clone());
                }
                self.forget().await;
                let task = follow
                    .task_id
                    .as_deref()
                    .map_or_else(String::new, |t| format!(" (task `{t}`, canceled)"));
                return Err(Failure {
                    message: format!(
                        "the agent did not finish within {} ms{task}",
                        self.options.call_timeout.as_millis()
                    ),
                    code: "upstream_timeout",
                });
            }
        };
        if let Some(context) = follow.context_id.clone() {
            let waiting = matches!(answer.state, TaskState::InputRequired | TaskState::AuthRequired);
            self.remember(key, context, if waiting { answer.task_id.clone() } else { None });
        }
        Ok(answer)
    }

    async fn run(
        &self,
        client: &Client,
        live: &Live,
        params: Value,
        follow: &mut Follow,
        on_task: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<Answer, Failure> {
        if live.streaming {
            let mut on_event = |event: Value| -> Result<bool, Failure> {
                let event: StreamResponse = serde_json::from_value(event)
                    .map_err(|e| Failure::garbage(format!("its stream sent something that is not A2A: {e}")))?;
                follow.apply(event, on_task);
                Ok(follow.done())
            };
            let finished = client
                .stream(&live.url, &live.headers, "SendStreamingMessage", params, &mut on_event)
                .await?;
            if finished || follow.done() {
                return Ok(follow.answer());
            }
            if follow.task_id.is_none() {
                return Err(Failure::broken("its stream ended before naming a task"));
            }
            // The stream ended early: the task is polled to its end.
        } else {
            let result = client.call(&live.url, &live.headers, "SendMessage", params).await?;
            let response: a2a_types::SendMessageResponse = serde_json::from_value(result).map_err(|e| {
                Failure::garbage(format!("it answered `SendMessage` with something that is not A2A: {e}"))
            })?;
            match response {
                a2a_types::SendMessageResponse::Message(message) => {
                    follow.apply(StreamResponse::Message(message), on_task);
                }
                a2a_types::SendMessageResponse::Task(task) => follow.apply(StreamResponse::Task(task), on_task),
            }
            if follow.done() {
                return Ok(follow.answer());
            }
        }
        let task_id = follow.task_id.clone().unwrap_or_default();
        let mut wait = FIRST_POLL;
        loop {
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(MAX_POLL);
            let result = client
                .call(&live.url, &live.headers, "GetTask", json!({"id": task_id}))
                .await?;
            let task: Task = serde_json::from_value(result).map_err(|e| {
                Failure::garbage(format!("it answered `GetTask` with something that is not a task: {e}"))
            })?;
            follow.apply(StreamResponse::Task(task), on_task);
            if follow.done() {
                return Ok(follow.answer());
            }
        }
    }

    /// Cancels a task that ran out of time, in the background (bounded by the connect
    /// timeout): the agent need not keep working for nobody.
    fn cancel(&self, client: Arc<Client>, live: &Live, task: String) {
        let (url, headers) = (live.url.clone(), live.headers.clone());
        let limit = self.options.connect_timeout;
        tokio::spawn(async move {
            let _ = tokio::time::timeout(limit, client.call(&url, &headers, "CancelTask", json!({"id": task}))).await;
        });
    }
}

fn with_task(mut failure: Failure, task: Option<&str>) -> Failure {
    if let Some(task) = task {
        failure.message.push_str(&format!(" (task `{task}`)"));
    }
    failure
}

/// A task followed from its events: its id, state, artifacts and last status message.
#[derive(Default)]
struct Follow {
    task_id: Option<String>,
    context_id: Option<String>,
    state: Option<TaskState>,
    /// Artifacts by id, in the order they came, their text parts appended.
    artifacts: Vec<(String, String)>,
    status_text: Option<String>,
    /// A message answer (no task).
    message: Option<String>,
    /// Artifact text past [`MAX_ANSWER_BYTES`] was left out.
    cut: bool,
}

impl Follow {
    fn apply(&mut self, event: StreamResponse, on_task: &(dyn Fn(&str) + Send + Sync)) {
        let (task_id, context_id) = match &event {
            StreamResponse::Task(t) => (Some(t.id.clone()), Some(t.context_id.clone())),
            StreamResponse::Message(m) => (m.task_id.clone(), m.context_id.clone()),
            StreamResponse::StatusUpdate(s) => (Some(s.task_id.clone()), Some(s.context_id.clone())),
            StreamResponse::ArtifactUpdate(a) => (Some(a.task_id.clone()), Some(a.context_id.clone())),
        };
        if self.task_id.is_none()
            && let Some(id) = &task_id
        {
            on_task(id);
        }
        self.task_id = self.task_id.take().or(task_id);
        self.context_id = self.context_id.take().or(context_id);
        match event {
            StreamResponse::Task(task) => {
                self.status(&task.status);
                if let Some(artifacts) = task.artifacts {
                    self.artifacts = artifacts
                        .iter()
                        .map(|a| (a.artifact_id.clone(), text(&a.parts)))
                        .collect();
                }
            }
            StreamResponse::Message(message) => self.message = Some(text(&message.parts)),
            StreamResponse::StatusUpdate(update) => self.status(&update.status),
            StreamResponse::ArtifactUpdate(update) => {
                let piece = text(&update.artifact.parts);
                let kept: usize = self.artifacts.iter().map(|(_, t)| t.len()).sum();
                if kept + piece.len() > MAX_ANSWER_BYTES {
                    self.cut = true;
                    return;
                }
                match self
                    .artifacts
                    .iter_mut()
                    .find(|(id, _)| *id == update.artifact.artifact_id)
                {
                    Some((_, existing)) if update.append == Some(true) => existing.push_str(&piece),
                    Some((_, existing)) => *existing = piece,
                    None => self.artifacts.push((update.artifact.artifact_id, piece)),
                }
            }
        }
    }

    fn status(&mut self, status: &a2a_types::TaskStatus) {
        self.state = Some(status.state.clone());
        if let Some(message) = &status.message {
            self.status_text = Some(text(&message.parts));
        }
    }

    /// Whether the answer is complete: a message, a terminal task, or one waiting for input.
    fn done(&self) -> bool {
        self.message.is_some()
            || self
                .state
                .as_ref()
                .is_some_and(|s| s.is_terminal() || matches!(s, TaskState::InputRequired | TaskState::AuthRequired))
    }

    fn answer(&self) -> Answer {
        let artifacts: Vec<&str> = self
            .artifacts
            .iter()
            .map(|(_, t)| t.as_str())
            .filter(|t| !t.is_empty())
            .collect();
        let mut text = if let Some(message) = &self.message {
            message.clone()
        } else if !artifacts.is_empty() && self.state == Some(TaskState::Completed) {
            artifacts.join("\n\n")
        } else {
            self.status_text.clone().unwrap_or_default()
        };
        if text.len() > MAX_ANSWER_BYTES {
            let mut end = MAX_ANSWER_BYTES;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
            text.push_str("\n[… the rest of the answer was cut]");
        } else if self.cut {
            text.push_str("\n[… the rest of the answer was cut]");
        }
        Answer {
            text,
            task_id: self.task_id.clone(),
            state: self.state.clone().unwrap_or(TaskState::Completed),
        }
    }
}

/// The text of parts: text parts as they are, data parts as JSON, files by name.
fn text(parts: &[Part]) -> String {
    let pieces: Vec<String> = parts
        .iter()
        .map(|part| match &part.content {
            a2a_types::PartContent::Text(t) => t.clone(),
            a2a_types::PartContent::Data(v) => v.to_string(),
            a2a_types::PartContent::Url(u) => format!("[file: {}]", cut(u)),
            a2a_types::PartContent::Raw(bytes) => format!(
                "[{} bytes{}]",
                bytes.len(),
                part.filename
                    .as_deref()
                    .map_or_else(String::new, |f| format!(" of `{f}`"))
            ),
        })
        .collect();
    pieces.join("\n")
}

/// A task state as the spec names it, for results.
pub(crate) fn state_name(state: &TaskState) -> &'static str {
    match state {
        TaskState::Unspecified => "unspecified",
        TaskState::Submitted => "submitted",
        TaskState::Working => "working",
        TaskState::Completed => "completed",
        TaskState::Failed => "failed",
        TaskState::Canceled => "canceled",
        TaskState::InputRequired => "input-required",
        TaskState::Rejected => "rejected",
        TaskState::AuthRequired => "auth-required",
    }
}
