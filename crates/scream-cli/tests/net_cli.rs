//! The real-network commands refuse bad arguments with a message that names the flag
//! or key, the reason and the allowed range, before opening any socket.

mod common;

use common::{scream, stderr};

fn refused(args: &[&str], says: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let o = scream(args, dir.path());
    assert!(!o.status.success(), "{args:?} was accepted");
    let err = stderr(&o);
    for s in says {
        assert!(err.contains(s), "{args:?}: `{s}` not in: {err}");
    }
}

#[test]
fn send_names_the_bad_flag() {
    refused(&["send", "--to", "nowhere"], &["--to nowhere", "HOST:PORT"]);
    refused(
        &["send", "--to", "127.0.0.1:9", "--fps", "0"],
        &["fps = 0", "(0, 1000]"],
    );
    refused(
        &[
            "send",
            "--to",
            "127.0.0.1:9",
            "--min-rate",
            "5",
            "--start-rate",
            "1",
        ],
        &["--min-rate <= --start-rate <= --max-rate"],
    );
    refused(
        &["send", "--to", "127.0.0.1:9", "--ecn", "l5s"],
        &["--ecn l5s", "l4s, classic or none"],
    );
    refused(
        &["send", "--to", "127.0.0.1:9", "--set", "mss_bytes=-3"],
        &["--set mss_bytes=-3", "mss_bytes"],
    );
    refused(
        &[
            "send",
            "--to",
            "127.0.0.1:9",
            "--improvements",
            "warp-drive",
        ],
        &["--improvements warp-drive"],
    );
    refused(
        &["send", "--to", "127.0.0.1:9", "--duration=-1"],
        &["--duration -1", "(0, 86400]"],
    );
}

#[test]
fn recv_names_the_bad_flag() {
    refused(
        &["recv", "--listen", "127.0.0.1:0", "--num-reports", "two"],
        &["--num-reports two", "rfc or minus-one"],
    );
    refused(
        &[
            "recv",
            "--listen",
            "127.0.0.1:0",
            "--sample-interval-ms",
            "0",
        ],
        &["--sample-interval-ms 0", "[1, 60000]"],
    );
}

#[test]
fn link_validates_its_link_as_a_scenario_does() {
    refused(
        &["link"],
        &["--listen and --forward", "--tun and --forward-net"],
    );
    refused(
        &[
            "link",
            "--listen",
            "127.0.0.1:0",
            "--forward",
            "127.0.0.1:9",
            "--rate=-5",
        ],
        &["link.capacity_mbps"],
    );
    refused(
        &[
            "link",
            "--listen",
            "127.0.0.1:0",
            "--forward",
            "127.0.0.1:9",
            "--queue",
            "red",
        ],
        &["queue.kind"],
    );
    refused(
        &[
            "link",
            "--listen",
            "127.0.0.1:0",
            "--forward",
            "127.0.0.1:9",
            "--loss",
            "1.5",
        ],
        &["link.loss"],
    );
    refused(
        &["link", "--tun", "sctun", "--forward-net", "10.0.0.0/40"],
        &["--forward-net 10.0.0.0/40", "0 to 32"],
    );
}
