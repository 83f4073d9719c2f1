//! A request this server cannot take now but could later: its task store is full (or, shared,
//! unreachable), or every conversation it may hold is busy. The client is told when to try
//! again: over HTTP+JSON with `503 Service Unavailable`, `Retry-After` and the status
//! `UNAVAILABLE`; over JSON-RPC (whose errors travel in a `200` answer) with a
//! `google.rpc.RetryInfo` detail in the error's `data`, beside its `ErrorInfo`.

use std::collections::HashMap;
use std::time::Duration;

use a2a_types::A2AError;
use a2a_types::errordetails::TypedDetail;
use serde_json::Value;

/// How long a client is asked to wait before it tries again: tasks last seconds to minutes,
/// and a few seconds keep a retrying client from hammering a full server.
pub(super) const DELAY: Duration = Duration::from_secs(5);

/// The type of the detail that says when to try again.
const RETRY_INFO_TYPE: &str = "type.googleapis.com/google.rpc.RetryInfo";

/// An error saying `message` and to try again after [`DELAY`].
pub(super) fn later(message: impl Into<String>) -> A2AError {
    let delay = HashMap::from([("retryDelay".to_owned(), Value::String(format!("{}s", DELAY.as_secs())))]);
    A2AError::internal(message).with_details(vec![TypedDetail::new(RETRY_INFO_TYPE, delay)])
}

/// Whether `error` asks the client to try again later ([`later`]).
pub(super) fn is_later(error: &A2AError) -> bool {
    error
        .details
        .iter()
        .flatten()
        .any(|detail| detail.type_url == RETRY_INFO_TYPE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_later_error_carries_its_delay_in_the_json_rpc_data() {
        let error = later("full");
        assert!(is_later(&error));
        assert!(!is_later(&A2AError::internal("broken")));
        let data = error.to_jsonrpc_error().data.unwrap();
        let retry = data
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["@type"] == RETRY_INFO_TYPE)
            .unwrap();
        assert_eq!(retry["retryDelay"], "5s");
    }
}
