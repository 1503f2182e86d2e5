//! A `scream` process a test talks to while it runs: its stdout lines as they come, its
//! stderr kept for messages, real signals, and an exit awaited with a deadline, so
//! that a command that fails to stop fails the test instead of hanging it.
//! Included by the real-network tests only (`#[path]`), which alone need `nix`.
#![allow(dead_code, reason = "each test file uses a subset")]

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// A running `scream` command, killed if the test ends before it does.
pub(crate) struct Running {
    child: Child,
    name: String,
    lines: Receiver<String>,
    stdout: Vec<String>,
    stderr: Arc<Mutex<String>>,
}

impl Running {
    /// Starts `scream ARGS`.
    pub(crate) fn start(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_scream"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the scream binary starts");
        let out = BufReader::new(child.stdout.take().expect("piped stdout"));
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err = child.stderr.take().expect("piped stderr");
        let keep = stderr.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut s) = keep.lock() {
                    s.push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            }
        });
        Self {
            child,
            name: format!("scream {}", args.first().copied().unwrap_or_default()),
            lines,
            stdout: Vec::new(),
            stderr,
        }
    }

    /// Waits up to `within` for a stdout line that `wanted` accepts, and returns it.
    pub(crate) fn line_where(&mut self, within: Duration, wanted: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.stdout.push(line.clone());
                    if wanted(&line) {
                        return line;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "{}: no such line within {within:?}\n{}",
                        self.name,
                        self.said()
                    )
                }
                Err(RecvTimeoutError::Disconnected) => {
                    // Let the stderr reader finish what the process wrote.
                    let _ = self.child.wait();
                    std::thread::sleep(Duration::from_millis(100));
                    panic!("{}: ended without such a line\n{}", self.name, self.said())
                }
            }
        }
    }

    /// Sends `signal` to the process.
    pub(crate) fn signal(&self, signal: Signal) {
        let pid = Pid::from_raw(i32::try_from(self.child.id()).expect("a pid fits i32"));
        kill(pid, signal).expect("the signal is sent");
    }

    /// Waits up to `within` for the process to end; returns its status and everything
    /// it printed on stdout.
    pub(crate) fn finish(&mut self, within: Duration) -> (ExitStatus, String) {
        let deadline = Instant::now() + within;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("the process can be waited on") {
                break status;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                panic!(
                    "{}: still running after {within:?}\n{}",
                    self.name,
                    self.said()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // The reader thread ends at end of file; collect what it still holds.
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.stdout.push(line);
        }
        (status, self.stdout.join("\n"))
    }

    /// What the process wrote on stderr so far.
    pub(crate) fn stderr(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// stdout and stderr so far, for a failure message.
    fn said(&self) -> String {
        format!(
            "stdout:\n{}\nstderr:\n{}",
            self.stdout.join("\n"),
            self.stderr()
        )
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `HOST:PORT` after `marker` in `line`.
pub(crate) fn addr_after(line: &str, marker: &str) -> String {
    let at = line
        .find(marker)
        .unwrap_or_else(|| panic!("`{marker}` in {line}"));
    line[at + marker.len()..]
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .trim_end_matches(':')
        .to_owned()
}
