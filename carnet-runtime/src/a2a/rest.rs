//! The HTTP+JSON binding: the same operations as routes (`POST /message:send`,
//! `GET /tasks/{id}`, ...), errors as `google.rpc.Status` bodies with the A2A reason.

use std::sync::Arc;

use a2a_types::{A2AError, error_code};
use hyper::{Method, StatusCode};
use serde_json::{Map, Value, json};

use super::methods::{self, Events, Reply};
use super::retry;
use super::shared::Shared;

/// What the HTTP layer sends back.
pub(super) enum Answer {
    /// A JSON body with its status.
    Json(StatusCode, Vec<u8>),
    /// SSE events, each a `StreamResponse`.
    Stream(Box<Events>),
}

/// The operation a path names, if it is one of this binding's.
#[derive(Debug, PartialEq)]
enum Route<'a> {
    Send,
    Stream,
    List,
    Get(&'a str),
    Cancel(&'a str),
    Subscribe(&'a str),
    PushConfigs,
    ExtendedCard,
}

fn route(path: &str) -> Option<Route<'_>> {
    match path {
        "/message:send" => return Some(Route::Send),
        "/message:stream" => return Some(Route::Stream),
        "/tasks" => return Some(Route::List),
        "/extendedAgentCard" => return Some(Route::ExtendedCard),
        _ => {}
    }
    let rest = path.strip_prefix("/tasks/")?;
    if rest.contains("/pushNotificationConfigs") {
        return Some(Route::PushConfigs);
    }
    if rest.is_empty() || rest.contains('/') {
        return None;
    }
    Some(if let Some(id) = rest.strip_suffix(":cancel") {
        Route::Cancel(id)
    } else if let Some(id) = rest.strip_suffix(":subscribe") {
        Route::Subscribe(id)
    } else {
        Route::Get(rest)
    })
}

/// Whether `path` is one of this binding's routes.
pub(super) fn is_route(path: &str) -> bool {
    route(path).is_some()
}

/// Answers a request at one of this binding's routes.
pub(super) async fn handle(
    shared: &Arc<Shared>,
    method: &Method,
    path: &str,
    query: Option<&str>,
    version: Option<&str>,
    body: &[u8],
) -> Answer {
    match answer(shared, method, path, query, version, body).await {
        Ok(Reply::Value(value)) => Answer::Json(StatusCode::OK, serde_json::to_vec(&value).unwrap_or_default()),
        Ok(Reply::Stream(events)) => Answer::Stream(events),
        Err(e) => {
            let (status, body) = error(&e);
            Answer::Json(status, body)
        }
    }
}

async fn answer(
    shared: &Arc<Shared>,
    method: &Method,
    path: &str,
    query: Option<&str>,
    version: Option<&str>,
    body: &[u8],
) -> Result<Reply, A2AError> {
    let Some(route) = route(path) else {
        return Err(A2AError::method_not_found(path));
    };
    let expected = match route {
        Route::List | Route::Get(_) | Route::ExtendedCard => Method::GET,
        Route::PushConfigs => method.clone(),
        _ => Method::POST,
    };
    if *method != expected {
        return Err(A2AError::new(
            error_code::METHOD_NOT_FOUND,
            format!("{path} is answered to {expected}, not {method}"),
        ));
    }
    methods::check_version(version)?;
    let id_params = |id: &str, mut params: Map<String, Value>| {
        params.insert("id".to_owned(), Value::String(percent_decode(id)));
        Value::Object(params)
    };
    match route {
        Route::Send => methods::send(shared, json_body(body)?, false).await,
        Route::Stream => methods::send(shared, json_body(body)?, true).await,
        Route::List => methods::list(shared, Value::Object(query_params(query)?)).await,
        Route::Get(id) => methods::get(shared, id_params(id, query_params(query)?)).await,
        Route::Cancel(id) => {
            let params = match json_body(body)? {
                Value::Object(map) => map,
                _ => Map::new(),
            };
            methods::cancel(shared, id_params(id, params)).await
        }
        Route::Subscribe(id) => methods::subscribe(shared, id_params(id, Map::new())).await,
        Route::PushConfigs => Err(methods::no_push_notifications()),
        Route::ExtendedCard => Err(methods::no_extended_card()),
    }
}

/// The body as JSON; an empty body is `{}`.
fn json_body(body: &[u8]) -> Result<Value, A2AError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Map::new()));
    }
    match serde_json::from_slice(body) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err(A2AError::invalid_request("the body must be a JSON object")),
        Err(e) => Err(A2AError::parse_error(format!("the body is not JSON: {e}"))),
    }
}

/// The query string as the request object `ListTasks` and `GetTask` take: numbers and
/// booleans where the fields are.
fn query_params(query: Option<&str>) -> Result<Map<String, Value>, A2AError> {
    let mut params = Map::new();
    for pair in query.unwrap_or_default().split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let key = percent_decode(key);
        let value = percent_decode(value);
        let value = match key.as_str() {
            "pageSize" | "historyLength" => value
                .parse::<i64>()
                .map(Value::from)
                .map_err(|_| A2AError::invalid_params(format!("`{key}` must be an integer, not `{value}`")))?,
            "includeArtifacts" => match value.as_str() {
                "true" | "1" => Value::Bool(true),
                "false" | "0" => Value::Bool(false),
                _ => return Err(A2AError::invalid_params(format!("`{key}` must be true or false"))),
            },
            _ => Value::String(value),
        };
        params.insert(key, value);
    }
    Ok(params)
}

/// `%XX` and `+` decoded; invalid escapes kept as they are.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..=i + 2]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(byte) => {
                        out.push(byte);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An error as this binding sends it: the HTTP status and a `google.rpc.Status` body whose
/// `ErrorInfo` detail carries the A2A reason (`TASK_NOT_FOUND`, ...).
pub(super) fn error(error: &A2AError) -> (StatusCode, Vec<u8>) {
    let (status, name) = match error.code {
        _ if retry::is_later(error) => (StatusCode::SERVICE_UNAVAILABLE, "UNAVAILABLE"),
        error_code::TASK_NOT_FOUND | error_code::METHOD_NOT_FOUND => (StatusCode::NOT_FOUND, "NOT_FOUND"),
        error_code::TASK_NOT_CANCELABLE
        | error_code::PUSH_NOTIFICATION_NOT_SUPPORTED
        | error_code::UNSUPPORTED_OPERATION
        | error_code::EXTENDED_CARD_NOT_CONFIGURED
        | error_code::EXTENSION_SUPPORT_REQUIRED
        | error_code::VERSION_NOT_SUPPORTED => (StatusCode::BAD_REQUEST, "FAILED_PRECONDITION"),
        error_code::CONTENT_TYPE_NOT_SUPPORTED
        | error_code::INVALID_PARAMS
        | error_code::INVALID_REQUEST
        | error_code::PARSE_ERROR => (StatusCode::BAD_REQUEST, "INVALID_ARGUMENT"),
        _ => (StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL"),
    };
    let details = error.to_jsonrpc_error().data.unwrap_or_else(|| json!([]));
    let body = json!({"error": {
        "code": status.as_u16(),
        "status": name,
        "message": error.message,
        "details": details,
    }});
    (status, serde_json::to_vec(&body).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        assert_eq!(route("/message:send"), Some(Route::Send));
        assert_eq!(route("/tasks/abc"), Some(Route::Get("abc")));
        assert_eq!(route("/tasks/abc:cancel"), Some(Route::Cancel("abc")));
        assert_eq!(route("/tasks/abc:subscribe"), Some(Route::Subscribe("abc")));
        assert_eq!(route("/tasks/abc/pushNotificationConfigs/x"), Some(Route::PushConfigs));
        assert_eq!(route("/tasks/"), None);
        assert_eq!(route("/tasks/a/b"), None);
        assert_eq!(route("/other"), None);
    }

    #[test]
    fn query_strings() {
        let params = query_params(Some("contextId=a%20b&pageSize=2&includeArtifacts=true&x=%zz+y")).unwrap();
        assert_eq!(
            Value::Object(params),
            json!({"contextId": "a b", "pageSize": 2, "includeArtifacts": true, "x": "%zz y"})
        );
        assert!(query_params(Some("pageSize=two")).is_err());
        assert_eq!(percent_decode("%"), "%");
        assert_eq!(percent_decode("a%4"), "a%4");
        assert_eq!(percent_decode("%C3%A9"), "é");
    }
}
