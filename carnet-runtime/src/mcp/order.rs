//! The requests of one byte-stream connection, taken in the order they arrived.
//!
//! rmcp runs each request's handler on a task of its own, so two requests written at once (a
//! `loadSkill` and then the skill's tool) could reach the session in either order. The
//! transport gives each request a ticket as it reads it; a handler that touches the session
//! waits until every earlier request has taken its turn (or been answered) before it locks
//! the session, whose lock then serves them first come, first served. A ticket is released
//! when its handler has the session, when its answer goes out, or when the client cancels
//! the request, so a request that never asks for its turn (`ping`) holds nobody up. At the
//! end of the input the transport waits until every request read has been answered.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::RequestId;
use tokio::sync::Notify;

/// The requests read and not yet answered, in arrival order.
#[derive(Debug, Default)]
pub(super) struct Arrivals {
    state: Mutex<State>,
    changed: Notify,
}

#[derive(Debug, Default)]
struct State {
    next: u64,
    /// Tickets whose request has neither taken its turn nor been answered.
    waiting: BTreeSet<u64>,
    /// The tickets of unanswered requests, by id (a client may reuse an id).
    unanswered: HashMap<RequestId, VecDeque<u64>>,
}

impl Arrivals {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A request was read.
    pub(super) fn arrived(&self, id: RequestId) {
        let mut state = self.state();
        let ticket = state.next;
        state.next += 1;
        state.waiting.insert(ticket);
        state.unanswered.entry(id).or_default().push_back(ticket);
    }

    /// The answer to `id` went out, or the client cancelled it.
    pub(super) fn answered(&self, id: &RequestId) {
        let mut state = self.state();
        if let Some(tickets) = state.unanswered.get_mut(id) {
            let ticket = tickets.pop_front();
            if tickets.is_empty() {
                state.unanswered.remove(id);
            }
            if let Some(ticket) = ticket {
                state.waiting.remove(&ticket);
            }
        }
        drop(state);
        self.changed.notify_waiters();
    }

    /// Waits until every request that arrived before `id` has taken its turn or been
    /// answered. The turn lasts until the returned guard drops.
    pub(super) async fn turn(self: &Arc<Self>, id: &RequestId) -> Turn {
        let Some(ticket) = self.state().unanswered.get(id).and_then(|t| t.front().copied()) else {
            return Turn(None);
        };
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.state().waiting.range(..ticket).next().is_none() {
                return Turn(Some((self.clone(), ticket)));
            }
            notified.await;
        }
    }

    /// Waits until every request read has been answered.
    pub(super) async fn drained(&self) {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.state().unanswered.is_empty() {
                return;
            }
            notified.await;
        }
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
        for n in 1..=3 {
            arrivals.arrived(id(n));
        }
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
        // The second never asks for its turn (a `ping`): its answer releases it.
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
        arrivals.arrived(id(7));
        arrivals.arrived(RequestId::String("x".into()));
        let drained = tokio::spawn({
            let arrivals = arrivals.clone();
            async move { arrivals.drained().await }
        });
        arrivals.answered(&id(7));
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!drained.is_finished());
        arrivals.answered(&RequestId::String("x".into()));
        tokio::time::timeout(Duration::from_secs(5), drained)
            .await
            .unwrap()
            .unwrap();
        // A request never read takes no turn and holds nobody up.
        assert!(arrivals.turn(&id(99)).await.0.is_none());
    }
}
