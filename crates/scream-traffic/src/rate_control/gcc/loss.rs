//! The loss-based controller of draft-ietf-rmcat-gcc-02 §6: As_hat from the fraction
//! of packets lost.

use scream::{Bitrate, Duration, Instant};

/// §6: below 2 % loss, As_hat grows by 5 %.
pub(crate) const INCREASE_FACTOR: f64 = 1.05;
/// libwebrtc `send_side_bandwidth_estimation.cc` `kLimitNumPackets`: the loss fraction
/// is judged over at least 20 packets. RFC 8888 feedback comes every few packets; the
/// draft's receiver reports (about one a second) span many more.
pub(crate) const MIN_PACKETS: u32 = 20;
/// libwebrtc `kBweDecreaseInterval`: at most one loss-based decrease per 300 ms plus
/// one RTT, the time a decrease needs to show in the loss.
pub(crate) const DECREASE_INTERVAL: Duration = Duration::from_millis(300);
/// At most one increase per response time (§5.5: RTT + 100 ms), where the draft's
/// one-per-receiver-report would be about one a second: growth that the delay-based
/// estimate caps anyway should not lag it after a loss episode.
pub(crate) const INCREASE_INTERVAL: Duration = Duration::from_millis(100);

/// As_hat and the counts it is judged on.
#[derive(Debug, Clone)]
pub(crate) struct LossBased {
    low: f64,
    high: f64,
    estimate: Bitrate,
    max: Bitrate,
    lost: u32,
    total: u32,
    last_decrease: Option<Instant>,
    last_increase: Option<Instant>,
}

impl LossBased {
    /// Starts at the flow's maximum, so it binds only once loss is seen; `low` and
    /// `high` are §6's 2 % and 10 %.
    pub(crate) fn new(max: Bitrate, low: f64, high: f64) -> Self {
        Self {
            low,
            high,
            estimate: max,
            max,
            lost: 0,
            total: 0,
            last_decrease: None,
            last_increase: None,
        }
    }

    pub(crate) fn estimate(&self) -> Bitrate {
        self.estimate
    }

    /// Resolved packets of one report (`lost` of `total`); `in_use` is the rate being
    /// sent (min of both estimates), the base of a hold or a decrease.
    pub(crate) fn on_report(
        &mut self,
        now: Instant,
        lost: u32,
        total: u32,
        in_use: Bitrate,
        rtt: Duration,
    ) {
        self.lost = self.lost.saturating_add(lost);
        self.total = self.total.saturating_add(total);
        if self.total < MIN_PACKETS {
            return;
        }
        let p = f64::from(self.lost) / f64::from(self.total);
        self.lost = 0;
        self.total = 0;
        let base = self.estimate.min(in_use);
        let since = |t: Option<Instant>| t.map(|t| now.saturating_duration_since(t));
        if p > self.high {
            if since(self.last_decrease).is_none_or(|d| d >= DECREASE_INTERVAL + rtt) {
                self.estimate = base.scale(1.0 - 0.5 * p);
                self.last_decrease = Some(now);
            }
        } else if p >= self.low {
            self.estimate = base;
        } else if since(self.last_increase).is_none_or(|d| d >= INCREASE_INTERVAL + rtt) {
            self.estimate = self.estimate.scale(INCREASE_FACTOR).min(self.max);
            self.last_increase = Some(now);
        }
    }
}
