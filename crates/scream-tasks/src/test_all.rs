//! `cargo test-all`: runs scripts/test, the whole test suite, from whatever folder of
//! the clone cargo was called in (a cargo alias is the one command that resolves the
//! workspace from anywhere in it). Its arguments go to `cargo test`.

use std::path::Path;
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap_or(Path::new("."));
    let script = root.join("scripts").join("test");
    match Command::new("bash")
        .arg(&script)
        .args(std::env::args_os().skip(1))
        .status()
    {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(status) => ExitCode::from(u8::try_from(status.code().unwrap_or(1)).unwrap_or(1)),
        Err(e) => {
            #[expect(clippy::print_stderr, reason = "the task's only output channel")]
            {
                eprintln!("cannot run {}: {e}", script.display());
            }
            ExitCode::FAILURE
        }
    }
}
