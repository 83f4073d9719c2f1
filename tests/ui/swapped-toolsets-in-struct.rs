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

#[carnet::toolset("files")]
pub mod files {
    #[carnet::tool]
    pub fn file_read(path: String) -> String {
        path
    }

    #[carnet::tool(name = "file-read")]
    pub fn file_read_dashed(path: String) -> String {
        path.to_uppercase()
    }
}

// The implementations of the toolsets this case is not about, each in its own field.
fn other<Name>() -> carnet::tools::BoundToolset<Name> {
    unimplemented!()
}

fn main() {
    // Inline, as the generated `Toolsets`' documentation writes it: one error for each
    // misplaced implementation, at it.
    let _builder = carnet::Carnet::new(
        &manifest::MANIFEST,
        manifest::Toolsets {
            search_tools: other(),
            db_tools: other(),
            described: other(),
            math: files::toolset(),
            files: math::toolset(),
        },
    );
}
