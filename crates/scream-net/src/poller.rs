//! Waiting for the first of: a datagram on any of an endpoint's sockets, or the
//! earliest deadline of its state machines.

use std::io;
use std::time::Duration;

use crate::clock::Clock;
use crate::socket::EcnSocket;
use crate::stop::{Signal, Stop};
use scream::Instant;

/// Below this, a wait sleeps instead of asking epoll, whose timeout counts whole
/// milliseconds: pacing at a few Mbit/s needs sub-millisecond wake-ups, and a datagram
/// that arrives during so short a sleep waits at most that long in the socket.
const SLEEP_BELOW: Duration = Duration::from_millis(1);
/// The token of a [`Stop`]'s wake-up socket, out of the range sockets count up in.
const STOP_TOKEN: mio::Token = mio::Token(usize::MAX);

/// Wakes an endpoint's loop.
pub struct Poller {
    poll: mio::Poll,
    events: mio::Events,
    next_token: usize,
    /// Its wake-up socket stays registered (and open) as long as the poller lives.
    stop: Option<(Stop, Option<mio::net::UnixStream>)>,
}

impl std::fmt::Debug for Poller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Poller")
            .field("sockets", &self.next_token)
            .field("stop", &self.stop.as_ref().map(|s| s.0.requested()))
            .finish_non_exhaustive()
    }
}

impl Poller {
    /// A poller with no sockets yet.
    pub fn new() -> io::Result<Self> {
        Ok(Self {
            poll: mio::Poll::new()?,
            events: mio::Events::with_capacity(64),
            next_token: 0,
            stop: None,
        })
    }

    /// Ends [`Poller::wait`] as soon as `stop` is requested, and makes
    /// [`Poller::stop_requested`] report it; replaces any earlier one.
    pub fn set_stop(&mut self, mut stop: Stop) -> io::Result<()> {
        let mut wake = stop.take_wake();
        if let Some(w) = &mut wake {
            self.poll
                .registry()
                .register(w, STOP_TOKEN, mio::Interest::READABLE)?;
        }
        if let Some((_, Some(mut old))) = self.stop.take() {
            let _ = self.poll.registry().deregister(&mut old);
        }
        self.stop = Some((stop, wake));
        Ok(())
    }

    /// The signal that asked the loop to stop, if one did.
    pub fn stop_requested(&self) -> Option<Signal> {
        self.stop.as_ref().and_then(|s| s.0.requested())
    }

    /// Wakes the loop when `socket` becomes readable. Readiness is edge-triggered: the
    /// loop must read a socket until [`EcnSocket::recv_each`] says it is drained
    /// before it waits again.
    pub fn register(&mut self, socket: &mut EcnSocket) -> io::Result<()> {
        let token = mio::Token(self.next_token);
        self.next_token += 1;
        self.poll
            .registry()
            .register(socket.source(), token, mio::Interest::READABLE)
    }

    /// Wakes the loop when the file descriptor `fd` (a TUN device) becomes readable;
    /// edge-triggered as [`Poller::register`]. The caller keeps `fd` open while it is
    /// registered.
    #[cfg(unix)]
    pub fn register_fd(&mut self, fd: std::os::fd::RawFd) -> io::Result<()> {
        let token = mio::Token(self.next_token);
        self.next_token += 1;
        self.poll.registry().register(
            &mut mio::unix::SourceFd(&fd),
            token,
            mio::Interest::READABLE,
        )
    }

    /// Stops waking for `socket`.
    pub fn deregister(&mut self, socket: &mut EcnSocket) -> io::Result<()> {
        self.poll.registry().deregister(socket.source())
    }

    /// Returns when a registered socket may have become readable, or at `deadline`
    /// (never later than it, unless the system is late), or at once for a deadline
    /// in the past. `None`: no deadline.
    pub fn wait(&mut self, clock: &Clock, deadline: Option<Instant>) -> io::Result<()> {
        let timeout = deadline.map(|d| {
            clock
                .to_std(d)
                .saturating_duration_since(std::time::Instant::now())
        });
        match timeout {
            Some(left) if left.is_zero() => {}
            Some(left) if left < SLEEP_BELOW => std::thread::sleep(left),
            // Whole milliseconds, rounded down: epoll would round up and wake late.
            Some(left) => self.poll_events(Some(Duration::from_millis(
                u64::try_from(left.as_millis()).unwrap_or(u64::MAX),
            )))?,
            None => self.poll_events(None)?,
        }
        Ok(())
    }

    fn poll_events(&mut self, timeout: Option<Duration>) -> io::Result<()> {
        match self.poll.poll(&mut self.events, timeout) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(()),
            r => r,
        }
    }
}
