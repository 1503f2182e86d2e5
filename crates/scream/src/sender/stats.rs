//! Snapshot of the sender state, for logging, metrics and plots.

use super::generation::GenerationStats;
use super::{Sender, StreamId};
use crate::time::Duration;
use crate::units::Bitrate;

impl Sender {
    /// Frames of `stream` skipped so far (zero for an unknown stream); see
    /// [`super::Event::FrameSkipped`].
    pub fn frames_skipped(&self, stream: StreamId) -> u64 {
        self.streams
            .get(stream.index())
            .map_or(0, |s| s.frames_skipped)
    }

    /// A snapshot of the sender's state for logging and plots.
    pub fn stats(&self) -> SenderStats {
        let now = self.time.now();
        let mut rates = [
            self.rate_tx.clone(),
            self.rate_acked.clone(),
            self.rate_lost.clone(),
            self.rate_ce.clone(),
        ];
        for r in &mut rates {
            r.advance(now);
        }
        SenderStats {
            window_bytes: self.generation.window_bytes(),
            bytes_in_flight: self.bytes_in_flight,
            srtt: self.delay.srtt(),
            queue_delay: self
                .generation
                .queue_delay()
                .unwrap_or_else(|| self.delay.queue_delay()),
            queue_delay_avg: self.delay.qdelay_avg(),
            l4s_alpha: self.generation.l4s_alpha(),
            rate_transmitted: rates[0].rate(),
            rate_acked: rates[1].rate(),
            rate_lost: rates[2].rate(),
            rate_ce: rates[3].rate(),
            packets_sent: self.counters.packets_sent,
            packets_acked: self.counters.packets_acked,
            packets_lost: self.counters.packets_lost,
            packets_ce: self.counters.packets_ce,
            feedback_ignored: self.counters.feedback_ignored,
            feedback_unproven: self.counters.feedback_unproven,
            time_steps: self.time.steps(),
            target_bitrate: self.total_target(),
            pacing_rate: self.pacing_rate,
            generation: self.generation.stats(self.delay.steadiness()),
            streams: self
                .streams
                .iter()
                .map(|s| StreamStats {
                    ssrc: s.config.ssrc,
                    target_bitrate: s.target,
                    rtp_queue_delay: s.queue.delay(now),
                    rtp_queue_bytes: s.queue.bytes(),
                    rtp_queue_packets: usize::try_from(s.queue.len()).unwrap_or(usize::MAX),
                    queue_discards: s.queue_discards,
                    frames_skipped: s.frames_skipped,
                })
                .collect(),
        }
    }
}

/// Sender-wide state, cheap to take (no allocation beyond the per-stream vector).
///
/// Rates are measured over a sliding interval of about 200 ms ending at the latest
/// input the sender saw (on the sender's own time line, see [`Sender`]).
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct SenderStats {
    /// Congestion window, bytes: SCReAM V2's reference window, draft-00's and RFC
    /// 8298's `cwnd`.
    pub window_bytes: u64,
    /// Bytes sent and not yet acknowledged or declared lost.
    pub bytes_in_flight: u64,
    /// Smoothed round-trip time the controller uses: followed once per RTT, so it
    /// spans about eight RTTs (50 ms before the first sample).
    pub srtt: Duration,
    /// Estimated queue delay (one-way delay minus base delay) of the latest sample.
    pub queue_delay: Duration,
    /// Queue delay averaged with a slow-attack, fast-decay filter (draft `qdelay_avg`).
    pub queue_delay_avg: Duration,
    /// Averaged fraction of CE-marked packets (0 unless in L4S mode).
    pub l4s_alpha: f64,
    /// Rate of packets released by `poll_transmit`.
    pub rate_transmitted: Bitrate,
    /// Rate of packets acknowledged.
    pub rate_acked: Bitrate,
    /// Rate of packets declared lost.
    pub rate_lost: Bitrate,
    /// Rate of packets acknowledged with a CE mark.
    pub rate_ce: Bitrate,
    /// Packets released by `poll_transmit`.
    pub packets_sent: u64,
    /// Packets acknowledged.
    pub packets_acked: u64,
    /// Packets declared lost (reordering window passed, or in-flight timeout).
    pub packets_lost: u64,
    /// Packets acknowledged with a CE mark.
    pub packets_ce: u64,
    /// Per-packet feedback reports ignored as inconsistent: unknown SSRC, a sequence
    /// number never sent or far behind anything in flight, an arrival time after the
    /// report time, or a report time going backwards.
    pub feedback_ignored: u64,
    /// Feedback packets that named no packet of ours sent recently, or claimed the
    /// arrival of one never sent, and so changed nothing
    /// ([`super::FeedbackUse::Unproven`]): forged by someone who did not see the media.
    pub feedback_unproven: u64,
    /// Inputs whose `now` the sender took as a step of the caller's clock rather than
    /// as elapsed time: more than a day after the previous input, or the second in a row
    /// more than 10 ms before the latest (see [`Sender`]).
    pub time_steps: u64,
    /// Total target bitrate of all streams.
    pub target_bitrate: Bitrate,
    /// Current pacing rate.
    pub pacing_rate: Bitrate,
    /// Per stream, in the order streams were added.
    pub streams: Vec<StreamStats>,
    /// What only the running generation has.
    pub generation: GenerationStats,
}

/// Per-stream state.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct StreamStats {
    /// RTP SSRC.
    pub ssrc: u32,
    /// Current target bitrate.
    pub target_bitrate: Bitrate,
    /// Age of the oldest packet in the RTP queue (zero when empty).
    pub rtp_queue_delay: Duration,
    /// Bytes waiting in the RTP queue (accounted size, header included).
    pub rtp_queue_bytes: u64,
    /// Packets waiting in the RTP queue.
    pub rtp_queue_packets: usize,
    /// How many times the RTP queue was discarded for being too old.
    pub queue_discards: u64,
    /// Frames not queued because the RTP queue was too old when they arrived (frame
    /// skipping, `scream-draft00`; always 0 for the other generations).
    pub frames_skipped: u64,
}
