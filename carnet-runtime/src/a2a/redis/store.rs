//! [`RedisStore`]: the connections, tasks, listing, events and conversations; its leases in
//! [`lease`].

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use a2a_types::{StreamResponse, Task};

use super::follow::{FOLLOW_BLOCK, Follower};
use super::url::parse_url;
use crate::a2a::resp::{Connection, MAX_BULK, Reply, command};
use crate::a2a::store::{StoreError, TaskEvents, TaskPage, TaskQuery, TaskStore, page};
use crate::dispatch::BoxFuture;

mod lease;

/// Idle connections kept for reuse.
const POOL: usize = 8;
/// Events kept per task for followers that fall behind.
const EVENTS_KEPT: usize = 256;
/// How long an unfinished task is kept after its last change.
const UNFINISHED_TTL: Duration = Duration::from_hours(24);
/// How long a cancellation asked by another replica waits to be read.
const CANCEL_TTL: Duration = Duration::from_mins(1);
/// Task ids read per `MGET`.
const CHUNK: usize = 200;

/// The conversation (KEYS 2) and its version (KEYS 1) when that is above ARGV 1; nil else.
const LOAD_IF_NEWER: &str = "local v = tonumber(redis.call('GET', KEYS[1]) or '0') \
     if v == nil or v <= tonumber(ARGV[1]) then return false end return {v, redis.call('GET', KEYS[2])}";

/// A [`TaskStore`] in Redis, shared by the replicas of one agent behind a load balancer: a
/// task started on one is read, listed, followed (`SubscribeToTask`) and canceled through any
/// other, a conversation's next message runs on any replica with its loaded skills, and a
/// task whose replica died is failed with a reason naming it once its lease lapses, never
/// left `working`.
///
/// Every command is bounded in time ([`RedisStore::timeout`], 5 s by default) and every
/// reply in size: a Redis that hangs, closes or answers garbage is a
/// [`StoreError::Unavailable`] naming it, which the client gets as an internal error.
///
/// # Examples
///
/// ```no_run
/// # async fn serve(carnet: carnet_runtime::Carnet, model: fn(&str) -> Result<Box<dyn carnet_runtime::chat::ChatModel>, carnet_runtime::chat::ModelError>) -> Result<(), Box<dyn std::error::Error>> {
/// use std::time::Duration;
/// use carnet_runtime::a2a::{RedisStore, Server};
///
/// let store = RedisStore::connect("redis://127.0.0.1:6379").await?
///     .replica("replica-1")
///     .lease(Duration::from_secs(10));
/// Server::new(&carnet, "researcher", model)?.store(store).bind("127.0.0.1:9001").await?.run().await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct RedisStore {
    inner: Arc<Settings>,
    idle: Arc<Mutex<Vec<Connection>>>,
}

#[derive(Clone)]
struct Settings {
    /// `host:port`, for connections and messages.
    addr: String,
    /// `AUTH` and `SELECT` arguments, sent on each new connection.
    auth: Option<(Option<String>, String)>,
    db: Option<u32>,
    prefix: String,
    replica: String,
    lease: Duration,
    ttl: Duration,
    timeout: Duration,
    max_tasks: usize,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("addr", &self.inner.addr)
            .field("prefix", &self.inner.prefix)
            .field("replica", &self.inner.replica)
            .field("lease", &self.inner.lease)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// Connects to the Redis at `url`, `redis://[[USER]:PASSWORD@]HOST:PORT[/DB]`, and checks
    /// that it answers (`PING`).
    ///
    /// # Errors
    ///
    /// When the URL is not one, or Redis cannot be reached or does not answer as Redis
    /// within the [timeout](RedisStore::timeout).
    pub async fn connect(url: &str) -> Result<RedisStore, StoreError> {
        let (addr, auth, db) = parse_url(url).map_err(StoreError::Unavailable)?;
        let pid = std::process::id();
        let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "localhost".to_owned());
        let store = RedisStore {
            idle: Arc::new(Mutex::new(Vec::new())),
            inner: Arc::new(Settings {
                addr,
                auth,
                db,
                prefix: "carnet:a2a:".to_owned(),
                replica: format!("{host}:{pid}"),
                lease: Duration::from_secs(10),
                ttl: Duration::from_hours(1),
                timeout: Duration::from_secs(5),
                max_tasks: 10_000,
            }),
        };
        let pong = store.run(vec![command(&[&"PING"])]).await?;
        match pong.into_iter().next() {
            Some(Reply::Status(s)) if s == "PONG" => Ok(store),
            _ => Err(store.unavailable("it does not answer PING with PONG")),
        }
    }

    fn with(mut self, set: impl FnOnce(&mut Settings)) -> Self {
        set(Arc::make_mut(&mut self.inner));
        self
    }

    /// Names this process in leases and in the reason a task fails when its lease lapses
    /// (default `HOSTNAME:PID`).
    #[must_use]
    pub fn replica(self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.with(|inner| inner.replica = name)
    }

    /// How long a running task's lease lasts without renewal (default 10 s, at least 2 s): a
    /// replica renews it every second, so a task whose replica died fails this long after.
    #[must_use]
    pub fn lease(self, lease: Duration) -> Self {
        self.with(|inner| inner.lease = lease.max(Duration::from_secs(2)))
    }

    /// How long a finished task stays readable (default 1 h).
    #[must_use]
    pub fn ttl(self, ttl: Duration) -> Self {
        self.with(|inner| inner.ttl = ttl.max(Duration::from_secs(1)))
    }

    /// How long one exchange with Redis may take, connecting included (default 5 s).
    #[must_use]
    pub fn timeout(self, timeout: Duration) -> Self {
        self.with(|inner| inner.timeout = timeout.max(FOLLOW_BLOCK + Duration::from_millis(500)))
    }

    /// The most tasks `ListTasks` sees, the most recently updated (default 10,000); older
    /// ones stay readable by id until they expire.
    #[must_use]
    pub fn max_tasks(self, max_tasks: usize) -> Self {
        self.with(|inner| inner.max_tasks = max_tasks.max(1))
    }

    /// The prefix of every key (default `carnet:a2a:`): agents sharing one Redis each have
    /// their own.
    #[must_use]
    pub fn prefix(self, prefix: impl Into<String>) -> Self {
        let prefix = prefix.into();
        self.with(|inner| inner.prefix = prefix)
    }

    pub(super) fn key(&self, kind: &str, id: &str) -> String {
        format!("{}{kind}:{id}", self.inner.prefix)
    }

    pub(super) fn unavailable(&self, what: impl std::fmt::Display) -> StoreError {
        StoreError::Unavailable(format!("Redis at {}: {what}", self.inner.addr))
    }

    /// How long one exchange with Redis may take.
    pub(super) fn exchange_timeout(&self) -> Duration {
        self.inner.timeout
    }

    /// A connection, from the pool or new (authenticated, its database selected).
    pub(super) async fn connection(&self) -> Result<Connection, String> {
        let idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
        if let Some(connection) = idle {
            return Ok(connection);
        }
        let mut connection = Connection::connect(&self.inner.addr)
            .await
            .map_err(|e| format!("cannot connect: {e}"))?;
        let mut setup = Vec::new();
        if let Some((user, password)) = &self.inner.auth {
            setup.push(match user {
                Some(user) => command(&[&"AUTH", user, password]),
                None => command(&[&"AUTH", password]),
            });
        }
        if let Some(db) = self.inner.db {
            setup.push(command(&[&"SELECT", &db.to_string()]));
        }
        if !setup.is_empty() {
            for reply in connection.run(&setup).await? {
                reply.ok()?;
            }
        }
        Ok(connection)
    }

    /// Runs `commands` pipelined on one connection, within the timeout; the replies, error
    /// replies included.
    async fn run(&self, commands: Vec<Vec<Vec<u8>>>) -> Result<Vec<Reply>, StoreError> {
        let exchange = async {
            let mut connection = self.connection().await?;
            let replies = connection.run(&commands).await?;
            let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
            if idle.len() < POOL {
                idle.push(connection);
            }
            Ok::<_, String>(replies)
        };
        // A connection whose exchange is cut short is dropped with it: its replies would
        // answer the next command.
        match tokio::time::timeout(self.inner.timeout, exchange).await {
            Ok(Ok(replies)) => Ok(replies),
            Ok(Err(e)) => Err(self.unavailable(e)),
            Err(_) => Err(self.unavailable(format!("no answer within {} ms", self.inner.timeout.as_millis()))),
        }
    }

    /// One command's reply, an error reply being an error.
    pub(super) async fn one(&self, command: Vec<Vec<u8>>) -> Result<Reply, StoreError> {
        let reply = self.run(vec![command]).await?.pop().unwrap_or(Reply::Bulk(None));
        reply.ok().map_err(|e| self.unavailable(e))
    }

    fn parse_task(&self, id: &str, json: &str) -> Result<Task, StoreError> {
        serde_json::from_str(json).map_err(|e| self.unavailable(format!("the task `{id}` it holds is not a task: {e}")))
    }

    fn task_ttl(&self, task: &Task) -> Duration {
        if task.status.state.is_terminal() {
            self.inner.ttl
        } else {
            UNFINISHED_TTL
        }
    }

    async fn save_task(&self, task: Task) -> Result<(), StoreError> {
        let json = serde_json::to_string(&task).map_err(|e| self.unavailable(e))?;
        let key = self.key("task", &task.id);
        let ttl = millis(self.task_ttl(&task));
        let index = self.index();
        let score = score(&task);
        let keep = self.inner.max_tasks;
        let replies = self
            .run(vec![
                command(&[&"SET", &key, &json, &"PX", &ttl]),
                command(&[&"ZADD", &index, &score, &task.id]),
                // The newest `max_tasks` stay listed.
                command(&[&"ZREMRANGEBYRANK", &index, &"0", &format!("-{}", keep + 1)]),
            ])
            .await?;
        for reply in replies {
            reply.ok().map_err(|e| self.unavailable(e))?;
        }
        Ok(())
    }

    /// The task as stored, failed first when it is running with no lease held.
    pub(super) async fn load_task(&self, id: &str) -> Result<Option<Task>, StoreError> {
        let json = self.one(command(&[&"GET", &self.key("task", id)])).await?;
        let Some(json) = json.text().map_err(|e| self.unavailable(e))? else {
            return Ok(None);
        };
        let task = self.parse_task(id, &json)?;
        self.check_lease(task, json).await.map(Some)
    }

    async fn list_tasks(&self, query: TaskQuery) -> Result<TaskPage, StoreError> {
        let index = self.index();
        let ids = self
            .one(command(&[
                &"ZREVRANGE",
                &index,
                &"0",
                &(self.inner.max_tasks - 1).to_string(),
            ]))
            .await?
            .array()
            .map_err(|e| self.unavailable(e))?;
        let ids: Vec<String> = ids.into_iter().filter_map(|id| id.text().ok().flatten()).collect();
        let mut tasks = Vec::with_capacity(ids.len());
        let mut gone = Vec::new();
        for chunk in ids.chunks(CHUNK) {
            let mut mget = vec![b"MGET".to_vec()];
            mget.extend(chunk.iter().map(|id| self.key("task", id).into_bytes()));
            let values = self.one(mget).await?.array().map_err(|e| self.unavailable(e))?;
            for (id, value) in chunk.iter().zip(values) {
                match value.text().map_err(|e| self.unavailable(e))? {
                    Some(json) => {
                        let task = self.parse_task(id, &json)?;
                        tasks.push(self.check_lease(task, json).await?);
                    }
                    None => gone.push(id.clone()),
                }
            }
        }
        if !gone.is_empty() {
            // Expired tasks leave the listing.
            let mut zrem = vec![b"ZREM".to_vec(), index.into_bytes()];
            zrem.extend(gone.into_iter().map(String::into_bytes));
            let _ = self.one(zrem).await;
        }
        page(tasks.iter(), &query)
    }

    async fn publish_event(&self, id: &str, event: &StreamResponse) -> Result<(), StoreError> {
        let json = serde_json::to_string(event).map_err(|e| self.unavailable(e))?;
        let key = self.key("events", id);
        let replies = self
            .run(vec![
                command(&[
                    &"XADD",
                    &key,
                    &"MAXLEN",
                    &"~",
                    &EVENTS_KEPT.to_string(),
                    &"*",
                    &"e",
                    &json,
                ]),
                command(&[&"PEXPIRE", &key, &millis(UNFINISHED_TTL)]),
            ])
            .await?;
        for reply in replies {
            reply.ok().map_err(|e| self.unavailable(e))?;
        }
        Ok(())
    }

    /// The sorted set `ListTasks` reads.
    fn index(&self) -> String {
        format!("{}tasks", self.inner.prefix)
    }
}

impl TaskStore for RedisStore {
    fn save(&self, task: Task) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(self.save_task(task))
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Task>, StoreError>> {
        Box::pin(self.load_task(id))
    }

    fn list(&self, query: TaskQuery) -> BoxFuture<'_, Result<TaskPage, StoreError>> {
        Box::pin(self.list_tasks(query))
    }

    fn is_shared(&self) -> bool {
        true
    }

    fn hold<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(self.hold_task(id))
    }

    fn release<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let replies = self
                .run(vec![
                    command(&[&"DEL", &self.key("lease", id), &self.key("cancel", id)]),
                    command(&[&"SREM", &self.running(), &id]),
                ])
                .await?;
            for reply in replies {
                reply.ok().map_err(|e| self.unavailable(e))?;
            }
            Ok(())
        })
    }

    fn sweep(&self) -> BoxFuture<'_, Result<usize, StoreError>> {
        Box::pin(self.sweep_lapsed())
    }

    fn request_cancel<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.one(command(&[
                &"SET",
                &self.key("cancel", id),
                &"1",
                &"PX",
                &millis(CANCEL_TTL),
            ]))
            .await
            .map(drop)
        })
    }

    fn publish<'a>(&'a self, id: &'a str, event: &'a StreamResponse) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(self.publish_event(id, event))
    }

    fn follow<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Box<dyn TaskEvents>>, StoreError>> {
        Box::pin(async move {
            let follower = Follower::start(self, id).await?;
            Ok(Some(Box::new(follower) as Box<dyn TaskEvents>))
        })
    }

    fn save_conversation<'a>(
        &'a self,
        context_id: &'a str,
        version: u64,
        state: serde_json::Value,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let json = state.to_string();
            if json.len() > MAX_BULK {
                return Err(self.unavailable(format!(
                    "the conversation `{context_id}` is larger than the {MAX_BULK} bytes it reads back"
                )));
            }
            let ttl = millis(UNFINISHED_TTL);
            let version = version.to_string();
            // The state and its version change together.
            let replies = self
                .run(vec![
                    command(&[&"MULTI"]),
                    command(&[&"SET", &self.key("context", context_id), &json, &"PX", &ttl]),
                    command(&[&"SET", &self.key("context-version", context_id), &version, &"PX", &ttl]),
                    command(&[&"EXEC"]),
                ])
                .await?;
            for reply in replies {
                reply.ok().map_err(|e| self.unavailable(e))?;
            }
            Ok(())
        })
    }

    fn load_conversation<'a>(
        &'a self,
        context_id: &'a str,
        newer_than: u64,
    ) -> BoxFuture<'a, Result<Option<(u64, serde_json::Value)>, StoreError>> {
        Box::pin(async move {
            // Read whole only when newer: a replica that ran the context's last message
            // reads one number.
            let reply = self
                .one(command(&[
                    &"EVAL",
                    &LOAD_IF_NEWER,
                    &"2",
                    &self.key("context-version", context_id),
                    &self.key("context", context_id),
                    &newer_than.to_string(),
                ]))
                .await?;
            let mut items = reply.array().map_err(|e| self.unavailable(e))?.into_iter();
            let (Some(version), Some(json)) = (items.next(), items.next()) else {
                return Ok(None);
            };
            let version = version.integer().map_err(|e| self.unavailable(e))?;
            let Some(json) = json.text().map_err(|e| self.unavailable(e))? else {
                return Ok(None);
            };
            let state = serde_json::from_str(&json)
                .map_err(|e| self.unavailable(format!("the conversation `{context_id}` it holds is not JSON: {e}")))?;
            Ok(Some((u64::try_from(version).unwrap_or(0), state)))
        })
    }
}

fn millis(duration: Duration) -> String {
    duration.as_millis().to_string()
}

/// A task's place in the listing: its status time in microseconds (exact in a double until
/// the year 2255).
fn score(task: &Task) -> String {
    task.status.timestamp.map_or(0, |t| t.timestamp_micros()).to_string()
}
