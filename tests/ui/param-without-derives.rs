#[carnet::toolset("math")]
pub mod math {
    pub struct Pair {
        pub a: i64,
        pub b: i64,
    }

    #[carnet::tool]
    pub fn add(pair: Pair) -> i64 {
        pair.a + pair.b
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

fn main() {}
