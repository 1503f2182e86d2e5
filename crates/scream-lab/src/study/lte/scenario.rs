//! The scenario of one cell, built from the template `lte-comparison` by copying its
//! video flow once per user and its FTP flow once per background source.

use scream_sim::Scenario;
use scream_sim::scenario::Algorithm;
use scream_sim::scenario::load::load_builtin;
use scream_sim::scenario::model::{FlowConfig, TcpTraffic};

/// The built-in scenario the cells are made from.
pub const TEMPLATE: &str = "lte-comparison";

/// Background sources. Eight on-off sources whose idle time dominates their transfer
/// time make object arrivals close to a Poisson stream (a superposition of renewal
/// processes), as the FTP model of a system simulator has.
pub const FTP_SOURCES: usize = 8;

/// Gap between the start of one video user and the next, s: the users join one after
/// another instead of all in the same instant (their frame phases are random anyway).
pub const USER_STAGGER_S: f64 = 0.1;

/// What every cell shares.
#[derive(Debug, Clone, PartialEq)]
pub struct Setup {
    /// Numbers of video users, one cell each.
    pub users: Vec<usize>,
    /// Offered FTP loads, Mbit/s.
    pub loads_mbps: Vec<f64>,
    /// Algorithms of the video flows.
    pub algorithms: Vec<String>,
    /// The link's capacity trace: a mahimahi file (absolute, or relative to the current
    /// directory) or `synthetic:<name>`.
    pub trace: String,
    /// Simulated time per cell, s.
    pub duration_s: f64,
    /// Master seed of every cell.
    pub seed: u64,
}

/// The size of one FTP object, bytes: the template's `object_max_kb`.
fn object_bytes(ftp: &FlowConfig) -> f64 {
    ftp.tcp_config().object_max_kb * 1000.0
}

/// Mean idle time of each of `sources` on-off sources so that together they start
/// objects of `object_bytes` at `load_mbps` on average, counting the idle time only:
/// a source's cycle is its idle time plus its transfer time, so the load actually
/// offered is somewhat lower, and the report gives the FTP throughput reached.
pub fn idle_mean_s(sources: usize, object_bytes: f64, load_mbps: f64) -> f64 {
    sources as f64 * object_bytes * 8.0 / (load_mbps * 1e6)
}

fn parse_algorithm(name: &str) -> Result<Algorithm, String> {
    let video = || Algorithm::video_names().join(", ");
    let algorithm = Algorithm::named(name).ok_or_else(|| {
        format!(
            "--algorithms {name}: unknown algorithm (video: {})",
            video()
        )
    })?;
    if !algorithm.controls_video() {
        return Err(format!(
            "--algorithms {name}: not a video congestion controller ({})",
            video()
        ));
    }
    Ok(algorithm)
}

/// Checks what a cell's scenario cannot: known video algorithms, user counts, loads
/// and duration in range. The error names the option.
pub fn check(setup: &Setup) -> Result<(), String> {
    for a in &setup.algorithms {
        parse_algorithm(a)?;
    }
    if setup.algorithms.is_empty() {
        return Err("--algorithms: give at least one".to_owned());
    }
    if setup.users.is_empty() || setup.users.iter().any(|&n| n == 0 || n > 64) {
        return Err("--users: each count must be in [1, 64]".to_owned());
    }
    if setup.loads_mbps.is_empty()
        || setup
            .loads_mbps
            .iter()
            .any(|&l| !(l.is_finite() && (0.0..=1000.0).contains(&l)))
    {
        return Err("--loads: each load must be in [0, 1000] Mbit/s (0: no FTP)".to_owned());
    }
    if !(setup.duration_s.is_finite() && setup.duration_s >= 1.0 && setup.duration_s <= 3600.0) {
        return Err(format!(
            "--duration must be in [1, 3600] s (is {})",
            setup.duration_s
        ));
    }
    Ok(())
}

/// The template, with the study's trace, duration and seed.
pub fn template(setup: &Setup) -> Result<Scenario, String> {
    let mut s: Scenario = load_builtin(TEMPLATE, &[]).map_err(|e| e.to_string())?;
    s.duration_s = setup.duration_s;
    s.seed = setup.seed;
    let link = s
        .link
        .as_mut()
        .ok_or_else(|| format!("{TEMPLATE}: the template must have one [link]"))?;
    link.trace = Some(setup.trace.clone());
    Ok(s)
}

/// The scenario of `users` video users of `algorithm` and FTP load `load_mbps` (0: no
/// FTP flow), from `template`: its first media flow is copied as `video1`, `video2`, …
/// starting [`USER_STAGGER_S`] apart, its first TCP flow as `ftp1` … `ftp8` with the
/// idle time of [`idle_mean_s`], their first objects one mean object inter-arrival
/// time apart (closer in a run too short for that) so the load is there from the
/// start.
pub fn build(
    template: &Scenario,
    users: usize,
    load_mbps: f64,
    algorithm: &str,
) -> Result<Scenario, String> {
    let algorithm = parse_algorithm(algorithm)?;
    let video = template
        .flows
        .iter()
        .find(|f| !f.algorithm.is_tcp())
        .ok_or_else(|| format!("{}: no video flow to copy", template.name))?;
    let ftp = template
        .flows
        .iter()
        .find(|f| f.algorithm.is_tcp())
        .ok_or_else(|| format!("{}: no TCP flow to copy", template.name))?;
    let mut s = template.clone();
    s.name = format!(
        "{}-{}-{load_mbps}mbps-{users}users",
        template.name,
        algorithm.name()
    );
    s.flows = (0..users)
        .map(|i| FlowConfig {
            name: format!("video{}", i + 1),
            algorithm,
            start_s: video.start_s + USER_STAGGER_S * i as f64,
            ..video.clone()
        })
        .collect();
    if load_mbps > 0.0 {
        let object = object_bytes(ftp);
        // A run shorter than K inter-arrival times squeezes the starts into it.
        let spacing_s = (object * 8.0 / (load_mbps * 1e6))
            .min((s.duration_s - ftp.start_s).max(0.0) / FTP_SOURCES as f64);
        let mut tcp = ftp.tcp_config();
        tcp.traffic = TcpTraffic::OnOff;
        tcp.idle_mean_s = idle_mean_s(FTP_SOURCES, object, load_mbps);
        for k in 0..FTP_SOURCES {
            s.flows.push(FlowConfig {
                name: format!("ftp{}", k + 1),
                start_s: ftp.start_s + spacing_s * k as f64,
                tcp: Some(tcp.clone()),
                ..ftp.clone()
            });
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> Setup {
        Setup {
            users: vec![1, 4],
            loads_mbps: vec![2.0, 4.0],
            algorithms: vec!["scream-v2".into(), "gcc".into()],
            trace: "synthetic:lte".into(),
            duration_s: 30.0,
            seed: 3,
        }
    }

    #[test]
    fn the_template_loads_with_one_video_and_one_ftp_flow() {
        let t = template(&setup()).expect("template");
        t.validate().expect("valid");
        assert_eq!(t.flows.len(), 2);
        assert!(!t.flows[0].algorithm.is_tcp());
        let tcp = t.flows[1].tcp_config();
        assert_eq!(tcp.traffic, TcpTraffic::OnOff);
        assert_eq!((tcp.object_min_kb, tcp.object_max_kb), (500.0, 500.0));
        assert_eq!(t.duration_s, 30.0);
        assert_eq!(t.seed, 3);
    }

    #[test]
    fn replication_gives_n_users_and_the_sources_of_the_offered_load() {
        let t = template(&setup()).expect("template");
        for (users, load) in [(1, 2.0), (16, 4.0), (3, 0.0)] {
            let s = build(&t, users, load, "gcc").expect("build");
            s.validate().expect("valid");
            let video: Vec<_> = s.flows.iter().filter(|f| !f.algorithm.is_tcp()).collect();
            let ftp: Vec<_> = s.flows.iter().filter(|f| f.algorithm.is_tcp()).collect();
            assert_eq!(video.len(), users);
            assert!(video.iter().all(|f| f.algorithm == Algorithm::Gcc));
            assert_eq!(ftp.len(), if load > 0.0 { FTP_SOURCES } else { 0 });
            let mut names: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), s.flows.len(), "distinct names");
            // Offered load, idle time only: sources x object bits / mean idle time.
            let offered: f64 = ftp
                .iter()
                .map(|f| {
                    let c = f.tcp_config();
                    c.object_max_kb * 8e3 / c.idle_mean_s / 1e6
                })
                .sum();
            assert!((offered - load).abs() < 1e-9, "{offered} vs {load}");
            assert!(ftp.iter().all(|f| f.start_s < s.duration_s));
            let last = video.last().expect("a user").start_s;
            assert!((last - USER_STAGGER_S * (users - 1) as f64).abs() < 1e-9);
        }
    }

    #[test]
    fn idle_time_follows_the_arithmetic() {
        // 8 sources x 4 Mbit / 4 Mbit/s = 8 s; at 2 Mbit/s, 16 s.
        assert!((idle_mean_s(8, 500e3, 4.0) - 8.0).abs() < 1e-12);
        assert!((idle_mean_s(8, 500e3, 2.0) - 16.0).abs() < 1e-12);
    }

    #[test]
    fn bad_options_are_named() {
        let mut s = setup();
        s.algorithms = vec!["tcp-cubic".into()];
        assert!(
            check(&s)
                .expect_err("tcp")
                .contains("--algorithms tcp-cubic")
        );
        s.algorithms = vec!["scream-v9".into()];
        assert!(
            check(&s)
                .expect_err("unknown")
                .contains("unknown algorithm")
        );
        let mut s = setup();
        s.users = vec![0];
        assert!(check(&s).expect_err("users").contains("--users"));
        let mut s = setup();
        s.loads_mbps = vec![-1.0];
        assert!(check(&s).expect_err("loads").contains("--loads"));
        assert!(check(&setup()).is_ok());
    }
}
