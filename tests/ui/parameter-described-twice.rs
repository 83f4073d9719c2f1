// `key` is described by the `parameters:` block and by its doc comment.
#[carnet::toolset("described")]
pub mod described {
    #[carnet::tool]
    pub fn lookup(
        /// The key.
        key: String,
        exact: Option<bool>,
    ) -> String {
        let _ = exact;
        key
    }
}

fn main() {}
