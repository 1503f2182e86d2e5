//! What a valid scenario may still have got wrong: values that run, but most likely not
//! as meant. Each warning names the key to look at; the run goes ahead.

use scream_netmodel::{TableSpec, TimeUnit, table_facts};

use crate::scenario::model::{LinkConfig, Scenario};
use scream_netmodel::keys::number;
use scream_traffic::source::frame_trace::resolve_path;

/// Fastest peak rate a capacity trace plausibly holds, bit/s: 100 Gbit/s, beyond any
/// access or cellular link measured for media. A peak above it is most likely a
/// column in bit/s or kbit/s read as Mbit/s.
pub const MAX_PLAUSIBLE_PEAK_BPS: f64 = 1e11;
/// Slowest peak rate a capacity trace plausibly holds, bit/s: 10 kbit/s carries no
/// video at all. A peak below it is most likely a column in Mbit/s read as bit/s.
pub const MIN_PLAUSIBLE_PEAK_BPS: f64 = 1e4;
/// Widest plausible spacing of a capacity trace's rows, s. Throughput logs are sampled
/// every second or faster; rows a median of more than 10 s apart are most likely a time
/// column in milliseconds read as seconds (1 Hz rows then look 1000 s apart).
pub const MAX_PLAUSIBLE_SPACING_S: f64 = 10.0;

impl Scenario {
    /// Warnings about values that are valid but most likely not what was meant, each
    /// naming the key to set. Reads the link trace files; a trace that cannot be read
    /// gives no warning here (running the scenario reports it).
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        // A warning, not an error: shortening a scenario with `--set duration_s=...`
        // is common, and its report window should not stop the run.
        if let Some([from, _]) = self.report_window_s
            && from >= self.duration_s
        {
            out.push(format!(
                "report_window_s starts at {} s, not before duration_s ({} s): the \
                 summary's window figures cover no time",
                number(from),
                number(self.duration_s)
            ));
        } else if let Some([from, to]) = self.report_window_s
            && to > self.duration_s
        {
            out.push(format!(
                "report_window_s[1] ({}) is beyond duration_s ({}): the window summarises \
                 only [{}, {}] s",
                number(to),
                number(self.duration_s),
                number(from),
                number(self.duration_s)
            ));
        }
        for (i, l) in self.link_configs().iter().enumerate() {
            let key = self.link_key(i);
            self.trace_warnings(&key, l, &mut out);
            if let Some(r) = &l.reverse {
                self.trace_warnings(&format!("{key}.reverse"), r, &mut out);
            }
        }
        out
    }

    fn trace_warnings(&self, key: &str, l: &LinkConfig, out: &mut Vec<String>) {
        let Some(trace) = &l.trace else {
            return;
        };
        let Ok(path) = resolve_path(trace, self.base_dir.as_deref()) else {
            return;
        };
        let Ok(text) = std::fs::read_to_string(&path) else {
            return;
        };
        let spec = TableSpec {
            time_column: l.trace_time_column,
            rate_column: l.trace_rate_column,
            unit: l.trace_rate_unit,
            end: l.trace_end,
            row_ns: l.trace_row_ns(),
        };
        let Some(facts) = table_facts(&text, l.trace_format, &spec, l.trace_time_unit) else {
            return;
        };
        let file = path.display();
        let unit = serde_unit_name(l);
        let units = "\"bps\", \"kbps\", \"mbps\" or \"bytes_per_s\"";
        if facts.peak_bps > MAX_PLAUSIBLE_PEAK_BPS {
            out.push(format!(
                "{key}.trace: read with trace_rate_unit = \"{unit}\", {file} peaks at {} \
                 Mbit/s, faster than any real link: if its rate column is in another unit, \
                 set {key}.trace_rate_unit ({units})",
                number(facts.peak_bps / 1e6)
            ));
        } else if facts.peak_bps > 0.0 && facts.peak_bps < MIN_PLAUSIBLE_PEAK_BPS {
            out.push(format!(
                "{key}.trace: read with trace_rate_unit = \"{unit}\", {file} peaks at {} \
                 kbit/s, too slow to carry video: if its rate column is in another unit, \
                 set {key}.trace_rate_unit ({units})",
                number(facts.peak_bps / 1e3)
            ));
        }
        if l.trace_time_unit == TimeUnit::S && facts.median_spacing_s > MAX_PLAUSIBLE_SPACING_S {
            out.push(format!(
                "{key}.trace: the rows of {file} are a median {} s apart: if its time \
                 column is in milliseconds, set {key}.trace_time_unit = \"ms\"",
                number(facts.median_spacing_s)
            ));
        }
    }
}

/// The rate unit as a scenario file spells it.
fn serde_unit_name(l: &LinkConfig) -> String {
    serde_json::to_value(l.trace_rate_unit)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
