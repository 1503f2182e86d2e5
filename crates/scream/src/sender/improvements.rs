//! Opt-in improvements over the faithful SCReAM V2.
//!
//! The default sender follows the draft and the reference implementation, weaknesses
//! included, so that its results can be compared with theirs. Each improvement here
//! fixes one weakness found on real cellular traces and wider conditions; each is off by
//! default, named, and can be turned on alone or with the others
//! ([`Improvements::all`]). What each one changes, and why, is on its field.

use super::params::ConfigError;

/// Which opt-in improvements a sender runs with. All off by default (the faithful
/// algorithm).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Improvements {
    /// `outage-recovery`: a capacity outage costs as little time as possible.
    ///
    /// Faithfully, a sender whose whole flight was dropped at a dead bottleneck waits
    /// `stall_timeout` (0.5 s) before it sends again, then sends a full window into the
    /// outage every half second; and once capacity is back, a window that congestion
    /// signals cut during the outage regrows under the post-congestion restraint,
    /// which takes seconds.
    /// With this on:
    /// - the stall timeout is at most four smoothed RTTs (not below 100 ms) after the
    ///   last acknowledgement, so the sender notices an outage and its end within a
    ///   few RTTs (while acknowledgements still arrive the flight is only slow, behind
    ///   a long queue, and the faithful timeout applies);
    /// - what leaves unanswered is bounded as with `media-deadline`'s silence bound:
    ///   one send window since the latest acknowledgement, then one probe per probe
    ///   timeout (RFC 8083 §4.3: cease or cut to a trickle when reports stop). Without
    ///   it the quicker stall sent a new window into a dead or trickling path every few
    ///   RTTs instead of every half second; behind a deep buffer those windows came out
    ///   seconds late (frame-delay p99 +306 to +646 ms over faithful on drawn
    ///   dead stretches);
    /// - from the third stall in a row with nothing acknowledged, each stall halves
    ///   the window, as a TCP sender does at each retransmission timeout (RFC 6298
    ///   §5.5); a shorter outage leaves the window where it was. Under the silence
    ///   bound above the window rarely closes again after the first stall, so this
    ///   seldom acts: halving at every silent probe instead starved 7 of 60 drawn
    ///   dead stretches that faithful does not (docs/evaluation.md);
    /// - after a stall, while the window is below half of the largest it reached in
    ///   the last 5 to 10 s and nothing has signalled congestion for two RTTs, it
    ///   grows by what is acknowledged (doubling per RTT), free of the restraints
    ///   that guard the last congestion point: as TCP's slow start back to half the
    ///   window after a timeout (RFC 5681 §3.1). The first congestion signal ends it.
    ///   A window cut by congestion signals alone (a capacity drop, not an outage)
    ///   regrows as usual: probing fast there only overshoots the lower capacity;
    /// - a stall also forgets the queue-delay variation, whose outage swings would
    ///   otherwise restrain the growth for seconds after the path is back;
    /// - losses reported in the first two RTTs of feedback after an outage are counted
    ///   but are not congestion: they are the last bursts sent into the dead path;
    /// - a flight whose tail the network dropped is resolved by a probe within two
    ///   RTTs instead of by the stall guard (this was the `tail-loss-probe` option,
    ///   folded in here because alone it was not safe: the probe's report is the first
    ///   to tell the losses of a flight sent into a trickle, and without the grace
    ///   below they cut the window once more as the link returns). Faithfully, losses
    ///   are found only from a later packet's acknowledgement (RACK's
    ///   time-and-sequence rule, RFC 8985 §6.2); when a sudden capacity drop makes the
    ///   bottleneck drop the last packets of a large flight, nothing later is sent (the
    ///   window is full of those lost bytes), nothing later is acknowledged, and the
    ///   link idles until `stall_timeout` (bytes in flight stayed at 297 kB against a
    ///   15 kB window after 386 -> 4 Mbit/s). With this on, the tail loss probe the
    ///   sender already sends when the return path loses reports (`late_feedback`) is
    ///   also sent when nothing at all is acknowledged for a probe timeout
    ///   (`PTO = 2 · SRTT`, at least an RTT plus the receiver's report delay, RFC 8985
    ///   §7.2): one new media packet past the closed window, whose report tells which
    ///   earlier packets never arrived, so that RACK declares them lost and the window
    ///   opens; while nothing returns, one packet per probe timeout (RFC 8985 §7.3);
    /// - the smoothed RTT is kept fresh as with `fresh-srtt`: alone, this option left a
    ///   flow at 0.10-0.17 Mbit/s for 15 s after a 13 s outage with 50 Mbit/s
    ///   available (the queue its restart built held the sRTT high while the flow was
    ///   application-limited).
    pub outage_recovery: bool,
    /// `fresh-srtt`: the smoothed RTT that scales the target drops to the current one
    /// once that has fallen below half of it.
    ///
    /// Faithfully, the controller's sRTT follows the RTT once per RTT with gain 1/8,
    /// and with gain 1/1024 while the window is application-limited (so that an
    /// encoder below its target does not have the target raised by the RTT alone).
    /// After an outage that filled a queue, the remembered sRTT is many times the
    /// path's, the target `window / sRTT` stays low, the encoder stays below it, the
    /// window counts as application-limited and the sRTT hardly moves: a trap that
    /// held L4S flows at their minimum for seconds. An RTT that has halved describes a
    /// queue that is gone, not jitter, so the old value is dropped.
    ///
    /// Competing traffic springs the same trap. A delay-based flow on 10 Mbit/s (25 ms
    /// each way, 300 ms tail drop) that shared the link for 10 s with 12 Mbit/s of
    /// unresponsive traffic stayed at 0.11-0.16 Mbit/s on the emptied link, its sRTT
    /// at 190-245 ms, and needed 23, 30 and 47 s (seeds 1-3) to reach 80 % of the link
    /// again; after a TCP NewReno flow, 30, 12 and 5 s. With this on: 4.8-5.0 s in
    /// every case (the simulator's `overload_recovery` test).
    pub fresh_srtt: bool,
    /// `delay-convergence`: delay-based flows (ECN mode none) that share a bottleneck
    /// converge to equal shares.
    ///
    /// Faithfully, window growth is restrained while the queue delay varies, and the
    /// delay-based back-off (virtual L4S) sets in only when the averaged queue delay
    /// exceeds half the target (30 ms). Flows sharing a queue see it vary, so their
    /// windows freeze at whatever split they reached while the queue settles below
    /// the back-off: two flows on 50 Mbit/s kept a 38 : 11 Mbit/s split for minutes.
    /// With this on, the additive growth is not restrained by the variation and the
    /// back-off starts at a quarter of the target, so the flows run the classic AIMD
    /// cycle that equalises windows (Chiu and Jain, 1989), at a lower queue delay.
    /// ECN-capable flows keep the faithful behaviour: their marks already give an AIMD
    /// cycle, and an unrestrained growth overshoots a classic ECN threshold. Like
    /// `outage-recovery`, it keeps the smoothed RTT fresh as `fresh-srtt` does, without
    /// which it too left flows in the application-limited sRTT trap after an outage.
    ///
    /// Not safe alone on drawn links: its earlier back-off leaves the window lower when
    /// capacity jumps, and one drawn shallow-buffer link starved 2.34 s against the
    /// faithful sender's 1.82 s (docs/evaluation.md).
    pub delay_convergence: bool,
    /// `l4s-pacing` (L4S mode only): while the bottleneck marks (`l4s_alpha` at least
    /// 0.001), packets leave no faster than the path recently delivered them (the
    /// peak, over the last half second, of the acknowledged bytes of a feedback over
    /// the time since the previous one), but never slower than 1.1 times the target.
    /// Without marks the faithful pacing stays: there is no burst to spare the
    /// bottleneck, and it drains an RTP queue backlog faster (capped pacing alone
    /// raised the frame delay p95 on a 5G trace from 26 to 140 ms).
    ///
    /// Faithfully, pacing runs at 1.5 times the target, more for large frames, and up
    /// to five times more near the streams' maximum bitrate. A frame paced out faster
    /// than the bottleneck forwards it queues there, and a shallow L4S marker (a ramp
    /// from 2 ms) marks it even though the average rate is well below capacity: one
    /// flow stayed near 57 % of a constant 100 Mbit/s link. Pacing at the delivery
    /// rate takes it to 90 % at the same queue delay; frames wait longer in the
    /// sender instead (frame delay p95 +12 ms in that case). The idea is the
    /// delivery-rate pacing of BBR (Cardwell et al., 2016) and of the paced chirping of
    /// L4S senders, reduced to a cap on SCReAM's own pacing.
    ///
    /// Not safe alone on drawn links: after a sudden drop it sends the RTP queue the
    /// drop left behind at the link's rate instead of letting it be discarded, and
    /// those late frames raise the frame-delay p99 (docs/evaluation.md).
    pub l4s_pacing: bool,
    /// `media-deadline`: media that would arrive more than 400 ms after capture is not
    /// sent, and a sender that hears nothing sends at most one window, then probes.
    ///
    /// Faithfully, media waits in the RTP queue up to `max_rtp_queue_delay` (1 s) and
    /// then leaves whatever the delay still ahead of it, and the stall guard sends a
    /// whole new window into a silent path every `stall_timeout`. Behind a deep
    /// buffer on a link that only trickles, those windows come out seconds late: on
    /// an LTE-like link with a 10 s near-dead stretch behind a 300 ms buffer, frames
    /// arrived 1-10 s after capture. With this on (RFC 8083's circuit breakers, per
    /// packet): a packet whose age in the RTP queue plus the one-way delay the latest
    /// feedback predicts for it exceeds 400 ms (ITU-T G.114's limit for interactive
    /// use) waits, and the queue is discarded with a key frame request; and once a
    /// send window has gone out with nothing acknowledged since, only a probe leaves
    /// per probe timeout (2 · SRTT, RFC 8985 §7.2) until an acknowledgement returns.
    /// The deadline holds only while something is in flight, so a path that has
    /// drained is measured again. See the `deadline` module for the estimate.
    ///
    /// Not safe alone on drawn links: after a sudden drop it delivers frames up to its
    /// 400 ms deadline that the faithful sender discards at 1 s, which raises the
    /// frame-delay p99 of delivered frames (docs/evaluation.md).
    pub media_deadline: bool,
}

/// The improvements' names as scenarios and the command line spell them, in field order.
pub const IMPROVEMENT_NAMES: &[&str] = &[
    "outage-recovery",
    "fresh-srtt",
    "delay-convergence",
    "l4s-pacing",
    "media-deadline",
];

/// Former improvements that were not safe alone on drawn links, and the improvement
/// each was folded into (docs/evaluation.md): a name that used to work gets an answer
/// rather than "unknown".
const FOLDED_IMPROVEMENTS: &[(&str, &str)] = &[("tail-loss-probe", "outage-recovery")];

impl Improvements {
    /// Every improvement on.
    pub fn all() -> Self {
        let mut s = Self::default();
        for name in IMPROVEMENT_NAMES {
            // Every listed name is known.
            let _ = s.set(name, true);
        }
        s
    }

    /// The improvements a SCReAM V2 sender on a real network should run with unless it
    /// must reproduce the faithful algorithm (`scream send` runs with them by
    /// default): `fresh-srtt`, without which a call that competing traffic squeezed to
    /// its minimum rate can stay there for tens of seconds after the link has emptied
    /// (see [`Improvements::fresh_srtt`]). It changes nothing else measurable
    /// (`docs/eval-v2.md`: at most 0.8 % of throughput and 0.1 ms of sojourn p95 from
    /// the faithful sender in any case). The others trade something for what they fix
    /// (`outage-recovery` raised the p99 sojourn on a recorded LTE trace from 106 to
    /// 625 ms, `delay-convergence` costs up to 2.5 % of throughput, `l4s-pacing` adds
    /// frame delay), so they stay a choice.
    pub fn real_network() -> Self {
        Self {
            fresh_srtt: true,
            ..Self::default()
        }
    }

    /// Names accepted by [`Improvements::set`], in field order.
    pub fn names() -> &'static [&'static str] {
        IMPROVEMENT_NAMES
    }

    /// The improvement a former one called `name` is now part of, if it was folded
    /// into another.
    pub fn folded_into(name: &str) -> Option<&'static str> {
        FOLDED_IMPROVEMENTS
            .iter()
            .find(|(old, _)| *old == name)
            .map(|(_, into)| *into)
    }

    /// Turns the improvement called `name` on or off.
    pub fn set(&mut self, name: &str, on: bool) -> Result<(), ConfigError> {
        if let Some(into) = Self::folded_into(name) {
            return Err(ConfigError {
                field: "improvements",
                value: name.to_owned(),
                reason: format!("now part of {into}"),
            });
        }
        let slot = match name {
            "outage-recovery" => &mut self.outage_recovery,
            "fresh-srtt" => &mut self.fresh_srtt,
            "delay-convergence" => &mut self.delay_convergence,
            "l4s-pacing" => &mut self.l4s_pacing,
            "media-deadline" => &mut self.media_deadline,
            _ => {
                return Err(ConfigError {
                    field: "improvements",
                    value: name.to_owned(),
                    reason: format!(
                        "unknown improvement; known: {}",
                        IMPROVEMENT_NAMES.join(", ")
                    ),
                });
            }
        };
        *slot = on;
        Ok(())
    }

    /// Whether the improvement called `name` is on (`None` for an unknown name).
    pub fn get(&self, name: &str) -> Option<bool> {
        let mut probe = *self;
        probe.set(name, true).ok()?;
        Some(probe == *self)
    }

    /// The names of the improvements that are on, in field order.
    pub fn enabled(&self) -> Vec<&'static str> {
        IMPROVEMENT_NAMES
            .iter()
            .copied()
            .filter(|n| self.get(n) == Some(true))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_sets_its_own_field() {
        for name in IMPROVEMENT_NAMES {
            let mut s = Improvements::default();
            s.set(name, true).unwrap();
            assert_eq!(s.enabled(), vec![*name]);
            s.set(name, false).unwrap();
            assert_eq!(s, Improvements::default());
        }
        assert_eq!(Improvements::all().enabled(), IMPROVEMENT_NAMES.to_vec());
    }

    #[test]
    fn a_folded_name_says_where_it_went() {
        let e = Improvements::default()
            .set("tail-loss-probe", true)
            .unwrap_err();
        assert!(e.reason.contains("outage-recovery"), "{e}");
    }

    #[test]
    fn an_unknown_name_is_an_error_that_lists_the_known_ones() {
        let e = Improvements::default().set("warp-drive", true).unwrap_err();
        assert_eq!(e.field, "improvements");
        assert!(e.reason.contains("fresh-srtt"), "{e}");
    }
}
