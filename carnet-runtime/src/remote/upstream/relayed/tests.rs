use super::*;
use crate::dispatch::BoxFuture;
use crate::engine::options::RequestHandler;
use crate::relay::RelayError;
use rmcp::model::NumberOrString;
use serde_json::json;

/// A host that says who it is.
struct Named(&'static str);

impl Host for Named {
    fn progress_token(&self) -> Option<Value> {
        Some(json!(self.0))
    }
    fn declares(&self, _name: &str) -> bool {
        true
    }
    fn log_level(&self) -> Option<usize> {
        Some(0)
    }
    fn notify(&self, _method: &'static str, _params: Value) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }
    fn request(&self, _method: &'static str, _params: Value) -> BoxFuture<'static, Result<Value, RelayError>> {
        let name = self.0;
        Box::pin(async move { Ok(json!({ "answeredBy": name })) })
    }
}

fn program() -> RequestHandler {
    RequestHandler::new(|params: Value| async move {
        match params["message"].as_str() {
            Some("fail") => Err("the program gave up".to_owned()),
            _ => Ok(json!({ "answeredBy": "program", "asked": params["message"] })),
        }
    })
}

#[tokio::test]
async fn a_request_goes_to_the_declaring_host_else_to_the_program_else_is_refused() {
    let ask = |message: &str| json!({ "message": message });
    let answers = Answers {
        elicitation: Some(program()),
        ..Answers::default()
    };
    let handler = Handler::new(Arc::default(), answers);
    // No call in flight (a program's own loop calls without a host): the program answers.
    let answer = handler
        .answer("elicitation/create", "elicitation", ask("name?"), None)
        .await;
    assert_eq!(answer.unwrap(), json!({ "answeredBy": "program", "asked": "name?" }));
    let failed = handler
        .answer("elicitation/create", "elicitation", ask("fail"), None)
        .await;
    let failed = failed.unwrap_err();
    assert_eq!(
        (failed.code, failed.message.as_ref()),
        (ErrorCode::INTERNAL_ERROR, "the program gave up")
    );
    // Nothing answers sampling here.
    let refused = handler
        .answer("sampling/createMessage", "sampling", json!({}), None)
        .await;
    assert_eq!(refused.unwrap_err().code, ErrorCode::METHOD_NOT_FOUND);
    {
        // A host that declared the capability takes the request of its call.
        let (_call, _guard) = handler.calls.enter(Arc::new(Named("host")));
        let answer = handler
            .answer("elicitation/create", "elicitation", ask("name?"), None)
            .await;
        assert_eq!(answer.unwrap(), json!({ "answeredBy": "host" }));
    }
    {
        // One that did not leaves it to the program.
        let (_call, _guard) = handler.calls.enter(Arc::new(relay::Unhosted));
        let answer = handler
            .answer("elicitation/create", "elicitation", ask("name?"), None)
            .await;
        assert_eq!(answer.unwrap()["answeredBy"], "program");
    }
    // A gateway without a program's handler: two calls in flight, nobody's request.
    let gateway = Handler::new(Arc::default(), Answers::gateway());
    let (call_a, a_guard) = gateway.calls.enter(Arc::new(Named("a")));
    let (call_b, b_guard) = gateway.calls.enter(Arc::new(Named("b")));
    let unknown = gateway
        .answer("elicitation/create", "elicitation", ask("?"), None)
        .await;
    let unknown = unknown.unwrap_err();
    assert_eq!(unknown.code, ErrorCode::INTERNAL_ERROR);
    assert!(unknown.message.contains("2 calls in flight"), "{}", unknown.message);
    // Over streamable HTTP a request comes on its call's response stream: it is that call's.
    gateway.calls.name(&call_a, &token(1), &RequestId::Number(7));
    gateway.calls.name(&call_b, &token(2), &RequestId::Number(8));
    for (request, host) in [(7, "a"), (8, "b")] {
        let origin = InboundStreamOrigin::OutboundRequest(RequestId::Number(request));
        let answer = gateway
            .answer("elicitation/create", "elicitation", ask("?"), Some(&origin))
            .await;
        assert_eq!(answer.unwrap(), json!({ "answeredBy": host }));
    }
    // A stream of no call in flight (the standalone stream): nobody's while two are.
    let origin = InboundStreamOrigin::Unassociated;
    let unknown = gateway
        .answer("elicitation/create", "elicitation", ask("?"), Some(&origin))
        .await;
    assert!(unknown.unwrap_err().message.contains("2 calls in flight"));
    // A request no host made (a program's call, a prompt read for nobody) is in flight
    // too: beside a host's call, what the server sends is nobody's, never that host's.
    let (_unhosted, _unhosted_guard) = gateway.calls.enter(Arc::new(relay::Unhosted));
    let unknown = gateway
        .answer("elicitation/create", "elicitation", ask("?"), None)
        .await;
    assert!(unknown.unwrap_err().message.contains("3 calls in flight"));
    drop((a_guard, b_guard));
    let alone = gateway
        .answer("elicitation/create", "elicitation", ask("?"), None)
        .await;
    assert_eq!(
        alone.unwrap_err().code,
        ErrorCode::METHOD_NOT_FOUND,
        "its own request: refused"
    );
}

fn token(n: i64) -> ProgressToken {
    ProgressToken(NumberOrString::Number(n))
}

#[test]
fn what_names_no_call_is_attributed_only_while_one_call_is_in_flight() {
    let calls = Arc::new(Calls::default());
    assert!(matches!(calls.only_call(), Err(0)));
    // Known from before its request is sent: a request of the server's that arrives
    // before the sender learnt the token is still the call's.
    let (call_a, a) = calls.enter(Arc::new(Named("a")));
    let only = calls.only_call().ok().map(|c| c.host.progress_token());
    assert_eq!(only, Some(Some(json!("a"))));
    calls.name(&call_a, &token(1), &RequestId::Number(1));
    let (call_b, b) = calls.enter(Arc::new(Named("b")));
    calls.name(&call_b, &token(2), &RequestId::Number(2));
    assert!(
        matches!(calls.only_call(), Err(2)),
        "two calls: a log or a request is nobody's"
    );
    // Progress names its call, whatever else is in flight.
    let of = |n: i64| calls.call_of(&json!(n)).map(|c| c.host.progress_token());
    assert_eq!(
        (of(1), of(2), of(3)),
        (Some(Some(json!("a"))), Some(Some(json!("b"))), None)
    );
    drop(a);
    assert_eq!(of(1), None, "an ended call is forgotten");
    let only = calls.only_call().ok().map(|c| c.host.progress_token());
    assert_eq!(only, Some(Some(json!("b"))));
    drop(b);
    assert!(matches!(calls.only_call(), Err(0)));
}

#[test]
fn a_call_counts_the_notifications_being_relayed_for_it() {
    let calls = Arc::new(Calls::default());
    let (call, _guard) = calls.enter(Arc::new(Named("a")));
    let first = Relaying::new(Arc::clone(&call));
    let second = Relaying::new(Arc::clone(&call));
    assert_eq!(call.relaying.load(Ordering::Acquire), 2);
    drop(first);
    drop(second);
    assert_eq!(call.relaying.load(Ordering::Acquire), 0);
}

#[tokio::test]
async fn progress_arriving_before_its_call_learnt_its_token_waits_for_it() {
    let calls = Arc::new(Calls::default());
    let (other, _other) = calls.enter(Arc::new(Named("b")));
    calls.name(&other, &token(1), &RequestId::Number(1));
    // A token no call holds, while none is being sent: nobody's, at once.
    assert!(calls.call_named(&json!(9)).await.is_none());
    let (call, _guard) = calls.enter(Arc::new(Named("a")));
    let waiting = {
        let calls = Arc::clone(&calls);
        tokio::spawn(async move { calls.call_named(&json!(2)).await.map(|c| c.host.progress_token()) })
    };
    tokio::task::yield_now().await;
    calls.name(&call, &token(2), &RequestId::Number(2));
    assert_eq!(waiting.await.unwrap(), Some(Some(json!("a"))));
    // A call being sent does not make a stranger's token its own.
    let (_pending, _pending_guard) = calls.enter(Arc::new(Named("c")));
    let started = std::time::Instant::now();
    assert!(calls.call_named(&json!(9)).await.is_none());
    assert!(started.elapsed() >= NAMING_LIMIT);
}
