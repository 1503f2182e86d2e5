use super::*;

/// A plausible single-flow run: capacity steps 20 -> 10 -> 20 Mbit/s, the target follows
/// with a lag, delay spikes after the drop.
pub(super) fn synthetic_samples(names: &[&str], duration_s: f64) -> Vec<Sample> {
    let flows = names.len();
    let names: Vec<std::sync::Arc<str>> = names.iter().map(|n| (*n).into()).collect();
    let mut samples = Vec::new();
    let steps = (duration_s / 0.02) as usize;
    for i in 0..steps {
        let t = i as f64 * 0.02;
        let capacity = if (47.74..95.48).contains(&t) {
            10.0
        } else {
            20.0
        };
        for (flow, name) in names.iter().enumerate() {
            let share = capacity / flows as f64;
            let wobble = (t * 3.0 + flow as f64).sin();
            let target = (share * 0.9 + wobble * 0.5).min(1.0 + t * 5.0);
            let after_drop = t - 47.74;
            let spike = if (0.0..1.0).contains(&after_drop) {
                40.0 * (1.0 - after_drop)
            } else {
                0.0
            };
            samples.push(Sample {
                t_s: t,
                flow: name.clone(),
                stream: name.clone(),
                flow_index: flow as u32,
                stream_index: flow as u32,
                target_mbps: Some(target),
                tx_mbps: target * 1.02,
                rx_mbps: (target * 0.98 + wobble * 0.3).max(0.0),
                acked_mbps: Some((target * 0.98 + wobble * 0.3).max(0.0)),
                ref_window_bytes: Some(12_000.0 + 3000.0 * wobble),
                bytes_in_flight: Some(9_000.0 + 2500.0 * (t * 7.0).sin()),
                srtt_ms: Some(4.0 + spike + 0.5 * wobble.abs()),
                est_queue_delay_ms: Some(spike * 0.9 + 0.3 * wobble.abs()),
                sojourn_ms: Some(spike + 2.0 * wobble.abs()),
                rtp_queue_delay_ms: Some(spike * 0.2),
                frame_size_bytes: Some(target * 1e6 / 8.0 / 50.0),
                rx_packets: 20,
                ce_packets: 1,
                ce_packets_total: i as u64,
                lost_packets: 0,
                lost_packets_total: 0,
                capacity_mbps: capacity,
            });
        }
    }
    samples
}

/// A scratch folder removed when the test ends, pass or fail.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl std::ops::Deref for Scratch {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

fn scratch_dir(tag: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("scream-plot-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir is writable");
    Scratch(dir)
}

#[test]
fn every_plot_is_written_as_png_and_svg_with_title_and_axis_units() {
    let samples = synthetic_samples(&["video"], 100.0);
    let input = PlotInput {
        scenario_name: "paper-step",
        samples: &samples,
        footer: "scenario paper-step · seed 1",
        max_bitrate_mbps: &[],
        cdfs: &[],
    };
    let dir = scratch_dir("single");
    let written = write_plots(&input, &dir).expect("plots render");
    assert_eq!(written.len(), 2 * PLOT_NAMES.len());
    for name in PLOT_NAMES {
        let png = std::fs::read(dir.join(format!("{name}.png"))).expect("png written");
        assert_eq!(&png[1..4], b"PNG", "{name}.png has a PNG signature");
        let svg = std::fs::read_to_string(dir.join(format!("{name}.svg"))).expect("svg written");
        assert!(svg.contains("paper-step"), "{name}.svg shows the scenario");
        if name != "delay_cdf" {
            assert!(svg.contains("time (s)"), "{name}.svg labels the time axis");
        }
    }
    let svg = std::fs::read_to_string(dir.join("throughput.svg")).expect("written");
    assert!(svg.contains("Mbit/s") && svg.contains("bottleneck capacity"));
}

#[test]
fn several_flows_get_their_names_in_the_legend() {
    let samples = synthetic_samples(&["video-1", "video-2"], 30.0);
    let input = PlotInput {
        scenario_name: "two-flows",
        samples: &samples,
        footer: "scenario two-flows · seed 1",
        max_bitrate_mbps: &[],
        cdfs: &[],
    };
    let dir = scratch_dir("two");
    write_plots(&input, &dir).expect("plots render");
    let svg = std::fs::read_to_string(dir.join("delay.svg")).expect("written");
    assert!(svg.contains("video-1: path queue delay"));
    assert!(svg.contains("video-2: RTP queue delay"));
}

#[test]
fn an_empty_run_still_renders() {
    let input = PlotInput {
        scenario_name: "empty",
        samples: &[],
        footer: "scenario empty · seed 1",
        max_bitrate_mbps: &[],
        cdfs: &[],
    };
    let dir = scratch_dir("empty");
    write_plots(&input, &dir).expect("empty plots render");
    assert!(dir.join("rtt.png").is_file());
}

#[test]
fn flow_quantities_are_drawn_once_per_flow_and_stream_quantities_per_stream() {
    let mut samples = synthetic_samples(&["video"], 10.0);
    let mut second = samples.clone();
    for s in &mut samples {
        s.stream = "high".into();
    }
    for s in &mut second {
        s.stream = "low".into();
        s.stream_index = 1;
        s.target_mbps = s.target_mbps.map(|t| t / 2.0);
    }
    samples.extend(second);
    let input = PlotInput {
        scenario_name: "two-streams",
        samples: &samples,
        footer: "scenario two-streams · seed 1",
        max_bitrate_mbps: &[],
        cdfs: &[],
    };
    let dir = scratch_dir("streams");
    write_plots(&input, &dir).expect("plots render");
    let window = std::fs::read_to_string(dir.join("window.svg")).expect("written");
    assert!(window.contains("congestion window") && !window.contains("video/"));
    let throughput = std::fs::read_to_string(dir.join("throughput.svg")).expect("written");
    assert!(throughput.contains("video/high: target bitrate"));
    assert!(throughput.contains("video/low: target bitrate"));
}

#[test]
fn the_overview_stacks_every_panel_with_a_legend_and_the_footer() {
    let samples = synthetic_samples(&["video-1", "video-2"], 30.0);
    let input = PlotInput {
        scenario_name: "two-flows",
        samples: &samples,
        footer: "scenario two-flows · seed 7",
        max_bitrate_mbps: &[20.0, 20.0],
        cdfs: &[],
    };
    let dir = scratch_dir("overview");
    write_plots(&input, &dir).expect("plots render");
    let svg = std::fs::read_to_string(dir.join("overview.svg")).expect("written");
    for text in [
        "rate (Mbit/s)",
        "path queue delay (ms)",
        "RTP queue delay (ms)",
        "CE / lost (%)",
        "window (kB)",
        "sRTT (ms)",
        "video-1",
        "video-2",
        "all streams",
        "seed 7",
    ] {
        assert!(svg.contains(text), "overview lacks {text:?}");
    }
    assert!(!svg.contains("(log)"), "comparable rates stay linear");
}

#[test]
fn a_capacity_that_dwarfs_the_flows_gets_a_log_rate_axis() {
    let mut samples = synthetic_samples(&["video"], 10.0);
    for s in &mut samples {
        s.capacity_mbps = 1400.0;
    }
    let input = PlotInput {
        scenario_name: "5g",
        samples: &samples,
        footer: "",
        max_bitrate_mbps: &[],
        cdfs: &[],
    };
    let dir = scratch_dir("log");
    write_plots(&input, &dir).expect("plots render");
    let svg = std::fs::read_to_string(dir.join("overview.svg")).expect("written");
    assert!(svg.contains("rate (Mbit/s) (log)"));
}

#[test]
fn sixteen_flows_each_get_their_own_colour_in_the_legend() {
    let names: Vec<String> = (0..16).map(|i| format!("f{i:02}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let samples = synthetic_samples(&refs, 10.0);
    let input = PlotInput {
        scenario_name: "sixteen",
        samples: &samples,
        footer: "",
        max_bitrate_mbps: &[],
        cdfs: &[],
    };
    let dir = scratch_dir("sixteen");
    write_plots(&input, &dir).expect("plots render");
    let svg = std::fs::read_to_string(dir.join("overview.svg")).expect("written");
    for n in &names {
        assert!(svg.contains(n.as_str()), "legend lacks {n}");
    }
    assert!(!svg.contains("colours repeat"));
}

#[test]
fn the_delay_cdf_draws_each_flow_in_its_overview_colour() {
    let samples = synthetic_samples(&["video-1", "video-2"], 10.0);
    let curve = |scale: f64| -> Vec<(f64, f64)> {
        (0..=10)
            .map(|i| (scale * f64::from(i), f64::from(i) / 10.0))
            .collect()
    };
    let cdfs = [
        FlowCdf {
            flow: "video-1".into(),
            frame_delay_ms: curve(3.0),
            queue_delay_ms: curve(1.0),
        },
        FlowCdf {
            flow: "video-2".into(),
            frame_delay_ms: curve(5.0),
            queue_delay_ms: Vec::new(),
        },
    ];
    let input = PlotInput {
        scenario_name: "two-flows",
        samples: &samples,
        footer: "",
        max_bitrate_mbps: &[],
        cdfs: &cdfs,
    };
    let dir = scratch_dir("cdf");
    write_plots(&input, &dir).expect("plots render");
    let svg = std::fs::read_to_string(dir.join("delay_cdf.svg")).expect("written");
    assert!(svg.contains("frame delay (ms)") && svg.contains("path queue delay (ms)"));
    assert!(svg.contains("video-1") && svg.contains("video-2"));
}

#[test]
fn a_series_a_flow_never_has_gets_no_legend_entry() {
    let mut samples = synthetic_samples(&["video", "tcp"], 10.0);
    // A TCP flow has no target bitrate, RTP queue or delay estimate of its own.
    for s in samples.iter_mut().filter(|s| &*s.flow == "tcp") {
        s.target_mbps = None;
        s.rtp_queue_delay_ms = None;
        s.est_queue_delay_ms = None;
    }
    let input = PlotInput {
        scenario_name: "video-and-tcp",
        samples: &samples,
        footer: "scenario video-and-tcp · seed 1",
        max_bitrate_mbps: &[],
        cdfs: &[],
    };
    let dir = scratch_dir("absent");
    write_plots(&input, &dir).expect("plots render");
    let throughput = std::fs::read_to_string(dir.join("throughput.svg")).expect("written");
    assert!(throughput.contains("video: target bitrate"));
    assert!(throughput.contains("tcp: throughput"));
    assert!(!throughput.contains("tcp: target bitrate"));
    let delay = std::fs::read_to_string(dir.join("delay.svg")).expect("written");
    assert!(delay.contains("video: RTP queue delay"));
    assert!(!delay.contains("tcp: RTP queue delay"));
    assert!(!delay.contains("tcp: estimated queue delay"));
}
