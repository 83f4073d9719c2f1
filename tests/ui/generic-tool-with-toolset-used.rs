mod manifest {
    use carnet::__private as rt;
    include!(env!("CARNET_UI_MANIFEST_RS"));
}

#[carnet::toolset("math")]
pub mod math {
    #[carnet::tool]
    pub fn add<T: std::ops::Add<Output = T>>(a: T, b: T) -> T {
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

fn any<T>() -> T {
    unimplemented!()
}

fn main() {
    let _toolsets: manifest::Toolsets = manifest::Toolsets {
        search_tools: any(),
        db_tools: any(),
        described: any(),
        math: math::toolset(),
        files: any(),
    };
}
