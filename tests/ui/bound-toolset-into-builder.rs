//! A compiled toolset does not turn into an unchecked `ToolsetImpl` by `.into()` (rustc
//! would suggest it, and the mistake would surface at run time).

// The manifest, toolset `math` and `any()`.
include!("common/math.rs");

fn main() {
    let _builder = carnet::Carnet::builder(manifest::MANIFEST.manifest()).toolset(math::toolset());
    let _carnet = carnet::Carnet::new(&manifest::MANIFEST, math::toolset());
}
