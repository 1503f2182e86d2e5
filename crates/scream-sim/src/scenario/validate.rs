//! Range and consistency checks of a [`Scenario`], with errors naming the dotted key.

use super::model::{LinkConfig, QueueConfig, Scenario, SourceConfig, SourceKind};
use std::collections::BTreeSet;

/// A scenario value out of range; displays as `<key> <reason>`, e.g.
/// `link.queue.ramp_max_ms must be > ramp_min_ms`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key} {reason}")]
pub struct ValidationError {
    /// Dotted path of the offending key (`links[1].loss`, `flows[0].source.fps`).
    pub key: String,
    /// Why it is rejected.
    pub reason: String,
}

type Check = Result<(), ValidationError>;

fn fail(key: impl Into<String>, reason: impl Into<String>) -> Check {
    Err(ValidationError {
        key: key.into(),
        reason: reason.into(),
    })
}

fn non_negative(key: &str, v: f64) -> Check {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        fail(key, format!("must be a finite number >= 0 (is {v})"))
    }
}

fn positive(key: &str, v: f64) -> Check {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        fail(key, format!("must be a finite number > 0 (is {v})"))
    }
}

impl Scenario {
    /// Checks every value; the first problem found is returned.
    pub fn validate(&self) -> Check {
        positive("duration_s", self.duration_s)?;
        positive("sample_interval_ms", self.sample_interval_ms)?;
        if let Some([from, to]) = self.report_window_s {
            non_negative("report_window_s", from)?;
            if to.partial_cmp(&from) != Some(core::cmp::Ordering::Greater) {
                return fail("report_window_s", "must be [from, to] with to > from");
            }
        }
        if self.link.is_some() && !self.links.is_empty() {
            return fail(
                "links",
                "cannot be combined with [link]; use one or the other",
            );
        }
        let links = self.link_configs();
        if links.is_empty() {
            return fail("links", "at least one link is required");
        }
        let mut names = BTreeSet::new();
        for (i, l) in links.iter().enumerate() {
            let key = self.link_key(i);
            validate_link(&key, l)?;
            if !names.insert(l.name.as_str()) {
                return fail(
                    format!("{key}.name"),
                    format!("`{}` is used by two links", l.name),
                );
            }
        }
        if self.flows.is_empty() {
            return fail("flows", "at least one flow is required");
        }
        let mut flow_names = BTreeSet::new();
        for (i, f) in self.flows.iter().enumerate() {
            let key = format!("flows[{i}]");
            if !flow_names.insert(self.flow_name(i)) {
                return fail(
                    format!("{key}.name"),
                    format!("`{}` is used by two flows", f.name),
                );
            }
            positive(&format!("{key}.priority"), f.priority)?;
            non_negative(&format!("{key}.start_s"), f.start_s)?;
            non_negative(&format!("{key}.stop_s"), f.stop_s)?;
            if f.stop_s > 0.0 && f.stop_s <= f.start_s {
                return fail(
                    format!("{key}.stop_s"),
                    "must be 0 (until the end) or > start_s",
                );
            }
            if f.start_s >= self.duration_s {
                return fail(format!("{key}.start_s"), "must be < duration_s");
            }
            for (j, p) in f.path.iter().enumerate() {
                if !names.contains(p.as_str()) {
                    return fail(format!("{key}.path[{j}]"), format!("names no link `{p}`"));
                }
            }
            if f.path.len() > usize::from(u8::MAX) {
                return fail(format!("{key}.path"), "is longer than 255 links");
            }
            positive(&format!("{key}.min_bitrate_mbps"), f.min_bitrate_mbps)?;
            if f.start_bitrate_mbps < f.min_bitrate_mbps || f.start_bitrate_mbps.is_nan() {
                return fail(
                    format!("{key}.start_bitrate_mbps"),
                    "must be >= min_bitrate_mbps",
                );
            }
            if f.max_bitrate_mbps < f.start_bitrate_mbps || !f.max_bitrate_mbps.is_finite() {
                return fail(
                    format!("{key}.max_bitrate_mbps"),
                    "must be finite and >= start_bitrate_mbps",
                );
            }
            if f.packets_per_report == 0 {
                return fail(format!("{key}.packets_per_report"), "must be >= 1");
            }
            positive(
                &format!("{key}.max_report_interval_ms"),
                f.max_report_interval_ms,
            )?;
            validate_source(&format!("{key}.source"), &f.source)?;
            for (name, v) in &f.params {
                if !v.is_finite() {
                    return fail(format!("{key}.params.{name}"), "must be a finite number");
                }
            }
        }
        Ok(())
    }
}

fn validate_link(key: &str, l: &LinkConfig) -> Check {
    if l.name.is_empty() {
        return fail(format!("{key}.name"), "must not be empty");
    }
    non_negative(&format!("{key}.capacity_mbps"), l.capacity_mbps)?;
    let mut prev = f64::NEG_INFINITY;
    for (i, [from, mbps]) in l.capacity_steps.iter().copied().enumerate() {
        let k = format!("{key}.capacity_steps[{i}]");
        non_negative(&k, from)?;
        non_negative(&k, mbps)?;
        if from <= prev {
            return fail(k, "steps must be in increasing time order");
        }
        prev = from;
    }
    if l.trace.as_deref().is_some_and(str::is_empty) {
        return fail(format!("{key}.trace"), "must name a file");
    }
    if l.trace_time_column == l.trace_rate_column {
        return fail(
            format!("{key}.trace_rate_column"),
            "must differ from trace_time_column",
        );
    }
    if l.mahimahi_packet_bytes == 0 {
        return fail(format!("{key}.mahimahi_packet_bytes"), "must be >= 1");
    }
    non_negative(&format!("{key}.one_way_delay_ms"), l.one_way_delay_ms)?;
    if let Some(d) = l.return_delay_ms {
        non_negative(&format!("{key}.return_delay_ms"), d)?;
    }
    non_negative(
        &format!("{key}.return_capacity_mbps"),
        l.return_capacity_mbps,
    )?;
    non_negative(&format!("{key}.jitter_ms"), l.jitter_ms)?;
    if let Some(m) = l.jitter_max_ms {
        non_negative(&format!("{key}.jitter_max_ms"), m)?;
    }
    if !(0.0..=1.0).contains(&l.loss) {
        return fail(format!("{key}.loss"), "must be a probability in [0, 1]");
    }
    validate_queue(&format!("{key}.queue"), &l.queue)
}

fn validate_queue(key: &str, q: &QueueConfig) -> Check {
    non_negative(&format!("{key}.limit_ms"), q.limit_ms)?;
    positive(&format!("{key}.codel_target_ms"), q.codel_target_ms)?;
    positive(&format!("{key}.codel_interval_ms"), q.codel_interval_ms)?;
    non_negative(&format!("{key}.ecn_threshold_ms"), q.ecn_threshold_ms)?;
    non_negative(&format!("{key}.ramp_min_ms"), q.ramp_min_ms)?;
    if q.ramp_max_ms <= q.ramp_min_ms || !q.ramp_max_ms.is_finite() {
        return fail(format!("{key}.ramp_max_ms"), "must be > ramp_min_ms");
    }
    positive(&format!("{key}.dualpi2_target_ms"), q.dualpi2_target_ms)?;
    non_negative(&format!("{key}.dualpi2_step_ms"), q.dualpi2_step_ms)?;
    positive(&format!("{key}.dualpi2_coupling"), q.dualpi2_coupling)?;
    positive(&format!("{key}.dualpi2_tupdate_ms"), q.dualpi2_tupdate_ms)?;
    non_negative(&format!("{key}.dualpi2_alpha"), q.dualpi2_alpha)?;
    non_negative(&format!("{key}.dualpi2_beta"), q.dualpi2_beta)
}

fn validate_source(key: &str, s: &SourceConfig) -> Check {
    match s.kind {
        SourceKind::VideoTrace | SourceKind::VideoConstant => {
            if s.kind == SourceKind::VideoTrace && s.trace.is_empty() {
                return fail(format!("{key}.trace"), "must name a frame-size trace");
            }
            positive(&format!("{key}.fps"), s.fps)?;
            non_negative(&format!("{key}.sluggishness_s"), s.sluggishness_s)
        }
        SourceKind::Audio => {
            positive(&format!("{key}.audio_bitrate_kbps"), s.audio_bitrate_kbps)?;
            positive(
                &format!("{key}.audio_packet_interval_ms"),
                s.audio_packet_interval_ms,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::model::LinkConfig;

    #[test]
    fn default_scenario_is_valid() {
        assert_eq!(Scenario::default().validate(), Ok(()));
    }

    #[test]
    fn inverted_ramp_names_the_key() {
        let mut s = Scenario::default();
        if let Some(l) = s.link.as_mut() {
            l.queue.ramp_max_ms = 4.0;
        }
        let e = s.validate().unwrap_err();
        assert_eq!(
            e.to_string(),
            "link.queue.ramp_max_ms must be > ramp_min_ms"
        );
    }

    #[test]
    fn unknown_link_in_a_flow_path_is_rejected() {
        let mut s = Scenario::default();
        s.flows[0].path = vec!["nowhere".into()];
        assert_eq!(s.validate().unwrap_err().key, "flows[0].path[0]");
    }

    #[test]
    fn link_and_links_together_are_rejected() {
        let s = Scenario {
            links: vec![LinkConfig::default()],
            ..Scenario::default()
        };
        assert_eq!(s.validate().unwrap_err().key, "links");
    }
}
