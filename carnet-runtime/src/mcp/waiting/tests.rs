use std::sync::atomic::AtomicBool;

use super::*;
use crate::dispatch::BoxFuture;
use crate::relay::Host;

/// A host of the stateless revision: it declared elicitation and sampling, and no request
/// reaches it.
struct Stateless;

impl Host for Stateless {
    fn progress_token(&self) -> Option<Value> {
        None
    }
    fn declares(&self, _name: &str) -> bool {
        false
    }
    fn declared(&self, name: &str) -> bool {
        matches!(name, "elicitation" | "sampling")
    }
    fn log_level(&self) -> Option<usize> {
        None
    }
    fn notify(&self, _method: &'static str, _params: Value) -> BoxFuture<'static, ()> {
        Box::pin(std::future::ready(()))
    }
    fn request(&self, method: &'static str, _params: Value) -> BoxFuture<'static, Result<Value, RelayError>> {
        panic!("`{method}` sent to a host of the stateless revision")
    }
}

/// Sets its flag when dropped (the call was stopped, or ended).
struct Dropped(Arc<AtomicBool>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// A call that asks its host for a name, then for a completion, and gives both answers
/// (or the errors); `dropped` is set when it stops.
fn asking_twice(dropped: &Arc<AtomicBool>) -> impl Future<Output = Value> + Send + 'static {
    let guard = Dropped(Arc::clone(dropped));
    async move {
        let _guard = guard;
        let host = relay::current().expect("the call runs under a host");
        assert!(host.declares("elicitation") && host.declares("sampling") && !host.declares("roots"));
        let name = host
            .request("elicitation/create", json!({ "message": "Your name?" }))
            .await;
        let completion = host
            .request("sampling/createMessage", json!({ "messages": [], "maxTokens": 5 }))
            .await;
        let answer = |answer: Result<Value, RelayError>| answer.unwrap_or_else(|e| json!({ "refused": e.message }));
        json!([answer(name), answer(completion)])
    }
}

/// `future` run under the stateless host, as the MCP server runs a request.
async fn hosted<F: Future>(future: F) -> F::Output {
    relay::HOST.scope(Arc::new(Stateless), future).await
}

fn waiting(limits: InputWait) -> Arc<Waiting<Value>> {
    Arc::new(Waiting::new(limits))
}

/// The `input_required` result of `round`.
fn asked(round: Result<Round<Value>, RpcError>) -> Value {
    match round {
        Ok(Round::InputRequired(result)) => result,
        Ok(Round::Ended(value)) => panic!("ended with {value}"),
        Err(e) => panic!("refused: {e:?}"),
    }
}

fn state(result: &Value) -> &str {
    result["requestState"].as_str().expect("a request state")
}

fn refused<T>(resumed: Result<T, RpcError>) -> String {
    match resumed {
        Ok(_) => panic!("the retry was taken"),
        Err(e) => {
            assert_eq!(e.code, -32602, "{e:?}");
            e.message
        }
    }
}

/// Calls waiting under `limits`, and a call of `greet` ([`asking_twice`]) run until it
/// asks: the keys, the calls, the flag set when the call stops, its first round's result.
async fn first_round(limits: InputWait) -> (SessionKeys, Arc<Waiting<Value>>, Arc<AtomicBool>, Value) {
    let (keys, waiting) = (SessionKeys::random(), waiting(limits));
    let dropped = Arc::default();
    let running = hosted(async { Running::start("greet".to_owned(), asking_twice(&dropped)) }).await;
    let first = asked(hosted(waiting.round(&keys, running, std::future::pending())).await);
    (keys, waiting, dropped, first)
}

#[tokio::test]
async fn a_call_asks_its_host_round_by_round_and_ends_with_the_answers() {
    let (keys, waiting, _, first) = first_round(InputWait::default()).await;
    assert_eq!(first["resultType"], "input_required");
    assert_eq!(
        first["inputRequests"],
        json!({ "elicitation-1": { "method": "elicitation/create", "params": { "message": "Your name?" } } })
    );
    assert!(state(&first).starts_with("cr1."), "{first}");

    let answer = json!({ "elicitation-1": { "action": "accept", "content": { "name": "Ada" } } });
    let running = waiting.resume(&keys, state(&first), "greet", Some(&answer)).unwrap();
    let second = asked(hosted(waiting.round(&keys, running, std::future::pending())).await);
    assert_eq!(
        second["inputRequests"]["sampling-2"]["method"],
        "sampling/createMessage"
    );
    assert_ne!(state(&first), state(&second), "each round has a state of its own");

    let answer = json!({ "sampling-2": { "role": "assistant", "content": { "type": "text", "text": "hi" } } });
    let running = waiting.resume(&keys, state(&second), "greet", Some(&answer)).unwrap();
    let Ok(Round::Ended(ended)) = hosted(waiting.round(&keys, running, std::future::pending())).await else {
        panic!("the call did not end");
    };
    assert_eq!(ended[0]["content"]["name"], "Ada");
    assert_eq!(ended[1]["content"]["text"], "hi");
    assert!(waiting.calls().is_empty(), "nothing waits once the call ended");
}

#[tokio::test]
async fn retries_that_cannot_be_taken_are_refused_and_the_call_still_waits() {
    let (keys, waiting, dropped, first) = first_round(InputWait::default()).await;
    let state = state(&first);
    let answer = json!({ "elicitation-1": { "action": "accept", "content": { "name": "Ada" } } });

    let tampered = format!("{state}-TAMPERED");
    assert!(refused(waiting.resume(&keys, &tampered, "greet", Some(&answer))).contains("not one this server gave"));
    let other_key = SessionKeys::random();
    assert!(refused(waiting.resume(&other_key, state, "greet", Some(&answer))).contains("another key"));
    assert!(refused(waiting.resume(&keys, "cs1.x.y.z", "greet", Some(&answer))).contains("not one this server gave"));
    assert!(
        refused(waiting.resume(&keys, state, "farewell", Some(&answer))).contains("a call of `greet`, not `farewell`")
    );
    assert!(refused(waiting.resume(&keys, state, "greet", Some(&json!([1])))).contains("must be an object"));
    let wrong = json!({ "elicitation-1": 12345 });
    assert!(refused(waiting.resume(&keys, state, "greet", Some(&wrong))).contains("`inputResponses.elicitation-1`"));
    let elsewhere = Waiting::<Value>::new(InputWait::default());
    assert!(refused(elsewhere.resume(&keys, state, "greet", Some(&answer))).contains("another process"));

    // Without the answer (another one instead): asked again, under a new state.
    let unrelated = json!({ "user_name": { "action": "accept" } });
    let running = waiting.resume(&keys, state, "greet", Some(&unrelated)).unwrap();
    let again = asked(hosted(waiting.round(&keys, running, std::future::pending())).await);
    assert_eq!(again["inputRequests"], first["inputRequests"]);
    assert!(refused(waiting.resume(&keys, state, "greet", Some(&answer))).contains("no call waits"));

    let running = waiting
        .resume(&keys, super::tests::state(&again), "greet", Some(&answer))
        .unwrap();
    let next = asked(hosted(waiting.round(&keys, running, std::future::pending())).await);
    assert!(next["inputRequests"].get("sampling-2").is_some(), "{next}");
    assert!(!dropped.load(Ordering::SeqCst));
}

#[tokio::test]
async fn beyond_its_limit_a_request_is_refused_and_the_call_goes_on() {
    let (keys, waiting) = (SessionKeys::random(), waiting(InputWait::default().with_max_calls(0)));
    let dropped = Arc::default();
    let running = hosted(async { Running::start("greet".to_owned(), asking_twice(&dropped)) }).await;
    let Ok(Round::Ended(ended)) = hosted(waiting.round(&keys, running, std::future::pending())).await else {
        panic!("the call waited beyond the limit");
    };
    let refusal = ended[0]["refused"].as_str().unwrap();
    assert!(refusal.contains("0 calls waiting"), "{refusal}");
    assert!(ended[1]["refused"].is_string());
}

#[tokio::test]
async fn a_call_cancelled_or_given_up_is_stopped() {
    let keys = SessionKeys::random();
    let waiting = waiting(InputWait::default());
    let dropped = Arc::new(AtomicBool::new(false));
    let running = hosted(async { Running::start("greet".to_owned(), asking_twice(&dropped)) }).await;
    let cancelled = hosted(waiting.round(&keys, running, std::future::ready(()))).await;
    assert!(matches!(cancelled, Err(e) if e.message.contains("cancelled")));
    until(&dropped).await;

    let (keys, waiting, dropped, first) = first_round(InputWait::default().with_wait(Duration::from_millis(50))).await;
    until(&dropped).await;
    assert!(refused(waiting.resume(&keys, state(&first), "greet", None)).contains("given up after"));
}

/// Waits (5 s at most) until `flag` is set.
async fn until(flag: &AtomicBool) {
    for _ in 0..500 {
        if flag.load(Ordering::SeqCst) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the call was not stopped");
}
