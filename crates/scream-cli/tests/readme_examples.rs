//! The README's `scream` examples are real: every command it shows runs, the file
//! `scream sim my.toml` reads is the one an earlier line writes, and the `ccfb decode`
//! output it quotes is what the command prints.

mod common;

use common::scream;

const README: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"));

/// The README's command lines that start with `scream `, comments removed.
fn commands() -> Vec<String> {
    README
        .lines()
        .filter(|l| l.starts_with("scream "))
        .map(|l| l.split(" #").next().unwrap_or(l).trim().to_owned())
        .collect()
}

#[test]
fn the_scenario_file_examples_run_in_order() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cmds = commands();
    let show = cmds
        .iter()
        .position(|c| c == "scream scenarios show default > my.toml")
        .expect("the README writes my.toml first");
    let sim = cmds
        .iter()
        .position(|c| c.starts_with("scream sim my.toml"))
        .expect("the README runs my.toml");
    assert!(show < sim, "my.toml is written before it is run");
    let out = scream(&["scenarios", "show", "default"], dir.path());
    std::fs::write(dir.path().join("my.toml"), &out.stdout).expect("write my.toml");
    let mut args: Vec<&str> = cmds[sim].split_whitespace().skip(1).collect();
    // Shortened: the example's point is that the file and the override are accepted.
    args.extend(["--set", "duration_s=1", "--no-plots", "--json"]);
    let run = scream(&args, dir.path());
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
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
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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

#[test]
fn every_other_example_names_a_real_command_or_scenario() {
    let dir = tempfile::tempdir().expect("temp dir");
    for cmd in commands() {
        let args: Vec<&str> = cmd.split_whitespace().skip(1).collect();
        match args.as_slice() {
            ["scenarios"] => assert!(scream(&args, dir.path()).status.success()),
            ["sim", name] => {
                let listing = scream(&["scenarios"], dir.path());
                let text = String::from_utf8_lossy(&listing.stdout);
                assert!(
                    text.lines()
                        .any(|l| l.split_whitespace().next() == Some(name)),
                    "{cmd}"
                );
            }
            ["bench"] | ["eval", "v2"] => {
                // Long runs; that the subcommand exists is what matters here.
                let mut help = args.clone();
                help.push("--help");
                assert!(scream(&help, dir.path()).status.success(), "{cmd}");
            }
            _ => {}
        }
    }
}
