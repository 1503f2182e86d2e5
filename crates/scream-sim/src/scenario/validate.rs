//! Range and consistency checks of a [`Scenario`], with errors naming the dotted key.
//!
//! Every numeric key is checked against its range in [`super::ranges`] (which says why
//! each bound is where it is), so that any scenario that passes runs in finite time
//! and bounded memory; the checks here add the relations between keys.

use super::model::{
    ALL_IMPROVEMENTS, Algorithm, FlowConfig, LinkConfig, QueueConfig, Scenario, SourceConfig,
    SourceKind, StreamConfig,
};
use super::ranges as r;
use scream::sender::Improvements;
use scream_netmodel::TraceFormat;
use scream_netmodel::keys::{DELAY_MS, Range, number};
use std::collections::BTreeSet;

/// A scenario value out of range; displays as `<key> <reason>`, e.g.
/// `link.one_way_delay_ms must be in [0, 60000] ms (is 1e30)`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key} {reason}")]
pub struct ValidationError {
    /// Dotted path of the offending key (`links[1].loss`, `flows[0].source.fps`).
    pub key: String,
    /// Why it is rejected, with the allowed range.
    pub reason: String,
}

type Check = Result<(), ValidationError>;

fn fail<T>(key: impl Into<String>, reason: impl Into<String>) -> Result<T, ValidationError> {
    Err(ValidationError {
        key: key.into(),
        reason: reason.into(),
    })
}

/// `prefix.name` (or `name` at the top level) checked against `range`.
fn check(prefix: &str, name: &str, range: Range, v: f64) -> Check {
    if prefix.is_empty() {
        in_range(name, range, v)
    } else {
        in_range(&format!("{prefix}.{name}"), range, v)
    }
}

/// The value of `key` checked against `range`; the error names the key, the range and
/// the value (`link.one_way_delay_ms must be in [0, 60000] ms (is 1e30)`).
fn in_range(key: &str, range: Range, v: f64) -> Check {
    range.check(v).or_else(|reason| fail(key, reason))
}

/// Longest simulated time a scenario may ask for, s (see [`r::DURATION_S`]).
pub const MAX_DURATION_S: f64 = r::DURATION_S.max;
/// Most time-series rows a run may produce (flow streams x samples). The rows are kept
/// for the plots; at about 200 bytes each this bounds them to about 2 GB.
pub const MAX_SAMPLE_ROWS: f64 = 1e7;
/// Most packets the `cbr` flows of a run may send. Unlike a SCReAM flow, a `cbr` flow
/// ignores the network: its cost is its rate times its active time, at about 1 µs of
/// CPU per packet and link, and a long path or an unlimited queue holds its packets in
/// memory (about 100 bytes each). 2 x 10^7 bounds that to about 2 GB, as the rows
/// above, and allows for instance 10 Mbit/s for four and a half hours, or 100 Gbit/s
/// for 1.6 s.
pub const MAX_CBR_PACKETS: f64 = 2e7;

impl Scenario {
    /// Checks every value; the first problem found is returned.
    pub fn validate(&self) -> Check {
        check("", "duration_s", r::DURATION_S, self.duration_s)?;
        check(
            "",
            "sample_interval_ms",
            r::SAMPLE_INTERVAL_MS,
            self.sample_interval_ms,
        )?;
        self.clock
            .check()
            .or_else(|(name, reason)| fail(format!("clock.{name}"), reason))?;
        self.validate_sizes()?;
        if let Some([from, to]) = self.report_window_s {
            in_range("report_window_s[0]", r::TIME_S, from)?;
            in_range("report_window_s[1]", r::TIME_S, to)?;
            if to <= from {
                return fail("report_window_s", "must be [from, to] with to > from");
            }
        }
        let names = self.validate_links()?;
        if self.flows.is_empty() {
            return fail(
                "flows",
                "is empty: a scenario needs at least one [[flows]] table",
            );
        }
        let mut flow_names = BTreeSet::new();
        for (i, f) in self.flows.iter().enumerate() {
            let key = format!("flows[{i}]");
            if !flow_names.insert(self.flow_name(i)) {
                return fail(
                    format!("{key}.name"),
                    format!("`{}` is used by two flows", self.flow_name(i)),
                );
            }
            self.validate_flow(&key, f, &names)?;
        }
        self.validate_cbr_packets()
    }

    /// Checks the links alone (what a link emulator needs); returns their names.
    pub fn validate_links(&self) -> Result<BTreeSet<String>, ValidationError> {
        if self.link.is_some() && !self.links.is_empty() {
            return fail(
                "links",
                "cannot be combined with [link]; use one or the other",
            );
        }
        let links = self.link_configs();
        if links.is_empty() {
            return fail(
                "links",
                "is empty: a scenario needs a [link] table or at least one [[links]] table",
            );
        }
        let mut names = BTreeSet::new();
        for (i, l) in links.iter().enumerate() {
            let key = self.link_key(i);
            if self.link.is_none() && l.name.is_empty() {
                return fail(format!("{key}.name"), "must name each of [[links]]");
            }
            validate_link(&key, l)?;
            if let Some(r) = &l.reverse {
                let rkey = format!("{key}.reverse");
                if !r.name.is_empty() {
                    return fail(
                        format!("{rkey}.name"),
                        "is not allowed: a reverse direction has its link's name",
                    );
                }
                if r.reverse.is_some() {
                    return fail(
                        format!("{rkey}.reverse"),
                        "is not allowed: a reverse direction has no reverse",
                    );
                }
                validate_link(&rkey, r)?;
            }
            let name = self.link_name(i);
            if !names.insert(name.clone()) {
                return fail(
                    format!("{key}.name"),
                    format!("`{name}` is used by two links"),
                );
            }
        }
        Ok(names)
    }

    /// The packets of all `cbr` flows together (see [`MAX_CBR_PACKETS`]); the error
    /// names the start bitrate of the flow that goes over.
    fn validate_cbr_packets(&self) -> Check {
        let mut total = 0.0;
        for (i, f) in self.flows.iter().enumerate() {
            if f.algorithm != Algorithm::Cbr {
                continue;
            }
            let mss =
                f.params.get("mss_bytes").copied().unwrap_or_else(|| {
                    f64::from(scream::sender::SenderConfig::default().mss_bytes)
                });
            // As the CBR source sends them: the payload plus the RTP header.
            let packet_bits = (mss + 12.0) * 8.0;
            let stop = if f.stop_s > 0.0 {
                f.stop_s
            } else {
                self.duration_s
            };
            let active_s = (stop.min(self.duration_s) - f.start_s).max(0.0);
            for (j, st) in f.effective_streams("").iter().enumerate() {
                total += st.start_bitrate_mbps * 1e6 * active_s / packet_bits;
                if total > MAX_CBR_PACKETS {
                    let key = if f.streams.is_empty() {
                        format!("flows[{i}].start_bitrate_mbps")
                    } else {
                        format!("flows[{i}].streams[{j}].start_bitrate_mbps")
                    };
                    return fail(
                        key,
                        format!(
                            "makes the cbr flows send {total:.3e} packets over their active \
                             time; at most {MAX_CBR_PACKETS:e} are simulated per run: lower \
                             the rate or shorten the flow"
                        ),
                    );
                }
            }
        }
        Ok(())
    }

    fn validate_flow(&self, key: &str, f: &FlowConfig, links: &BTreeSet<String>) -> Check {
        check(key, "start_s", r::TIME_S, f.start_s)?;
        check(key, "stop_s", r::TIME_S, f.stop_s)?;
        if f.stop_s > 0.0 && f.stop_s <= f.start_s {
            return fail(
                format!("{key}.stop_s"),
                "must be 0 (until the end) or > start_s",
            );
        }
        if f.start_s >= self.duration_s {
            return fail(format!("{key}.start_s"), "must be < duration_s");
        }
        validate_pauses(key, f)?;
        for (j, p) in f.path.iter().enumerate() {
            if !links.contains(p.as_str()) {
                return fail(format!("{key}.path[{j}]"), format!("names no link `{p}`"));
            }
        }
        if f.path.len() > usize::from(u8::MAX) {
            return fail(format!("{key}.path"), "is longer than 255 links");
        }
        self.validate_tcp(key, f)?;
        validate_streams(key, f)?;
        check(
            key,
            "packets_per_report",
            r::PACKETS_PER_REPORT,
            f64::from(f.packets_per_report),
        )?;
        check(
            key,
            "report_window",
            r::REPORT_WINDOW,
            f64::from(f.report_window),
        )?;
        if f.packets_per_report > u32::from(f.report_window) {
            return fail(
                format!("{key}.packets_per_report"),
                format!(
                    "is {}, more than the flow's report_window ({}): reports would leave \
                     holes; allowed 1..={}",
                    f.packets_per_report, f.report_window, f.report_window
                ),
            );
        }
        check(
            key,
            "max_report_interval_ms",
            r::REPORT_INTERVAL_MS,
            f.max_report_interval_ms,
        )?;
        sender_params::validate_sender_params(key, f)?;
        validate_improvements(key, f)?;
        rate_based::validate_rate_based(key, f)
    }
}

/// Pause windows lie inside the flow's active time, in increasing order, each ending
/// after it starts and before the next one starts. Only a frame source can pause.
fn validate_pauses(key: &str, f: &FlowConfig) -> Check {
    if f.pauses.is_empty() {
        return Ok(());
    }
    if f.algorithm == Algorithm::Cbr {
        return fail(
            format!("{key}.pauses"),
            "applies only to flows with a media source (this flow is cbr): split a cbr flow \
             into two flows with start_s and stop_s instead",
        );
    }
    check_count(&format!("{key}.pauses"), f.pauses.len(), "pauses")?;
    let mut prev_end = f.start_s;
    for (i, [from, to]) in f.pauses.iter().copied().enumerate() {
        let k = format!("{key}.pauses[{i}]");
        in_range(&format!("{k}[0]"), r::TIME_S, from)?;
        in_range(&format!("{k}[1]"), r::TIME_S, to)?;
        if from < prev_end {
            return fail(
                k,
                format!(
                    "starts at {from} s, before {} s: pauses must start at or after start_s \
                     and after the previous pause ends",
                    number(prev_end)
                ),
            );
        }
        if to <= from {
            return fail(
                k,
                "must end after it starts: [from_s, to_s] with to_s > from_s",
            );
        }
        if f.stop_s > 0.0 && to > f.stop_s {
            return fail(k, format!("ends after stop_s ({} s)", number(f.stop_s)));
        }
        prev_end = to;
    }
    Ok(())
}

/// Each name must be one the library knows (or `all`), and only a SCReAM sender has
/// improvements to turn on.
fn validate_improvements(key: &str, f: &FlowConfig) -> Check {
    if f.improvements.is_empty() {
        return Ok(());
    }
    // The improvements are written for the default generation (SCReAM V2) only.
    if f.algorithm != Algorithm::default() {
        return fail(
            format!("{key}.improvements"),
            format!(
                "applies only to {} flows (this flow is {})",
                Algorithm::default().name(),
                f.algorithm.name()
            ),
        );
    }
    let known = Improvements::names();
    for name in &f.improvements {
        if let Some(into) = Improvements::folded_into(name) {
            return fail(
                format!("{key}.improvements"),
                format!("names \"{name}\", which is now part of \"{into}\""),
            );
        }
        if name != ALL_IMPROVEMENTS && !known.contains(&name.as_str()) {
            return fail(
                format!("{key}.improvements"),
                format!(
                    "names an unknown improvement \"{name}\" (known: {}, or \"{ALL_IMPROVEMENTS}\" for every one)",
                    known.join(", ")
                ),
            );
        }
    }
    Ok(())
}

/// Most streams one flow may hold (the sender's own limit).
const MAX_STREAMS: usize = scream::sender::MAX_STREAMS;

fn validate_streams(key: &str, f: &FlowConfig) -> Check {
    let cbr = f.algorithm == Algorithm::Cbr;
    if f.streams.is_empty() {
        return validate_stream(key, &f.effective_streams("")[0], cbr);
    }
    let flat = FlowConfig::default();
    let set_flat = [
        ("priority", f.priority != flat.priority),
        (
            "min_bitrate_mbps",
            f.min_bitrate_mbps != flat.min_bitrate_mbps,
        ),
        (
            "start_bitrate_mbps",
            f.start_bitrate_mbps != flat.start_bitrate_mbps,
        ),
        (
            "max_bitrate_mbps",
            f.max_bitrate_mbps != flat.max_bitrate_mbps,
        ),
        ("source", f.source != flat.source),
    ];
    if let Some((name, _)) = set_flat.iter().find(|(_, set)| *set) {
        return fail(
            format!("{key}.{name}"),
            "cannot be set on a flow with [[flows.streams]]: set it on each stream",
        );
    }
    if f.streams.len() > MAX_STREAMS {
        return fail(
            format!("{key}.streams"),
            format!("holds more than {MAX_STREAMS} streams"),
        );
    }
    let mut names = BTreeSet::new();
    for (j, s) in f.effective_streams("").iter().enumerate() {
        let skey = format!("{key}.streams[{j}]");
        validate_stream(&skey, s, cbr)?;
        if !names.insert(s.name.clone()) {
            return fail(
                format!("{skey}.name"),
                format!("`{}` is used by two streams", s.name),
            );
        }
    }
    Ok(())
}

/// Every key must lie in its range, used or not. The relations between the bitrates
/// apply only where they are used: a `cbr` stream sends at its start bitrate and has
/// no source.
fn validate_stream(key: &str, s: &StreamConfig, cbr: bool) -> Check {
    if cbr && (s.start_bitrate_mbps.is_nan() || s.start_bitrate_mbps <= 0.0) {
        // A rate that is not positive at all keeps its long-standing message.
        return fail(
            format!("{key}.start_bitrate_mbps"),
            format!("must be a finite number > 0 (is {})", s.start_bitrate_mbps),
        );
    }
    check(
        key,
        "start_bitrate_mbps",
        r::BITRATE_MBPS,
        s.start_bitrate_mbps,
    )?;
    check(key, "priority", r::PRIORITY, s.priority)?;
    check(key, "min_bitrate_mbps", r::BITRATE_MBPS, s.min_bitrate_mbps)?;
    check(key, "max_bitrate_mbps", r::BITRATE_MBPS, s.max_bitrate_mbps)?;
    validate_source(&format!("{key}.source"), &s.source, !cbr)?;
    if cbr {
        return Ok(());
    }
    // A start outside [min, max] is brought into it, as the library's sender (and the
    // reference's registerNewStream) does: a study that sweeps the minimum past the
    // start it registered keeps working.
    if s.max_bitrate_mbps < s.min_bitrate_mbps {
        return fail(
            format!("{key}.max_bitrate_mbps"),
            "must be >= min_bitrate_mbps",
        );
    }
    Ok(())
}

/// `[from_s, value]` steps in increasing time, each value in `value_range`.
fn validate_steps(key: &str, steps: &[[f64; 2]], value_range: Range) -> Check {
    check_count(key, steps.len(), "steps")?;
    let mut prev = f64::NEG_INFINITY;
    for (i, [from, v]) in steps.iter().copied().enumerate() {
        let k = format!("{key}[{i}]");
        in_range(&format!("{k}[0]"), r::TIME_S, from)?;
        in_range(&format!("{k}[1]"), value_range, v)?;
        if from <= prev {
            return fail(k, "steps must be in increasing time order");
        }
        prev = from;
    }
    Ok(())
}

fn validate_link(key: &str, l: &LinkConfig) -> Check {
    if let Some(c) = l.capacity_mbps {
        check(key, "capacity_mbps", r::CAPACITY_MBPS, c)?;
        // 0 before a step is an outage that ends; 0 for ever carries nothing at all.
        if c == 0.0 && l.capacity_steps.is_empty() && l.trace.is_none() {
            return fail(
                format!("{key}.capacity_mbps"),
                format!(
                    "is 0 and no capacity_steps follow, so nothing would ever cross the \
                     link: give a capacity in [{}, {}] Mbit/s or inf, and for outages use \
                     capacity_steps, e.g. [[5.0, 0], [6.0, 10]]",
                    number(r::CAPACITY_MBPS.min),
                    number(r::CAPACITY_MBPS.max)
                ),
            );
        }
    }
    let steps = format!("{key}.capacity_steps");
    validate_steps(&steps, &l.capacity_steps, r::CAPACITY_MBPS)?;
    validate_steps(&format!("{key}.loss_steps"), &l.loss_steps, r::PROBABILITY)?;
    check(
        key,
        "loss_burst_packets",
        r::LOSS_BURST_PACKETS,
        l.loss_burst_packets,
    )?;
    if l.trace.as_deref().is_some_and(str::is_empty) {
        return fail(format!("{key}.trace"), "must name a file");
    }
    if let Some([from, until]) = l.trace_window_s {
        let k = format!("{key}.trace_window_s");
        in_range(&format!("{k}[0]"), r::TIME_S, from)?;
        in_range(&format!("{k}[1]"), r::TIME_S, until)?;
        if until <= from {
            return fail(k, "must be [from_s, until_s] with until_s > from_s");
        }
        if l.trace.is_none() {
            return fail(k, "needs a trace to put in the window");
        }
    }
    if let Some(s) = l.trace_seconds_per_row {
        check(key, "trace_seconds_per_row", r::TRACE_SECONDS_PER_ROW, s)?;
        let synthetic = l
            .trace
            .as_deref()
            .is_some_and(|t| t.starts_with(crate::scenario::load::SYNTHETIC_TRACE_PREFIX));
        if l.trace.is_none() || synthetic || l.trace_format == TraceFormat::Mahimahi {
            return fail(
                format!("{key}.trace_seconds_per_row"),
                "needs a table trace file (not mahimahi, not synthetic)",
            );
        }
    }
    let (time_col, rate_col) = (l.trace_time_column, l.trace_rate_column);
    check(key, "trace_time_column", r::TRACE_COLUMN, time_col as f64)?;
    check(key, "trace_rate_column", r::TRACE_COLUMN, rate_col as f64)?;
    if time_col == rate_col {
        return fail(
            format!("{key}.trace_rate_column"),
            "must differ from trace_time_column",
        );
    }
    check(
        key,
        "mahimahi_packet_bytes",
        r::MAHIMAHI_PACKET_BYTES,
        f64::from(l.mahimahi_packet_bytes),
    )?;
    if let Some(d) = l.one_way_delay_ms {
        check(key, "one_way_delay_ms", DELAY_MS, d)?;
    }
    check(key, "jitter_ms", DELAY_MS, l.jitter_ms)?;
    if let Some(m) = l.jitter_max_ms {
        check(key, "jitter_max_ms", DELAY_MS, m)?;
    }
    if l.loss == 1.0 {
        return fail(
            format!("{key}.loss"),
            format!(
                "must be in {} (is 1): with loss 1 nothing would arrive; for a blackout \
                 use loss_steps, e.g. [[5.0, 1.0], [6.0, 0.0]]",
                r::LOSS.describe()
            ),
        );
    }
    check(key, "loss", r::LOSS, l.loss)?;
    validate_queue(&format!("{key}.queue"), &l.queue)
}

/// Every key of every discipline lies in the range its model declares, used or not;
/// then the relations between keys.
fn validate_queue(key: &str, q: &QueueConfig) -> Check {
    q.check_ranges()
        .or_else(|(name, reason)| fail(format!("{key}.{name}"), reason))?;
    if let Err(reason) = q.netqueue.vintage() {
        return fail(format!("{key}.netqueue_vintage"), reason);
    }
    if q.l4s_ramp.ramp_max_ms <= q.l4s_ramp.ramp_min_ms {
        return fail(format!("{key}.ramp_max_ms"), "must be > ramp_min_ms");
    }
    if q.l4s_cellular.cellular_max_ms <= q.l4s_cellular.cellular_min_ms {
        return fail(
            format!("{key}.cellular_max_ms"),
            "must be > cellular_min_ms",
        );
    }
    Ok(())
}

/// Every key of a source, whatever its kind uses; `used` says whether the source
/// produces media at all (a `cbr` flow ignores it, so it needs no trace).
fn validate_source(key: &str, s: &SourceConfig, used: bool) -> Check {
    let traced = matches!(s.kind, SourceKind::VideoTrace | SourceKind::VideoEnc);
    if used && traced && s.trace.is_empty() {
        return fail(format!("{key}.trace"), "must name a frame-size trace");
    }
    if let Some(p) = s.phase_ms {
        check(key, "phase_ms", r::PHASE_MS, p)?;
    }
    check(key, "fps", r::FPS, s.fps)?;
    check(key, "sluggishness_s", r::SLUGGISHNESS_S, s.sluggishness_s)?;
    let offset = s.trace_offset_frames as f64;
    check(key, "trace_offset_frames", r::TRACE_OFFSET_FRAMES, offset)?;
    check(key, "nominal_gain", r::PROBABILITY, s.nominal_gain)?;
    let rate = s.audio_bitrate_kbps;
    check(key, "audio_bitrate_kbps", r::AUDIO_BITRATE_KBPS, rate)?;
    let interval = s.audio_packet_interval_ms;
    check(
        key,
        "audio_packet_interval_ms",
        r::AUDIO_INTERVAL_MS,
        interval,
    )
}

mod rate_based;
mod sender_params;
mod sizes;
mod tcp;
#[cfg(test)]
mod tests;
mod warnings;

use sizes::check_count;
pub use sizes::{MAX_FLOWS, MAX_LINK_SAMPLE_ROWS, MAX_LINKS, MAX_STEPS};
pub use warnings::{MAX_PLAUSIBLE_PEAK_BPS, MAX_PLAUSIBLE_SPACING_S, MIN_PLAUSIBLE_PEAK_BPS};
