//! What the test files share that compare generated text with a file kept in the repository
//! (the goldens, the guide's generated references).

use std::fs;
use std::path::Path;

/// With `CARNET_BLESS` set, writes `generated` to `path` (creating its folder); otherwise
/// compares the two. `Err` says where they first differ, or why the file cannot be read,
/// and names `command`, which re-blesses.
pub(crate) fn check_or_bless(path: &Path, generated: &str, command: &str) -> Result<(), String> {
    if std::env::var_os("CARNET_BLESS").is_some() {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, generated).unwrap();
        return Ok(());
    }
    match fs::read_to_string(path) {
        Ok(on_disk) if on_disk == generated => Ok(()),
        Ok(on_disk) => {
            let line = on_disk
                .lines()
                .zip(generated.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| on_disk.lines().count().min(generated.lines().count()));
            Err(format!(
                "{} differs from the generated text at line {}:\n  on disk:   {:?}\n  generated: {:?}\n\
                 (re-bless with {command}, then review the diff)",
                path.display(),
                line + 1,
                on_disk.lines().nth(line),
                generated.lines().nth(line)
            ))
        }
        Err(e) => Err(format!(
            "cannot read {}: {e} (create it with {command})",
            path.display()
        )),
    }
}
