//! What the pipeline tests share: GStreamer with this crate's plugin, free ports, the
//! `scream` command (its `link`, `recv` and `send`), and running a pipeline.

#![allow(dead_code, reason = "each test binary uses a part of this module")]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Once, OnceLock};
use std::time::Duration;

use gst::prelude::*;

/// GStreamer, initialised once, with the `screamrs` plugin registered statically.
pub(crate) fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        gst::init().expect("GStreamer initialises");
        gstscreamrs::plugin_register_static().expect("the plugin registers");
    });
}

/// A UDP port on 127.0.0.1 that was free a moment ago.
pub(crate) fn free_port() -> u16 {
    let s = std::net::UdpSocket::bind("127.0.0.1:0").expect("bind an ephemeral port");
    s.local_addr().expect("bound").port()
}

/// The repository's root.
pub(crate) fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root exists")
}

/// The `scream` command: `$SCREAM_BIN`, or the main workspace's debug build (built
/// here, once, if it is missing or stale).
pub(crate) fn scream_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(p) = std::env::var_os("SCREAM_BIN") {
            return PathBuf::from(p);
        }
        let root = repo_root();
        let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .current_dir(&root)
            .args([
                "build",
                "-p",
                "scream-cli",
                "--message-format=json-render-diagnostics",
            ])
            .arg("--manifest-path")
            .arg(root.join("Cargo.toml"))
            .stderr(Stdio::inherit())
            .output()
            .expect("cargo runs");
        assert!(out.status.success(), "cargo build -p scream-cli failed");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v["executable"].as_str().map(PathBuf::from))
            .find(|p| p.file_stem().is_some_and(|s| s == "scream"))
            .expect("cargo names the scream executable")
    })
    .clone()
}

/// A child process killed when dropped (a service that runs until stopped).
#[derive(Debug)]
pub(crate) struct Service(pub(crate) Child);

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `scream ARGS` as a service, its output in `out` (a folder it writes).
pub(crate) fn scream(args: &[&str], out: &Path) -> Service {
    let child = Command::new(scream_bin())
        .args(args)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("scream starts");
    Service(child)
}

/// A pipeline parsed from `description`, set to PLAYING.
pub(crate) fn play(description: &str) -> gst::Pipeline {
    let p = gst::parse::launch(description)
        .unwrap_or_else(|e| panic!("`{description}` does not parse: {e}"))
        .downcast::<gst::Pipeline>()
        .expect("a pipeline");
    p.set_state(gst::State::Playing)
        .unwrap_or_else(|e| panic!("`{description}` does not play: {e}"));
    p
}

/// The error and warning messages posted on `pipeline`'s bus so far.
pub(crate) fn bus_problems(pipeline: &gst::Pipeline) -> Vec<String> {
    let bus = pipeline.bus().expect("a pipeline has a bus");
    let mut out = Vec::new();
    while let Some(msg) = bus.pop() {
        match msg.view() {
            gst::MessageView::Error(e) => {
                out.push(format!("error: {} ({:?})", e.error(), e.debug()))
            }
            gst::MessageView::Warning(w) => {
                out.push(format!("warning: {} ({:?})", w.error(), w.debug()))
            }
            _ => {}
        }
    }
    out
}

/// Stops `pipeline`.
pub(crate) fn stop(pipeline: &gst::Pipeline) {
    let _ = pipeline.set_state(gst::State::Null);
}

/// Waits `d`.
pub(crate) fn sleep(d: Duration) {
    std::thread::sleep(d);
}

/// The element named `name` in `pipeline`.
pub(crate) fn element(pipeline: &gst::Pipeline, name: &str) -> gst::Element {
    pipeline
        .by_name(name)
        .unwrap_or_else(|| panic!("no element {name}"))
}

/// The `u64` field `field` of `element`'s `stats` structure.
pub(crate) fn stat(element: &gst::Element, field: &str) -> u64 {
    let s = element.property::<gst::Structure>("stats");
    s.get::<u64>(field)
        .unwrap_or_else(|_| panic!("stats of {} have no {field}: {s}", element.name()))
}

/// The value at quantile `q` of `values` (sorted here).
pub(crate) fn quantile(values: &mut [f64], q: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    if values.is_empty() {
        return f64::NAN;
    }
    let i = ((values.len() - 1) as f64 * q).round() as usize;
    values[i]
}
