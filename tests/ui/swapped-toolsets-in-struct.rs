// The manifest, toolset `math` and `any()`.
include!("common/math.rs");

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
