//! `Sender`: the library's `scream::sender::Sender` with its call order, times as
//! integer nanoseconds and RFC 8888 bytes in.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use scream::Bitrate;
use scream::sender::{
    EcnMode, FeedbackUse, MediaFrame, SenderConfig, StreamConfig, StreamId, Transmit,
};
use scream::wire::ccfb::{self, ParseOptions, TimestampUnwrapper};

use super::args;
use super::ccfb::{Feedback, with_bytes};
use super::outputs::{Event, SentPacket};
use super::stats;
use crate::catalogue::sender_config;
use crate::errors::{Kind, error};

/// The SCReAM sender: media frames, feedback and time in; packets to send, when to
/// wake up and target bitrates out. It reads no clock and opens no socket.
///
/// `Sender(generation="scream-v2", params=None, ecn="none", improvements=None)`:
/// `generation` is one of `scream.GENERATIONS`; `params` a dict name -> number, the
/// names and units of `scream.params(generation)` (durations in s, bitrates in bit/s),
/// in any order (values bound to each other may be set together); `ecn` the congestion
/// signal asked of the network: `"none"` (delay and loss), `"classic"` (ECT(0)) or
/// `"l4s"` (ECT(1)); `improvements` names opt-in changes to the faithful algorithm
/// (`"fresh-srtt"` is the one `scream send` uses on a real network). A bad name or
/// value raises `ConfigError` with the library's message.
///
/// Times (`now_ns` and the instants returned) are integer nanoseconds on the caller's
/// clock, any epoch: pass `time.monotonic_ns()`. They are the library's own unit, so
/// nothing is rounded; a float is refused.
///
/// Call order: after every input (`on_media_frame`, `on_feedback`, `handle_timeout`)
/// call `poll_transmit` until it returns an int or None, and `poll_event` until None;
/// then sleep until the earlier of `poll_timeout()` and the int `poll_transmit` gave,
/// call `handle_timeout` if `poll_timeout()` is due, and `poll_transmit` again. Waking
/// late is fine (the pacer lets up to 10 ms of missed slots go out back to back); a
/// clock that steps back or jumps is tolerated as the library documents it.
#[pyclass(module = "scream._scream")]
#[derive(Debug)]
pub(crate) struct Sender {
    inner: scream::sender::Sender,
    /// The ids of the streams, by the index Python knows them by.
    streams: Vec<StreamId>,
    /// Extends the peer's 32-bit report timestamps; moved only by feedback the sender
    /// took, so forged or replayed bytes cannot shift how genuine ones are read.
    unwrapper: TimestampUnwrapper,
}

fn ecn_mode(ecn: &str) -> PyResult<EcnMode> {
    match ecn {
        "none" => Ok(EcnMode::None),
        "classic" => Ok(EcnMode::Classic),
        "l4s" => Ok(EcnMode::L4s),
        _ => Err(error(
            Kind::Config,
            format!("ecn: \"none\", \"classic\" or \"l4s\", not {ecn:?}"),
        )),
    }
}

/// `config` with `params` set, each through `SenderConfig::set_param`.
fn apply_params(config: &mut SenderConfig, params: &Bound<'_, PyAny>) -> PyResult<()> {
    let dict = params.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err(format!(
            "params: a dict of parameter name -> number, not {}",
            args::type_name(params)
        ))
    })?;
    let mut items = Vec::with_capacity(dict.len());
    for (k, v) in dict.iter() {
        let name: String = k.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "params: names are str, not {}",
                args::type_name(&k)
            ))
        })?;
        let at = format!("params[{name:?}]");
        let value = args::number(&at, &v, "a number in the unit scream.params() gives")?;
        items.push((name, at, value));
    }
    items.sort_by(|a, b| a.0.cmp(&b.0));
    // `set_param` checks the whole configuration after each value, so a value bound
    // to another one (`ref_wnd_overhead` <= `ref_wnd_overhead_max`) can be refused
    // only because its partner is not set yet: such values wait for another pass.
    // Passes go on while one sets something, so the outcome does not depend on the
    // dict's order, and what is still refused at the end is a real error (the first
    // in name order is reported).
    loop {
        let before = items.len();
        let mut refused = None;
        items.retain(|(name, at, value)| match config.set_param(name, *value) {
            Ok(()) => false,
            Err(e) => {
                refused.get_or_insert_with(|| format!("{at}: {e}"));
                true
            }
        });
        match refused {
            None => return Ok(()),
            Some(message) if items.len() == before => {
                return Err(error(Kind::Config, message));
            }
            Some(_) => {}
        }
    }
}

fn apply_improvements(config: &mut SenderConfig, names: &Bound<'_, PyAny>) -> PyResult<()> {
    let not_names = || {
        PyTypeError::new_err(format!(
            "improvements: an iterable of names (str), not {}",
            args::type_name(names)
        ))
    };
    if names.is_instance_of::<PyString>() {
        return Err(not_names());
    }
    for name in names.try_iter().map_err(|_| not_names())? {
        let name = name?;
        let text: String = name.extract().map_err(|_| not_names())?;
        config
            .improvements
            .set(&text, true)
            .map_err(|e| error(Kind::Config, format!("improvements: {e}")))?;
    }
    Ok(())
}

impl Sender {
    fn stream(&self, v: &Bound<'_, PyAny>) -> PyResult<StreamId> {
        let n = self.streams.len();
        let index = args::uint("stream", v, u64::MAX, "a stream id (int) from add_stream")?;
        usize::try_from(index)
            .ok()
            .and_then(|i| self.streams.get(i).copied())
            .ok_or_else(|| {
                PyValueError::new_err(match n {
                    0 => format!("stream: no stream {index}: add_stream has not been called"),
                    _ => format!("stream: no stream {index} (streams 0..={})", n - 1),
                })
            })
    }
}

#[pymethods]
impl Sender {
    #[new]
    #[pyo3(
        signature = (generation = None, params = None, ecn = None, improvements = None),
        text_signature = "(generation='scream-v2', params=None, ecn='none', improvements=None)"
    )]
    fn new(
        generation: Option<&Bound<'_, PyAny>>,
        params: Option<&Bound<'_, PyAny>>,
        ecn: Option<&Bound<'_, PyAny>>,
        improvements: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut config = sender_config(&args::text("generation", generation, "scream-v2")?)?;
        config.ecn = ecn_mode(&args::text("ecn", ecn, "none")?)?;
        if let Some(names) = improvements.filter(|v| !v.is_none()) {
            apply_improvements(&mut config, names)?;
        }
        if let Some(params) = params.filter(|v| !v.is_none()) {
            apply_params(&mut config, params)?;
        }
        let inner =
            scream::sender::Sender::new(config).map_err(|e| error(Kind::Config, e.to_string()))?;
        Ok(Self {
            inner,
            streams: Vec::new(),
            unwrapper: TimestampUnwrapper::new(),
        })
    }

    /// Adds a media stream and returns its id (0, 1, ... in the order added).
    ///
    /// Bitrates in bit/s: the encoder's lowest and highest useful rates, and the target
    /// before any feedback (brought into [min, max]). `priority` is the stream's
    /// relative share (2.0 gets twice what 1.0 gets). `initial_seq` is the first RTP
    /// sequence number (RFC 3550 recommends a random one). `ConfigError` (a
    /// ValueError) names the argument the library refused (a reused `ssrc`, a rate
    /// outside (0, 100 Gbit/s], more than 64 streams, ...).
    #[pyo3(
        signature = (ssrc, min_bitrate_bps, start_bitrate_bps, max_bitrate_bps, priority = None, initial_seq = None),
        text_signature = "($self, ssrc, min_bitrate_bps, start_bitrate_bps, max_bitrate_bps, priority=1.0, initial_seq=0)"
    )]
    fn add_stream(
        &mut self,
        ssrc: &Bound<'_, PyAny>,
        min_bitrate_bps: &Bound<'_, PyAny>,
        start_bitrate_bps: &Bound<'_, PyAny>,
        max_bitrate_bps: &Bound<'_, PyAny>,
        priority: Option<&Bound<'_, PyAny>>,
        initial_seq: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<usize> {
        let rate = |name: &str, v: &Bound<'_, PyAny>| args::bitrate(name, v).map(Bitrate::from_bps);
        let config = StreamConfig {
            ssrc: args::u32_arg("ssrc", ssrc, "an RTP SSRC (int)")?,
            min_bitrate: rate("min_bitrate_bps", min_bitrate_bps)?,
            start_bitrate: rate("start_bitrate_bps", start_bitrate_bps)?,
            max_bitrate: rate("max_bitrate_bps", max_bitrate_bps)?,
            priority: priority.map_or(Ok(1.0), |p| args::number("priority", p, "a number > 0"))?,
        };
        let initial_seq = initial_seq.map_or(Ok(0), |s| args::seq("initial_seq", s))?;
        let id = self
            .inner
            .add_stream_with_initial_seq(config, initial_seq)
            .map_err(|e| {
                // The library names its fields; Python knows them by argument name.
                let argument = match e.field {
                    "min_bitrate" | "start_bitrate" | "max_bitrate" => format!("{}_bps", e.field),
                    "streams" => "add_stream".to_owned(),
                    other => other.to_owned(),
                };
                error(Kind::Config, format!("{argument}: {e}"))
            })?;
        self.streams.push(id);
        Ok(self.streams.len() - 1)
    }

    /// An encoded frame of `size_bytes` (RTP payload of all its packets) for `stream`
    /// at `now_ns`: it enters the stream's RTP queue, cut into packets of at most the
    /// MSS. `key_frame` marks a key frame.
    #[pyo3(
        signature = (now_ns, stream, size_bytes, key_frame = None),
        text_signature = "($self, now_ns, stream, size_bytes, key_frame=False)"
    )]
    fn on_media_frame(
        &mut self,
        now_ns: &Bound<'_, PyAny>,
        stream: &Bound<'_, PyAny>,
        size_bytes: &Bound<'_, PyAny>,
        key_frame: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let now = args::instant("now_ns", now_ns)?;
        let stream = self.stream(stream)?;
        let size = args::u32_arg("size_bytes", size_bytes, "a frame size in bytes (int)")?;
        let key_frame = key_frame.map_or(Ok(false), |k| args::flag("key_frame", k))?;
        let frame = MediaFrame::new(size).with_key_frame(key_frame);
        self.inner.on_media_frame(now, stream, frame);
        Ok(())
    }

    /// Feedback from the receiver at `now_ns`: RFC 8888 bytes as they arrived (bytes,
    /// bytearray or memoryview; a compound RTCP packet is fine), or a `Feedback`.
    ///
    /// Returns what the sender made of it: `"taken"` (used), `"unproven"` (it named no
    /// packet this sender sent recently, so it changed nothing: forged or misrouted) or
    /// `"stale"` (its report time does not follow the receiver's clock: reordered or
    /// replayed; ignored). Bytes that are not RFC 8888 feedback raise `FeedbackError`
    /// and change nothing.
    fn on_feedback(
        &mut self,
        now_ns: &Bound<'_, PyAny>,
        feedback: &Bound<'_, PyAny>,
    ) -> PyResult<&'static str> {
        let now = args::instant("now_ns", now_ns)?;
        let (used, report_time) = if let Ok(object) = feedback.cast::<Feedback>() {
            let fb = &object.get().inner;
            (self.inner.on_feedback(now, fb), fb.report_time)
        } else {
            let unwrapper = &self.unwrapper;
            let fb = with_bytes("feedback", feedback, |bytes| {
                ccfb::decode_feedback(bytes, &ParseOptions::default(), unwrapper)
            })
            .map_err(|_| {
                PyTypeError::new_err(format!(
                    "feedback: RFC 8888 bytes (bytes, bytearray, memoryview) or a Feedback, \
                     not {}",
                    args::type_name(feedback)
                ))
            })?
            .map_err(|e| error(Kind::Feedback, e.to_string()))?;
            (self.inner.on_feedback(now, &fb), fb.report_time)
        };
        Ok(match used {
            FeedbackUse::Taken => {
                self.unwrapper.accept(report_time);
                "taken"
            }
            FeedbackUse::Unproven => "unproven",
            FeedbackUse::Stale => "stale",
        })
    }

    /// Runs the timers due at `now_ns` (RTP queue discards, in-flight timeouts, the
    /// generation's own). Call it when `poll_timeout()` is reached.
    fn handle_timeout(&mut self, now_ns: &Bound<'_, PyAny>) -> PyResult<()> {
        let now = args::instant("now_ns", now_ns)?;
        self.inner.handle_timeout(now);
        Ok(())
    }

    /// What to send at `now_ns`: a `SentPacket` to send now; an int, the instant (ns,
    /// caller's clock) before which the pacer lets nothing go, to poll again then; or
    /// None when there is nothing to send (empty queues or a full send window) until
    /// the next input. Drain it in a loop:
    ///
    /// ```python
    /// while isinstance(p := sender.poll_transmit(now), SentPacket):
    ///     send(p)
    /// # p is now None, or the int instant to wake up at
    /// ```
    fn poll_transmit(&mut self, py: Python<'_>, now_ns: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let now = args::instant("now_ns", now_ns)?;
        Ok(match self.inner.poll_transmit(now) {
            Transmit::Now(p) => SentPacket {
                stream: p.stream.index(),
                ssrc: p.ssrc,
                seq: p.seq,
                size_bytes: p.size_bytes,
                marker: p.marker,
                ecn: p.ecn.bits(),
                frame_index: p.frame_index,
                frame_enqueued_ns: p.frame_enqueued_at.as_nanos(),
            }
            .into_pyobject(py)?
            .into_any()
            .unbind(),
            Transmit::At(t) => t.as_nanos().into_pyobject(py)?.into_any().unbind(),
            Transmit::Idle => py.None(),
        })
    }

    /// The next instant (ns, caller's clock) at which `handle_timeout` must be called,
    /// or None when no timer runs.
    fn poll_timeout(&self) -> Option<u64> {
        self.inner.poll_timeout().map(|t| t.as_nanos())
    }

    /// The next notification (`Event.TargetBitrate`, `Event.KeyFrameRequest`,
    /// `Event.FrameSkipped`), or None.
    fn poll_event(&mut self) -> Option<Event> {
        while let Some(e) = self.inner.poll_event() {
            if let Some(event) = Event::of(e) {
                return Some(event);
            }
        }
        None
    }

    /// The current target bitrate of `stream`, bit/s: what its encoder should produce.
    fn target_bitrate(&self, stream: &Bound<'_, PyAny>) -> PyResult<f64> {
        let id = self.stream(stream)?;
        Ok(self.inner.target_bitrate(id).bps())
    }

    /// A snapshot of the sender's state as a dict: window and bytes in flight
    /// (`_bytes`), smoothed RTT and queue delay (`_ns`), rates (`_bps`), packet and
    /// feedback counters, per-stream state under `"streams"`, and the generation's own
    /// under `"generation"`.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let name = self.inner.config().generation.name();
        stats::sender(py, &self.inner.stats(), name)
    }

    /// The generation the sender runs.
    #[getter]
    fn generation(&self) -> &'static str {
        self.inner.config().generation.name()
    }

    /// Every parameter `params` can set, with the value the sender runs with.
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let config = self.inner.config();
        let d = PyDict::new(py);
        for name in config.param_names() {
            if let Some(v) = config.get_param(name) {
                d.set_item(name, v)?;
            }
        }
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "Sender(generation='{}', streams={})",
            self.inner.config().generation.name(),
            self.streams.len()
        )
    }
}
