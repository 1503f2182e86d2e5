//! `screamrecv`: the element's properties, caps and life cycle.

use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex, PoisonError};

use gst::glib;
use gst::prelude::*;
use gst::subclass::prelude::*;
use gst_base::prelude::*;
use gst_base::subclass::base_src::CreateSuccess;
use gst_base::subclass::prelude::*;
use scream::Duration;
use scream::receiver::ReceiverConfig;
use scream::wire::ccfb::CountConvention;

use super::core::{Counters, RecvCore, count_convention};

static CAT: LazyLock<gst::DebugCategory> = LazyLock::new(|| {
    gst::DebugCategory::new(
        "screamrecv",
        gst::DebugColorFlags::empty(),
        Some("SCReAM RTP receiver"),
    )
});

#[derive(Debug, Clone)]
struct Settings {
    address: String,
    port: u32,
    caps: gst::Caps,
    rtcp_ssrc: u32,
    num_reports: CountConvention,
    packets_per_report: u32,
    max_report_interval_ms: u32,
    stats_interval_ms: u32,
}

impl Default for Settings {
    fn default() -> Self {
        let r = ReceiverConfig::default();
        Self {
            address: "0.0.0.0".into(),
            port: 5000,
            caps: gst::Caps::builder("application/x-rtp").build(),
            rtcp_ssrc: 1,
            num_reports: CountConvention::Rfc,
            packets_per_report: r.packets_per_report,
            max_report_interval_ms: u32::try_from(r.max_report_interval.as_millis()).unwrap_or(40),
            stats_interval_ms: 1000,
        }
    }
}

#[derive(Debug, Default)]
pub struct ScreamRecv {
    settings: Mutex<Settings>,
    core: Mutex<Option<RecvCore>>,
    /// The counters as of the latest pass, for the `stats` property (the core's lock
    /// is held while the streaming thread waits for packets).
    stats: Mutex<(Counters, Option<SocketAddr>)>,
    flushing: AtomicBool,
    wake: Mutex<Option<UnixStream>>,
    next_stats: Mutex<Option<std::time::Instant>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[glib::object_subclass]
impl ObjectSubclass for ScreamRecv {
    const NAME: &'static str = "GstScreamRecv";
    type Type = super::ScreamRecv;
    type ParentType = gst_base::PushSrc;
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

impl ObjectImpl for ScreamRecv {
    fn properties() -> &'static [glib::ParamSpec] {
        static PROPS: LazyLock<Vec<glib::ParamSpec>> = LazyLock::new(|| {
            let d = Settings::default();
            vec![
                glib::ParamSpecString::builder("address")
                    .blurb("Local address to listen on")
                    .default_value(Some(d.address.as_str()))
                    .mutable_ready()
                    .build(),
                uint("port", "UDP port to listen on", (1, 65535, d.port)),
                glib::ParamSpecBoxed::builder::<gst::Caps>("caps")
                    .blurb("Caps of the RTP pushed downstream")
                    .mutable_ready()
                    .build(),
                uint(
                    "rtcp-ssrc",
                    "SSRC of the feedback's sender field",
                    (0, u32::MAX, d.rtcp_ssrc),
                ),
                glib::ParamSpecString::builder("num-reports")
                    .blurb(
                        "How feedback writes num_reports: rfc (the count, RFC 8888) or \
                         minus-one (the count minus one, as Ericsson's screamtx reads it)",
                    )
                    .default_value(Some(d.num_reports.name()))
                    .mutable_ready()
                    .build(),
                uint(
                    "packets-per-report",
                    "A report every this many packets (1..=64)",
                    (1, 64, d.packets_per_report),
                ),
                uint(
                    "max-report-interval",
                    "A report at least this often while packets arrive, ms",
                    (1, 10_000, d.max_report_interval_ms),
                ),
                uint(
                    "stats-interval",
                    "Post the statistics on the bus every this many ms (0: never)",
                    (0, 3_600_000, d.stats_interval_ms),
                ),
                glib::ParamSpecBoxed::builder::<gst::Structure>("stats")
                    .blurb("Statistics of the receiver (read-only)")
                    .read_only()
                    .build(),
            ]
        });
        PROPS.as_ref()
    }

    fn set_property(&self, _id: usize, value: &glib::Value, pspec: &glib::ParamSpec) {
        let mut s = lock(&self.settings);
        let num = || value.get::<u32>().unwrap_or(0);
        match pspec.name() {
            "address" => {
                s.address = value
                    .get::<Option<String>>()
                    .ok()
                    .flatten()
                    .unwrap_or_default()
            }
            "port" => s.port = num(),
            "caps" => {
                s.caps = value
                    .get::<Option<gst::Caps>>()
                    .ok()
                    .flatten()
                    .unwrap_or_else(|| Settings::default().caps);
            }
            "rtcp-ssrc" => s.rtcp_ssrc = num(),
            "num-reports" => {
                let name = value.get::<Option<String>>().ok().flatten();
                match count_convention(name.as_deref().unwrap_or_default()) {
                    Ok(c) => s.num_reports = c,
                    Err(e) => gst::warning!(CAT, imp = self, "{e}"),
                }
            }
            "packets-per-report" => s.packets_per_report = num(),
            "max-report-interval" => s.max_report_interval_ms = num(),
            "stats-interval" => s.stats_interval_ms = num(),
            _ => {}
        }
    }

    fn property(&self, _id: usize, pspec: &glib::ParamSpec) -> glib::Value {
        let s = lock(&self.settings);
        match pspec.name() {
            "address" => s.address.to_value(),
            "port" => s.port.to_value(),
            "caps" => s.caps.to_value(),
            "rtcp-ssrc" => s.rtcp_ssrc.to_value(),
            "num-reports" => s.num_reports.name().to_value(),
            "packets-per-report" => s.packets_per_report.to_value(),
            "max-report-interval" => s.max_report_interval_ms.to_value(),
            "stats-interval" => s.stats_interval_ms.to_value(),
            "stats" => {
                let (c, peer) = *lock(&self.stats);
                c.structure(peer).to_value()
            }
            _ => glib::Value::from_type(pspec.value_type()),
        }
    }

    fn constructed(&self) {
        self.parent_constructed();
        let obj = self.obj();
        obj.set_live(true);
        obj.set_format(gst::Format::Time);
        // Buffers carry their arrival's running time, as udpsrc gives them.
        obj.set_do_timestamp(true);
    }
}

impl ScreamRecv {
    fn setup(&self) -> Result<RecvCore, String> {
        let s = lock(&self.settings).clone();
        let ip: IpAddr = s
            .address
            .parse()
            .map_err(|_| format!("address = `{}`: not an IP address", s.address))?;
        let port = u16::try_from(s.port)
            .map_err(|_| format!("port = {}: must be in [1, 65535]", s.port))?;
        let config = ReceiverConfig {
            packets_per_report: s.packets_per_report,
            max_report_interval: Duration::from_millis(u64::from(s.max_report_interval_ms)),
            ..ReceiverConfig::default()
        };
        let (wake, woken) =
            UnixStream::pair().map_err(|e| format!("cannot make a wake-up pipe: {e}"))?;
        wake.set_nonblocking(true).map_err(|e| e.to_string())?;
        let core = RecvCore::new(
            SocketAddr::new(ip, port),
            config,
            s.rtcp_ssrc,
            s.num_reports,
            woken,
        )?;
        *lock(&self.wake) = Some(wake);
        Ok(core)
    }

    fn post_stats(&self, counters: &Counters, peer: Option<SocketAddr>) {
        *lock(&self.stats) = (*counters, peer);
        let every = lock(&self.settings).stats_interval_ms;
        if every == 0 {
            return;
        }
        let every = std::time::Duration::from_millis(u64::from(every));
        let now = std::time::Instant::now();
        let mut next = lock(&self.next_stats);
        match *next {
            Some(t) if now >= t => {
                *next = Some(if now >= t + every {
                    now + every
                } else {
                    t + every
                });
                let obj = self.obj();
                let msg = gst::message::Element::builder(counters.structure(peer))
                    .src(&*obj)
                    .build();
                let _ = obj.post_message(msg);
            }
            None => *next = Some(now + every),
            _ => {}
        }
    }
}

impl GstObjectImpl for ScreamRecv {}

impl ElementImpl for ScreamRecv {
    fn metadata() -> Option<&'static gst::subclass::ElementMetadata> {
        static META: LazyLock<gst::subclass::ElementMetadata> = LazyLock::new(|| {
            gst::subclass::ElementMetadata::new(
                "SCReAM RTP receiver",
                "Source/Network/RTP",
                "Receives RTP over UDP with ECN and answers with RFC 8888 feedback for a \
                 SCReAM sender",
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
                    "src",
                    gst::PadDirection::Src,
                    gst::PadPresence::Always,
                    &caps,
                )
                .expect("a valid pad template"),
            ]
        });
        PADS.as_ref()
    }
}

impl BaseSrcImpl for ScreamRecv {
    fn start(&self) -> Result<(), gst::ErrorMessage> {
        let core = self
            .setup()
            .map_err(|e| gst::error_msg!(gst::ResourceError::OpenRead, ["{}", e]))?;
        *lock(&self.core) = Some(core);
        *lock(&self.next_stats) = None;
        self.flushing.store(false, Ordering::SeqCst);
        Ok(())
    }

    fn stop(&self) -> Result<(), gst::ErrorMessage> {
        *lock(&self.core) = None;
        *lock(&self.wake) = None;
        Ok(())
    }

    fn caps(&self, filter: Option<&gst::Caps>) -> Option<gst::Caps> {
        let caps = lock(&self.settings).caps.clone();
        Some(match filter {
            Some(f) => f.intersect_with_mode(&caps, gst::CapsIntersectMode::First),
            None => caps,
        })
    }

    fn is_seekable(&self) -> bool {
        false
    }

    fn unlock(&self) -> Result<(), gst::ErrorMessage> {
        self.flushing.store(true, Ordering::SeqCst);
        if let Some(w) = lock(&self.wake).as_ref() {
            let _ = (&*w).write(&[1]);
        }
        Ok(())
    }

    fn unlock_stop(&self) -> Result<(), gst::ErrorMessage> {
        self.flushing.store(false, Ordering::SeqCst);
        Ok(())
    }
}

impl PushSrcImpl for ScreamRecv {
    fn create(
        &self,
        _buffer: Option<&mut gst::BufferRef>,
    ) -> Result<CreateSuccess, gst::FlowError> {
        let mut guard = lock(&self.core);
        let core = guard.as_mut().ok_or(gst::FlowError::Flushing)?;
        let buffer = core
            .next(&self.flushing, |c, peer| self.post_stats(c, peer))
            .map_err(|_| gst::FlowError::Flushing)?;
        Ok(CreateSuccess::NewBuffer(buffer))
    }
}
