//! The facts of a `scream` process that manifest.json records: the build (from
//! build.rs) and the start time. `scream_lab::run_folder` joins them to the run's.

use scream_sim::manifest::Toolkit;

/// This binary's build: version, and the git commit and dirty flag build.rs found.
pub(crate) fn toolkit() -> Toolkit {
    scream_sim::toolkit_of_this_build!()
}

/// Seconds since the Unix epoch; 0 on a clock set before 1970.
pub(crate) fn now_unix_s() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The process's wall clock, for the run times the simulator does not measure itself:
/// Unix time at start plus a monotonic elapsed time, so differences never go backwards.
#[derive(Debug)]
pub(crate) struct WallClock {
    unix_at_start: f64,
    started: std::time::Instant,
}

impl WallClock {
    /// A clock that starts now.
    pub(crate) fn new() -> Self {
        Self {
            unix_at_start: now_unix_s(),
            started: std::time::Instant::now(),
        }
    }
}

impl scream_lab::sweep::Clock for WallClock {
    fn now_unix_s(&self) -> f64 {
        self.unix_at_start + self.started.elapsed().as_secs_f64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolkit_has_the_crate_version_and_a_commit_or_unknown() {
        let t = toolkit();
        assert_eq!(t.version, env!("CARGO_PKG_VERSION"));
        let hex = t.commit.len() == 40 && t.commit.bytes().all(|b| b.is_ascii_hexdigit());
        assert!(hex || t.commit == "unknown", "{}", t.commit);
        if t.commit == "unknown" {
            assert_eq!(t.dirty, None);
        }
    }
}
