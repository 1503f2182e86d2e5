//! Ending a loop early and cleanly on a signal (SIGINT, SIGTERM, SIGHUP), so that a
//! service run ends with its outputs written rather than killed mid-run.
//!
//! Nothing here runs unless asked: a library must not take over a process's signals,
//! so the command line builds a [`Stop`] with [`Stop::on_signals`] and hands it to an
//! endpoint (`stop_on`). The handlers are signal-hook's: one stores the signal's number
//! in an atomic that the loop reads on every pass (cheap enough for a busy loop that
//! never sleeps), another writes a byte into a socket pair registered with the loop's
//! poller (the self-pipe pattern), which wakes a loop asleep in `epoll_wait` even when
//! the signal lands just before it goes to sleep.
//!
//! A second signal of the same set ends the process at once by the signal's default
//! action, for a user whose clean stop hangs (writing plots to a stalled disk, say).

use std::io;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use signal_hook::SigId;
use signal_hook::{flag, low_level};

/// The signals a service stops on: Ctrl-C, `kill`'s default, and a closed terminal.
pub const TERMINATION_SIGNALS: [i32; 3] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
];

/// A signal number, named for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signal(pub i32);

impl Signal {
    /// `SIGINT`, `SIGTERM`, ..., or `signal N` for one the system does not name.
    pub fn name(self) -> String {
        low_level::signal_name(self.0).map_or_else(|| format!("signal {}", self.0), str::to_owned)
    }
}

impl std::fmt::Display for Signal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// A request to stop, set by a signal. Once set it stays set: every later run of the
/// endpoint that holds it ends at once.
#[derive(Debug)]
pub struct Stop {
    /// The number of the last signal caught, 0 for none (no signal is numbered 0).
    caught: Arc<AtomicUsize>,
    /// Read end of the wake-up socket pair, taken by the poller that registers it.
    wake: Option<mio::net::UnixStream>,
    handlers: Vec<SigId>,
}

impl Stop {
    /// Catches `signals` from now on (until dropped). Fails for a signal that cannot be
    /// caught (SIGKILL, SIGSTOP) or a system that refuses a handler.
    pub fn on_signals(signals: &[i32]) -> io::Result<Self> {
        let (read, write) = UnixStream::pair()?;
        read.set_nonblocking(true)?;
        let caught = Arc::new(AtomicUsize::new(0));
        let armed = Arc::new(AtomicBool::new(false));
        let mut stop = Self {
            caught: caught.clone(),
            wake: Some(mio::net::UnixStream::from_std(read)),
            handlers: Vec::new(),
        };
        let forbidden = |sig: i32| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} cannot be caught", Signal(sig)),
            )
        };
        for &sig in signals {
            if signal_hook::consts::FORBIDDEN.contains(&sig) {
                return Err(forbidden(sig));
            }
            let value = usize::try_from(sig).map_err(|_| forbidden(sig))?;
            // Order matters (signal-hook runs a signal's actions in the order they
            // were registered): the default action must test the flag before this
            // signal arms it, so that only a second signal kills; the byte is written
            // after the number is stored, so that a loop woken by it finds the number.
            stop.handlers
                .push(flag::register_conditional_default(sig, armed.clone())?);
            stop.handlers.push(flag::register(sig, armed.clone())?);
            stop.handlers
                .push(flag::register_usize(sig, caught.clone(), value)?);
            stop.handlers
                .push(low_level::pipe::register(sig, write.try_clone()?)?);
        }
        Ok(stop)
    }

    /// The signal that asked to stop, if one did.
    pub fn requested(&self) -> Option<Signal> {
        match self.caught.load(Ordering::SeqCst) {
            0 => None,
            n => Some(Signal(i32::try_from(n).unwrap_or(i32::MAX))),
        }
    }

    /// The read end of the wake-up socket pair, for the poller to register (once).
    pub(crate) fn take_wake(&mut self) -> Option<mio::net::UnixStream> {
        self.wake.take()
    }
}

impl Drop for Stop {
    fn drop(&mut self) {
        for id in self.handlers.drain(..) {
            low_level::unregister(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uncatchable_signals_are_refused_by_name() {
        let e = Stop::on_signals(&[signal_hook::consts::SIGKILL]).unwrap_err();
        assert!(e.to_string().contains("SIGKILL"), "{e}");
    }

    #[test]
    fn a_caught_signal_is_remembered_by_name() {
        // SIGUSR2: no other test in this binary raises it.
        let stop = Stop::on_signals(&[signal_hook::consts::SIGUSR2]).unwrap();
        assert_eq!(stop.requested(), None);
        low_level::raise(signal_hook::consts::SIGUSR2).unwrap();
        let got = stop.requested().expect("the signal was caught");
        assert_eq!(got.name(), "SIGUSR2");
    }
}
