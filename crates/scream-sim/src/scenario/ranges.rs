//! The allowed range of every numeric scenario key.
//!
//! Each range is generous for research but keeps a run finite and its memory bounded:
//! every time must fit the simulator's nanosecond clock with room to add to it, every
//! rate must give packet times the clock can resolve, and every count or frequency
//! must keep the number of events per simulated second bounded. The comment on each
//! range says which of these it guards and why the bound is where it is. The same text
//! appears in `docs/scenarios.md` (a test keeps the two in step). The queue's keys are
//! declared with their ranges next to their models (`scream_netmodel::queue`);
//! [`of_key`] finds them there.

use scream_netmodel::keys::{DELAY_MS, Range};

use super::model::QueueConfig;

// ---- times ----

/// Longest simulated time, s (about 11.6 days): beyond it a run would take days of CPU.
pub const DURATION_S: Range = Range::above(0.0, 1e6, "s");
/// Instants within a run (flow start and stop, steps, the report window), s: no later
/// than the longest run.
pub const TIME_S: Range = Range::closed(0.0, 1e6, "s");
/// Sampling period, ms. At least 1 ms: finer rows say nothing a plot can show and
/// multiply the rows kept in memory. At most the longest run: no row would be written.
pub const SAMPLE_INTERVAL_MS: Range = Range::closed(1.0, 1e9, "ms");
/// Receiver report interval, ms. The receiver wakes this often while packets arrive:
/// 1 ms is well below any RTCP feedback interval in use; a minute is as for delays.
pub const REPORT_INTERVAL_MS: Range = Range::closed(1.0, 60_000.0, "ms");
/// Offset of a stream's first frame, ms: at most the longest run (a phase beyond one
/// frame period only delays the first frame).
pub const PHASE_MS: Range = Range::closed(0.0, 1e9, "ms");
/// Frame index a `video-enc` trace starts at: any index a trace file may hold (it is
/// taken modulo the trace's length).
pub const TRACE_OFFSET_FRAMES: Range = Range::closed(0.0, 1e9, "frames");
/// Encoder time constant, s: at most the longest run (slower never follows at all).
pub const SLUGGISHNESS_S: Range = Range::closed(0.0, 1e6, "s");

// ---- rates ----

/// Link capacity, Mbit/s. From 1 kbit/s (a 1500-byte packet takes 12 s; slower is a
/// unit mistake) to 10 Tbit/s (a 1500-byte packet takes 1.2 ns, the clock's
/// resolution); 0 is an outage and `inf` no limit.
pub const CAPACITY_MBPS: Range = Range {
    zero: true,
    inf: true,
    ..Range::closed(1e-3, 1e7, "Mbit/s")
};
/// Stream bitrates, Mbit/s: 1 kbit/s, below any codec, to 100 Gbit/s, above any single
/// media stream. The cost of a `cbr` flow grows with its rate (12 million packets per
/// simulated second at the top), so its packets per run are bounded as well
/// (`validate::MAX_CBR_PACKETS`).
pub const BITRATE_MBPS: Range = Range::closed(1e-3, 1e5, "Mbit/s");
/// Audio bitrate, kbit/s: 1 kbit/s to 100 Mbit/s, above uncompressed multichannel
/// studio audio (about 37 Mbit/s).
pub const AUDIO_BITRATE_KBPS: Range = Range::closed(1.0, 1e5, "kbit/s");

// ---- frequencies, counts, sizes ----

/// Frame rate, frames/s: one frame per 100 s (a slide show) to 1000 (beyond any camera
/// stream); each frame is an event, and its period must stay above the clock's
/// resolution.
pub const FPS: Range = Range::closed(0.01, 1000.0, "frames/s");
/// Audio packet interval, ms: 0.1 ms (10 000 packets/s, below any codec's frame) to a
/// minute.
pub const AUDIO_INTERVAL_MS: Range = Range::closed(0.1, 60_000.0, "ms");
/// Stream priority: relative shares; a ratio of 10^6 between two streams is already
/// a starved stream.
pub const PRIORITY: Range = Range::closed(1e-3, 1e3, "");
/// Probabilities.
pub const PROBABILITY: Range = Range::closed(0.0, 1.0, "");
/// A link's constant loss probability: below 1, since at 1 nothing would ever arrive
/// (a blackout for a while is `loss_steps`, which may reach 1).
pub const LOSS: Range = Range {
    max_excluded: true,
    ..Range::closed(0.0, 1.0, "")
};
/// Mean loss burst, packets: a million packets is minutes of blackout at any rate
/// here (use `loss_steps` for that).
pub const LOSS_BURST_PACKETS: Range = Range::closed(1.0, 1e6, "packets");
/// Bytes per mahimahi delivery opportunity: at most the largest IP packet.
pub const MAHIMAHI_PACKET_BYTES: Range = Range::closed(1.0, 65_535.0, "bytes");
/// Seconds per row of a table trace replayed at its own pace: from 1 ms (a row
/// shorter than a packet's serialisation tells nothing) to 10^4 s.
pub const TRACE_SECONDS_PER_ROW: Range = Range::closed(1e-3, 1e4, "s");
/// Table trace columns: no capacity trace has a thousand columns; a larger index is a
/// mistake.
pub const TRACE_COLUMN: Range = Range::closed(0.0, 1000.0, "");
/// Feedback after this many packets: at most the receiver's largest report window
/// (`scream::receiver::MAX_REPORT_WINDOW`); validation also keeps it within the flow's
/// own `report_window`, or reports would leave holes.
pub const PACKETS_PER_REPORT: Range = Range::closed(1.0, 16384.0, "packets");
/// Sequence numbers a report covers: RFC 8888 §3.1 caps a block at 16384 reports.
pub const REPORT_WINDOW: Range = Range::closed(1.0, 16384.0, "packets");
/// TCP object sizes of on-off traffic, kB (1000 bytes): one byte to a gigabyte, which
/// at any rate here is a bulk transfer.
pub const OBJECT_KB: Range = Range::closed(1e-3, 1e6, "kB");
/// Mean idle time between TCP objects, s: at least 1 ms, so that objects (each a
/// handful of events) come at most a thousand times a second; at most the longest run.
pub const IDLE_MEAN_S: Range = Range::closed(1e-3, 1e6, "s");
/// TCP payload bytes per segment: from 536, the default MSS of RFC 9293 §3.7.1, to
/// 65483, which with the 52 header bytes makes the largest IPv4 packet.
pub const MSS_BYTES: Range = Range::closed(536.0, 65_483.0, "bytes");
/// Lower bound of the TCP retransmission timeout, ms: 1 ms (data-centre stacks go
/// that low) to a minute (RFC 6298 §2.5's upper bound of the RTO itself).
pub const MIN_RTO_MS: Range = Range::closed(1.0, 60_000.0, "ms");
/// The master seed: any integer a TOML file can hold (TOML integers are 64-bit signed).
pub const SEED: Range = Range::closed(0.0, i64::MAX as f64, "");

/// The range of every numeric key, by its name in the scenario (the same in `[link]`,
/// `[link.reverse]`, `[[links]]`, `[[flows]]` and `[[flows.streams]]`). For `[a, b]`
/// pairs, `element` is the position in the pair (`None` for plain keys). `None` for a
/// name that is not a numeric key; `[flows.params]` values are the sender's own and
/// checked by it.
pub fn of_key(name: &str, element: Option<usize>) -> Option<Range> {
    Some(match (name, element) {
        ("duration_s", None) => DURATION_S,
        ("sample_interval_ms", None) => SAMPLE_INTERVAL_MS,
        ("seed", None) => SEED,
        ("report_window_s" | "trace_window_s" | "pauses", Some(0 | 1)) => TIME_S,
        ("capacity_mbps", None) => CAPACITY_MBPS,
        ("capacity_steps", Some(0)) | ("loss_steps", Some(0)) => TIME_S,
        ("capacity_steps", Some(1)) => CAPACITY_MBPS,
        ("loss_steps", Some(1)) => PROBABILITY,
        ("loss", None) => LOSS,
        ("trace_time_column" | "trace_rate_column", None) => TRACE_COLUMN,
        ("trace_seconds_per_row", None) => TRACE_SECONDS_PER_ROW,
        ("mahimahi_packet_bytes", None) => MAHIMAHI_PACKET_BYTES,
        ("one_way_delay_ms" | "jitter_ms" | "jitter_max_ms", None) => DELAY_MS,
        ("loss_burst_packets", None) => LOSS_BURST_PACKETS,
        ("start_s" | "stop_s", None) => TIME_S,
        ("priority", None) => PRIORITY,
        ("min_bitrate_mbps" | "start_bitrate_mbps" | "max_bitrate_mbps", None) => BITRATE_MBPS,
        ("packets_per_report", None) => PACKETS_PER_REPORT,
        ("report_window", None) => REPORT_WINDOW,
        ("max_report_interval_ms", None) => REPORT_INTERVAL_MS,
        ("fps", None) => FPS,
        ("sluggishness_s", None) => SLUGGISHNESS_S,
        ("audio_bitrate_kbps", None) => AUDIO_BITRATE_KBPS,
        ("audio_packet_interval_ms", None) => AUDIO_INTERVAL_MS,
        ("phase_ms", None) => PHASE_MS,
        ("trace_offset_frames", None) => TRACE_OFFSET_FRAMES,
        ("nominal_gain", None) => PROBABILITY,
        ("object_min_kb" | "object_max_kb", None) => OBJECT_KB,
        ("idle_mean_s", None) => IDLE_MEAN_S,
        ("mss_bytes", None) => MSS_BYTES,
        ("min_rto_ms", None) => MIN_RTO_MS,
        // The queue's keys, as their models declare them.
        (name, None) => {
            return QueueConfig::keys()
                .find(|k| k.name == name)
                .map(|k| k.range);
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_describe_themselves_as_the_docs_write_them() {
        assert_eq!(DELAY_MS.describe(), "[0, 60000] ms");
        assert_eq!(DURATION_S.describe(), "(0, 1e6] s");
        assert_eq!(CAPACITY_MBPS.describe(), "[0.001, 1e7] Mbit/s, 0 or inf");
        assert_eq!(PRIORITY.describe(), "[0.001, 1000]");
        assert_eq!(LOSS.describe(), "[0, 1)");
        assert!(LOSS.contains(0.999) && !LOSS.contains(1.0));
        assert_eq!(
            DELAY_MS.check(1e30),
            Err("must be in [0, 60000] ms (is 1e30)".to_owned())
        );
    }

    #[test]
    fn special_values_are_only_allowed_where_said() {
        assert!(CAPACITY_MBPS.contains(0.0) && CAPACITY_MBPS.contains(f64::INFINITY));
        assert!(!CAPACITY_MBPS.contains(1e-25) && !CAPACITY_MBPS.contains(f64::NAN));
        assert!(!DELAY_MS.contains(f64::INFINITY) && !DELAY_MS.contains(-0.5));
        assert!(!DURATION_S.contains(0.0) && DURATION_S.contains(1e6));
    }

    #[test]
    fn the_report_limits_are_the_receivers() {
        let most = f64::from(scream::receiver::MAX_REPORT_WINDOW);
        assert_eq!(PACKETS_PER_REPORT.max, most);
        assert_eq!(REPORT_WINDOW.max, most);
    }
}
