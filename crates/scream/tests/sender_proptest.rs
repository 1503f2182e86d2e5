//! Random operation sequences (time steps, frames, transmissions, feedback with loss,
//! CE, reordering, repeats and gaps) against a model of which packets are resolved.
//! After every step: bytes in flight equal the model's unresolved bytes, the window is
//! at least its minimum, targets are within the streams' limits, nothing panics.

use proptest::prelude::*;
use scream::sender::{EcnMode, MediaFrame, Sender, SenderConfig, StreamConfig, StreamId, Transmit};
use scream::{
    Bitrate, Duration, Ecn, Feedback, Instant, PacketReport, PacketStatus, RemoteInstant,
};

const RX_OFFSET: u64 = 77_000_000_000;

#[derive(Clone, Debug)]
enum Op {
    /// Advance time by this many microseconds.
    Wait(u32),
    /// A frame of this many bytes on stream 0 or 1.
    Frame(u8, u32),
    /// Send whatever the sender releases now.
    Transmit,
    /// Feedback on a window of recently sent packets.
    Feedback {
        /// How many of the most recent packets the window ends before (gap / old report).
        skip_newest: u8,
        /// Window length.
        len: u8,
        /// Per packet: 0 = not received, 1 = received, 2 = received CE.
        fate: Vec<u8>,
        /// Reverse the report order inside the window (reordered arrival times).
        shuffle: bool,
        /// One-way delay, microseconds.
        owd_us: u32,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u32..60_000).prop_map(Op::Wait),
        (0u8..2, 0u32..30_000).prop_map(|(s, b)| Op::Frame(s, b)),
        Just(Op::Transmit),
        (
            0u8..8,
            1u8..64,
            proptest::collection::vec(0u8..3, 64),
            any::<bool>(),
            0u32..200_000
        )
            .prop_map(|(skip_newest, len, fate, shuffle, owd_us)| Op::Feedback {
                skip_newest,
                len,
                fate,
                shuffle,
                owd_us
            }),
    ]
}

struct ModelPacket {
    ssrc: u32,
    seq: u16,
    size: u64,
    sent_at: Instant,
    resolved: bool,
}

fn limits() -> [(u32, f64, f64, f64); 2] {
    [(10, 0.2e6, 1e6, 8e6), (20, 0.05e6, 0.3e6, 2e6)]
}

fn run(ops: Vec<Op>, ecn: EcnMode) -> Result<(), TestCaseError> {
    let mut cfg = SenderConfig {
        ecn,
        ..SenderConfig::default()
    };
    // The in-flight timeout is a separate mechanism; keep it out of the model.
    cfg.set_param("in_flight_timeout", 3600.0)
        .expect("in range");
    let reorder = cfg.reorder_time;
    let min_wnd = u64::from(cfg.min_ref_wnd_bytes);
    let mut sender = Sender::new(cfg).expect("valid");
    let ids: Vec<StreamId> = limits()
        .iter()
        .map(|&(ssrc, min, start, max)| {
            sender
                .add_stream_with_initial_seq(
                    StreamConfig {
                        ssrc,
                        min_bitrate: Bitrate::from_bps(min),
                        start_bitrate: Bitrate::from_bps(start),
                        max_bitrate: Bitrate::from_bps(max),
                        priority: if ssrc == 10 { 1.0 } else { 0.5 },
                    },
                    65_500,
                )
                .expect("valid")
        })
        .collect();
    let mut now = Instant::from_millis(1);
    let mut model: Vec<ModelPacket> = vec![];
    let mut newest_acked_sent: Option<Instant> = None;

    for op in ops {
        match op {
            Op::Wait(us) => now += Duration::from_micros(u64::from(us)),
            Op::Frame(s, bytes) => {
                sender.on_media_frame(
                    now,
                    ids[usize::from(s)],
                    MediaFrame {
                        size_bytes: bytes,
                        key_frame: false,
                    },
                );
            }
            Op::Transmit => {
                while let Transmit::Now(p) = sender.poll_transmit(now) {
                    model.push(ModelPacket {
                        ssrc: p.ssrc,
                        seq: p.seq,
                        size: u64::from(p.size_bytes),
                        sent_at: now,
                        resolved: false,
                    });
                }
            }
            Op::Feedback {
                skip_newest,
                len,
                fate,
                shuffle,
                owd_us,
            } => {
                let end = model.len().saturating_sub(usize::from(skip_newest));
                let start = end.saturating_sub(usize::from(len));
                let owd = Duration::from_micros(u64::from(owd_us));
                let mut reports = vec![];
                let mut acked = vec![];
                for (k, i) in (start..end).enumerate() {
                    let m = &model[i];
                    let arrival = m.sent_at + owd;
                    let status = match fate[k] {
                        0 => PacketStatus::NotReceived,
                        f if arrival <= now => {
                            acked.push(i);
                            let e = if f == 2 { Ecn::Ce } else { Ecn::Ect1 };
                            PacketStatus::Received {
                                arrival: Some(RemoteInstant::from_nanos(
                                    arrival.as_nanos() + RX_OFFSET,
                                )),
                                ecn: e,
                            }
                        }
                        _ => PacketStatus::NotReceived,
                    };
                    reports.push(PacketReport {
                        ssrc: m.ssrc,
                        seq: m.seq,
                        status,
                    });
                }
                if shuffle {
                    reports.reverse();
                }
                let fb = Feedback {
                    report_time: RemoteInstant::from_nanos(now.as_nanos() + RX_OFFSET),
                    reports,
                };
                sender.on_feedback(now, &fb);
                // Model: acknowledgements first, then the reordering window.
                for i in acked {
                    let m = &mut model[i];
                    if !m.resolved {
                        m.resolved = true;
                        newest_acked_sent =
                            Some(newest_acked_sent.map_or(m.sent_at, |t| t.max(m.sent_at)));
                    }
                }
                if let Some(limit) = newest_acked_sent.and_then(|t| t.checked_sub(reorder)) {
                    for m in model.iter_mut().filter(|m| m.sent_at < limit) {
                        m.resolved = true;
                    }
                }
            }
        }
        while sender.poll_event().is_some() {}
        let stats = sender.stats();
        let expected: u64 = model.iter().filter(|m| !m.resolved).map(|m| m.size).sum();
        prop_assert_eq!(stats.bytes_in_flight, expected);
        prop_assert!(stats.ref_window_bytes >= min_wnd);
        prop_assert_eq!(stats.feedback_ignored, 0);
        for (id, &(_, min, _, max)) in ids.iter().zip(limits().iter()) {
            let t = sender.target_bitrate(*id).bps();
            prop_assert!(
                (min..=max).contains(&t),
                "target {} outside [{}, {}]",
                t,
                min,
                max
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn invariants_hold_for_any_operation_sequence_l4s(ops in proptest::collection::vec(op(), 1..150)) {
        run(ops, EcnMode::L4s)?;
    }

    #[test]
    fn invariants_hold_for_any_operation_sequence_delay_only(ops in proptest::collection::vec(op(), 1..150)) {
        run(ops, EcnMode::None)?;
    }
}
