//! `scream eval v2` seen from the shell: listing, filtering, formats and missing data;
//! `scream eval robust`'s seeds and option sets, without running the draws.

mod common;

use common::{scream, scream_with_data, stderr, stdout};

#[test]
fn list_shows_the_filtered_case_ids_without_running_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let o = scream(
        &[
            "eval",
            "v2",
            "--list",
            "--filter",
            "const-10M/",
            "--filter",
            "/all",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let ids: Vec<String> = stdout(&o).lines().map(str::to_owned).collect();
    assert_eq!(
        ids,
        [
            "const-10M/l4s/all",
            "const-10M/classic/all",
            "const-10M/delay/all"
        ]
    );
}

#[test]
fn a_filter_matching_nothing_is_an_error_pointing_at_list() {
    let dir = tempfile::tempdir().expect("temp dir");
    let o = scream(&["eval", "v2", "--filter", "no-such-link"], dir.path());
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("no-such-link"), "{err}");
    assert!(err.contains("--list"), "{err}");
}

#[test]
fn missing_traces_skip_their_cases_with_a_note_naming_the_file_and_its_fetch_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let empty = dir.path().join("empty-data");
    for format in ["text", "md", "csv", "json"] {
        let o = scream_with_data(
            &[
                "eval",
                "v2",
                "--filter",
                "lte-verizon/delay/faithful",
                "--data",
                "nodata",
                "--format",
                format,
            ],
            dir.path(),
            &empty,
        );
        assert!(o.status.success(), "{format}: {}", stderr(&o));
        let out = stdout(&o);
        assert!(out.contains("lte-verizon"), "{format}: {out}");
        assert!(
            out.contains("links/mahimahi-Verizon-LTE-short.down"),
            "{format}: {out}"
        );
        assert!(out.contains("nodata"), "{format}: {out}");
        assert!(
            out.contains("scream data fetch mahimahi"),
            "{format}: {out}"
        );
        assert!(
            stderr(&o).contains("1 of 1 cases skipped"),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn robust_pools_seeds_under_ids_that_carry_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let list = |seeds: &[&str]| {
        let mut args = vec!["eval", "robust", "--list", "--draws", "2"];
        args.extend(["--class", "sudden-drop"]);
        for s in seeds {
            args.extend(["--seed", s]);
        }
        let o = scream(&args, dir.path());
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o).lines().map(str::to_owned).collect::<Vec<_>>()
    };
    let pooled = list(&["1,3", "7", "3"]);
    let ids: Vec<&str> = pooled
        .iter()
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .collect();
    assert_eq!(
        ids,
        [
            "sudden-drop/s1/0",
            "sudden-drop/s1/1",
            "sudden-drop/s3/0",
            "sudden-drop/s3/1",
            "sudden-drop/s7/0",
            "sudden-drop/s7/1"
        ]
    );
    // Seed 3's draws are those it draws alone.
    let alone: Vec<String> = list(&["3"])
        .iter()
        .map(|l| l.replace("sudden-drop/", "sudden-drop/s3/"))
        .collect();
    assert_eq!(pooled[2..4], alone[..]);
    assert_eq!(list(&[]), list(&["1"]));

    let o = scream(
        &[
            "eval",
            "robust",
            "--seed",
            "1,3",
            "--draws",
            "2",
            "--scenario",
            "sudden-drop/s3/1/media-deadline,fresh-srtt",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let toml = stdout(&o);
    assert!(
        toml.contains("name = \"sudden-drop/s3/1/fresh-srtt+media-deadline\""),
        "{toml}"
    );
    // A scenario that loads and runs, its flow with both improvements.
    let scenario = scream_sim::scenario::load::load_checked_str(&toml, "draw.toml", None, &[])
        .expect("a valid scenario");
    assert_eq!(
        scenario.flows[0].improvements,
        ["fresh-srtt", "media-deadline"]
    );
}

#[test]
fn robust_names_an_unknown_option_and_the_allowed_ones() {
    let dir = tempfile::tempdir().expect("temp dir");
    let o = scream(
        &[
            "eval",
            "robust",
            "--list",
            "--options",
            "singles",
            "--options",
            "fresh-srtt+warp-drive",
        ],
        dir.path(),
    );
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("`warp-drive`"), "{err}");
    for name in scream::sender::Improvements::names() {
        assert!(err.contains(name), "{err}");
    }
    assert!(err.contains("subsets"), "{err}");
}
