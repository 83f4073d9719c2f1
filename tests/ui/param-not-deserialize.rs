#[carnet::toolset("math")]
pub mod math {
    #[derive(schemars::JsonSchema)]
    pub struct Point {
        pub x: i64,
        pub y: i64,
    }

    #[carnet::tool]
    pub fn add(a: Point, scale: i64) -> i64 {
        (a.x + a.y) * scale
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
