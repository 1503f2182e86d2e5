//! The receiver when the caller's clock steps back or jumps ahead: reports keep coming,
//! on the packet-count and marker triggers and on the interval timer, and the times in
//! them never go backwards.

use scream::receiver::{CLOCK_STEP_TOLERANCE, ReceivedPacket, Receiver, ReceiverConfig};
use std::collections::BTreeMap;

use scream::{Duration, Ecn, Feedback, Instant, PacketStatus, RemoteInstant};

fn pkt(seq: u16) -> ReceivedPacket {
    ReceivedPacket {
        ssrc: 7,
        seq,
        size_bytes: 1200,
        ecn: Ecn::Ect1,
        marker: false,
    }
}

/// Drives one stream at 1000 packets/s the way an event loop does: a packet, then
/// `poll_feedback` until `None`, and `poll_feedback` at `poll_timeout()` when it falls
/// before the next packet. Returns the reports made.
struct Driver {
    rx: Receiver,
    seq: u16,
}

impl Driver {
    fn new() -> Self {
        Self {
            rx: Receiver::new(ReceiverConfig::default()).unwrap(),
            seq: 0,
        }
    }

    fn send(&mut self, now: Instant) -> Vec<Feedback> {
        self.rx.on_packet(now, pkt(self.seq));
        self.seq = self.seq.wrapping_add(1);
        self.poll(now)
    }

    fn poll(&mut self, now: Instant) -> Vec<Feedback> {
        let mut out = vec![];
        while let Some(fb) = self.rx.poll_feedback(now) {
            out.push(fb);
        }
        out
    }

    /// `millis` packets, one per millisecond from `from`.
    fn run(&mut self, from: Instant, millis: u64) -> Vec<Feedback> {
        let mut out = vec![];
        for i in 0..millis {
            let now = from + Duration::from_millis(i);
            let next = now + Duration::from_millis(1);
            out.extend(self.send(now));
            if let Some(due) = self.rx.poll_timeout().filter(|&t| t < next) {
                out.extend(self.poll(due.max(now)));
            }
        }
        out
    }
}

fn arrivals(fbs: &[Feedback]) -> Vec<RemoteInstant> {
    fbs.iter()
        .flat_map(|fb| &fb.reports)
        .filter_map(|r| match r.status {
            PacketStatus::Received { arrival, .. } => arrival,
            PacketStatus::NotReceived => None,
        })
        .collect()
}

const HOUR: Duration = Duration::from_secs(3600);
const YEAR: Duration = Duration::from_secs(365 * 24 * 3600);
const INTERVAL: Duration = Duration::from_millis(40);

/// A single packet is reported at once (the interval since the last report ran out) or
/// at a `poll_timeout()` no further than the interval, plus the clamping tolerance, ahead.
fn assert_interval_timer_runs(d: &mut Driver, now: Instant) {
    assert!(d.poll(now).is_empty(), "nothing pending before the probe");
    let mut got = d.send(now);
    if got.is_empty() {
        let due = d.rx.poll_timeout().expect("a report is pending");
        assert!(
            due <= now + INTERVAL + CLOCK_STEP_TOLERANCE,
            "timer wedged: due {due:?} at {now:?}"
        );
        got = d.poll(due.max(now));
    }
    assert_eq!(got.len(), 1, "one report for the probe packet");
}

#[test]
fn a_clock_stepping_back_an_hour_does_not_stop_feedback() {
    let mut d = Driver::new();
    let start = Instant::ZERO + 2 * HOUR;
    // 10 000 packets make 625 reports; the 8 after them are pending at the step.
    let normal = d.run(start, 10_008).len();
    let back = start + Duration::from_secs(10) - HOUR;
    let after = d.run(back, 10_000).len();
    assert!(normal >= 625, "{normal} reports in normal operation");
    assert!(
        after >= normal - 1,
        "{after} reports after the step, {normal} before"
    );
    assert_interval_timer_runs(&mut d, back + Duration::from_millis(10_001));
}

#[test]
fn arrival_times_keep_advancing_after_the_clock_steps_back() {
    let mut d = Driver::new();
    let start = Instant::ZERO + 2 * HOUR;
    let mut fbs = d.run(start, 1000);
    fbs.extend(d.run(start + Duration::from_secs(1) - HOUR, 1000));
    fbs.extend(d.poll(start + Duration::from_secs(3) - HOUR));
    // Arrival of each of the 2000 sequence numbers (reports overlap; they must agree).
    let mut at: BTreeMap<u16, RemoteInstant> = BTreeMap::new();
    for fb in &fbs {
        for r in &fb.reports {
            if let PacketStatus::Received {
                arrival: Some(a), ..
            } = r.status
            {
                assert_eq!(*at.entry(r.seq).or_insert(a), a, "seq {}", r.seq);
            }
        }
    }
    assert_eq!(at.len(), 2000);
    // The step is absorbed: arrivals continue from the newest one at the caller's pace,
    // instead of standing still for an hour (which a sender reads as shrinking delay).
    let ms = Duration::from_millis;
    for seq in 1..2000u16 {
        let step = at[&seq].checked_duration_since(at[&(seq - 1)]);
        let want = if seq == 1000 { ms(0) } else { ms(1) };
        assert_eq!(step, Some(want), "seq {seq}");
    }
}

#[test]
fn a_slightly_late_now_is_clamped_without_shifting_the_clock() {
    let mut rx = Receiver::new(ReceiverConfig::default()).unwrap();
    let ms = Instant::from_millis;
    rx.on_packet(ms(100), pkt(0));
    rx.on_packet(ms(99), pkt(1));
    rx.on_packet(
        ms(101),
        ReceivedPacket {
            marker: true,
            ..pkt(2)
        },
    );
    let fb = rx.poll_feedback(ms(101)).expect("marker report");
    let at = |ms: u64| RemoteInstant::from_nanos(Instant::from_millis(ms).as_nanos());
    assert_eq!(arrivals(&[fb]), vec![at(100), at(100), at(101)]);
}

#[test]
fn a_far_future_now_does_not_stop_feedback_when_normal_time_resumes() {
    let mut d = Driver::new();
    let start = Instant::from_millis(100_000);
    let normal = d.run(start, 10_000).len();
    // One packet stamped a year ahead, and a report made then.
    let far = start + YEAR;
    d.send(far);
    d.poll(far + INTERVAL);
    let resume = start + Duration::from_secs(10);
    // Back to normal time: the interval timer runs at once, not a year later...
    assert_interval_timer_runs(&mut d, resume);
    // ...and so do the packet-count reports.
    let after = d.run(resume + Duration::from_millis(1), 10_000);
    assert!(
        after.len() >= normal - 1,
        "{} reports, {normal} before",
        after.len()
    );
    let times: Vec<_> = after.iter().map(|fb| fb.report_time).collect();
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]),
        "report times go back"
    );
    assert_interval_timer_runs(&mut d, resume + Duration::from_millis(10_001));
}

#[test]
fn a_now_at_the_end_of_time_does_not_stop_feedback() {
    let mut d = Driver::new();
    let start = Instant::from_millis(100_000);
    d.run(start, 1000);
    d.send(Instant::MAX);
    d.poll(Instant::MAX);
    let resume = start + Duration::from_secs(1);
    assert_interval_timer_runs(&mut d, resume);
    let after = d.run(resume + Duration::from_millis(1), 10_000).len();
    assert!(after >= 625, "{after} reports after the clock hit its end");
    // The receiver's clock cannot advance past its end, so the interval has always run
    // out: a packet is reported at once rather than never.
    assert_interval_timer_runs(&mut d, resume + Duration::from_millis(10_001));
}
