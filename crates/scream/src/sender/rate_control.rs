//! Media rate control (draft §"Media Rate Control"): the generation sets each
//! stream's target, the chassis announces the changes, and the pacing rate follows
//! the targets.

use super::generation::contract::TargetInput;
use super::{CongestionEventKind, Event, Sender, StreamId, push_event};
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

    /// Media rate control: the generation sets the streams' targets, and changes are
    /// announced. The pacing rate is not touched: it follows feedback only (see
    /// [`Sender::update_pacing_rate`]). `now` is the sender's time of the input.
    pub(super) fn update_targets(&mut self, now: Instant) {
        let input = TargetInput {
            srtt: self.delay.srtt(),
            mss_bytes: self.largest_packet,
            rate_factor: self.delay.rate_factor(),
            now,
        };
        self.generation.update_targets(&mut self.streams, &input);
        let threshold = self.config.target_event_threshold;
        for (i, s) in self.streams.iter_mut().enumerate() {
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

    /// Recomputes the pacing rate for the current targets (when feedback arrives,
    /// and before the first feedback when a frame arrives; see `v2::pacing` for why
    /// not on every frame).
    pub(super) fn update_pacing_rate(&mut self) {
        // Only `l4s-pacing` reads the delivery peak.
        let peak = if self.config.improvements.l4s_pacing {
            self.delivery.peak()
        } else {
            None
        };
        self.pacing_rate = self
            .generation
            .pacing_rate(&self.streams, self.rate_media.rate(), peak);
    }
}
