//! The sender element's own thread: it owns the ECN socket, reads feedback, runs the
//! sender's timers, sends what the pacer releases, and tells the encoder the target.
//! It sleeps until the socket is readable, the next deadline, or a wake-up from the
//! streaming thread (a byte on a socket pair), whichever comes first.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use gst::glib;
use gst::prelude::*;
use scream::{Duration, Instant};
use scream_net::poller::Poller;
use scream_net::{Clock, EcnSocket};

use super::core::{Action, Core};
use crate::encoder::{self, Unit};

/// Datagrams read per pass before the timers are served again.
const RECV_BUDGET: usize = 256;

/// How the worker finds and drives the encoder.
#[derive(Debug, Clone)]
pub(crate) struct EncoderSettings {
    /// Element name; empty: the first encoder upstream.
    pub(crate) name: String,
    /// Property to set; empty: the encoder's known one.
    pub(crate) property: String,
    /// Unit of `property`.
    pub(crate) unit: Unit,
}

/// A running worker; dropping it does not stop it, [`Worker::stop`] does.
#[derive(Debug)]
pub(crate) struct Worker {
    thread: Option<JoinHandle<()>>,
    stop: Arc<AtomicBool>,
    wake: UnixStream,
}

impl Worker {
    /// Starts the thread.
    pub(crate) fn spawn(
        element: &gst::Element,
        core: Arc<Mutex<Core>>,
        (socket, peer): (EcnSocket, SocketAddr),
        clock: Clock,
        encoder: EncoderSettings,
        stats_interval: Option<Duration>,
    ) -> std::io::Result<Self> {
        let (wake, woken) = UnixStream::pair()?;
        wake.set_nonblocking(true)?;
        woken.set_nonblocking(true)?;
        let mut socket = socket;
        let mut poller = Poller::new()?;
        poller.register(&mut socket)?;
        poller.register_fd(woken.as_raw_fd())?;
        let stop = Arc::new(AtomicBool::new(false));
        let mut run = Run {
            element: element.downgrade(),
            core,
            socket,
            peer,
            poller,
            clock,
            woken,
            stop: stop.clone(),
            driver: Driver {
                settings: encoder,
                found: None,
                warned: false,
            },
            stats_interval,
            next_stats: None,
        };
        let thread = std::thread::Builder::new()
            .name("screamsend".into())
            .spawn(move || run.run())?;
        Ok(Self {
            thread: Some(thread),
            stop,
            wake,
        })
    }

    /// Wakes the thread: a packet came in.
    pub(crate) fn wake(&self) {
        // A full pipe already holds a wake-up, so a failed write loses nothing.
        let _ = (&self.wake).write(&[1]);
    }

    /// Stops the thread and waits for it.
    pub(crate) fn stop(mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.wake();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The encoder found, and the property and unit it is driven by.
#[derive(Debug)]
struct Driver {
    settings: EncoderSettings,
    found: Option<(glib::WeakRef<gst::Element>, String, Unit)>,
    /// Whether the failure to find or set the encoder was reported already.
    warned: bool,
}

impl Driver {
    fn encoder(&mut self, element: &gst::Element) -> Result<(gst::Element, String, Unit), String> {
        if let Some((weak, prop, unit)) = &self.found {
            if let Some(e) = weak.upgrade() {
                return Ok((e, prop.clone(), *unit));
            }
        }
        let s = &self.settings;
        let found = if s.name.is_empty() {
            let pad = element.static_pad("sink").ok_or("no sink pad")?;
            encoder::find_upstream(&pad).ok_or_else(|| {
                "no encoder upstream (set the `encoder` property to its name)".to_owned()
            })?
        } else {
            encoder::find_by_name(element, &s.name)
                .ok_or_else(|| format!("encoder = `{}`: no element of that name", s.name))?
        };
        let factory = found
            .factory()
            .map(|f| f.name().to_string())
            .unwrap_or_default();
        let (prop, unit) = if s.property.is_empty() {
            let (p, u) = encoder::known_property(&factory).ok_or_else(|| {
                format!("encoder {factory} is not known: set bitrate-property and bitrate-unit")
            })?;
            (p.to_owned(), u)
        } else {
            (s.property.clone(), s.unit)
        };
        self.found = Some((found.downgrade(), prop.clone(), unit));
        Ok((found, prop, unit))
    }

    fn set_target(&mut self, element: &gst::Element, bps: f64) {
        let result = self.encoder(element).and_then(|(enc, prop, unit)| {
            encoder::set_bitrate(&enc, &prop, unit, bps).map(|v| (enc, prop, v))
        });
        let mut msg = gst::Structure::builder("scream-target").field("bitrate", bps as u64);
        match result {
            Ok((enc, prop, v)) => {
                msg = msg
                    .field("encoder", enc.name().as_str())
                    .field("property", prop.as_str())
                    .field("value", v);
            }
            Err(e) if !self.warned => {
                self.warned = true;
                gst::element_warning!(element, gst::LibraryError::Settings, ["{}", e]);
            }
            Err(_) => {}
        }
        let _ = element.post_message(
            gst::message::Element::builder(msg.build())
                .src(element)
                .build(),
        );
    }

    fn key_frame(element: &gst::Element) {
        let event = gst_video::UpstreamForceKeyUnitEvent::builder()
            .all_headers(true)
            .build();
        if let Some(pad) = element.static_pad("sink") {
            pad.push_event(event);
        }
        let msg = gst::Structure::new_empty("scream-key-frame-request");
        let _ = element.post_message(gst::message::Element::builder(msg).src(element).build());
    }
}

struct Run {
    element: glib::WeakRef<gst::Element>,
    core: Arc<Mutex<Core>>,
    socket: EcnSocket,
    peer: SocketAddr,
    poller: Poller,
    clock: Clock,
    woken: UnixStream,
    stop: Arc<AtomicBool>,
    driver: Driver,
    stats_interval: Option<Duration>,
    next_stats: Option<Instant>,
}

impl Run {
    fn run(&mut self) {
        while !self.stop.load(Ordering::SeqCst) {
            let mut drain = [0u8; 64];
            while matches!((&self.woken).read(&mut drain), Ok(n) if n > 0) {}
            let now = self.clock.now();
            let (deadline, actions, stats) = self.serve(now);
            let Some(element) = self.element.upgrade() else {
                return;
            };
            for a in actions {
                match a {
                    Action::Target(bps) => self.driver.set_target(&element, bps),
                    Action::KeyFrame => Driver::key_frame(&element),
                }
            }
            if let Some(s) = stats {
                let msg = gst::message::Element::builder(s).src(&element).build();
                let _ = element.post_message(msg);
            }
            drop(element);
            let wake = [deadline, self.next_stats].into_iter().flatten().min();
            if self.poller.wait(&self.clock, wake).is_err() {
                // A poller that fails cannot wait: sleep instead of spinning.
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
    }

    /// One pass under the lock: feedback, timers, transmissions, events.
    fn serve(&mut self, now: Instant) -> (Option<Instant>, Vec<Action>, Option<gst::Structure>) {
        let mut guard = self.core.lock().unwrap_or_else(PoisonError::into_inner);
        let core = &mut *guard;
        let peer = self.peer;
        let _ = self.socket.recv_each(RECV_BUDGET, |d| {
            if d.from == peer {
                core.on_feedback(now, d.payload);
            } else {
                core.counters.foreign += 1;
            }
        });
        core.on_time(now);
        let socket = &mut self.socket;
        let pacing = core.transmit(now, |bytes, ecn| {
            socket.send(peer, ecn, bytes);
        });
        let actions = core.actions();
        let deadline = [pacing, core.sender.poll_timeout()]
            .into_iter()
            .flatten()
            .min();
        let stats = match (self.stats_interval, self.next_stats) {
            (Some(every), Some(t)) if now >= t => {
                // Late by a whole interval or more: the next one counts from now.
                self.next_stats = Some(if now >= t + every {
                    now + every
                } else {
                    t + every
                });
                Some(core.stats())
            }
            (Some(every), None) => {
                self.next_stats = Some(now + every);
                None
            }
            _ => None,
        };
        (deadline, actions, stats)
    }
}
