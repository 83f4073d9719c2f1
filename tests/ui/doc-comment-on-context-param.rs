#[carnet::toolset("math")]
pub mod math {
    #[carnet::tool]
    pub fn add(
        /// The session.
        ctx: &carnet::Context<'_>,
        /// The first term.
        a: i64,
        b: i64,
    ) -> i64 {
        let _ = ctx;
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
