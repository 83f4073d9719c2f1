// The manifest, toolset `math` and `any()`.
include!("common/math.rs");

fn main() {
    // A field's name misspelled: one error, at it, naming the field meant.
    let _builder = carnet::Carnet::new(
        &manifest::MANIFEST,
        manifest::Toolsets {
            search_tools: any(),
            db_tools: any(),
            described: any(),
            mth: math::toolset(),
            files: any(),
        },
    );
}
