//! What the CLI's test files share: running `carnet`, its output, the servers it starts, and
//! where things are.
// Each test file uses some of these.
#![allow(dead_code)]

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};

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

/// A child process killed (and reaped) when dropped: a server a test started.
pub(crate) struct Killed(pub(crate) Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The first line `child` prints on its piped stdout (a server's address, for one).
pub(crate) fn first_line(child: &mut Child) -> String {
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout piped"))
        .read_line(&mut line)
        .unwrap();
    line
}

/// The `http://` URL a server started with `--http 127.0.0.1:0` (`serve-mcp`) prints first.
pub(crate) fn endpoint(child: &mut Child) -> String {
    let line = first_line(child);
    line.split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("the endpoint's URL first, not {line:?}"))
        .to_owned()
}
