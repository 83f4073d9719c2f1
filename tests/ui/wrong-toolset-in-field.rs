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

fn any<T>() -> T {
    unimplemented!()
}

fn main() {
    // Inline: a mismatch at the field, once (`Carnet::new` does not fail again).
    let _builder = carnet::Carnet::new(
        &manifest::MANIFEST,
        manifest::Toolsets {
            search_tools: math::toolset(),
            db_tools: any(),
            described: any(),
            math: any(),
            files: any(),
        },
    );
}

// Where the type is written out: the same mismatch, at the field; its note spells both
// toolsets' names.
fn _toolsets() -> manifest::Toolsets {
    manifest::Toolsets {
        search_tools: any(),
        db_tools: any(),
        described: any(),
        math: math::toolset(),
        files: math::toolset(),
    }
}
