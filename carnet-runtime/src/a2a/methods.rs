//! The A2A operations, whatever the binding: `SendMessage`, `SendStreamingMessage`,
//! `GetTask`, `ListTasks`, `CancelTask`, `SubscribeToTask`, and the answers to what this
//! server does not offer.

use std::sync::Arc;
use std::time::Duration;

use a2a_types::{
    A2AError, CancelTaskRequest, GetTaskRequest, ListTasksRequest, ListTasksResponse, Message as WireMessage,
    PartContent, Role, SendMessageRequest, SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task,
    TaskState, error_code,
};
use serde_json::Value;
use tokio::sync::broadcast;

use super::retry;
use super::shared::Shared;
use super::store::{StoreError, TaskEvents, TaskQuery};
use super::worker::{self, ends, ends_stream, status};

/// The most tasks a `ListTasks` page holds, and how many when the request does not say.
const MAX_PAGE_SIZE: i32 = 100;
const DEFAULT_PAGE_SIZE: i32 = 50;
/// The longest id or `contextId` a client may choose.
const MAX_ID_CHARS: usize = 200;
/// How long `CancelTask` waits for the task to stop before answering with its state.
const CANCEL_WAIT: Duration = Duration::from_secs(10);
/// How often `CancelTask` reads a task another replica runs while it waits for its end.
const CANCEL_POLL: Duration = Duration::from_millis(100);

/// The media types a message's answer comes in.
const OUTPUT_MODES: [&str; 3] = ["text/plain", "text/*", "*/*"];

/// An operation's answer: a value, or a stream of events.
pub(super) enum Reply {
    Value(Value),
    Stream(Box<Events>),
}

/// The events of one task for one subscriber: `first`, then what the task does until it
/// ends.
pub(super) struct Events {
    first: Option<StreamResponse>,
    receiver: Option<broadcast::Receiver<StreamResponse>>,
    /// The events of a task another replica runs, through a shared store.
    remote: Option<Box<dyn TaskEvents>>,
    shared: Arc<Shared>,
    task_id: String,
    done: bool,
}

impl Events {
    /// The next event; `None` when the stream is over.
    pub(super) async fn next(&mut self) -> Option<StreamResponse> {
        if self.done {
            return None;
        }
        if let Some(first) = self.first.take() {
            self.done = ends_stream(&first);
            return Some(first);
        }
        if let Some(remote) = self.remote.as_mut() {
            // A store that fails ends the stream; the client reads the task with GetTask.
            let event = remote.next().await.ok().flatten()?;
            self.done = ends_stream(&event);
            return Some(event);
        }
        let receiver = self.receiver.as_mut()?;
        let event = match receiver.recv().await {
            Ok(event) => event,
            // Too slow to read every event: the task as it is now says it all.
            Err(broadcast::error::RecvError::Lagged(_)) => match self.shared.store.load(&self.task_id).await {
                Ok(Some(task)) => StreamResponse::Task(task),
                _ => return None,
            },
            Err(broadcast::error::RecvError::Closed) => return None,
        };
        self.done = ends_stream(&event);
        Some(event)
    }
}

/// `SendMessage` (`streaming` false) and `SendStreamingMessage`.
pub(super) async fn send(shared: &Arc<Shared>, params: Value, streaming: bool) -> Result<Reply, A2AError> {
    let request: SendMessageRequest = parse(params)?;
    let configuration = request.configuration.as_ref();
    let history_length = history_length(configuration.and_then(|c| c.history_length))?;
    if let Some(modes) = configuration.and_then(|c| c.accepted_output_modes.as_ref())
        && !modes.is_empty()
        && !modes.iter().any(|m| OUTPUT_MODES.contains(&m.trim()))
    {
        return Err(A2AError::new(
            error_code::CONTENT_TYPE_NOT_SUPPORTED,
            format!(
                "this agent answers in text/plain, which `acceptedOutputModes` ({}) leaves out",
                modes.join(", ")
            ),
        ));
    }
    let message = request.message;
    let text = message_text(&message, shared.limits.max_message_chars)?;
    let (mut task, context_id) = match &message.task_id {
        Some(task_id) => continue_task(shared, task_id, message.context_id.as_deref()).await?,
        None => {
            let context_id = match &message.context_id {
                Some(id) => checked_id(id, "contextId")?.to_owned(),
                None => a2a_types::new_context_id(),
            };
            let task = Task {
                id: a2a_types::new_task_id(),
                context_id: context_id.clone(),
                status: status(TaskState::Submitted, None),
                artifacts: None,
                history: None,
                metadata: None,
            };
            (task, context_id)
        }
    };
    let mut message = message;
    message.context_id = Some(context_id.clone());
    message.task_id = Some(task.id.clone());
    task.history.get_or_insert_with(Vec::new).push(message);
    task.status = status(TaskState::Submitted, None);

    // Claimed before it is saved: of two messages continuing one task, one runs.
    let Some(live) = shared.start(&task.id) else {
        return Err(A2AError::unsupported_operation(format!(
            "task `{}` is running: wait for it to end or cancel it",
            task.id
        )));
    };
    let conversation = match shared.conversation(&context_id) {
        Ok(conversation) => conversation,
        Err(e) => {
            shared.finish(&task.id);
            return Err(e);
        }
    };
    // A shared store holds this replica's lease on the task before anyone can read it.
    let held = if shared.store.is_shared() {
        shared.store.hold(&task.id).await.map(drop)
    } else {
        Ok(())
    };
    let saved = match held {
        Ok(()) => shared.store.save(task.clone()).await,
        Err(e) => Err(e),
    };
    if let Err(e) = saved {
        Shared::release(&conversation);
        shared.finish(&task.id);
        return Err(store_error(&e));
    }
    let receiver = live.events.subscribe();
    let snapshot = task.clone();
    tokio::spawn(worker::run_task(shared.clone(), conversation, task, text, live));

    let blocking = !configuration.and_then(|c| c.return_immediately).unwrap_or(false);
    if streaming {
        let task_id = snapshot.id.clone();
        return Ok(Reply::Stream(Box::new(Events {
            first: Some(StreamResponse::Task(trim(snapshot, history_length, true))),
            receiver: Some(receiver),
            remote: None,
            shared: shared.clone(),
            task_id,
            done: false,
        })));
    }
    let task = if blocking {
        wait_for_end(shared, receiver, &snapshot.id).await?
    } else {
        snapshot
    };
    let response = SendMessageResponse::Task(trim(task, history_length, true));
    Ok(Reply::Value(to_value(&response)))
}

/// The task a message with a `taskId` continues, and its context: only a task waiting for
/// input takes another message.
async fn continue_task(shared: &Shared, task_id: &str, context_id: Option<&str>) -> Result<(Task, String), A2AError> {
    let task = load(shared, task_id).await?;
    if let Some(context_id) = context_id
        && context_id != task.context_id
    {
        return Err(A2AError::invalid_params(format!(
            "task `{task_id}` belongs to context `{}`, not `{context_id}`",
            task.context_id
        )));
    }
    if task.status.state != TaskState::InputRequired {
        return Err(A2AError::unsupported_operation(format!(
            "task `{task_id}` is {}: only a task waiting for input takes another message; send one without `taskId` to start a task",
            state_name(&task.status.state)
        )));
    }
    let context_id = task.context_id.clone();
    Ok((task, context_id))
}

/// Waits until the task ends (or waits for input), then reads it.
async fn wait_for_end(
    shared: &Shared,
    mut receiver: broadcast::Receiver<StreamResponse>,
    task_id: &str,
) -> Result<Task, A2AError> {
    loop {
        match receiver.recv().await {
            Ok(event) if ends_stream(&event) => break,
            Ok(_) => {}
            Err(broadcast::error::RecvError::Lagged(_)) => {
                if load(shared, task_id).await.is_ok_and(|t| ends(&t.status.state)) {
                    break;
                }
            }
            Err(broadcast::error::RecvError::Closed) => break,
        }
    }
    load(shared, task_id).await
}

/// `GetTask`.
pub(super) async fn get(shared: &Shared, params: Value) -> Result<Reply, A2AError> {
    let request: GetTaskRequest = parse(params)?;
    let history_length = history_length(request.history_length)?;
    let task = load(shared, &request.id).await?;
    Ok(Reply::Value(to_value(&trim(task, history_length, true))))
}

/// `ListTasks`: filtered by context, state and time of the last change; the most recent
/// first; without artifacts unless `includeArtifacts`.
pub(super) async fn list(shared: &Shared, params: Value) -> Result<Reply, A2AError> {
    let request: ListTasksRequest = parse(params)?;
    let history_length = history_length(request.history_length)?;
    let page_size = request.page_size.unwrap_or(DEFAULT_PAGE_SIZE);
    if !(1..=MAX_PAGE_SIZE).contains(&page_size) {
        return Err(A2AError::invalid_params(format!(
            "`pageSize` is {page_size}: it must be between 1 and {MAX_PAGE_SIZE}"
        )));
    }
    let query = TaskQuery {
        context_id: request.context_id,
        state: request.status.filter(|s| *s != TaskState::Unspecified),
        updated_after: request.status_timestamp_after,
        page_size: usize::try_from(page_size).unwrap_or(1),
        page_token: request.page_token,
    };
    let page = shared.store.list(query).await.map_err(|e| store_error(&e))?;
    let include_artifacts = request.include_artifacts.unwrap_or(false);
    let tasks: Vec<Task> = page
        .tasks
        .into_iter()
        .map(|task| trim(task, history_length, include_artifacts))
        .collect();
    let response = ListTasksResponse {
        // The page size used, as the reference SDKs give it (the page may hold fewer).
        page_size,
        tasks,
        next_page_token: page.next_page_token,
        total_size: i32::try_from(page.total_size).unwrap_or(i32::MAX),
    };
    Ok(Reply::Value(to_value(&response)))
}

/// `CancelTask`: a running task is stopped (its model call and tool calls are dropped,
/// tools see their cancellation signal), a task waiting for input is canceled at once; a
/// finished one is `TaskNotCancelableError`.
pub(super) async fn cancel(shared: &Shared, params: Value) -> Result<Reply, A2AError> {
    let request: CancelTaskRequest = parse(params)?;
    let task = load(shared, &request.id).await?;
    if task.status.state.is_terminal() {
        return Err(A2AError::new(
            error_code::TASK_NOT_CANCELABLE,
            format!(
                "task `{}` is {}: a finished task cannot be canceled",
                task.id,
                state_name(&task.status.state)
            ),
        ));
    }
    if let Some(live) = shared.live(&task.id) {
        let receiver = live.events.subscribe();
        live.cancel.cancel();
        let _ = tokio::time::timeout(CANCEL_WAIT, wait_for_end(shared, receiver, &task.id)).await;
        return Ok(Reply::Value(to_value(&load(shared, &task.id).await?)));
    }
    if shared.store.is_shared() && !ends(&task.status.state) {
        // Running on another replica: it reads the request at its next lease renewal.
        shared
            .store
            .request_cancel(&task.id)
            .await
            .map_err(|e| store_error(&e))?;
        let deadline = tokio::time::Instant::now() + CANCEL_WAIT;
        loop {
            let now = load(shared, &task.id).await?;
            if ends(&now.status.state) || tokio::time::Instant::now() >= deadline {
                return Ok(Reply::Value(to_value(&now)));
            }
            tokio::time::sleep(CANCEL_POLL).await;
        }
    }
    // Not running here: waiting for input (or run by a process that is gone).
    let mut task = task;
    let reply = worker::agent_message(&task, "canceled".to_owned());
    task.history.get_or_insert_with(Vec::new).push(reply.clone());
    task.status = status(TaskState::Canceled, Some(reply));
    shared.store.save(task.clone()).await.map_err(|e| store_error(&e))?;
    Ok(Reply::Value(to_value(&task)))
}

/// `SubscribeToTask`: the task as it is, then its events until it ends.
pub(super) async fn subscribe(shared: &Arc<Shared>, params: Value) -> Result<Reply, A2AError> {
    let request: SubscribeToTaskRequest = parse(params)?;
    // Subscribed before the task is read, so no event falls between the two.
    let receiver = shared.live(&request.id).map(|live| live.events.subscribe());
    // Run by another replica: its events come through the shared store.
    let remote = if receiver.is_none() && shared.store.is_shared() {
        shared.store.follow(&request.id).await.map_err(|e| store_error(&e))?
    } else {
        None
    };
    let task = load(shared, &request.id).await?;
    if task.status.state.is_terminal() {
        return Err(A2AError::unsupported_operation(format!(
            "task `{}` is {}: a finished task has no more events; read it with GetTask",
            task.id,
            state_name(&task.status.state)
        )));
    }
    let task_id = task.id.clone();
    Ok(Reply::Stream(Box::new(Events {
        first: Some(StreamResponse::Task(task)),
        // Not running anywhere (waiting for input): the task as it is is all there is.
        receiver,
        remote,
        shared: shared.clone(),
        task_id,
        done: false,
    })))
}

/// The methods this server does not offer: push notifications and the extended card,
/// which its card does not declare.
pub(super) fn unsupported(method: &str) -> Option<A2AError> {
    match method {
        "CreateTaskPushNotificationConfig"
        | "GetTaskPushNotificationConfig"
        | "ListTaskPushNotificationConfigs"
        | "DeleteTaskPushNotificationConfig" => Some(no_push_notifications()),
        "GetExtendedAgentCard" => Some(no_extended_card()),
        _ => None,
    }
}

/// `PushNotificationNotSupportedError`: the card has `pushNotifications: false`.
pub(super) fn no_push_notifications() -> A2AError {
    A2AError::new(
        error_code::PUSH_NOTIFICATION_NOT_SUPPORTED,
        "this agent does not send push notifications (its card does not declare them); follow a task with SubscribeToTask or GetTask",
    )
}

/// `UnsupportedOperationError`: the card has `extendedAgentCard: false`. (A2A keeps
/// `ExtendedAgentCardNotConfiguredError` for an agent that declares one and has none
/// configured; the reference SDKs answer so too.)
pub(super) fn no_extended_card() -> A2AError {
    A2AError::unsupported_operation(
        "this agent has no extended card (its card does not declare one); its card is at /.well-known/agent-card.json",
    )
}

async fn load(shared: &Shared, id: &str) -> Result<Task, A2AError> {
    match shared.store.load(id).await {
        Ok(Some(task)) => Ok(task),
        Ok(None) => Err(A2AError::task_not_found(id)),
        Err(e) => Err(store_error(&e)),
    }
}

fn store_error(error: &StoreError) -> A2AError {
    match error {
        StoreError::BadPageToken => A2AError::invalid_params(error.to_string()),
        // Both pass: tasks finish, a shared store comes back.
        StoreError::Full { .. } | StoreError::Unavailable(_) => retry::later(error.to_string()),
    }
}

/// The request's parameters as `T`; what is wrong with them, naming the field.
fn parse<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, A2AError> {
    serde_path_to_error::deserialize(params).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            A2AError::invalid_params(format!("invalid params: {inner}"))
        } else {
            A2AError::invalid_params(format!("invalid params at `{path}`: {inner}"))
        }
    })
}

fn history_length(length: Option<i32>) -> Result<Option<usize>, A2AError> {
    match length {
        None => Ok(None),
        Some(n) => usize::try_from(n)
            .map(Some)
            .map_err(|_| A2AError::invalid_params(format!("`historyLength` is {n}: it must be 0 or more"))),
    }
}

/// `task` with at most the last `history_length` messages of its history (all when
/// `None`), and its artifacts only when `artifacts`.
fn trim(mut task: Task, history_length: Option<usize>, artifacts: bool) -> Task {
    if let (Some(n), Some(history)) = (history_length, task.history.as_mut()) {
        let skip = history.len().saturating_sub(n);
        history.drain(..skip);
        if history.is_empty() {
            task.history = None;
        }
    }
    if !artifacts {
        task.artifacts = None;
    }
    task
}

/// The text the model reads: text parts as they are, data parts as JSON, in order. Files
/// are `ContentTypeNotSupportedError`: the card's input modes are text and JSON.
fn message_text(message: &WireMessage, max_chars: usize) -> Result<String, A2AError> {
    if message.role != Role::User {
        return Err(A2AError::invalid_params("`message.role` must be ROLE_USER"));
    }
    checked_id(&message.message_id, "messageId")?;
    let mut text = String::new();
    for part in &message.parts {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        match &part.content {
            PartContent::Text(t) => text.push_str(t),
            PartContent::Data(data) => text.push_str(&data.to_string()),
            PartContent::Raw(_) | PartContent::Url(_) => {
                return Err(A2AError::new(
                    error_code::CONTENT_TYPE_NOT_SUPPORTED,
                    "this agent reads text and JSON parts (its input modes: text/plain, application/json), not files",
                ));
            }
        }
        if text.chars().count() > max_chars {
            return Err(A2AError::invalid_params(format!(
                "the message is longer than {max_chars} characters, the most this server reads"
            )));
        }
    }
    if text.trim().is_empty() {
        return Err(A2AError::invalid_params(
            "the message has no text: send a text or data part",
        ));
    }
    Ok(text)
}

fn checked_id<'a>(id: &'a str, field: &str) -> Result<&'a str, A2AError> {
    if id.is_empty() || id.chars().count() > MAX_ID_CHARS || id.chars().any(char::is_control) {
        return Err(A2AError::invalid_params(format!(
            "`{field}` must be 1 to {MAX_ID_CHARS} characters, without control characters"
        )));
    }
    Ok(id)
}

fn state_name(state: &TaskState) -> &'static str {
    match state {
        TaskState::Unspecified => "in no state",
        TaskState::Submitted => "submitted",
        TaskState::Working => "working",
        TaskState::Completed => "completed",
        TaskState::Failed => "failed",
        TaskState::Canceled => "canceled",
        TaskState::InputRequired => "waiting for input",
        TaskState::Rejected => "rejected",
        TaskState::AuthRequired => "waiting for authentication",
    }
}

fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// The `A2A-Version` a request names, checked: 1.x is served (the minor and patch are
/// ignored, as the reference SDKs do); none means 0.3 (A2A 1.0 §3.6), which is not.
pub(super) fn check_version(version: Option<&str>) -> Result<(), A2AError> {
    let version = version.map(str::trim).filter(|v| !v.is_empty());
    let Some(version) = version else {
        return Err(A2AError::version_not_supported(
            "0.3 (no `A2A-Version` header; this server speaks 1.0: send `A2A-Version: 1.0`)",
        ));
    };
    let major = version.split('.').next().unwrap_or_default();
    if major == "1" {
        Ok(())
    } else {
        Err(A2AError::version_not_supported(&format!(
            "{version} (this server speaks 1.0)"
        )))
    }
}
