//! `scream eval v2` seen from the shell: listing, filtering, formats and missing data.

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
