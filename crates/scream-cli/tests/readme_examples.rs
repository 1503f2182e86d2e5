//! The README's `scream` examples are real: every command it shows runs from an empty
//! folder, in the README's order (the file `scream sim my.toml` reads is the one an
//! earlier line writes, the report reads the sweep's results), and the `ccfb decode`
//! output it quotes is what the command prints. Long commands are shortened with flags
//! that keep what they show (a shorter duration, one case); commands that need recorded
//! traces run when this machine has them and otherwise say that they were skipped.

mod common;
#[path = "common/process.rs"]
mod process;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use nix::sys::signal::Signal;
use process::{Running, addr_after};

use common::{scream, serve_data_mirror, stderr};

const README: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"));

/// The README's command lines that start with `scream `, comments removed.
fn commands() -> Vec<String> {
    README
        .lines()
        .filter(|l| l.starts_with("scream "))
        .map(|l| l.split(" #").next().unwrap_or(l).trim().to_owned())
        .collect()
}

/// Whether this machine has every file `scream data fetch all` gets; when not, says
/// which README line is skipped.
fn have_fetched_data(cmd: &str) -> bool {
    let missing: Vec<String> = scream_data::DATASETS
        .iter()
        .filter(|d| !d.shipped)
        .flat_map(|d| d.files)
        .filter_map(|f| scream_data::find(f.path).err())
        .map(|m| m.name)
        .collect();
    if missing.is_empty() {
        return true;
    }
    // Written past the test harness's capture, so that a passing run shows it too.
    let line = format!(
        "skipped README line `{cmd}`: needs {} (scream data fetch all)\n",
        missing.join(", ")
    );
    let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
    false
}

/// Runs `args` in `cwd` with `data` as its only data folder when given.
fn run(args: &[&str], cwd: &Path, data: Option<&Path>) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_scream"));
    command.args(args).current_dir(cwd);
    if let Some(data) = data {
        command.env("SCREAM_DATA_PATH", data);
    }
    command.output().expect("the scream binary runs")
}

#[test]
fn every_readme_command_runs_in_order_from_an_empty_folder() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cwd = dir.path();
    // What `scream data fetch all` wrote, once it has run: later lines read only that.
    let mut fetched: Option<std::path::PathBuf> = None;
    let mut ran = 0;
    for cmd in commands() {
        let words: Vec<&str> = cmd.split_whitespace().skip(1).collect();
        let mut args = words.clone();
        let mut needs_fetched_data = false;
        match words.as_slice() {
            ["scenarios"] | ["params", _] | ["ccfb", "decode", _] | ["report", _] => {}
            ["compare", ..] => {}
            ["sweep", "tuning"] => {}
            ["scenarios", "show", name, ">", file] => {
                let out = scream(&["scenarios", "show", name], cwd);
                assert!(out.status.success(), "{cmd}: {}", stderr(&out));
                std::fs::write(cwd.join(file), &out.stdout).expect("write the file");
                ran += 1;
                continue;
            }
            ["sim", ..] => args.extend(["--set", "duration_s=1", "--no-plots"]),
            ["bench"] => args.push("--quick"),
            ["suite", "rmcat", ..] => args.extend(["--cases", "5.1", "--set", "duration_s=5"]),
            ["eval", "v2"] => args.extend(["--filter", "const-10M/l4s/faithful"]),
            ["eval", "robust", ..] => args.extend(["--draws", "1", "--class", "sudden-drop"]),
            ["data", "fetch", "all"] => {
                if !have_fetched_data(&cmd) {
                    continue;
                }
                let target = cwd.join("fetched");
                let mirror = serve_data_mirror();
                args.extend(["--from", &mirror]);
                let out = run(&args, cwd, Some(&target));
                assert!(out.status.success(), "{cmd}: {}", stderr(&out));
                fetched = Some(target);
                ran += 1;
                continue;
            }
            ["study", "lte"] => {
                needs_fetched_data = true;
                args.extend(["--users", "1", "--loads", "0", "--duration", "2"]);
            }
            ["sweep", "paper-hybrid" | "paper-standalone-testapp"] => {
                needs_fetched_data = true;
                args.push("--dry-run");
            }
            // The real-network lines run together in their own test below.
            ["recv", ..] | ["link", ..] | ["send", ..] => continue,
            _ => panic!("a README command this test does not know how to run: {cmd}"),
        }
        if needs_fetched_data && fetched.is_none() {
            have_fetched_data(&cmd);
            continue;
        }
        let out = run(&args, cwd, fetched.as_deref());
        assert!(out.status.success(), "{cmd}: {}", stderr(&out));
        ran += 1;
    }
    assert!(ran >= 12, "only {ran} README commands ran");
    // The sweep's report went where the README says.
    assert!(cwd.join("out/sweep-tuning/report.md").is_file());
}

#[test]
fn the_ccfb_example_prints_what_the_readme_quotes() {
    let cmd = commands()
        .into_iter()
        .find(|c| c.starts_with("scream ccfb decode "))
        .expect("a ccfb decode example");
    let args: Vec<&str> = cmd.split_whitespace().skip(1).collect();
    let dir = tempfile::tempdir().expect("temp dir");
    let out = scream(&args, dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let quoted = README
        .lines()
        .find(|l| l.starts_with("{\"sender_ssrc\""))
        .expect("quoted output");
    let shown = quoted.trim_end_matches(" ...");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.starts_with(shown), "{printed}");
    let v: serde_json::Value = serde_json::from_str(printed.trim()).expect("json");
    assert_eq!(v["count_convention"], "minus-one");
    assert_eq!(v["blocks"][0]["num_reports"], 64);
}

/// The README's three real-network lines, in its order, on loopback: the receiver and the
/// link serve until stopped, the sender ends by itself, and all three leave their output
/// folders. Only the ports (free ones instead of 5000 and 6000, which another program
/// may hold), the output folders (under a temporary folder) and the sender's duration
/// (3 s instead of 30) differ from the README's text.
#[test]
fn the_real_network_lines_run_together_on_loopback() {
    let lines: Vec<Vec<String>> = commands()
        .iter()
        .filter(|c| {
            ["scream recv ", "scream link ", "scream send "]
                .iter()
                .any(|p| c.starts_with(p))
        })
        .map(|c| c.split_whitespace().skip(1).map(str::to_owned).collect())
        .collect();
    assert_eq!(
        lines.len(),
        3,
        "the README's recv, link and send lines: {lines:?}"
    );
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut addrs: Vec<(String, String)> = Vec::new();
    let adapt = |words: &[String], addrs: &[(String, String)]| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (i, w) in words.iter().enumerate() {
            let flag = i.checked_sub(1).map(|j| words[j].as_str());
            out.push(match flag {
                Some("--listen") => "127.0.0.1:0".to_owned(),
                Some("--forward" | "--to") => addrs
                    .iter()
                    .find(|(readme, _)| readme == w)
                    .map_or_else(|| w.clone(), |(_, real)| real.clone()),
                Some("--out") => tmp.path().join(w).display().to_string(),
                Some("--duration") => "3".to_owned(),
                _ => w.clone(),
            });
        }
        out
    };
    let listen_of = |words: &[String]| {
        let at = words
            .iter()
            .position(|w| w == "--listen")
            .expect("--listen");
        words[at + 1].clone()
    };
    let ready = Duration::from_secs(30);
    let start =
        |words: Vec<String>| Running::start(&words.iter().map(String::as_str).collect::<Vec<_>>());

    let mut recv = start(adapt(&lines[0], &addrs));
    let real = addr_after(
        &recv.line_where(ready, |l| l.contains("receiving on")),
        "receiving on ",
    );
    addrs.push((listen_of(&lines[0]), real));
    let mut link = start(adapt(&lines[1], &addrs));
    let real = addr_after(&link.line_where(ready, |l| l.starts_with("link ")), ": ");
    addrs.push((listen_of(&lines[1]), real));
    let mut send = start(adapt(&lines[2], &addrs));
    let (status, out) = send.finish(Duration::from_secs(60));
    assert!(status.success(), "send: {status}\n{out}\n{}", send.stderr());
    for (p, name) in [(&mut link, "link"), (&mut recv, "recv")] {
        p.signal(Signal::SIGINT);
        let (status, out) = p.finish(Duration::from_secs(60));
        assert!(status.success(), "{name}: {status}\n{out}\n{}", p.stderr());
    }
    for dir in ["out/recv", "out/link", "out/send"] {
        let summary = tmp.path().join(dir).join("summary.json");
        assert!(summary.is_file(), "{}", summary.display());
    }
}
