// The manifest, toolset `math` and `any()`.
include!("common/math.rs");

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
