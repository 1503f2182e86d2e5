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

/// Runs `scream ARGS` in `cwd` with only `data` as its data folder, as on a clone that
/// has just that (`SCREAM_DATA_PATH`, data/README.md).
pub(crate) fn scream_with_data(args: &[&str], cwd: &Path, data: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scream"))
        .args(args)
        .current_dir(cwd)
        .env("SCREAM_DATA_PATH", data)
        .output()
        .expect("the scream binary runs")
}

/// A loopback address nothing listens on: a port bound for a moment to find it free,
/// then closed.
pub(crate) fn silent_loopback_addr() -> String {
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").expect("a loopback port");
    format!(
        "127.0.0.1:{}",
        socket.local_addr().expect("its address").port()
    )
}

/// What the command printed on standard output.
pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// What the command printed on standard error.
pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Serves data files by their name (`/links/<file>`) from wherever this machine's data
/// search path finds them, on a free loopback port, for as long as the test runs: a
/// mirror for `scream data fetch --from` that never touches the internet.
pub(crate) fn serve_data_mirror() -> String {
    serve(|name| scream_data::find(name).ok())
}

/// Serves the files under `root` by path, like [`serve_data_mirror`].
pub(crate) fn serve_folder(root: &Path) -> String {
    let root = root.to_path_buf();
    serve(move |name| Some(root.join(name)))
}

fn serve(locate: impl Fn(&str) -> Option<std::path::PathBuf> + Send + 'static) -> String {
    let server = tiny_http::Server::http("127.0.0.1:0").expect("bind loopback");
    let url = format!(
        "http://{}",
        server.server_addr().to_ip().expect("an IP address")
    );
    std::thread::spawn(move || {
        for request in server.incoming_requests() {
            let name = request.url().trim_start_matches('/').to_owned();
            let _ = match locate(&name).and_then(|p| std::fs::read(p).ok()) {
                Some(bytes) => request.respond(tiny_http::Response::from_data(bytes)),
                None => request.respond(tiny_http::Response::empty(404)),
            };
        }
    });
    url
}
