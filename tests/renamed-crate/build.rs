//! Compiles `carnet/` into the manifest `agents::include_manifest!()` includes.

fn main() {
    carnet_codegen::compile("carnet").unwrap_or_else(|e| e.exit());
}
