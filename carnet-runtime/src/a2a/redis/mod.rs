//! [`RedisStore`]: tasks, their events, leases and conversations in Redis, shared by every
//! replica that names the same Redis (feature `a2a-redis`).
//!
//! The client is the small RESP2 one in `resp.rs`, not the `redis` crate: measured on a
//! 2-core machine (cold, `line-tables-only`, one job), `redis` 1.8 with only `tokio-comp`
//! adds 24 s of CPU (38 s of wall time) over tokio, for `url` and its IDNA tables,
//! `combine`, `futures-util`, `async-lock` and more; the dozen commands used here need a
//! few hundred lines over tokio, which the server already builds, so `a2a-redis` adds no
//! crate at all.
//!
//! Keys, under a prefix (`carnet:a2a:` by default):
//!
//! | key | holds |
//! | --- | --- |
//! | `task:{id}` | the task as JSON (A2A's), expiring `ttl` after it finishes (a day after its last change while unfinished) |
//! | `tasks` | a sorted set of task ids by status time: what `ListTasks` reads (the newest `max_tasks`) |
//! | `lease:{id}` | the replica running the task, expiring `lease` after its last renewal |
//! | `running` | a set of the ids of tasks under lease, which the sweeper checks |
//! | `runner:{id}` | the replica that last ran the task, to name it when its lease lapses |
//! | `cancel:{id}` | a cancellation asked by another replica, read by the running one's next renewal |
//! | `events:{id}` | a stream of the task's events (`StreamResponse` JSON), the last 256 |
//! | `context:{id}` | a conversation: its session's state and messages |
//! | `context-version:{id}` | how many messages of the context have run, on any replica |
//!
//! The store is in `store.rs`, the follower of a task run elsewhere in `follow.rs`, the
//! URL read in `url.rs`.

mod follow;
mod store;
mod url;

pub use store::RedisStore;
