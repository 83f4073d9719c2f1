//! One message run to its end: the agent loop on the context's session and model, its
//! steps reported as status updates, its answer as an artifact and the final message, and
//! its end (completed, input required, failed, canceled) saved and announced.

use std::collections::HashMap;
use std::sync::Arc;

use a2a_types::{
    Artifact, Message as WireMessage, Part, Role, StreamResponse, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};
use serde_json::{Value, json};

use super::shared::{Conversation, Live, Shared};
use crate::cancel::unless;
use crate::chat::{self, Message, Outcome, Step, Stop};

/// The key of carnet's own entries in the `metadata` of tasks and events.
pub const METADATA_KEY: &str = "carnet";

/// Runs `task` (saved as submitted) on `conversation`, then releases it.
pub(super) async fn run_task(
    shared: Arc<Shared>,
    conversation: Arc<Conversation>,
    task: Task,
    text: String,
    live: Live,
) {
    let end = run(&shared, &conversation, task, text, &live).await;
    finish(&shared, end, &live).await;
    Shared::release(&conversation);
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
