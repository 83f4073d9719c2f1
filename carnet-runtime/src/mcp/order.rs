//! The requests of one byte-stream connection, taken in the order they arrived.
//!
//! rmcp runs each request's handler on a task of its own, so two requests written at once (a
//! `loadSkill` and then the skill's tool) could reach the session in either order. The
//! transport gives each request that reads or changes the session ([`ORDERED`]) a ticket as
//! it reads it; its handler waits until every earlier ticket is released before it locks the
//! session, whose lock then serves them first come, first served. A ticket is released when
//! its handler has the session, when its answer goes out, or when the client cancels the
//! request. At the end of the input the transport waits until every request read has been
//! answered, for at most [`DRAIN_LIMIT`].

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::RequestId;
use tokio::sync::Notify;

/// The methods whose handlers read or change the session, in the order they arrive.
pub(super) const ORDERED: [&str; 3] = ["tools/call", "tools/list", "prompts/get"];

/// How long the end of the input waits for the answers still due (a tool still running):
/// the connection then ends, as rmcp's own shutdown does with what is left.
pub(super) const DRAIN_LIMIT: Duration = Duration::from_mins(1);

/// How long a request waits for the requests before it to reach the session. They reach it
/// as soon as their handlers start, so this passes only if one of them is never handled (a
/// client's malformed stream); the request then goes ahead rather than wait forever.
const TURN_LIMIT: Duration = Duration::from_secs(30);

/// The requests read and not yet answered, in arrival order.
#[derive(Debug, Default)]
pub(super) struct Arrivals {
    state: Mutex<State>,
    changed: Notify,
}

#[derive(Debug, Default)]
struct State {
    next: u64,
    /// Tickets not yet released.
    waiting: BTreeSet<u64>,
    /// The ticket of each ordered request, until it is answered.
    tickets: HashMap<RequestId, u64>,
    /// Requests read and not answered.
    unanswered: HashSet<RequestId>,
}

impl Arrivals {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A request was read. A request reusing the id of one not yet answered is not tracked:
    /// rmcp answers only one of them.
    pub(super) fn arrived(&self, id: RequestId, method: &str) {
        let mut state = self.state();
        if state.unanswered.contains(&id) {
            return;
        }
        if ORDERED.contains(&method) {
            let ticket = state.next;
            state.next += 1;
            state.waiting.insert(ticket);
            state.tickets.insert(id.clone(), ticket);
        }
        state.unanswered.insert(id);
    }

    /// The answer to `id` went out, or the client cancelled it.
    pub(super) fn answered(&self, id: &RequestId) {
        let mut state = self.state();
        state.unanswered.remove(id);
        if let Some(ticket) = state.tickets.remove(id) {
            state.waiting.remove(&ticket);
        }
        drop(state);
        self.changed.notify_waiters();
    }

    /// Waits until every ordered request that arrived before `id` has taken its turn or been
    /// answered (at most `TURN_LIMIT`). The turn lasts until the returned guard drops.
    pub(super) async fn turn(self: &Arc<Self>, id: &RequestId) -> Turn {
        let Some(ticket) = self.state().tickets.get(id).copied() else {
            return Turn(None);
        };
        let earlier_ones_went = async {
            loop {
                let notified = self.changed.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if self.state().waiting.range(..ticket).next().is_none() {
                    return;
                }
                notified.await;
            }
        };
        let _ = tokio::time::timeout(TURN_LIMIT, earlier_ones_went).await;
        Turn(Some((self.clone(), ticket)))
    }

    /// Waits until every request read has been answered, or `limit` has passed.
    pub(super) async fn drained(&self, limit: Duration) {
        let all_answered = async {
            loop {
                let notified = self.changed.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if self.state().unanswered.is_empty() {
                    return;
                }
                notified.await;
            }
        };
        let _ = tokio::time::timeout(limit, all_answered).await;
    }
}

/// A request's turn at the session; the next request's comes when this drops.
pub(super) struct Turn(Option<(Arc<Arrivals>, u64)>);

impl Drop for Turn {
    fn drop(&mut self) {
        if let Some((arrivals, ticket)) = self.0.take() {
            arrivals.state().waiting.remove(&ticket);
            arrivals.changed.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn id(n: i64) -> RequestId {
        RequestId::Number(n)
    }

    #[tokio::test]
    async fn turns_come_in_arrival_order_and_answers_release_them() {
        let arrivals = Arc::new(Arrivals::default());
        arrivals.arrived(id(1), "tools/call");
        arrivals.arrived(id(2), "tools/list");
        arrivals.arrived(id(3), "tools/call");
        // The third waits for the first two.
        let third = tokio::spawn({
            let arrivals = arrivals.clone();
            async move {
                let _turn = arrivals.turn(&id(3)).await;
            }
        });
        let first = arrivals.turn(&id(1)).await;
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!third.is_finished(), "the third request went before the first");
        drop(first);
        // The second's handler has not asked for its turn yet: its answer releases it.
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(
            !third.is_finished(),
            "the third request went before the second was answered"
        );
        arrivals.answered(&id(2));
        tokio::time::timeout(Duration::from_secs(5), third)
            .await
            .unwrap()
            .unwrap();
    }

    #[tokio::test]
    async fn drained_waits_for_every_answer() {
        let arrivals = Arc::new(Arrivals::default());
        arrivals.arrived(id(7), "resources/read");
        arrivals.arrived(RequestId::String("x".into()), "tools/call");
        // A second request with an unanswered id is not waited for: rmcp answers one.
        arrivals.arrived(id(7), "ping");
        let drained = tokio::spawn({
            let arrivals = arrivals.clone();
            async move { arrivals.drained(DRAIN_LIMIT).await }
        });
        arrivals.answered(&id(7));
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!drained.is_finished());
        arrivals.answered(&RequestId::String("x".into()));
        tokio::time::timeout(Duration::from_secs(5), drained)
            .await
            .unwrap()
            .unwrap();
        // A request never read, or of a method that is not ordered, takes no turn.
        assert!(arrivals.turn(&id(99)).await.0.is_none());
        arrivals.arrived(id(8), "ping");
        assert!(arrivals.turn(&id(8)).await.0.is_none());
    }

    #[tokio::test]
    async fn the_end_of_input_waits_for_answers_at_most_the_limit() {
        let arrivals = Arc::new(Arrivals::default());
        arrivals.arrived(id(1), "tools/call");
        let started = std::time::Instant::now();
        arrivals.drained(Duration::from_millis(50)).await;
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_millis(50) && waited < Duration::from_secs(5),
            "{waited:?}"
        );
    }
}
