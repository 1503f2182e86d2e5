//! Checks of `tcp-*` flows: their ECN use, the `[flows.tcp]` table, the media keys
//! they do not read, and a path that paces them.

use super::{Check, check, fail};
use crate::scenario::model::{
    Algorithm, DEFAULT_CAPACITY_MBPS, Direction, EcnSetting, FlowConfig, LinkConfig, Scenario,
    StreamConfig, TcpFlowConfig,
};
use crate::scenario::ranges as r;

impl Scenario {
    /// A `tcp-*` flow's keys, and no `[flows.tcp]` on any other flow.
    pub(super) fn validate_tcp(&self, key: &str, f: &FlowConfig) -> Check {
        if !f.algorithm.is_tcp() {
            if f.tcp.is_some() {
                return fail(
                    format!("{key}.tcp"),
                    format!(
                        "applies only to tcp-newreno, tcp-cubic and tcp-prague flows (this \
                         flow is {})",
                        f.algorithm.name()
                    ),
                );
            }
            return Ok(());
        }
        validate_ecn(key, f)?;
        refuse_media_keys(key, f)?;
        validate_table(&format!("{key}.tcp"), &f.tcp_config())?;
        self.validate_paced_path(key, f)
    }

    /// A TCP sender without pacing sends a window at once: some link of its data
    /// route must have a finite capacity at all times, or a window would cross the
    /// path at one instant and be answered at that instant, without end.
    fn validate_paced_path(&self, key: &str, f: &FlowConfig) -> Check {
        let links = self.link_configs();
        let on_path = |i: usize| f.path.is_empty() || f.path.contains(&self.link_name(i));
        let finite = links
            .iter()
            .enumerate()
            .filter(|(i, _)| on_path(*i))
            .any(|(_, l)| match f.direction {
                Direction::Forward => always_finite(l, DEFAULT_CAPACITY_MBPS),
                Direction::Reverse => always_finite(&l.reverse_config(), f64::INFINITY),
            });
        if finite {
            return Ok(());
        }
        fail(
            format!("{key}.path"),
            format!(
                "crosses no link of finite capacity in the direction of the data ({}): a \
                 TCP flow needs one to clock its segments; give a link on the way a \
                 capacity_mbps in {}",
                match f.direction {
                    Direction::Forward => "forward",
                    Direction::Reverse => "reverse",
                },
                r::CAPACITY_MBPS.describe()
            ),
        )
    }
}

/// Whether the direction's capacity is finite throughout the run (0 is finite).
fn always_finite(l: &LinkConfig, default_mbps: f64) -> bool {
    let steps = l.capacity_mbps.unwrap_or(default_mbps).is_finite()
        && l.capacity_steps.iter().all(|[_, mbps]| mbps.is_finite());
    // A trace gives the capacity for the whole run unless it has a window.
    (l.trace.is_some() && l.trace_window_s.is_none()) || steps
}

fn validate_ecn(key: &str, f: &FlowConfig) -> Check {
    let name = f.algorithm.name();
    match (f.algorithm, f.ecn) {
        (Algorithm::TcpPrague, EcnSetting::L4s) => Ok(()),
        (Algorithm::TcpPrague, _) => fail(
            format!("{key}.ecn"),
            "must be \"l4s\" for tcp-prague (an L4S sender sends ECT(1))",
        ),
        (_, EcnSetting::L4s) => fail(
            format!("{key}.ecn"),
            format!(
                "must be \"none\" or \"classic\" for {name}: only tcp-prague answers L4S \
                 marking"
            ),
        ),
        _ => Ok(()),
    }
}

/// The media keys a TCP flow would silently ignore are refused instead.
fn refuse_media_keys(key: &str, f: &FlowConfig) -> Check {
    let flat = FlowConfig::default();
    let stream = StreamConfig::default();
    let set = [
        ("streams", !f.streams.is_empty()),
        ("source", f.source != stream.source),
        ("params", !f.params.is_empty()),
        ("priority", f.priority != stream.priority),
        (
            "min_bitrate_mbps",
            f.min_bitrate_mbps != stream.min_bitrate_mbps,
        ),
        (
            "start_bitrate_mbps",
            f.start_bitrate_mbps != stream.start_bitrate_mbps,
        ),
        (
            "max_bitrate_mbps",
            f.max_bitrate_mbps != stream.max_bitrate_mbps,
        ),
        (
            "packets_per_report",
            f.packets_per_report != flat.packets_per_report,
        ),
        (
            "max_report_interval_ms",
            f.max_report_interval_ms != flat.max_report_interval_ms,
        ),
        ("report_window", f.report_window != flat.report_window),
    ];
    match set.iter().find(|(_, is_set)| *is_set) {
        Some((name, _)) => fail(
            format!("{key}.{name}"),
            format!(
                "is a media key, which a {} flow does not read: remove it (the TCP \
                 connection is set in [flows.tcp])",
                f.algorithm.name()
            ),
        ),
        None => Ok(()),
    }
}

fn validate_table(key: &str, t: &TcpFlowConfig) -> Check {
    check(key, "object_min_kb", r::OBJECT_KB, t.object_min_kb)?;
    check(key, "object_max_kb", r::OBJECT_KB, t.object_max_kb)?;
    if t.object_max_kb < t.object_min_kb {
        return fail(format!("{key}.object_max_kb"), "must be >= object_min_kb");
    }
    check(key, "idle_mean_s", r::IDLE_MEAN_S, t.idle_mean_s)?;
    check(key, "mss_bytes", r::MSS_BYTES, f64::from(t.mss_bytes))?;
    check(key, "min_rto_ms", r::MIN_RTO_MS, t.min_rto_ms)
}

#[cfg(test)]
mod tests {
    use crate::scenario::model::{Algorithm, EcnSetting, FlowConfig, Scenario, TcpFlowConfig};

    fn tcp(algorithm: Algorithm) -> Scenario {
        Scenario {
            flows: vec![FlowConfig {
                algorithm,
                ..FlowConfig::default()
            }],
            ..Scenario::default()
        }
    }

    fn refusal(s: &Scenario) -> String {
        s.validate().unwrap_err().to_string()
    }

    #[test]
    fn a_tcp_flow_with_defaults_is_valid() {
        assert_eq!(tcp(Algorithm::TcpNewreno).validate(), Ok(()));
        assert_eq!(tcp(Algorithm::TcpCubic).validate(), Ok(()));
    }

    #[test]
    fn prague_needs_l4s_and_the_classic_laws_refuse_it() {
        let mut s = tcp(Algorithm::TcpPrague);
        assert!(refusal(&s).starts_with("flows[0].ecn must be \"l4s\""));
        s.flows[0].ecn = EcnSetting::L4s;
        assert_eq!(s.validate(), Ok(()));
        let mut s = tcp(Algorithm::TcpCubic);
        s.flows[0].ecn = EcnSetting::L4s;
        assert!(refusal(&s).starts_with("flows[0].ecn must be \"none\" or \"classic\""));
        s.flows[0].ecn = EcnSetting::Classic;
        assert_eq!(s.validate(), Ok(()));
    }

    #[test]
    fn the_tcp_table_belongs_to_tcp_flows() {
        let mut s = tcp(Algorithm::default());
        s.flows[0].tcp = Some(TcpFlowConfig::default());
        assert_eq!(
            refusal(&s),
            "flows[0].tcp applies only to tcp-newreno, tcp-cubic and tcp-prague flows \
             (this flow is scream-v2)"
        );
    }

    #[test]
    fn media_keys_are_refused_on_tcp_flows() {
        let mut s = tcp(Algorithm::TcpNewreno);
        s.flows[0].start_bitrate_mbps = 3.0;
        assert!(refusal(&s).starts_with("flows[0].start_bitrate_mbps is a media key"));
        let mut s = tcp(Algorithm::TcpNewreno);
        s.flows[0].params.insert("mss_bytes".into(), 1000.0);
        assert!(refusal(&s).starts_with("flows[0].params is a media key"));
    }

    #[test]
    fn tcp_keys_are_checked_against_their_ranges() {
        let mut s = tcp(Algorithm::TcpNewreno);
        let t = TcpFlowConfig {
            mss_bytes: 100,
            ..TcpFlowConfig::default()
        };
        s.flows[0].tcp = Some(t);
        assert_eq!(
            refusal(&s),
            "flows[0].tcp.mss_bytes must be in [536, 65483] bytes (is 100)"
        );
        s.flows[0].tcp = Some(TcpFlowConfig {
            object_min_kb: 60.0,
            ..TcpFlowConfig::default()
        });
        assert_eq!(
            refusal(&s),
            "flows[0].tcp.object_max_kb must be >= object_min_kb"
        );
        s.flows[0].tcp = Some(TcpFlowConfig {
            min_rto_ms: 0.0,
            ..TcpFlowConfig::default()
        });
        assert!(refusal(&s).starts_with("flows[0].tcp.min_rto_ms must be in [1, 60000] ms"));
    }

    #[test]
    fn a_path_of_unlimited_links_is_refused() {
        let mut s = tcp(Algorithm::TcpNewreno);
        s.link.as_mut().unwrap().capacity_mbps = Some(f64::INFINITY);
        assert!(refusal(&s).starts_with("flows[0].path crosses no link of finite capacity"));
        // The reverse direction is unlimited by default: data sent that way is refused.
        let mut s = tcp(Algorithm::TcpNewreno);
        s.flows[0].direction = crate::scenario::model::Direction::Reverse;
        assert!(refusal(&s).contains("(reverse)"));
    }
}
