#[carnet::toolset("serch-tools")]
mod search {
    #[carnet::tool]
    fn basic_search(query: String) -> String {
        query
    }
}

fn main() {}
