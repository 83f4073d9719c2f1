//! [`TaskStore`]: where the server keeps its tasks, and [`MemoryStore`], the one-process
//! default.

// These docs link to the Redis store, which only the feature `a2a-redis` brings (docs.rs
// builds with every feature).
#![cfg_attr(not(feature = "a2a-redis"), allow(rustdoc::broken_intra_doc_links))]

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use a2a_types::{StreamResponse, Task, TaskState};
use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::dispatch::BoxFuture;

/// Where an A2A [`Server`](super::Server) keeps its tasks: saved at every change of state,
/// read by `GetTask`, `ListTasks`, `CancelTask` and `SubscribeToTask`.
///
/// What runs a task (the conversation, the model call, the events of a stream) stays in the
/// process that runs it; the store holds what any process may read. [`MemoryStore`] is the
/// default. A store shared by replicas ([`RedisStore`](super::RedisStore), feature
/// `a2a-redis`) also implements the methods after [`TaskStore::list`], whose defaults do
/// nothing: it says it is [shared](TaskStore::is_shared), carries a task's events and
/// cancellation between processes, holds a lease on each running task (a task whose lease
/// lapses is failed, naming the process that held it, when it is next read), and keeps each
/// conversation's state so that its next message may run on any replica.
pub trait TaskStore: Send + Sync + 'static {
    /// Saves `task`, replacing the one with its id. A new task beyond the store's capacity
    /// is [`StoreError::Full`].
    fn save(&self, task: Task) -> BoxFuture<'_, Result<(), StoreError>>;

    /// The task with this id, if the store has it.
    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Task>, StoreError>>;

    /// One page of the tasks that match `query`, the most recently updated first.
    fn list(&self, query: TaskQuery) -> BoxFuture<'_, Result<TaskPage, StoreError>>;

    /// Whether other processes share this store: then the server calls the methods below.
    /// Default `false`.
    fn is_shared(&self) -> bool {
        false
    }

    /// Takes or renews this process's lease on the task it runs (called before the task is
    /// first saved, then about every second while it runs); `true` when another process
    /// asked for the task to be canceled ([`TaskStore::request_cancel`]).
    fn hold<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        let _ = id;
        Box::pin(std::future::ready(Ok(false)))
    }

    /// Ends this process's lease on a task it no longer runs (its end is saved).
    fn release<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        let _ = id;
        Box::pin(std::future::ready(Ok(())))
    }

    /// Fails the tasks whose lease lapsed (their process died) even when nobody reads them;
    /// how many. Called about every five seconds by each server on a shared store.
    fn sweep(&self) -> BoxFuture<'_, Result<usize, StoreError>> {
        Box::pin(std::future::ready(Ok(0)))
    }

    /// Asks the process running the task to cancel it.
    fn request_cancel<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        let _ = id;
        Box::pin(std::future::ready(Ok(())))
    }

    /// Makes one event of a task this process runs readable by [`TaskStore::follow`]ers.
    fn publish<'a>(&'a self, id: &'a str, event: &'a StreamResponse) -> BoxFuture<'a, Result<(), StoreError>> {
        let _ = (id, event);
        Box::pin(std::future::ready(Ok(())))
    }

    /// The events of a task another process runs, from now on (called before the task is
    /// read, so no event falls between the two); `None` when the store carries no events.
    fn follow<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Box<dyn TaskEvents>>, StoreError>> {
        let _ = id;
        Box::pin(std::future::ready(Ok(None)))
    }

    /// Saves the state of conversation `context_id` (its session's skills and its
    /// messages, as JSON) once a message of it has run: its `version`th, counting the
    /// messages run in this context on any replica.
    fn save_conversation<'a>(
        &'a self,
        context_id: &'a str,
        version: u64,
        state: Value,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let _ = (context_id, version, state);
        Box::pin(std::future::ready(Ok(())))
    }

    /// The state of conversation `context_id` last saved by any process, with its version,
    /// when that version is above `newer_than` (the one this process has).
    fn load_conversation<'a>(
        &'a self,
        context_id: &'a str,
        newer_than: u64,
    ) -> BoxFuture<'a, Result<Option<(u64, Value)>, StoreError>> {
        let _ = (context_id, newer_than);
        Box::pin(std::future::ready(Ok(None)))
    }
}

/// The events of a task that another process runs, as a shared [`TaskStore`] carries them.
pub trait TaskEvents: Send {
    /// The next event; `None` once the task has ended (its last event read, or the task as
    /// it ended when its events were lost).
    fn next(&mut self) -> BoxFuture<'_, Result<Option<StreamResponse>, StoreError>>;
}

/// Why a [`TaskStore`] failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreError {
    /// The store holds as many running tasks as it may.
    Full {
        /// Its capacity.
        capacity: usize,
    },
    /// A `pageToken` this store did not give.
    BadPageToken,
    /// The store itself failed (a shared store's connection, say).
    Unavailable(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Full { capacity } => write!(
                f,
                "the server holds {capacity} unfinished tasks, as many as it may; try again when some have finished"
            ),
            StoreError::BadPageToken => f.write_str("`pageToken` is not one this server gave"),
            StoreError::Unavailable(reason) => write!(f, "the task store is unavailable: {reason}"),
        }
    }
}

impl std::error::Error for StoreError {}

/// What `ListTasks` asks for.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct TaskQuery {
    /// Only the tasks of this context.
    pub context_id: Option<String>,
    /// Only the tasks in this state.
    pub state: Option<TaskState>,
    /// Only the tasks whose status changed at or after this moment (as the reference SDKs
    /// read `statusTimestampAfter`).
    pub updated_after: Option<DateTime<Utc>>,
    /// Tasks per page (1 to 100).
    pub page_size: usize,
    /// Where the page starts: a previous page's [`TaskPage::next_page_token`].
    pub page_token: Option<String>,
}

/// A page of tasks.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct TaskPage {
    /// The tasks, the most recently updated first.
    pub tasks: Vec<Task>,
    /// The token of the next page; empty on the last one.
    pub next_page_token: String,
    /// How many tasks match the query, on every page.
    pub total_size: usize,
}

/// Tasks in this process's memory, at most `capacity` of them: a new task beyond it
/// replaces the task updated longest ago among those finished or waiting for input
/// (nothing more happens to them by themselves), and is refused when every task held is
/// running. A finished task (completed, failed, canceled, rejected) is forgotten `ttl`
/// after its last change.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use carnet_runtime::a2a::MemoryStore;
///
/// let store = MemoryStore::new(1_000, Duration::from_secs(3_600));
/// # drop(store);
/// ```
#[derive(Debug)]
pub struct MemoryStore {
    tasks: Mutex<Tasks>,
    capacity: usize,
    ttl: Duration,
}

/// Expired tasks are dropped at most this often (reads skip them meanwhile): dropping them
/// at every save made each save walk every task held.
const SWEEP_EVERY: Duration = Duration::from_secs(1);

#[derive(Debug)]
struct Tasks {
    held: HashMap<String, Held>,
    /// Tasks finished or waiting for input, in the order of their last save, the oldest
    /// first: the next to make room. An entry whose task was saved again since, or is gone,
    /// is passed over.
    finished: VecDeque<(Instant, String)>,
    /// When expired tasks were last dropped.
    swept: Instant,
}

impl Tasks {
    /// Drops the finished tasks older than `ttl`, and the entries of `finished` that no
    /// longer name a task as saved.
    fn sweep(&mut self, now: Instant, ttl: Duration) {
        self.held
            .retain(|_, held| !held.task.status.state.is_terminal() || now.duration_since(held.saved) < ttl);
        let held = &self.held;
        self.finished
            .retain(|(saved, id)| held.get(id).is_some_and(|h| h.is_idle_at(*saved)));
        self.swept = now;
    }

    /// Forgets the task finished or waiting for input saved longest ago; `false` when every
    /// task is running.
    fn evict_oldest_finished(&mut self) -> bool {
        while let Some((saved, id)) = self.finished.pop_front() {
            if self.held.get(&id).is_some_and(|h| h.is_idle_at(saved)) {
                self.held.remove(&id);
                return true;
            }
        }
        false
    }
}

#[derive(Debug)]
struct Held {
    task: Task,
    saved: Instant,
}

impl Held {
    /// Saved at `saved` (not since), and finished or waiting for input: a task a client
    /// leaves waiting for input must not hold its place for ever.
    fn is_idle_at(&self, saved: Instant) -> bool {
        self.saved == saved && is_idle(&self.task.status.state)
    }
}

/// Finished or interrupted (waiting for input or authentication): nothing more happens to
/// the task by itself.
fn is_idle(state: &TaskState) -> bool {
    state.is_terminal() || matches!(state, TaskState::InputRequired | TaskState::AuthRequired)
}

impl MemoryStore {
    /// A store of at most `capacity` tasks, forgetting finished ones `ttl` after their last
    /// change.
    #[must_use]
    pub fn new(capacity: usize, ttl: Duration) -> Self {
        MemoryStore {
            tasks: Mutex::new(Tasks {
                held: HashMap::new(),
                finished: VecDeque::new(),
                swept: Instant::now(),
            }),
            capacity: capacity.max(1),
            ttl,
        }
    }

    fn save_now(&self, task: Task) -> Result<(), StoreError> {
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        if now.duration_since(tasks.swept) >= SWEEP_EVERY {
            tasks.sweep(now, self.ttl);
        }
        if !tasks.held.contains_key(&task.id) && tasks.held.len() >= self.capacity && !tasks.evict_oldest_finished() {
            return Err(StoreError::Full {
                capacity: self.capacity,
            });
        }
        if is_idle(&task.status.state) {
            tasks.finished.push_back((now, task.id.clone()));
        }
        tasks.held.insert(task.id.clone(), Held { task, saved: now });
        Ok(())
    }

    fn list_now(&self, query: &TaskQuery) -> Result<TaskPage, StoreError> {
        let tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        page(
            tasks
                .held
                .values()
                .filter(|held| !held.task.status.state.is_terminal() || now.duration_since(held.saved) < self.ttl)
                .map(|held| &held.task),
            query,
        )
    }
}

/// The page of `tasks` that `query` asks for: filtered, the most recent first, from the
/// query's page token on.
pub(super) fn page<'a>(tasks: impl Iterator<Item = &'a Task>, query: &TaskQuery) -> Result<TaskPage, StoreError> {
    let after = match query.page_token.as_deref() {
        Some(token) if !token.is_empty() => Some(Cursor::parse(token).ok_or(StoreError::BadPageToken)?),
        _ => None,
    };
    let mut matching: Vec<(Cursor, &Task)> = tasks
        .filter(|task| query.context_id.as_ref().is_none_or(|c| *c == task.context_id))
        .filter(|task| query.state.as_ref().is_none_or(|s| *s == task.status.state))
        .filter(|task| {
            query
                .updated_after
                .is_none_or(|after| task.status.timestamp.is_some_and(|t| t >= after))
        })
        .map(|task| (Cursor::of(task), task))
        .collect();
    // The most recent first; ties broken by id, so pages never overlap.
    matching.sort_by(|(a, _), (b, _)| b.cmp(a));
    let total_size = matching.len();
    let start = after.map_or(0, |after| matching.partition_point(|(cursor, _)| *cursor >= after));
    let page: Vec<&(Cursor, &Task)> = matching[start..].iter().take(query.page_size.max(1)).collect();
    let next_page_token = match page.last() {
        Some((cursor, _)) if start + page.len() < total_size => cursor.token(),
        _ => String::new(),
    };
    Ok(TaskPage {
        tasks: page.into_iter().map(|(_, task)| (*task).clone()).collect(),
        next_page_token,
        total_size,
    })
}

impl TaskStore for MemoryStore {
    fn save(&self, task: Task) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(std::future::ready(self.save_now(task)))
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Task>, StoreError>> {
        let tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        let task = tasks
            .held
            .get(id)
            .filter(|held| !held.task.status.state.is_terminal() || held.saved.elapsed() < self.ttl)
            .map(|held| held.task.clone());
        Box::pin(std::future::ready(Ok(task)))
    }

    fn list(&self, query: TaskQuery) -> BoxFuture<'_, Result<TaskPage, StoreError>> {
        Box::pin(std::future::ready(self.list_now(&query)))
    }
}

/// A task's place in a listing: its status time (microseconds), then its id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Cursor {
    micros: i64,
    id: String,
}

impl Cursor {
    fn of(task: &Task) -> Cursor {
        Cursor {
            micros: task.status.timestamp.map_or(0, |t| t.timestamp_micros()),
            id: task.id.clone(),
        }
    }

    /// `MICROS.ID`: opaque to clients, cheap to check.
    fn token(&self) -> String {
        format!("{}.{}", self.micros, self.id)
    }

    fn parse(token: &str) -> Option<Cursor> {
        let (micros, id) = token.split_once('.')?;
        Some(Cursor {
            micros: micros.parse().ok()?,
            id: id.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use a2a_types::TaskStatus;

    use super::*;

    fn task(id: &str, context: &str, state: TaskState, micros: i64) -> Task {
        Task {
            id: id.to_owned(),
            context_id: context.to_owned(),
            status: TaskStatus {
                state,
                message: None,
                timestamp: DateTime::from_timestamp_micros(micros),
            },
            artifacts: None,
            history: None,
            metadata: None,
        }
    }

    #[test]
    fn pages_cover_every_task_once_newest_first() {
        let store = MemoryStore::new(100, Duration::from_mins(1));
        for i in 0..7 {
            store
                .save_now(task(
                    &format!("t{i}"),
                    "c",
                    TaskState::Completed,
                    1_000 + i64::from(i % 3),
                ))
                .unwrap();
        }
        let mut seen = Vec::new();
        let mut token = None;
        loop {
            let page = store
                .list_now(&TaskQuery {
                    page_size: 3,
                    page_token: token.clone(),
                    ..TaskQuery::default()
                })
                .unwrap();
            assert_eq!(page.total_size, 7);
            seen.extend(page.tasks.iter().map(|t| t.id.clone()));
            if page.next_page_token.is_empty() {
                break;
            }
            token = Some(page.next_page_token);
        }
        assert_eq!(seen, ["t5", "t2", "t4", "t1", "t6", "t3", "t0"]);
        assert_eq!(
            store.list_now(&TaskQuery {
                page_size: 3,
                page_token: Some("nonsense".into()),
                ..TaskQuery::default()
            }),
            Err(StoreError::BadPageToken)
        );
    }

    #[test]
    fn a_full_store_replaces_finished_tasks_and_refuses_when_none_is() {
        let store = MemoryStore::new(2, Duration::from_mins(1));
        store.save_now(task("a", "c", TaskState::Completed, 1)).unwrap();
        store.save_now(task("b", "c", TaskState::Working, 2)).unwrap();
        store.save_now(task("c", "c", TaskState::Working, 3)).unwrap();
        assert!(!store.tasks.lock().unwrap().held.contains_key("a"));
        assert_eq!(
            store.save_now(task("d", "c", TaskState::Working, 4)),
            Err(StoreError::Full { capacity: 2 })
        );
        // Saving a task it holds is never refused.
        store.save_now(task("c", "c", TaskState::Completed, 5)).unwrap();
    }

    #[test]
    fn a_full_store_replaces_the_task_finished_longest_ago() {
        let store = MemoryStore::new(3, Duration::from_mins(1));
        store.save_now(task("a", "c", TaskState::Completed, 1)).unwrap();
        store.save_now(task("b", "c", TaskState::Failed, 2)).unwrap();
        store.save_now(task("w", "c", TaskState::Working, 3)).unwrap();
        // `a` saved again: `b` is now the one finished longest ago.
        store.save_now(task("a", "c", TaskState::Completed, 4)).unwrap();
        store.save_now(task("d", "c", TaskState::Working, 5)).unwrap();
        let held = |id: &str| store.tasks.lock().unwrap().held.contains_key(id);
        assert!(!held("b") && held("a") && held("w") && held("d"));
        // Then `a`; then nothing finished is left to replace.
        store.save_now(task("e", "c", TaskState::Working, 6)).unwrap();
        assert!(!held("a"));
        assert_eq!(
            store.save_now(task("f", "c", TaskState::Working, 7)),
            Err(StoreError::Full { capacity: 3 })
        );
        // A task that finishes can be replaced again.
        store.save_now(task("w", "c", TaskState::Canceled, 8)).unwrap();
        store.save_now(task("f", "c", TaskState::Working, 9)).unwrap();
        assert!(!held("w") && held("f"));
    }

    #[test]
    fn a_full_store_replaces_tasks_waiting_for_input() {
        // Found by the a2a fuzz target: messages that each end waiting for input filled the
        // store, and every later message was refused.
        let store = MemoryStore::new(2, Duration::from_mins(1));
        store.save_now(task("a", "c", TaskState::InputRequired, 1)).unwrap();
        store.save_now(task("b", "c", TaskState::AuthRequired, 2)).unwrap();
        store.save_now(task("c", "c", TaskState::Working, 3)).unwrap();
        let held = |id: &str| store.tasks.lock().unwrap().held.contains_key(id);
        assert!(!held("a") && held("b") && held("c"));
        store.save_now(task("d", "c", TaskState::Working, 4)).unwrap();
        assert!(!held("b"));
        assert_eq!(
            store.save_now(task("e", "c", TaskState::Working, 5)),
            Err(StoreError::Full { capacity: 2 })
        );
    }

    #[test]
    fn expired_tasks_are_dropped_once_a_second_and_never_read() {
        let store = MemoryStore::new(10, Duration::ZERO);
        store.save_now(task("a", "c", TaskState::Completed, 1)).unwrap();
        // Within the second: still held, but neither loaded nor listed.
        assert!(store.tasks.lock().unwrap().held.contains_key("a"));
        assert!(crate::dispatch::block_on(store.load("a")).unwrap().is_none());
        // A second later, the next save drops it.
        store.tasks.lock().unwrap().swept -= SWEEP_EVERY;
        store.save_now(task("b", "c", TaskState::Working, 2)).unwrap();
        let tasks = store.tasks.lock().unwrap();
        assert!(!tasks.held.contains_key("a") && tasks.finished.is_empty());
    }

    #[test]
    fn finished_tasks_expire() {
        let store = MemoryStore::new(10, Duration::ZERO);
        store.save_now(task("a", "c", TaskState::Completed, 1)).unwrap();
        store.save_now(task("b", "c", TaskState::InputRequired, 1)).unwrap();
        let page = store
            .list_now(&TaskQuery {
                page_size: 10,
                ..TaskQuery::default()
            })
            .unwrap();
        assert_eq!(page.tasks.len(), 1);
        assert_eq!(page.tasks[0].id, "b");
    }
}
