//! The receiver under packets with forged SSRCs: the table of tracked streams stays
//! bounded, genuine streams keep their history, and the cost of a flood is measured by
//! an ignored test that prints figures.

use scream::receiver::{ReceivedPacket, Receiver, ReceiverConfig};
use scream::{Duration, Ecn, Feedback, Instant, PacketStatus};

/// A fixed xorshift64* stream: forged SSRCs that are the same on every run.
struct Forger(u64);

impl Forger {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
    }
}

fn pkt(ssrc: u32, seq: u16) -> ReceivedPacket {
    ReceivedPacket {
        ssrc,
        seq,
        size_bytes: 1200,
        ecn: Ecn::Ect1,
        marker: false,
    }
}

/// Entries of `ssrc` in `fb`.
fn entries(fb: &Feedback, ssrc: u32) -> Vec<(u16, bool)> {
    fb.reports
        .iter()
        .filter(|r| r.ssrc == ssrc)
        .map(|r| (r.seq, matches!(r.status, PacketStatus::Received { .. })))
        .collect()
}

const GENUINE: u32 = 0x5EED;

#[test]
fn a_flood_of_random_ssrcs_costs_bounded_time_and_memory() {
    let cfg = ReceiverConfig::default();
    let cap = cfg.max_ssrcs;
    let window = usize::from(cfg.report_window);
    let mut rx = Receiver::new(cfg).unwrap();
    let mut forger = Forger(0x1234_5678_9abc_def0);
    let mut longest = 0;
    for i in 0..200_000u64 {
        let now = Instant::from_micros(i);
        let f = forger.next();
        rx.on_packet(now, pkt(f, f as u16));
        // Memory: the number of histories (each `report_window` slots) is capped.
        assert!(
            rx.stats().ssrcs_tracked <= cap,
            "packet {i}: {:?}",
            rx.stats()
        );
        while let Some(fb) = rx.poll_feedback(now) {
            longest = longest.max(fb.reports.len());
        }
    }
    let stats = rx.stats();
    assert_eq!(stats.ssrcs_tracked, cap);
    assert_eq!(stats.ssrcs_evicted, 200_000 - cap as u64);
    assert!(longest <= cap * window, "a report of {longest} entries");
}

#[test]
fn a_genuine_stream_keeps_its_history_under_a_random_ssrc_flood() {
    let cfg = ReceiverConfig::default();
    let window = usize::from(cfg.report_window);
    // More forged SSRCs between two genuine packets than the table holds: evicting by
    // idle time alone would drop the genuine stream every time.
    let flood_per_packet = 3 * cfg.max_ssrcs;
    let mut rx = Receiver::new(cfg).unwrap();
    let mut forger = Forger(42);
    let mut t = 0u64;
    let mut newest_reported = None;
    let mut newest: Option<u16> = None;
    let mut check = |fb: Feedback, newest: Option<u16>| {
        let got = entries(&fb, GENUINE);
        let Some(seq) = newest.filter(|_| !got.is_empty()) else {
            return;
        };
        newest_reported = Some(seq);
        // The whole window, all received: the history survived the flood.
        let first = (usize::from(seq) + 1).saturating_sub(window) as u16;
        let want: Vec<(u16, bool)> = (first..=seq).map(|s| (s, true)).collect();
        assert_eq!(got, want, "genuine stream lost its history at seq {seq}");
    };
    for seq in 0..500u16 {
        // The stream is established (two packets) before the flood starts.
        let flood = if seq < 2 { 0 } else { flood_per_packet };
        for _ in 0..flood {
            t += 1;
            let now = Instant::from_micros(t);
            rx.on_packet(now, pkt(forger.next(), 0));
            while let Some(fb) = rx.poll_feedback(now) {
                check(fb, newest);
            }
        }
        t += 1;
        let now = Instant::from_micros(t);
        rx.on_packet(now, pkt(GENUINE, seq));
        newest = Some(seq);
        while let Some(fb) = rx.poll_feedback(now) {
            check(fb, newest);
        }
    }
    let end = Instant::from_micros(t) + Duration::from_secs(1);
    while let Some(fb) = rx.poll_feedback(end) {
        check(fb, newest);
    }
    assert_eq!(newest_reported, Some(499));
    assert_eq!(rx.stats().restarts, 0);
}

#[test]
fn a_stream_starting_during_a_flood_still_has_its_packets_reported() {
    let cfg = ReceiverConfig::default();
    let flood_per_packet = 3 * cfg.max_ssrcs;
    let mut rx = Receiver::new(cfg).unwrap();
    let mut forger = Forger(99);
    let mut t = 0u64;
    let mut reported = std::collections::BTreeSet::new();
    let mut collect = |fb: Feedback| {
        for (seq, received) in entries(&fb, GENUINE) {
            if received {
                reported.insert(seq);
            }
        }
    };
    for seq in 0..200u16 {
        for _ in 0..flood_per_packet {
            t += 1;
            let now = Instant::from_micros(t);
            rx.on_packet(now, pkt(forger.next(), 0));
            while let Some(fb) = rx.poll_feedback(now) {
                collect(fb);
            }
        }
        t += 1;
        let now = Instant::from_micros(t);
        rx.on_packet(now, pkt(GENUINE, seq));
        while let Some(fb) = rx.poll_feedback(now) {
            collect(fb);
        }
    }
    while let Some(fb) = rx.poll_feedback(Instant::from_micros(t) + Duration::from_secs(1)) {
        collect(fb);
    }
    // The flood displaces the new stream between its packets (it never leaves
    // probation), but each packet is reported before it is displaced.
    assert_eq!(reported.len(), 200);
}

/// Prints what 10^6 packets with random SSRCs cost the receiver (release build):
/// `cargo test --release -p scream --test receiver_flood -- --ignored --nocapture`.
#[test]
#[ignore = "prints timing figures; run in release mode"]
fn measure_a_million_random_ssrcs() {
    measure(
        "default config, one packet per SSRC",
        ReceiverConfig::default(),
        1,
    );
    measure(
        "default config, two packets per SSRC",
        ReceiverConfig::default(),
        2,
    );
    let widest = ReceiverConfig {
        max_ssrcs: scream::receiver::MAX_SSRCS,
        ..ReceiverConfig::default()
    };
    measure("max_ssrcs 4096, one packet per SSRC", widest, 1);
}

#[expect(clippy::print_stdout, reason = "reports the measured figures")]
#[expect(
    clippy::disallowed_methods,
    clippy::disallowed_types,
    reason = "measures real elapsed time, outside the algorithm"
)]
fn measure(label: &str, cfg: ReceiverConfig, per_ssrc: u64) {
    const PACKETS: u64 = 1_000_000;
    let before = peak_rss_kib();
    let mut rx = Receiver::new(cfg).unwrap();
    let mut forger = Forger(7);
    let mut reports = 0u64;
    let mut f = 0;
    let start = std::time::Instant::now();
    for i in 0..PACKETS {
        let now = Instant::from_micros(i);
        if i % per_ssrc == 0 {
            f = forger.next();
        }
        rx.on_packet(now, pkt(f, (i % per_ssrc) as u16));
        while rx.poll_feedback(now).is_some() {
            reports += 1;
        }
    }
    let elapsed = start.elapsed();
    let after = peak_rss_kib();
    println!(
        "{label}: {PACKETS} packets in {:.3} s ({:.0} ns/packet), {reports} reports, \
         {} SSRCs tracked; peak RSS {} KiB before, {} KiB after",
        elapsed.as_secs_f64(),
        elapsed.as_nanos() as f64 / PACKETS as f64,
        rx.stats().ssrcs_tracked,
        before.map_or("?".into(), |k| k.to_string()),
        after.map_or("?".into(), |k| k.to_string()),
    );
}

/// Peak resident set size of this process (Linux), for the printed figures only.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
