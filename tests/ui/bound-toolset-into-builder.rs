//! A compiled toolset does not turn into an unchecked `ToolsetImpl` by `.into()` (rustc
//! would suggest it, and the mistake would surface at run time).

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

fn main() {
    let _builder = carnet::Carnet::builder(manifest::MANIFEST.manifest()).toolset(math::toolset());
    let _carnet = carnet::Carnet::new(&manifest::MANIFEST, math::toolset());
}
