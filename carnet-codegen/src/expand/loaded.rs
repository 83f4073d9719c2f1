//! The manifest the build script wrote, read once per crate compilation.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use carnet_manifest::Manifest;
use proc_macro2::Span;

use super::messages;

/// The manifest the build script wrote, and where each toolset is declared.
pub(super) struct Loaded {
    pub(super) manifest: Manifest,
    pub(super) sources: serde_json::Value,
    pub(super) path: PathBuf,
}

/// Parsed manifests by path and modification time: one parse per crate compilation, not
/// one per toolset.
static CACHE: Mutex<Vec<(PathBuf, std::time::SystemTime, Arc<Loaded>)>> = Mutex::new(Vec::new());

pub(super) fn manifest_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CARNET_MANIFEST") {
        return Some(PathBuf::from(path));
    }
    let out_dir = std::env::var_os("OUT_DIR")?;
    let path = Path::new(&out_dir).join("carnet/bindings.json");
    path.is_file().then_some(path)
}

pub(super) fn load(span: Span, path: Option<&Path>) -> syn::Result<Arc<Loaded>> {
    let path = path
        .map(Path::to_path_buf)
        .ok_or_else(|| syn::Error::new(span, messages::NO_MANIFEST))?;
    let modified = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .map_err(|e| syn::Error::new(span, messages::unreadable_manifest(&path, &e)))?;
    let mut cache = CACHE.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, _, loaded)) = cache.iter().find(|(p, m, _)| *p == path && *m == modified) {
        return Ok(Arc::clone(loaded));
    }
    let text =
        std::fs::read_to_string(&path).map_err(|e| syn::Error::new(span, messages::unreadable_manifest(&path, &e)))?;
    let manifest =
        Manifest::from_json(&text).map_err(|e| syn::Error::new(span, messages::invalid_manifest(&path, &e)))?;
    let sources = serde_json::from_str::<serde_json::Value>(&text)
        .map(|v| v["sources"].clone())
        .unwrap_or_default();
    let loaded = Arc::new(Loaded {
        manifest,
        sources,
        path: path.clone(),
    });
    cache.retain(|(p, _, _)| *p != path);
    cache.push((path, modified, Arc::clone(&loaded)));
    Ok(loaded)
}
