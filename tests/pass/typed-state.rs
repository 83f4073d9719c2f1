//! `State<T>` parameters: a part of the engine's state, taken by `FromRef` once when the
//! engine is built; the generated `Toolsets` carries what the tools take, so the compiled
//! engine's `build()` exists only once `.state(..)` was given a state providing each (see
//! `tests/ui/missing-state.rs`). The run-time path checks the same in `build()`.

include!("../support/block_on.rs");

mod manifest {
    use carnet::__private as rt;
    include!(env!("CARNET_UI_MANIFEST_RS"));
}

use carnet::tools::{FromRef, State};
use carnet::{Carnet, Manifest};
use serde_json::json;

/// A connection pool, cheap to clone.
#[derive(Clone)]
pub struct Pool(pub std::sync::Arc<Vec<&'static str>>);

/// The rounding the math tools use.
#[derive(Clone, Copy)]
pub struct Precision(pub u32);

/// The application's whole state.
pub struct App {
    pool: Pool,
    precision: Precision,
}

impl FromRef<App> for Pool {
    fn from_ref(app: &App) -> Pool {
        app.pool.clone()
    }
}

impl FromRef<App> for Precision {
    fn from_ref(app: &App) -> Precision {
        app.precision
    }
}

#[carnet::toolset("search-tools")]
pub mod search {
    use super::{Pool, Precision};
    use carnet::tools::State;

    #[carnet::tool]
    pub fn basic_search(pool: State<Pool>, query: String) -> Vec<&'static str> {
        pool.0.0.iter().copied().filter(|row| row.contains(&*query)).collect()
    }

    #[carnet::tool]
    pub fn advanced_search(query: String, precision: State<Precision>, pool: State<Pool>) -> String {
        format!("{query}:{}:{}", precision.0.0, pool.0.0.len())
    }

    #[carnet::tool]
    pub fn filter_results(hits: Vec<String>) -> usize {
        hits.len()
    }
}

/// A database.
pub struct Db;

#[carnet::toolset("db-tools")]
impl Db {
    #[carnet::tool]
    pub fn query(&self, sql: String, ctx: &carnet::Context<'_>) -> String {
        // The whole state is reachable too.
        let app = ctx.state::<App>().map_or(0, |app| app.precision.0);
        format!("{sql}@{app}")
    }

    #[carnet::tool]
    pub fn count(&self, pool: State<Pool>) -> usize {
        pool.0.0.len()
    }
}

#[carnet::toolset("math")]
pub mod math {
    #[carnet::tool]
    pub fn add(a: i64, b: i64) -> i64 {
        a + b
    }

    #[carnet::tool]
    pub fn negate(x: i64) -> i64 {
        -x
    }

    #[carnet::tool]
    pub fn ping() -> &'static str {
        "pong"
    }
}

#[carnet::toolset("files")]
pub mod files {
    #[carnet::tool]
    pub fn file_read(path: String) -> String {
        path
    }

    #[carnet::tool(name = "file-read")]
    pub fn file_read_dashed(path: String) -> String {
        path.to_uppercase()
    }
}

#[carnet::toolset("described")]
pub mod described {
    /// Described by the `parameters:` block of its TOOLSET.md entry.
    #[carnet::tool]
    pub fn lookup(key: String, exact: Option<bool>) -> String {
        if exact.unwrap_or(false) {
            key
        } else {
            key.to_lowercase()
        }
    }
}

fn main() {
    let app = App {
        pool: Pool(std::sync::Arc::new(vec!["rust", "rustc", "go"])),
        precision: Precision(3),
    };
    let toolsets = manifest::Toolsets {
        search_tools: search::toolset(),
        db_tools: Db.toolset(),
        described: described::toolset(),
        math: math::toolset(),
        files: files::toolset(),
    };
    let carnet = Carnet::new(&manifest::MANIFEST, toolsets).state(app).build().unwrap();
    let mut session = carnet.session(manifest::agents::TESTER);
    session.load_skill(manifest::skills::TESTING).unwrap();
    let search = session.tools().iter().find(|t| t.name == "advancedSearch").unwrap();
    assert_eq!(
        search.input_schema["required"],
        json!(["query"]),
        "a state is not part of the input"
    );
    let mut call = |name: &str, args| block_on(session.call(name, args));
    assert_eq!(
        call("basicSearch", json!({"query": "rust"})).value,
        json!(["rust", "rustc"])
    );
    assert_eq!(call("advancedSearch", json!({"query": "q"})).value, json!("q:3:3"));
    assert_eq!(call("count", json!({})).value, json!(3));
    assert_eq!(call("query", json!({"sql": "select"})).value, json!("select@3"));

    // The run-time path: `build()` names the tool and the type it lacks.
    let manifest = Manifest::from_json(include_str!(env!("CARNET_UI_MANIFEST_JSON"))).unwrap();
    let error = Carnet::builder(&manifest)
        .toolset(search::toolset().into_impl())
        .state(Precision(1))
        .allow_unimplemented()
        .build()
        .unwrap_err();
    let message = error.to_string();
    assert!(
        message.starts_with("tool `basicSearch` takes `State<") && message.contains("Pool"),
        "{message}"
    );
    // Given a `Pool` as the whole state, `basicSearch` is bound; `advancedSearch` still
    // lacks its `Precision`.
    let error = Carnet::builder(&manifest)
        .toolset(search::toolset().into_impl())
        .state(Pool(std::sync::Arc::new(Vec::new())))
        .allow_unimplemented()
        .build()
        .unwrap_err();
    assert!(
        error.to_string().contains("advancedSearch") && error.to_string().contains("Precision"),
        "{error}"
    );
    let _ = State(0);
}
