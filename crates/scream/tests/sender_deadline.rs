//! `media-deadline`: into a path that answers nothing, a sender sends at most one
//! window and then a probe per probe timeout (the faithful stall guard sends a whole
//! window every `stall_timeout`); and media whose predicted arrival is past the
//! deadline is not sent.

use scream::receiver::{Receiver, ReceiverConfig};
use scream::sender::{Sender, SenderConfig, SentPacket, StreamConfig, Transmit};
use scream::{Bitrate, Duration, Instant};

mod support;
use support::received;

const FRAME: Duration = Duration::from_millis(20);

fn stream() -> StreamConfig {
    StreamConfig {
        ssrc: 1,
        min_bitrate: Bitrate::from_kbps(100.0),
        start_bitrate: Bitrate::from_mbps(2.0),
        max_bitrate: Bitrate::from_mbps(10.0),
        priority: 1.0,
    }
}

fn with_deadline(on: bool) -> SenderConfig {
    let mut cfg = SenderConfig::default();
    cfg.improvements.media_deadline = on;
    cfg
}

/// Bytes a sender releases in `span` into a path where every packet vanishes, with
/// 2 Mbit/s of frames, waking when it asks to; and the sizes of its transmissions.
fn silent_bytes(cfg: SenderConfig, span: Duration) -> (u64, Vec<(Instant, u32)>) {
    let mut sent = Vec::new();
    support::run_silent(cfg, span, |now, _, p| sent.push((now, p.size_bytes)));
    (sent.iter().map(|p| u64::from(p.1)).sum(), sent)
}

#[test]
fn a_silent_path_gets_one_window_then_probes_only() {
    let span = Duration::from_secs(5);
    let (faithful, _) = silent_bytes(with_deadline(false), span);
    let (bounded, sent) = silent_bytes(with_deadline(true), span);
    // Bounded: after the first window (gone by the first stall, 0.5 s), packets
    // leave one at a time, at least a probe timeout apart (twice the sRTT, RFC 8985
    // §7.2; at least 50 ms with the initial sRTT and the report delay).
    let start = sent[0].0;
    let later: Vec<Instant> = sent
        .iter()
        .map(|p| p.0)
        .filter(|t| *t > start + Duration::from_secs(1))
        .collect();
    assert!(!later.is_empty(), "probes keep asking");
    for w in later.windows(2) {
        let gap = w[1].saturating_duration_since(w[0]);
        assert!(
            gap >= Duration::from_millis(50),
            "probes one at a time: {gap:?}"
        );
    }
    assert!(
        bounded * 3 < faithful,
        "bounded {bounded} B, faithful {faithful} B in {span:?}"
    );
}

/// A closed loop of frames every 20 ms at the sender's target over `span`: `path`
/// gives each packet's arrival from the time it is sent and the time since the start;
/// `arrived` sees each packet as it reaches the receiver; feedback takes 20 ms back.
fn closed_loop(
    cfg: SenderConfig,
    span: Duration,
    mut path: impl FnMut(Instant, Duration, &SentPacket) -> Instant,
    mut arrived: impl FnMut(Instant, &SentPacket),
) {
    let mut s = Sender::new(cfg).unwrap();
    let id = s.add_stream(stream()).unwrap();
    let mut r = Receiver::new(ReceiverConfig::default()).unwrap();
    let t0 = Instant::from_millis(1000);
    let back_delay = Duration::from_millis(20);
    // (arrival, packet) forward, (arrival, feedback) back.
    let mut forward: Vec<(Instant, SentPacket)> = Vec::new();
    let mut back: Vec<(Instant, scream::Feedback)> = Vec::new();
    let (mut now, mut next_frame) = (t0, t0);
    while now < t0 + span {
        if now >= next_frame {
            let target = s.target_bitrate(id);
            s.on_media_frame(now, id, support::frame_at(target, FRAME));
            next_frame += FRAME;
        }
        s.handle_timeout(now);
        while let Transmit::Now(p) = s.poll_transmit(now) {
            let at = path(now, now.saturating_duration_since(t0), &p);
            forward.push((at, p));
        }
        // A path whose delay grows lets later packets arrive later; the sort is
        // stable, so a FIFO keeps its order.
        forward.sort_by_key(|x| x.0);
        while forward.first().is_some_and(|x| x.0 <= now) {
            let (_, p) = forward.remove(0);
            r.on_packet(now, received(&p));
            arrived(now, &p);
        }
        while let Some(fb) = r.poll_feedback(now) {
            back.push((now + back_delay, fb));
        }
        while back.first().is_some_and(|x| x.0 <= now) {
            let (_, fb) = back.remove(0);
            s.on_feedback(now, &fb);
        }
        now += Duration::from_millis(1);
    }
}

/// A closed loop over a path of 20 ms each way whose forward direction adds `extra`
/// to every packet sent `from` the start on, for 8 s; returns how many frames arrived
/// whole more than `late` after they entered the sender's queue, and how many arrived
/// at all.
fn late_frames(cfg: SenderConfig, extra: Duration, from: Duration, late: Duration) -> (u32, u32) {
    let one_way = Duration::from_millis(20);
    let (mut late_n, mut whole) = (0, 0);
    closed_loop(
        cfg,
        Duration::from_secs(8),
        |now, elapsed, _| {
            if elapsed >= from {
                now + one_way + extra
            } else {
                now + one_way
            }
        },
        |now, p| {
            if p.marker {
                whole += 1;
                late_n += u32::from(now.saturating_duration_since(p.frame_enqueued_at) > late);
            }
        },
    );
    (late_n, whole)
}

#[test]
fn media_that_would_arrive_past_the_deadline_is_not_sent() {
    // From 2 s on, every packet takes 600 ms more one way: whatever leaves arrives
    // more than 400 ms after capture.
    let (extra, from, late) = (
        Duration::from_millis(600),
        Duration::from_secs(2),
        Duration::from_millis(700),
    );
    let (faithful_late, faithful_whole) = late_frames(with_deadline(false), extra, from, late);
    let (late_n, whole) = late_frames(with_deadline(true), extra, from, late);
    assert!(
        faithful_late > 50,
        "faithful sends on: {faithful_late}/{faithful_whole}"
    );
    // The deadline holds media while the long delay is known and something is in
    // flight; a packet still leaves whenever the flight is empty, to measure the path.
    assert!(
        late_n * 4 < faithful_late,
        "{late_n}/{whole} vs {faithful_late}/{faithful_whole}"
    );
    assert!(whole > 50, "frames before the delay arrived: {whole}");
}

/// What a closed loop over a FIFO bottleneck delivered: frames whole, frames whole
/// more than `late` after they entered the sender's queue, and packets that arrived
/// past [`DEADLINE`] after their frame entered it.
#[derive(Debug, Default)]
struct Delivered {
    whole: u32,
    late_frames: u32,
    late_packets: u32,
}

/// The deadline of `media-deadline` (ITU-T G.114's 400 ms).
const DEADLINE: Duration = Duration::from_millis(400);

/// A closed loop over an unlimited FIFO bottleneck of 10 Mbit/s that falls to `low`
/// bit/s `at` the start on, with 20 ms of propagation each way, for 10 s: the queue the
/// drop leaves behind takes seconds to drain, and the window stalls behind it.
fn through_drop(cfg: SenderConfig, low: f64, at: Duration, late: Duration) -> Delivered {
    let one_way = Duration::from_millis(20);
    let mut link = support::Serializer::default();
    let mut out = Delivered::default();
    closed_loop(
        cfg,
        Duration::from_secs(10),
        |now, elapsed, p| {
            let rate = if elapsed >= at { low } else { 10e6 };
            link.send(now, p.size_bytes, rate) + one_way
        },
        |now, p| {
            let age = now.saturating_duration_since(p.frame_enqueued_at);
            out.late_packets += u32::from(age > DEADLINE);
            if p.marker {
                out.whole += 1;
                out.late_frames += u32::from(age > late);
            }
        },
    );
    out
}

#[test]
fn after_a_sudden_drop_media_is_not_sent_into_the_queue_left_behind() {
    // 10 -> 0.3 Mbit/s at 5 s: the flight in the FIFO then takes seconds to drain.
    let (low, at, late) = (0.3e6, Duration::from_secs(5), Duration::from_secs(1));
    let faithful = through_drop(with_deadline(false), low, at, late);
    let bounded = through_drop(with_deadline(true), low, at, late);
    // Faithful sends into the queue whatever the window lets out; under the deadline
    // what would arrive past 400 ms waits and is discarded. What still arrives late
    // under the deadline left before the drop was seen.
    assert!(
        faithful.late_frames >= 10,
        "faithful sends on into the queue: {faithful:?}"
    );
    assert!(
        bounded.late_frames * 3 < faithful.late_frames,
        "frames more than {late:?} late: {bounded:?} vs {faithful:?}"
    );
    assert!(
        bounded.late_packets * 3 < faithful.late_packets * 2,
        "packets past the deadline: {bounded:?} vs {faithful:?}"
    );
    assert!(
        bounded.whole >= faithful.whole,
        "{bounded:?} vs {faithful:?}"
    );
}
