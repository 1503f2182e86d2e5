//! Running the `scream` binary as a user would, shared by the command-line tests.
#![allow(dead_code, reason = "each test file uses a subset")]

use std::path::Path;
use std::process::{Command, Output};

/// Runs `scream ARGS` in `cwd` and returns what it did.
pub(crate) fn scream(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scream"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("the scream binary runs")
}

/// What the command printed on standard output.
pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// What the command printed on standard error.
pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
