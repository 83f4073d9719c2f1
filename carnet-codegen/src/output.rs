//! Output: writing generated files only when their bytes change, and talking to Cargo.

use std::fs;
use std::io;
use std::path::Path;

/// Writes `contents` to `path` unless the file already holds exactly these bytes, so an
/// unchanged manifest does not touch the file's mtime (and does not rebuild dependents).
/// Returns whether the file was written.
pub(crate) fn write_if_changed(path: &Path, contents: &[u8]) -> io::Result<bool> {
    if fs::read(path).is_ok_and(|old| old == contents) {
        return Ok(false);
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(path, contents)?;
    Ok(true)
}

/// Removes the text files `{count}.txt` and up that an earlier build left in `dir`.
pub(crate) fn remove_stale(dir: &Path, count: usize) -> io::Result<()> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries {
        let path = entry?.path();
        let index = path
            .file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| s.parse::<usize>().ok());
        if path.extension().is_some_and(|e| e == "txt") && index.is_some_and(|i| i >= count) {
            fs::remove_file(&path)?;
        }
    }
    Ok(())
}

/// A `cargo:` directive line for a build script.
pub(crate) fn rerun_if_changed(path: &Path) -> String {
    format!("cargo:rerun-if-changed={}", path.display())
}

/// Cargo shows `cargo:warning=` lines one per line: flatten a message onto one.
pub(crate) fn cargo_warning(message: &str) -> String {
    format!("cargo:warning={}", message.replace(['\n', '\r'], " "))
}
