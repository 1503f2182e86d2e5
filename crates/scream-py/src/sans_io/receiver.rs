//! `Receiver`: the library's `scream::receiver::Receiver`, whose reports come out as
//! the RFC 8888 bytes to send back.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use scream::receiver::{ReceivedPacket, ReceiverConfig};
use scream::time::Duration;
use scream::wire::ccfb::{self, CountConvention};

use super::args;
use super::ccfb::convention;
use super::stats;
use crate::errors::{Kind, error};

/// The receiver's parameters by the name `params` takes, with their unit; the fields
/// of the library's `ReceiverConfig`, whose docs give their defaults and ranges.
const PARAMS: [(&str, &str); 5] = [
    ("packets_per_report", "packets"),
    ("max_report_interval", "s"),
    ("report_window", "sequence numbers"),
    ("report_on_marker", "0/1"),
    ("max_ssrcs", "streams"),
];

/// `value` as a whole number no larger than `max`, or why not.
fn whole(name: &str, value: f64, max: u64) -> Result<u64, String> {
    if value.fract() == 0.0 && (0.0..=max as f64).contains(&value) {
        Ok(value as u64)
    } else {
        Err(format!(
            "invalid receiver `{name}`: must be a whole number in [0, {max}] (is {value})"
        ))
    }
}

/// Sets the parameter `name` of `config` to `value`, in the unit `PARAMS` gives.
fn set(config: &mut ReceiverConfig, name: &str, value: f64) -> Result<(), String> {
    match name {
        "packets_per_report" => {
            config.packets_per_report = whole(name, value, u64::from(u32::MAX))? as u32;
        }
        "max_report_interval" => {
            config.max_report_interval = Duration::try_from_secs_f64(value).map_err(|_| {
                format!("invalid receiver `{name}`: must be a duration in s, > 0 (is {value})")
            })?;
        }
        "report_window" => config.report_window = whole(name, value, u64::from(u16::MAX))? as u16,
        "report_on_marker" => config.report_on_marker = whole(name, value, 1)? == 1,
        "max_ssrcs" => {
            config.max_ssrcs =
                usize::try_from(whole(name, value, u64::from(u32::MAX))?).unwrap_or(usize::MAX);
        }
        _ => {
            let known: Vec<String> = PARAMS.iter().map(|(n, u)| format!("{n} ({u})")).collect();
            return Err(format!(
                "unknown receiver parameter {name:?}; known: {}",
                known.join(", ")
            ));
        }
    }
    Ok(())
}

/// The value of parameter `name` in `config`, in the unit `PARAMS` gives.
fn get(config: &ReceiverConfig, name: &str) -> f64 {
    match name {
        "packets_per_report" => f64::from(config.packets_per_report),
        "max_report_interval" => config.max_report_interval.as_secs_f64(),
        "report_window" => f64::from(config.report_window),
        "report_on_marker" => f64::from(u8::from(config.report_on_marker)),
        _ => config.max_ssrcs as f64,
    }
}

/// The SCReAM receiver: packets and time in, RFC 8888 feedback out.
///
/// `Receiver(params=None, ssrc=0, count="rfc")`: `params` is a dict name -> number
/// among `packets_per_report` (a report after this many packets; default 16),
/// `max_report_interval` (s: a report at least this often while packets arrive;
/// default 0.04), `report_window` (sequence numbers each report covers per stream;
/// default 64), `report_on_marker` (0/1: a report at the end of each frame; default 1)
/// and `max_ssrcs` (streams whose history is kept; default 64). A bad name or value
/// raises `ConfigError`. `ssrc` is the SSRC the feedback is sent from; `count` how
/// `num_reports` is written (`"rfc"`, or `"minus-one"` for the Ericsson reference).
///
/// Times are integer nanoseconds on the receiver's clock (`time.monotonic_ns()`),
/// exact and in the library's own unit; a float is refused.
///
/// Call order: after each `on_packet`, and when `poll_timeout()` is reached, call
/// `poll_feedback` until it returns None and send each report it gives back to the
/// sender.
#[pyclass(module = "scream._scream")]
#[derive(Debug)]
pub(crate) struct Receiver {
    inner: scream::receiver::Receiver,
    config: ReceiverConfig,
    ssrc: u32,
    count: CountConvention,
    /// Reused for every report's bytes.
    buffer: Vec<u8>,
}

#[pymethods]
impl Receiver {
    #[new]
    #[pyo3(
        signature = (params = None, ssrc = None, count = None),
        text_signature = "(params=None, ssrc=0, count='rfc')"
    )]
    fn new(
        params: Option<&Bound<'_, PyAny>>,
        ssrc: Option<&Bound<'_, PyAny>>,
        count: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut config = ReceiverConfig::default();
        if let Some(params) = params.filter(|p| !p.is_none()) {
            let dict = params.cast::<PyDict>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "params: a dict of parameter name -> number, not {}",
                    args::type_name(params)
                ))
            })?;
            for (k, v) in dict.iter() {
                let name: String = k.extract().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "params: names are str, not {}",
                        args::type_name(&k)
                    ))
                })?;
                let at = format!("params[{name:?}]");
                let value = if v.is_instance_of::<pyo3::types::PyBool>() {
                    f64::from(u8::from(v.extract::<bool>()?))
                } else {
                    args::number(&at, &v, "a number")?
                };
                set(&mut config, &name, value)
                    .map_err(|e| error(Kind::Config, format!("{at}: {e}")))?;
            }
        }
        let ssrc = ssrc
            .filter(|s| !s.is_none())
            .map(|s| args::u32_arg("ssrc", s, "an RTCP SSRC (int)"))
            .transpose()?
            .unwrap_or(0);
        let count = convention(&args::text("count", count, "rfc")?)?;
        let inner = scream::receiver::Receiver::new(config.clone())
            .map_err(|e| error(Kind::Config, e.to_string()))?;
        Ok(Self {
            inner,
            config,
            ssrc,
            count,
            buffer: Vec::new(),
        })
    }

    /// An RTP packet arrived at `now_ns`: its SSRC, 16-bit sequence number, size in
    /// bytes (counted in stats), the ECN codepoint of its IP header (0 Not-ECT,
    /// 1 ECT(1), 2 ECT(0), 3 CE, or that name) and its marker bit.
    #[pyo3(
        signature = (now_ns, ssrc, seq, size_bytes, ecn = None, marker = None),
        text_signature = "($self, now_ns, ssrc, seq, size_bytes, ecn=0, marker=False)"
    )]
    fn on_packet(
        &mut self,
        now_ns: &Bound<'_, PyAny>,
        ssrc: &Bound<'_, PyAny>,
        seq: &Bound<'_, PyAny>,
        size_bytes: &Bound<'_, PyAny>,
        ecn: Option<&Bound<'_, PyAny>>,
        marker: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let packet = ReceivedPacket {
            ssrc: args::u32_arg("ssrc", ssrc, "an RTP SSRC (int)")?,
            seq: args::seq("seq", seq)?,
            size_bytes: args::u32_arg("size_bytes", size_bytes, "a size in bytes (int)")?,
            ecn: ecn.map_or(Ok(scream::Ecn::NotEct), |e| args::ecn("ecn", e))?,
            marker: marker.map_or(Ok(false), |m| args::flag("marker", m))?,
        };
        let now = args::instant("now_ns", now_ns)?;
        self.inner.on_packet(now, packet);
        Ok(())
    }

    /// The next report due at `now_ns` as RFC 8888 bytes to send to the sender, or
    /// None when no report is due.
    fn poll_feedback<'py>(
        &mut self,
        py: Python<'py>,
        now_ns: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let now = args::instant("now_ns", now_ns)?;
        let Some(feedback) = self.inner.poll_feedback(now) else {
            return Ok(None);
        };
        ccfb::encode_feedback_with(&feedback, self.ssrc, self.count, &mut self.buffer);
        Ok(Some(PyBytes::new(py, &self.buffer)))
    }

    /// When the next report falls due if nothing arrives (ns, caller's clock; a past
    /// instant means now), or None when nothing waits to be reported.
    fn poll_timeout(&self) -> Option<u64> {
        self.inner.poll_timeout().map(|t| t.as_nanos())
    }

    /// Counters as a dict: packets and bytes received, duplicates, too old, restarts,
    /// CE-marked, reports made, SSRCs tracked and evicted, clock steps back.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        stats::receiver(py, &self.inner.stats())
    }

    /// Every parameter `params` can set, with the value the receiver runs with.
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, _) in PARAMS {
            d.set_item(name, get(&self.config, name))?;
        }
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!("Receiver(ssrc={})", self.ssrc)
    }
}
