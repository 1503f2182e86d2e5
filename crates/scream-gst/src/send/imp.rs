//! `screamsend`: the element's properties, pad and life cycle.

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use gst::glib;
use gst::prelude::*;
use gst::subclass::prelude::*;
use gst_base::prelude::*;
use gst_base::subclass::prelude::*;
use scream::Duration;
use scream::sender::Sender;
use scream_net::{Clock, EcnSocket};

use super::core::Core;
use super::worker::{EncoderSettings, Worker};
use crate::encoder::Unit;
use crate::settings::{MAX_KBPS, SendSettings};

/// The element while it runs.
#[derive(Debug)]
struct Running {
    core: Arc<Mutex<Core>>,
    worker: Worker,
    clock: Clock,
}

#[derive(Debug, Default)]
pub struct ScreamSend {
    settings: Mutex<SendSettings>,
    running: Mutex<Option<Running>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[glib::object_subclass]
impl ObjectSubclass for ScreamSend {
    const NAME: &'static str = "GstScreamSend";
    type Type = super::ScreamSend;
    type ParentType = gst_base::BaseSink;
}

fn string(name: &str, blurb: &str, default: &str) -> glib::ParamSpec {
    glib::ParamSpecString::builder(name)
        .blurb(blurb)
        .default_value(Some(default))
        .mutable_ready()
        .build()
}

fn uint(name: &str, blurb: &str, (min, max, default): (u32, u32, u32)) -> glib::ParamSpec {
    glib::ParamSpecUInt::builder(name)
        .blurb(blurb)
        .minimum(min)
        .maximum(max)
        .default_value(default)
        .mutable_ready()
        .build()
}

impl ObjectImpl for ScreamSend {
    fn properties() -> &'static [glib::ParamSpec] {
        static PROPS: LazyLock<Vec<glib::ParamSpec>> = LazyLock::new(|| {
            let d = SendSettings::default();
            vec![
                string(
                    "host",
                    "Address of the receiver (or of a link in between)",
                    &d.host,
                ),
                uint("port", "UDP port of the receiver", (1, 65535, d.port)),
                uint(
                    "local-port",
                    "Local UDP port (0: any)",
                    (0, 65535, d.local_port),
                ),
                string(
                    "generation",
                    "scream-v2, scream-v1 or scream-draft00",
                    &d.generation,
                ),
                string("ecn", "l4s (ECT(1)), classic (ECT(0)) or none", &d.ecn),
                glib::ParamSpecBoolean::builder("faithful")
                    .blurb("Run the algorithm without the library's real-network improvements")
                    .default_value(d.faithful)
                    .mutable_ready()
                    .build(),
                uint(
                    "min-bitrate",
                    "Lowest target, kbit/s",
                    (1, MAX_KBPS, d.min_kbps),
                ),
                uint(
                    "start-bitrate",
                    "Target before feedback, kbit/s",
                    (1, MAX_KBPS, d.start_kbps),
                ),
                uint(
                    "max-bitrate",
                    "Highest target, kbit/s",
                    (1, MAX_KBPS, d.max_kbps),
                ),
                string(
                    "params",
                    "Sender parameters by name, NAME=VALUE,... (`scream params`)",
                    &d.params,
                ),
                uint(
                    "ssrc",
                    "SSRC the packets leave with (0: the payloader's)",
                    (0, u32::MAX, d.ssrc),
                ),
                string(
                    "encoder",
                    "Name of the encoder to drive (empty: the first upstream)",
                    &d.encoder,
                ),
                string(
                    "bitrate-property",
                    "Encoder property that takes the bitrate (empty: known per encoder)",
                    &d.bitrate_property,
                ),
                string(
                    "bitrate-unit",
                    "Unit of bitrate-property: kbit/s or bit/s",
                    &d.bitrate_unit,
                ),
                uint(
                    "stats-interval",
                    "Post the statistics on the bus every this many ms (0: never)",
                    (0, 3_600_000, d.stats_interval_ms),
                ),
                glib::ParamSpecBoxed::builder::<gst::Structure>("stats")
                    .blurb("Statistics of the sender (read-only)")
                    .read_only()
                    .build(),
            ]
        });
        PROPS.as_ref()
    }

    fn set_property(&self, _id: usize, value: &glib::Value, pspec: &glib::ParamSpec) {
        let mut s = lock(&self.settings);
        let text = || {
            value
                .get::<Option<String>>()
                .ok()
                .flatten()
                .unwrap_or_default()
        };
        let num = || value.get::<u32>().unwrap_or(0);
        match pspec.name() {
            "host" => s.host = text(),
            "port" => s.port = num(),
            "local-port" => s.local_port = num(),
            "generation" => s.generation = text(),
            "ecn" => s.ecn = text(),
            "faithful" => s.faithful = value.get().unwrap_or(false),
            "min-bitrate" => s.min_kbps = num(),
            "start-bitrate" => s.start_kbps = num(),
            "max-bitrate" => s.max_kbps = num(),
            "params" => s.params = text(),
            "ssrc" => s.ssrc = num(),
            "encoder" => s.encoder = text(),
            "bitrate-property" => s.bitrate_property = text(),
            "bitrate-unit" => s.bitrate_unit = text(),
            "stats-interval" => s.stats_interval_ms = num(),
            _ => {}
        }
    }

    fn property(&self, _id: usize, pspec: &glib::ParamSpec) -> glib::Value {
        let s = lock(&self.settings);
        match pspec.name() {
            "host" => s.host.to_value(),
            "port" => s.port.to_value(),
            "local-port" => s.local_port.to_value(),
            "generation" => s.generation.to_value(),
            "ecn" => s.ecn.to_value(),
            "faithful" => s.faithful.to_value(),
            "min-bitrate" => s.min_kbps.to_value(),
            "start-bitrate" => s.start_kbps.to_value(),
            "max-bitrate" => s.max_kbps.to_value(),
            "params" => s.params.to_value(),
            "ssrc" => s.ssrc.to_value(),
            "encoder" => s.encoder.to_value(),
            "bitrate-property" => s.bitrate_property.to_value(),
            "bitrate-unit" => s.bitrate_unit.to_value(),
            "stats-interval" => s.stats_interval_ms.to_value(),
            "stats" => self.stats().to_value(),
            _ => glib::Value::from_type(pspec.value_type()),
        }
    }

    fn constructed(&self) {
        self.parent_constructed();
        // Pacing is the element's own job: buffers are taken as soon as they come,
        // not held until their running time.
        self.obj().set_sync(false);
    }
}

impl ScreamSend {
    fn stats(&self) -> gst::Structure {
        match lock(&self.running).as_ref() {
            Some(r) => lock(&r.core).stats(),
            None => gst::Structure::new_empty("scream-send-stats"),
        }
    }

    fn setup(&self) -> Result<Running, String> {
        let s = lock(&self.settings).clone();
        let config = s.sender_config()?;
        let stream = s.stream_config(1)?;
        let unit = Unit::parse(&s.bitrate_unit)?;
        let port = u16::try_from(s.port)
            .map_err(|_| format!("port = {}: must be in [1, 65535]", s.port))?;
        let peer: SocketAddr = (s.host.as_str(), port)
            .to_socket_addrs()
            .map_err(|e| format!("host = `{}`: {e}", s.host))?
            .next()
            .ok_or_else(|| format!("host = `{}`: no address", s.host))?;
        let local_port = u16::try_from(s.local_port)
            .map_err(|_| format!("local-port = {}: must be in [0, 65535]", s.local_port))?;
        let bind: SocketAddr = if peer.is_ipv4() {
            ([0, 0, 0, 0], local_port).into()
        } else {
            (std::net::Ipv6Addr::UNSPECIFIED, local_port).into()
        };
        let socket = EcnSocket::bind(bind)
            .map_err(|e| format!("local-port = {local_port}: cannot bind {bind}: {e}"))?;
        let sender = Sender::new(config).map_err(|e| format!("params: {e}"))?;
        let core = Arc::new(Mutex::new(Core::new(sender, stream, s.ssrc)));
        let clock = Clock::start();
        let encoder = EncoderSettings {
            name: s.encoder.clone(),
            property: s.bitrate_property.clone(),
            unit,
        };
        let stats = (s.stats_interval_ms > 0)
            .then(|| Duration::from_millis(u64::from(s.stats_interval_ms)));
        let obj = self.obj();
        let worker = Worker::spawn(
            obj.upcast_ref(),
            core.clone(),
            (socket, peer),
            clock,
            encoder,
            stats,
        )
        .map_err(|e| format!("cannot start the sender's thread: {e}"))?;
        Ok(Running {
            core,
            worker,
            clock,
        })
    }
}

impl GstObjectImpl for ScreamSend {}

impl ElementImpl for ScreamSend {
    fn metadata() -> Option<&'static gst::subclass::ElementMetadata> {
        static META: LazyLock<gst::subclass::ElementMetadata> = LazyLock::new(|| {
            gst::subclass::ElementMetadata::new(
                "SCReAM RTP sender",
                "Sink/Network/RTP",
                "Paces RTP with the SCReAM congestion controller over UDP with ECN, reads \
                 RFC 8888 feedback and drives the encoder's bitrate",
                "The SCReAM toolkit authors",
            )
        });
        Some(&*META)
    }

    fn pad_templates() -> &'static [gst::PadTemplate] {
        static PADS: LazyLock<Vec<gst::PadTemplate>> = LazyLock::new(|| {
            let caps = gst::Caps::builder("application/x-rtp").build();
            vec![
                gst::PadTemplate::new(
                    "sink",
                    gst::PadDirection::Sink,
                    gst::PadPresence::Always,
                    &caps,
                )
                .expect("a valid pad template"),
            ]
        });
        PADS.as_ref()
    }
}

impl BaseSinkImpl for ScreamSend {
    fn start(&self) -> Result<(), gst::ErrorMessage> {
        let running = self
            .setup()
            .map_err(|e| gst::error_msg!(gst::ResourceError::Settings, ["{}", e]))?;
        *lock(&self.running) = Some(running);
        Ok(())
    }

    fn stop(&self) -> Result<(), gst::ErrorMessage> {
        if let Some(r) = lock(&self.running).take() {
            r.worker.stop();
        }
        Ok(())
    }

    fn render(&self, buffer: &gst::Buffer) -> Result<gst::FlowSuccess, gst::FlowError> {
        let running = lock(&self.running);
        let Some(r) = running.as_ref() else {
            return Err(gst::FlowError::Flushing);
        };
        let now = r.clock.now();
        lock(&r.core).on_buffer(now, buffer.clone());
        r.worker.wake();
        Ok(gst::FlowSuccess::Ok)
    }
}
