mod manifest {
    use carnet::__private as rt;
    include!(env!("CARNET_UI_MANIFEST_RS"));
}

use carnet::tools::State;

#[derive(Clone)]
pub struct Pool;

#[carnet::toolset("math")]
pub mod math {
    use super::Pool;
    use carnet::tools::State;

    #[carnet::tool]
    pub fn add(a: i64, b: i64, pool: State<Pool>) -> i64 {
        let _ = pool;
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

#[carnet::toolset("search-tools")]
pub mod search {
    #[carnet::tool]
    pub fn basic_search(query: String) -> String {
        query
    }

    #[carnet::tool]
    pub fn advanced_search(query: String) -> String {
        query
    }

    #[carnet::tool]
    pub fn filter_results(query: String) -> String {
        query
    }
}

pub struct Db;

#[carnet::toolset("db-tools")]
impl Db {
    #[carnet::tool]
    pub fn query(&self) {}

    #[carnet::tool]
    pub fn count(&self) {}
}

#[carnet::toolset("files")]
pub mod files {
    #[carnet::tool(name = "file_read")]
    pub fn a() {}

    #[carnet::tool(name = "file-read")]
    pub fn b() {}
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
    let _ = State(());
    // No state given: `build()` needs the engine's state to provide a `Pool`.
    let toolsets = manifest::Toolsets {
        search_tools: search::toolset(),
        db_tools: Db.toolset(),
        described: described::toolset(),
        math: math::toolset(),
        files: files::toolset(),
    };
    let _ = carnet::Carnet::new(&manifest::MANIFEST, toolsets).build();
}
