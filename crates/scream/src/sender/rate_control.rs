//! Media rate control (draft §"Media Rate Control"): the total target derived from the
//! window is split across streams by priority, each stream's share is corrected for its
//! RTP queue and limited to its range, changes are announced, and the pacing rate
//! follows the targets.

use super::pacing::{self, PacingInput};
use super::{CongestionEventKind, EcnMode, Event, Sender, StreamId, push_event, scheduler};
use crate::time::Instant;
use crate::units::Bitrate;

impl Sender {
    /// Sum of the streams' targets.
    pub(super) fn total_target(&self) -> Bitrate {
        self.streams
            .iter()
            .fold(Bitrate::ZERO, |acc, s| acc + s.target)
    }

    /// Sum of the streams' maximum bitrates.
    pub(super) fn total_max(&self) -> Bitrate {
        self.streams
            .iter()
            .fold(Bitrate::ZERO, |acc, s| acc + s.config.max_bitrate)
    }

    /// Media rate control: splits the window-derived total across streams by priority,
    /// applies each stream's RTP-queue correction and limits, and announces changes.
    /// The pacing rate is not touched: it follows feedback only (see
    /// [`Sender::update_pacing_rate`]). `now` is the sender's time of the input.
    pub(super) fn update_targets(&mut self, now: Instant) {
        let total = self
            .algorithm
            .total_target(&self.config, self.delay.srtt(), self.largest_packet)
            .scale(self.delay.rate_factor());
        scheduler::allocate(total, &mut self.streams);
        let threshold = self.config.target_event_threshold;
        for (i, s) in self.streams.iter_mut().enumerate() {
            let share = s.rate_share.scale(1.0 / (1.0 + s.rate_adjust));
            s.target = share.clamp(s.config.min_bitrate, s.config.max_bitrate);
            let prev = s.announced.bps();
            let changed = if prev > 0.0 {
                ((s.target.bps() - prev) / prev).abs() > threshold
            } else {
                s.target.bps() > 0.0
            };
            if changed {
                let previous = core::mem::replace(&mut s.announced, s.target);
                let stream = StreamId(u32::try_from(i).unwrap_or(u32::MAX));
                if self.cc_events.enabled() {
                    let kind = CongestionEventKind::TargetBitrate {
                        stream,
                        previous,
                        target: s.target,
                    };
                    self.cc_events.push(self.time.to_caller(now), kind);
                }
                push_event(
                    &mut self.events,
                    Event::TargetBitrate {
                        stream,
                        bitrate: s.target,
                    },
                );
            }
        }
    }

    /// The pacing rate for the current targets, media rate and frame sizes. It is
    /// recomputed when feedback arrives (and, before the first feedback, when a frame
    /// arrives), not on every frame: the reference computes its pacing interval in
    /// `updateCwnd`, once per feedback, and a pacing rate that jumps with each large
    /// frame spreads a frame over less time and pushes it into the bottleneck as a
    /// burst (at 100 ms one way the L4S queue p95 was 27 % above the reference's).
    pub(super) fn update_pacing_rate(&mut self) {
        let total_target = self.total_target();
        let weighted: f64 = self
            .streams
            .iter()
            .map(|s| s.frame_scale * s.target.bps())
            .sum();
        let frame_scale = if total_target.bps() > 0.0 {
            weighted / total_target.bps()
        } else {
            1.0
        };
        let mut rate = pacing::pacing_rate(
            &self.config,
            PacingInput {
                total_target,
                media_rate: self.rate_media.rate(),
                total_max: self.total_max(),
                frame_scale,
            },
        );
        // Only while the marker is at work: without marks there is no burst to spare
        // the bottleneck, and after an outage the faithful pacing drains the RTP
        // queue's backlog faster.
        let marking = self.algorithm.l4s_alpha() >= pacing::L4S_PACING_MIN_ALPHA;
        if self.config.improvements.l4s_pacing && self.config.ecn == EcnMode::L4s && marking {
            if let Some(peak) = self.delivery.peak() {
                rate = pacing::cap_to_delivery(rate, total_target, peak);
            }
        }
        self.pacing_rate = rate;
    }
}
