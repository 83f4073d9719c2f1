//! Compiles `carnet/` into the manifest `carnet::include_manifest!()` includes. The remote
//! toolsets are checked against their pins (`mcp.lock.json`): no server is started here.

fn main() {
    carnet_codegen::compile("carnet").unwrap_or_else(|e| e.exit());
}
