#[carnet::toolset("search-tools")]
pub mod search {
    use carnet::schemars::{self, JsonSchema};
    use serde::Deserialize;

    #[derive(Deserialize, JsonSchema)]
    pub struct Advanced {
        pub query: String,
    }

    #[carnet::tool]
    pub fn basic_search(query: String) -> String {
        query
    }

    #[carnet::tool]
    pub fn advanced_search(
        /// The search to run.
        input: Advanced,
    ) -> String {
        input.query
    }

    #[carnet::tool]
    pub fn filter_results(query: String) -> String {
        query
    }
}

fn main() {}
