//! [`Follower`]: the events of a task run on another replica, read from its Redis stream.

use std::collections::VecDeque;
use std::time::Duration;

use a2a_types::StreamResponse;

use super::store::RedisStore;
use crate::a2a::resp::{Connection, Reply, command};
use crate::a2a::store::{StoreError, TaskEvents};
use crate::a2a::worker::ends;
use crate::dispatch::BoxFuture;

/// How long a follower waits for an event before it checks the task itself.
pub(super) const FOLLOW_BLOCK: Duration = Duration::from_secs(1);
/// The events of a task run elsewhere, read from its stream with `XREAD BLOCK` on a
/// connection of its own; between events it checks the task, so a task whose replica died
/// ends its followers' streams too.
pub(super) struct Follower {
    store: RedisStore,
    task_id: String,
    key: String,
    /// The id of the last entry read.
    last: String,
    /// `None` before the first read, and after an exchange cut short (dropped mid-read by
    /// a caller's timeout: its reply would answer the next command).
    connection: Option<Connection>,
    buffered: VecDeque<StreamResponse>,
    ended: bool,
}

impl Follower {
    /// Follows the task `id` from the entry after the stream's last one: what a subscriber
    /// has not seen yet.
    pub(super) async fn start(store: &RedisStore, id: &str) -> Result<Follower, StoreError> {
        let key = store.key("events", id);
        let last = store
            .one(command(&[&"XREVRANGE", &key, &"+", &"-", &"COUNT", &"1"]))
            .await?
            .array()
            .map_err(|e| store.unavailable(e))?;
        let last = match last.into_iter().next() {
            Some(entry) => entry
                .array()
                .ok()
                .and_then(|e| e.into_iter().next())
                .and_then(|id| id.text().ok().flatten())
                .ok_or_else(|| store.unavailable("a stream entry without an id"))?,
            None => "0-0".to_owned(),
        };
        Ok(Follower {
            store: store.clone(),
            task_id: id.to_owned(),
            key,
            last,
            connection: None,
            buffered: VecDeque::new(),
            ended: false,
        })
    }

    async fn read(&mut self) -> Result<Option<StreamResponse>, StoreError> {
        loop {
            if let Some(event) = self.buffered.pop_front() {
                return Ok(Some(event));
            }
            if self.ended {
                return Ok(None);
            }
            let entries = self.block().await?;
            if entries.is_empty() {
                // Nothing for a while: the task itself says whether it is over.
                match self.store.load_task(&self.task_id).await? {
                    Some(task) if ends(&task.status.state) => {
                        self.ended = true;
                        return Ok(Some(StreamResponse::Task(task)));
                    }
                    Some(_) => {}
                    None => {
                        self.ended = true;
                        return Ok(None);
                    }
                }
            }
            for (id, event) in entries {
                self.last = id;
                self.buffered.push_back(event);
            }
        }
    }

    /// The entries after `last`, waiting up to [`FOLLOW_BLOCK`] for one.
    async fn block(&mut self) -> Result<Vec<(String, StreamResponse)>, StoreError> {
        let store = self.store.clone();
        let mut connection = match self.connection.take() {
            Some(connection) => connection,
            None => tokio::time::timeout(store.exchange_timeout(), store.connection())
                .await
                .map_err(|_| store.unavailable("cannot connect within the timeout"))?
                .map_err(|e| store.unavailable(e))?,
        };
        let xread = command(&[
            &"XREAD",
            &"COUNT",
            &"32",
            &"BLOCK",
            &FOLLOW_BLOCK.as_millis().to_string(),
            &"STREAMS",
            &self.key,
            &self.last,
        ]);
        let reply = tokio::time::timeout(store.exchange_timeout(), connection.run(std::slice::from_ref(&xread)))
            .await
            .map_err(|_| store.unavailable("no answer to XREAD within the timeout"))?
            .map_err(|e| store.unavailable(e))?;
        self.connection = Some(connection);
        let reply = reply.into_iter().next().unwrap_or(Reply::Array(None));
        let streams = reply.ok().and_then(Reply::array).map_err(|e| store.unavailable(e))?;
        let mut events = Vec::new();
        for stream in streams {
            let mut stream = stream.array().map_err(|e| store.unavailable(e))?.into_iter();
            let entries = stream
                .nth(1)
                .map(Reply::array)
                .transpose()
                .map_err(|e| store.unavailable(e))?;
            for entry in entries.unwrap_or_default() {
                let mut entry = entry.array().map_err(|e| store.unavailable(e))?.into_iter();
                let (Some(id), Some(fields)) = (entry.next(), entry.next()) else {
                    return Err(store.unavailable("a stream entry without an id or fields"));
                };
                let id = id
                    .text()
                    .ok()
                    .flatten()
                    .ok_or_else(|| store.unavailable("a stream entry id that is not text"))?;
                let fields = fields.array().map_err(|e| store.unavailable(e))?;
                let json = fields
                    .into_iter()
                    .nth(1)
                    .and_then(|v| v.text().ok().flatten())
                    .ok_or_else(|| store.unavailable("a stream entry without its event"))?;
                let event: StreamResponse = serde_json::from_str(&json).map_err(|e| {
                    store.unavailable(format!("an event of task `{}` that is not one: {e}", self.task_id))
                })?;
                events.push((id, event));
            }
        }
        Ok(events)
    }
}

impl TaskEvents for Follower {
    fn next(&mut self) -> BoxFuture<'_, Result<Option<StreamResponse>, StoreError>> {
        Box::pin(self.read())
    }
}
