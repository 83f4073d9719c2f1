#[carnet::toolset("math")]
pub mod math {
    #[carnet::tool]
    pub fn add(ctx: &carnet::Context<'_>, a: i64, b: i64, again: &carnet::Context<'_>) -> i64 {
        let _ = (ctx, again);
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

fn main() {}
