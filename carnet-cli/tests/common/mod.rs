//! What the CLI's test files share: running `carnet`, its output, and where things are.
// Each test file uses some of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the `carnet` binary with `args`, colours off.
pub(crate) fn carnet(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_carnet"))
        .args(args)
        .arg("--color=never")
        .output()
        .unwrap()
}

pub(crate) fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub(crate) fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The workspace's root.
pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The research agent's content directory.
pub(crate) fn example() -> String {
    repo()
        .join("examples/research-agent/carnet")
        .to_string_lossy()
        .into_owned()
}

/// `carnet --dir <the research agent's content> call researcher ARGS`: the tool, its
/// arguments as JSON, then any flags.
pub(crate) fn call_researcher(args: &[&str]) -> Output {
    let dir = example();
    let mut all = vec!["--dir", &dir, "call", "researcher"];
    all.extend_from_slice(args);
    carnet(&all)
}
