//! Data files from the shell: every command that misses one names the line that gets it,
//! and `scream data fetch` fills a data folder from a mirror (a local server here, never
//! the internet).

mod common;

use common::{scream_with_data, serve_folder, stderr, stdout};

const LUMOS: &str = "links/lumos5g-5g_trace_54_walking.tsv";

/// Runs `args` with an empty data folder and returns its error text, checking that it
/// failed.
fn error_without_data(args: &[&str]) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let o = scream_with_data(args, dir.path(), &dir.path().join("empty"));
    assert!(!o.status.success(), "{args:?} ran without its data");
    stderr(&o)
}

#[test]
fn every_command_that_misses_a_trace_names_its_fetch_line() {
    let cases: [(&[&str], &str); 4] = [
        (
            &[
                "sim",
                "5g-synthetic",
                "--set",
                "link.trace=data:links/lumos5g-5g_trace_100_walking.tsv",
            ],
            "scream data fetch lumos5g",
        ),
        (&["sweep", "paper-standalone"], "scream data fetch lumos5g"),
        (&["sweep", "paper-hybrid"], "scream data fetch lumos5g"),
        (
            &["study", "lte", "--users", "1"],
            "scream data fetch mahimahi",
        ),
    ];
    for (args, line) in cases {
        let e = error_without_data(args);
        assert!(e.contains(line), "{args:?}: {e}");
    }
}

#[test]
fn list_says_where_each_file_was_found() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    std::fs::create_dir_all(data.join("links")).unwrap();
    std::fs::write(data.join(LUMOS), "1\t5\n").unwrap();
    let o = scream_with_data(&["data", "list"], dir.path(), &data);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let line = |name: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no line for {name}:\n{out}"))
            .to_owned()
    };
    assert!(line(LUMOS).contains(&data.join(LUMOS).display().to_string()));
    assert!(line("links/lumos5g-5g_trace_32_walking.tsv").ends_with("missing"));
    assert!(out.contains("fetch: scream data fetch mahimahi"), "{out}");
}

#[test]
fn fetch_fills_a_data_folder_from_a_mirror_and_refuses_altered_files() {
    // The real bytes come from wherever this machine has them; a fresh clone has none,
    // and then only the refusal half can run (the fetch itself is also tested with
    // synthetic files inside the command's own unit tests).
    let dir = tempfile::tempdir().expect("temp dir");
    let mirror = dir.path().join("mirror");
    let target = dir.path().join("fetched");
    std::fs::create_dir_all(mirror.join("links")).unwrap();
    let url = serve_folder(&mirror);

    std::fs::write(mirror.join(LUMOS), "1\t5\n").unwrap();
    let fetch = ["data", "fetch", LUMOS, "--from", &url];
    let o = scream_with_data(&fetch, dir.path(), &target);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("SHA-256"), "{}", stderr(&o));
    assert!(!target.join(LUMOS).exists());

    let Some(real) = scream_data::for_test(LUMOS) else {
        return;
    };
    std::fs::copy(real, mirror.join(LUMOS)).unwrap();
    let o = scream_with_data(&fetch, dir.path(), &target);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("fetched"), "{}", stdout(&o));
    let o = scream_with_data(
        &[
            "sim",
            "paper-5g",
            "--set",
            &format!("link.trace=data:{LUMOS}"),
            "--set",
            "duration_s=2",
            "--no-plots",
            "--json",
        ],
        dir.path(),
        &target,
    );
    assert!(o.status.success(), "{}", stderr(&o));
}
