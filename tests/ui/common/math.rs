// What the cases about the generated `Toolsets` share, `include!`d at their top (a
// subdirectory, so trybuild does not take it for a case): the manifest compiled from
// tests/carnet, the implementation of its toolset `math`, and a value of any type for the
// fields a case is not about.

mod manifest {
    use carnet::__private as rt;
    include!(env!("CARNET_UI_MANIFEST_RS"));
}

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

    #[carnet::tool]
    pub fn ping() -> &'static str {
        "pong"
    }
}

#[allow(dead_code)]
fn any<T>() -> T {
    unimplemented!()
}
