//! A task's lease: held by the replica running it, renewed while it runs; a task whose lease
//! lapsed is failed with a reason naming the replica, when read ([`RedisStore::check_lease`])
//! or by the sweeper ([`RedisStore::sweep_lapsed`]).

use a2a_types::{Task, TaskState};

use super::{CHUNK, RedisStore, UNFINISHED_TTL, millis, score};
use crate::a2a::resp::{Reply, command};
use crate::a2a::store::StoreError;
use crate::a2a::worker::{agent_message, ends, status, status_event};

/// Compare-and-set: fails the task (ARGV 2) only while nobody holds its lease (KEYS 2) and
/// it is still as read (ARGV 1).
const FAIL_IF_LAPSED: &str = "if redis.call('EXISTS', KEYS[2]) == 0 and redis.call('GET', KEYS[1]) == ARGV[1] then \
     redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) redis.call('ZADD', KEYS[3], ARGV[4], ARGV[5]) return 1 end return 0";

impl RedisStore {
    /// A task submitted or working whose lease has lapsed: its replica is gone. It is failed
    /// (unless it changed meanwhile), naming that replica.
    pub(super) async fn check_lease(&self, task: Task, json: String) -> Result<Task, StoreError> {
        if ends(&task.status.state) {
            return Ok(task);
        }
        let (lease, runner) = (self.key("lease", &task.id), self.key("runner", &task.id));
        let mut replies = self
            .run(vec![command(&[&"EXISTS", &lease]), command(&[&"GET", &runner])])
            .await?
            .into_iter();
        let held = replies.next().map(Reply::integer);
        let runner = replies.next().map(Reply::text);
        if !matches!(held, Some(Ok(0))) {
            return Ok(task);
        }
        let runner = match runner {
            Some(Ok(Some(name))) => format!("replica `{name}`"),
            _ => "the replica".to_owned(),
        };
        let mut failed = task.clone();
        let reason = format!(
            "{runner} running this task stopped answering (its lease of {} s lapsed); the task did not finish: send the message again",
            self.inner.lease.as_secs()
        );
        let message = agent_message(&failed, reason);
        failed.history.get_or_insert_with(Vec::new).push(message.clone());
        failed.status = status(TaskState::Failed, Some(message));
        let failed_json = serde_json::to_string(&failed).map_err(|e| self.unavailable(e))?;
        let index = self.index();
        let swapped = self
            .one(command(&[
                &"EVAL",
                &FAIL_IF_LAPSED,
                &"3",
                &self.key("task", &task.id),
                &lease,
                &index,
                &json,
                &failed_json,
                &millis(self.inner.ttl),
                &score(&failed),
                &task.id,
            ]))
            .await?
            .integer()
            .map_err(|e| self.unavailable(e))?;
        if swapped == 1 {
            // Followers waiting on its events learn it too.
            let _ = self.publish_event(&task.id, &status_event(&failed, None)).await;
            return Ok(failed);
        }
        // It changed meanwhile (it finished, or another replica failed it first).
        let json = self.one(command(&[&"GET", &self.key("task", &task.id)])).await?;
        match json.text().map_err(|e| self.unavailable(e))? {
            Some(json) => self.parse_task(&task.id, &json),
            None => Ok(failed),
        }
    }

    pub(super) async fn hold_task(&self, id: &str) -> Result<bool, StoreError> {
        let replica = &self.inner.replica;
        let replies = self
            .run(vec![
                command(&[
                    &"SET",
                    &self.key("lease", id),
                    replica,
                    &"PX",
                    &millis(self.inner.lease),
                ]),
                command(&[&"SET", &self.key("runner", id), replica, &"PX", &millis(UNFINISHED_TTL)]),
                command(&[&"SADD", &self.running(), &id]),
                command(&[&"EXISTS", &self.key("cancel", id)]),
            ])
            .await?;
        let mut asked = false;
        for reply in replies {
            // The last integer is EXISTS's.
            if let Reply::Integer(n) = reply.ok().map_err(|e| self.unavailable(e))? {
                asked = n > 0;
            }
        }
        Ok(asked)
    }

    pub(super) fn running(&self) -> String {
        format!("{}running", self.inner.prefix)
    }

    /// The tasks under lease whose lease lapsed, failed; those that ended, out of the set.
    pub(super) async fn sweep_lapsed(&self) -> Result<usize, StoreError> {
        let ids = self
            .one(command(&[&"SMEMBERS", &self.running()]))
            .await?
            .array()
            .map_err(|e| self.unavailable(e))?;
        let ids: Vec<String> = ids.into_iter().filter_map(|id| id.text().ok().flatten()).collect();
        let mut failed = 0;
        for chunk in ids.chunks(CHUNK) {
            let exists = chunk
                .iter()
                .map(|id| command(&[&"EXISTS", &self.key("lease", id)]))
                .collect();
            let held = self.run(exists).await?;
            for (id, held) in chunk.iter().zip(held) {
                if held.ok().and_then(Reply::integer).is_ok_and(|n| n > 0) {
                    continue;
                }
                let task = self.load_task(id).await?;
                if task.as_ref().is_none_or(|t| ends(&t.status.state)) {
                    if task.is_some_and(|t| t.status.state == TaskState::Failed) {
                        failed += 1;
                    }
                    self.one(command(&[&"SREM", &self.running(), id])).await?;
                }
            }
        }
        Ok(failed)
    }
}
