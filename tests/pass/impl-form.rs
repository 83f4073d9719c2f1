//! The impl form: `db-tools` bound to methods of a struct holding state, one async and one
//! sync method taking `&self`, next to a method that is not a tool; called through the
//! runtime with JSON arguments.

include!("../support/block_on.rs");

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use carnet::{Carnet, Manifest};
use serde_json::json;

/// A tiny database.
pub struct Db {
    rows: Vec<String>,
    queries: Arc<AtomicUsize>,
}

#[carnet::toolset("db-tools")]
impl Db {
    /// Not a tool: an ordinary method, still callable.
    pub fn matching(&self, needle: &str) -> Vec<String> {
        self.rows.iter().filter(|r| r.contains(needle)).cloned().collect()
    }

    #[carnet::tool]
    pub async fn query(&self, sql: String) -> Result<Vec<String>, String> {
        self.queries.fetch_add(1, Ordering::SeqCst);
        match sql.strip_prefix("find ") {
            Some(needle) => Ok(self.matching(needle)),
            None => Err(format!("cannot run `{sql}`")),
        }
    }

    #[carnet::tool]
    pub fn count(&self) -> usize {
        self.rows.len()
    }
}

fn main() {
    let queries = Arc::new(AtomicUsize::new(0));
    let db = Db {
        rows: vec!["apple".to_owned(), "banana".to_owned(), "apricot".to_owned()],
        queries: Arc::clone(&queries),
    };
    assert_eq!(db.matching("an"), ["banana"]);

    let manifest = Manifest::from_json(include_str!(env!("CARNET_UI_MANIFEST_JSON"))).unwrap();
    let carnet = Carnet::builder(&manifest).toolset(db.toolset().into_impl()).allow_unimplemented().build().unwrap();
    let mut session = carnet.session("tester").unwrap();
    session.load_skill("testing").unwrap();

    let out = block_on(session.call("query", json!({"sql": "find ap"})));
    assert_eq!(out.value, json!(["apple", "apricot"]));
    assert!(!out.is_error);
    let out = block_on(session.call("query", json!({"sql": "drop table"})));
    assert_eq!(out.error_message(), Some("cannot run `drop table`"));
    assert_eq!(queries.load(Ordering::SeqCst), 2, "both calls reached the same `Db`");

    let out = block_on(session.call("count", json!({})));
    assert_eq!(out.value, json!(3));

    let query = session.tools().iter().find(|t| t.name == "query").unwrap();
    assert_eq!(query.description, "Runs a query");
    assert_eq!(query.input_schema["properties"]["sql"]["type"], "string");
    assert_eq!(query.input_schema["required"], json!(["sql"]));
    let count = session.tools().iter().find(|t| t.name == "count").unwrap();
    assert_eq!(count.input_schema["properties"], json!({}));
}
