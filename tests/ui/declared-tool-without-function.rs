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
}

fn main() {}
