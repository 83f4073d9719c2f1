#[carnet::toolset("math")]
pub mod math {
    #[carnet::tool]
    pub fn add<T>(a: T, b: T) -> T
    where
        T: std::ops::Add<Output = T>,
    {
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
