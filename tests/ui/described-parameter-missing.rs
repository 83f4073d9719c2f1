// TOOLSET.md describes `key` and `exact`; the function takes `exakt`: one error, at the
// function, naming the block's line and the likely parameter.
#[carnet::toolset("described")]
pub mod described {
    #[carnet::tool]
    pub fn lookup(key: String, exakt: Option<bool>) -> String {
        let _ = exakt;
        key
    }
}

fn main() {}
