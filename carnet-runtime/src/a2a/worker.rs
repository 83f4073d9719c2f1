//! One message run to its end: the agent loop on the context's session and model, its
//! steps reported as status updates, its answer as an artifact and the final message, and
//! its end (completed, input required, failed, canceled) saved and announced.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use a2a_types::{
    Artifact, Message as WireMessage, Part, Role, StreamResponse, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};
use serde_json::{Value, json};
use tokio::sync::broadcast;

use super::shared::{Conversation, Live, Shared, Turns};
use crate::cancel::unless;
use crate::chat::{self, Message, Outcome, Step, Stop, Transcript};
use crate::telemetry::ConversationId;

/// The key of carnet's own entries in the `metadata` of tasks and events.
pub const METADATA_KEY: &str = "carnet";

/// How often a running task's lease is renewed in a shared store (and a cancellation asked
/// through another replica is read).
const LEASE_RENEWAL: Duration = Duration::from_secs(1);

/// Runs `task` (saved as submitted) on `conversation`, then releases it. With a shared
/// store, its events are published there too, and its lease renewed while it runs.
pub(super) async fn run_task(
    shared: Arc<Shared>,
    conversation: Arc<Conversation>,
    task: Task,
    text: String,
    live: Live,
) {
    let task_id = task.id.clone();
    let lease = shared.store.is_shared().then(|| {
        tokio::spawn(publish(shared.clone(), task_id.clone(), live.events.subscribe()));
        tokio::spawn(keep_lease(shared.clone(), task_id.clone(), live.clone()))
    });
    let end = run(&shared, &conversation, task, text, &live).await;
    if let Some(lease) = lease {
        lease.abort();
    }
    finish(&shared, end, &live).await;
    if shared.store.is_shared() {
        // Its end is saved: nobody needs to fail it. A lease left behind by an error lapses.
        let _ = shared.store.release(&task_id).await;
    }
    Shared::release(&conversation);
}

/// How often a server on a shared store fails the tasks whose replica died, when nobody
/// reads them first.
const SWEEP_EVERY: Duration = Duration::from_secs(5);

/// With a shared store, fails the tasks of dead replicas every [`SWEEP_EVERY`], until the
/// server is dropped.
pub(super) fn sweep(shared: &Arc<Shared>) {
    let shared = Arc::downgrade(shared);
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(SWEEP_EVERY).await;
            let Some(shared) = shared.upgrade() else { return };
            // A store that fails now is tried again next time; reads fail lapsed tasks too.
            let _ = shared.store.sweep().await;
        }
    });
}

/// Renews the lease of a running task until the task ends (this task is then aborted),
/// and cancels it when another replica asked.
async fn keep_lease(shared: Arc<Shared>, task_id: String, live: Live) {
    loop {
        tokio::time::sleep(LEASE_RENEWAL).await;
        // A store that fails now may let the lease lapse: other replicas then fail the task.
        if let Ok(true) = shared.store.hold(&task_id).await {
            live.cancel.cancel();
        }
    }
}

/// Publishes the events of a running task in the shared store, in order, until its last.
async fn publish(shared: Arc<Shared>, task_id: String, mut events: broadcast::Receiver<StreamResponse>) {
    loop {
        let event = match events.recv().await {
            Ok(event) => event,
            // Redis slower than the task: the task as it is now says it all.
            Err(broadcast::error::RecvError::Lagged(_)) => match shared.store.load(&task_id).await {
                Ok(Some(task)) => StreamResponse::Task(task),
                _ => continue,
            },
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let last = ends_stream(&event);
        let _ = shared.store.publish(&task_id, &event).await;
        if last {
            return;
        }
    }
}

/// With a shared store, the conversation as last saved by any replica, when it is newer
/// than this one's: a context's messages may go to any replica.
async fn catch_up(shared: &Shared, turns: &mut Turns, context_id: &str) {
    let Ok(Some((version, saved))) = shared.store.load_conversation(context_id, turns.version).await else {
        return;
    };
    let Ok(transcript) = serde_json::from_value::<Transcript>(saved) else {
        return;
    };
    // Content changed since it was saved: the conversation goes on from this replica's.
    if let Ok((mut session, messages)) = transcript.resume(&shared.carnet) {
        session.extensions_mut().insert(ConversationId(context_id.to_owned()));
        turns.session = session;
        turns.messages = messages;
        turns.version = version;
    }
}

/// With a shared store, saves the conversation for the replica its next message goes to.
async fn save_conversation(shared: &Shared, turns: &mut Turns, context_id: &str) {
    turns.version += 1;
    let saved = json!({"messages": turns.messages, "state": turns.session.state()});
    let _ = shared.store.save_conversation(context_id, turns.version, saved).await;
}

/// How a message ended, and the task to save.
struct End {
    task: Task,
    state: TaskState,
    /// The agent's words: the answer, or why there is none.
    text: String,
    /// The answer, as an artifact.
    answer: Option<String>,
    metadata: HashMap<String, Value>,
}

async fn run(shared: &Shared, conversation: &Conversation, mut task: Task, text: String, live: &Live) -> End {
    let end = |task: Task, state, text: String| End {
        task,
        state,
        text,
        answer: None,
        metadata: HashMap::new(),
    };
    // Messages of one context run in order: this waits for the one before to end.
    let Some(mut turns) = unless(live.cancel.cancelled(), conversation.turns.lock()).await else {
        return end(task, TaskState::Canceled, "canceled before it started".to_owned());
    };
    let turns = &mut *turns;
    if shared.store.is_shared() {
        catch_up(shared, turns, &task.context_id).await;
    }
    let max = shared.limits.max_context_messages;
    if turns.messages.len() >= max {
        let text = format!("this conversation holds {max} messages, the most this server keeps: start a new context");
        return end(task, TaskState::Failed, text);
    }
    task.status = status(TaskState::Working, None);
    // A store that fails now fails again at the end, where it is reported.
    let _ = shared.store.save(task.clone()).await;
    let _ = live.events.send(status_event(&task, None));

    let mark = turns.messages.len();
    turns.messages.push(Message::User(text));
    let events = live.events.clone();
    let (task_id, context_id) = (task.id.clone(), task.context_id.clone());
    let mut count = 0usize;
    let on_step = move |step: &Step| {
        count += 1;
        if step.calls.is_empty() {
            return;
        }
        let calls: Vec<Value> = step
            .calls
            .iter()
            .map(|(call, output)| {
                let mut entry = json!({"name": call.name, "arguments": call.arguments, "isError": output.is_error});
                if let Some(id) = &call.id {
                    entry["id"] = json!(id);
                }
                if !output.exposes.is_empty() {
                    entry["exposes"] = json!(output.exposes);
                }
                entry
            })
            .collect();
        let metadata = HashMap::from([(METADATA_KEY.to_owned(), json!({"step": count, "calls": calls}))]);
        let _ = events.send(StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: task_id.clone(),
            context_id: context_id.clone(),
            status: status(TaskState::Working, None),
            metadata: Some(metadata),
        }));
    };
    let limits = &shared.limits;
    let running = chat::run(
        &mut turns.session,
        &mut *turns.model,
        &mut turns.messages,
        limits.max_steps,
        on_step,
    );
    let outcome = unless(
        live.cancel.cancelled(),
        tokio::time::timeout(limits.task_timeout, running),
    )
    .await;
    let loaded: Vec<String> = turns.session.loaded_skills().map(str::to_owned).collect();
    let (state, text, answer, steps) = match outcome {
        None => (TaskState::Canceled, "canceled".to_owned(), None, None),
        Some(Err(_)) => (
            TaskState::Failed,
            format!(
                "no answer within {} s (the server's task timeout)",
                limits.task_timeout.as_secs()
            ),
            None,
            None,
        ),
        Some(Ok(Err(error))) => (TaskState::Failed, format!("the model failed: {error}"), None, None),
        Some(Ok(Ok(Outcome {
            answer: Some(answer),
            stop: Stop::Answer,
            steps,
            ..
        }))) => (TaskState::Completed, answer.clone(), Some(answer), Some(steps.len())),
        Some(Ok(Ok(Outcome { steps, .. }))) => (
            TaskState::InputRequired,
            format!(
                "stopped after {} model calls without a final answer; send another message to this task to go on",
                steps.len()
            ),
            None,
            Some(steps.len()),
        ),
    };
    if !matches!(state, TaskState::Completed | TaskState::InputRequired) {
        // The conversation goes on as if this message had not been sent: no user turn
        // without its answer, no tool call without its result. Skills it loaded stay loaded.
        turns.messages.truncate(mark);
    }
    if shared.store.is_shared() {
        save_conversation(shared, turns, &task.context_id).await;
    }
    let mut carnet = json!({"loadedSkills": loaded});
    if let Some(steps) = steps {
        carnet["steps"] = json!(steps);
    }
    End {
        task,
        state,
        text,
        answer,
        metadata: HashMap::from([(METADATA_KEY.to_owned(), carnet)]),
    }
}

/// Saves the task's end, marks it no longer running (a message may continue it, a new
/// subscriber reads it from the store), then announces it to the subscribers it has: the
/// answer's artifact, then the last status.
async fn finish(shared: &Shared, end: End, live: &Live) {
    let End {
        mut task,
        state,
        text,
        answer,
        metadata,
    } = end;
    let reply = agent_message(&task, text);
    let artifact = answer.map(|answer| Artifact {
        artifact_id: a2a_types::new_artifact_id(),
        name: Some("answer".to_owned()),
        description: None,
        parts: vec![Part::text(answer)],
        metadata: None,
        extensions: None,
    });
    if let Some(artifact) = &artifact {
        task.artifacts.get_or_insert_with(Vec::new).push(artifact.clone());
    }
    task.history.get_or_insert_with(Vec::new).push(reply.clone());
    task.status = status(state, Some(reply));
    task.metadata.get_or_insert_with(HashMap::new).extend(metadata.clone());
    if let Err(e) = shared.store.save(task.clone()).await {
        task.status = status(
            TaskState::Failed,
            Some(agent_message(&task, format!("the task could not be saved: {e}"))),
        );
    }
    shared.finish(&task.id);
    if let Some(artifact) = artifact {
        let _ = live
            .events
            .send(StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
                task_id: task.id.clone(),
                context_id: task.context_id.clone(),
                artifact,
                append: None,
                last_chunk: Some(true),
                metadata: None,
            }));
    }
    let _ = live.events.send(status_event(&task, Some(metadata)));
}

/// A status stamped now.
pub(super) fn status(state: TaskState, message: Option<WireMessage>) -> TaskStatus {
    TaskStatus {
        state,
        message,
        timestamp: Some(chrono::Utc::now()),
    }
}

/// The task's status as an event.
pub(super) fn status_event(task: &Task, metadata: Option<HashMap<String, Value>>) -> StreamResponse {
    StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        status: task.status.clone(),
        metadata,
    })
}

/// A message of the agent in `task`.
pub(super) fn agent_message(task: &Task, text: String) -> WireMessage {
    WireMessage {
        message_id: a2a_types::new_message_id(),
        context_id: Some(task.context_id.clone()),
        task_id: Some(task.id.clone()),
        role: Role::Agent,
        parts: vec![Part::text(text)],
        metadata: None,
        extensions: None,
        reference_task_ids: None,
    }
}

/// Whether a stream of this task ends after `event`: a final or interrupted state.
pub(super) fn ends_stream(event: &StreamResponse) -> bool {
    let state = match event {
        StreamResponse::Task(task) => &task.status.state,
        StreamResponse::StatusUpdate(update) => &update.status.state,
        StreamResponse::Message(_) => return true,
        StreamResponse::ArtifactUpdate(_) => return false,
    };
    ends(state)
}

/// A final or interrupted state: nothing more happens to the task by itself.
pub(super) fn ends(state: &TaskState) -> bool {
    state.is_terminal() || matches!(state, TaskState::InputRequired | TaskState::AuthRequired)
}
