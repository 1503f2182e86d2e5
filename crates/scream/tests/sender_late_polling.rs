//! A caller that wakes on a coarse timer instead of at the exact `Transmit::At` instants.
//!
//! Sender and receiver joined by a fixed-rate FIFO bottleneck in virtual time, as in
//! `closed_loop.rs`, but the sender's side of the loop only runs on the ticks of its
//! event loop: frames from the encoder, feedback from the socket, timers and pacing are
//! all handled at the first tick at or after they are due. The receiver and the link are
//! on other hosts and keep exact time.

mod support;

use scream::receiver::{ReceivedPacket, Receiver, ReceiverConfig};
use scream::sender::{Event, Sender, SenderConfig, StreamConfig, Transmit};
use scream::{Bitrate, Duration, Feedback, Instant};
use std::collections::VecDeque;

const CAPACITY_BPS: f64 = 50e6;
const MAX_BITRATE_BPS: f64 = 20e6;
const ONE_WAY: Duration = Duration::from_millis(25);
const FRAME_INTERVAL: Duration = Duration::from_millis(20);
const RUN: Duration = Duration::from_secs(40);
/// The receiver's clock runs with its own epoch.
const RX_CLOCK_OFFSET: Duration = Duration::from_secs(1000);

/// When the sender's event loop wakes.
#[derive(Clone, Copy, Debug)]
enum Polling {
    /// At exactly the instants the sender and the network ask for.
    Exact,
    /// Only on multiples of this period.
    Tick(Duration),
}

#[derive(Debug)]
struct Outcome {
    /// Payload and header bytes that reached the receiver, over the run, as a rate.
    goodput: Bitrate,
    queue_discards: u64,
}

fn round_up(t: Instant, polling: Polling) -> Instant {
    match polling {
        Polling::Exact => t,
        Polling::Tick(p) => {
            let p = p.as_nanos() as u64;
            Instant::from_nanos(t.as_nanos().div_ceil(p) * p)
        }
    }
}

fn run(polling: Polling) -> Outcome {
    let mut sender = Sender::new(SenderConfig::default()).expect("valid config");
    let stream = sender
        .add_stream(StreamConfig {
            ssrc: 0x5eed,
            min_bitrate: Bitrate::from_kbps(100.0),
            start_bitrate: Bitrate::from_mbps(1.0),
            max_bitrate: Bitrate::from_bps(MAX_BITRATE_BPS),
            priority: 1.0,
        })
        .expect("valid stream");
    let mut receiver = Receiver::new(ReceiverConfig::default()).expect("valid receiver");

    let mut link = support::Serializer::default();
    // (arrival at the receiver, packet)
    let mut in_pipe: VecDeque<(Instant, ReceivedPacket)> = VecDeque::new();
    // (arrival at the sender's host, feedback)
    let mut feedback_pipe: VecDeque<(Instant, Feedback)> = VecDeque::new();
    let mut next_frame = Instant::ZERO;
    let mut pacing_at: Option<Instant> = None;
    let mut delivered: u64 = 0;
    let end = Instant::ZERO + RUN;
    let mut now = Instant::ZERO;

    while now < end {
        // The far end: deliveries and feedback at their exact instants.
        while let Some((t, p)) = in_pipe.front().copied() {
            if t > now {
                break;
            }
            in_pipe.pop_front();
            delivered += u64::from(p.size_bytes);
            receiver.on_packet(t + RX_CLOCK_OFFSET, p);
        }
        if let Some(fb) = receiver.poll_feedback(now + RX_CLOCK_OFFSET) {
            feedback_pipe.push_back((now + ONE_WAY, fb));
        }

        // The sender's event loop, on its own schedule.
        let sender_due = [
            Some(next_frame),
            feedback_pipe.front().map(|(t, _)| *t),
            sender.poll_timeout(),
            pacing_at,
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(end);
        if now >= round_up(sender_due, polling) {
            while next_frame <= now {
                let frame = support::frame_at(sender.target_bitrate(stream), FRAME_INTERVAL);
                sender.on_media_frame(now, stream, frame);
                next_frame += FRAME_INTERVAL;
            }
            while feedback_pipe.front().is_some_and(|(t, _)| *t <= now) {
                if let Some((_, fb)) = feedback_pipe.pop_front() {
                    sender.on_feedback(now, &fb);
                }
            }
            if sender.poll_timeout().is_some_and(|t| t <= now) {
                sender.handle_timeout(now);
            }
            pacing_at = None;
            loop {
                match sender.poll_transmit(now) {
                    Transmit::Now(p) => {
                        let link_free_at = link.send(now, p.size_bytes, CAPACITY_BPS);
                        let rx = support::received(&p);
                        in_pipe.push_back((link_free_at + ONE_WAY, rx));
                    }
                    Transmit::At(t) => {
                        pacing_at = Some(t);
                        break;
                    }
                    Transmit::Idle => break,
                }
            }
            while let Some(ev) = sender.poll_event() {
                if let Event::TargetBitrate { stream: s, .. } = ev {
                    assert_eq!(s, stream);
                }
            }
        }

        let sender_due = [
            Some(next_frame),
            feedback_pipe.front().map(|(t, _)| *t),
            sender.poll_timeout(),
            pacing_at,
        ]
        .into_iter()
        .flatten()
        .min()
        .map(|t| round_up(t, polling));
        let rx_timeout = receiver.poll_timeout().map(|t| t - RX_CLOCK_OFFSET);
        let next = [sender_due, in_pipe.front().map(|(t, _)| *t), rx_timeout]
            .into_iter()
            .flatten()
            .map(|t| t.max(now))
            .min()
            .unwrap_or(end);
        // Never spin on the same instant twice.
        now = if next > now {
            next
        } else {
            now + Duration::from_nanos(1)
        };
    }
    Outcome {
        goodput: Bitrate::from_bytes_per(delivered, RUN),
        queue_discards: sender.stats().streams[0].queue_discards,
    }
}

#[expect(
    clippy::print_stderr,
    reason = "the measured goodputs are part of the test report"
)]
fn report(name: &str, o: &Outcome) {
    eprintln!(
        "{name}: goodput {:.2} Mbit/s, RTP queue discards {}",
        o.goodput.mbps(),
        o.queue_discards
    );
}

#[test]
fn late_polls_release_the_packets_whose_slots_passed() {
    let exact = run(Polling::Exact);
    report("exact", &exact);
    assert!(
        exact.goodput.bps() > 0.9 * MAX_BITRATE_BPS,
        "exact polling should fill the stream's maximum: {exact:?}"
    );
    let coarse: Vec<(u64, Outcome)> = [1, 4]
        .into_iter()
        .map(|ms| (ms, run(Polling::Tick(Duration::from_millis(ms)))))
        .collect();
    for (ms, o) in &coarse {
        report(&format!("every {ms} ms"), o);
    }
    for (ms, o) in &coarse {
        let ratio = o.goodput.bps() / exact.goodput.bps();
        assert!(
            ratio >= 0.9,
            "polling every {ms} ms gives {:.1} % of the exact goodput ({o:?})",
            100.0 * ratio
        );
    }
}
