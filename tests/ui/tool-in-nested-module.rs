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

    pub mod more {
        #[carnet::tool]
        pub fn ping() -> &'static str {
            "pong"
        }
    }
}

fn main() {}
