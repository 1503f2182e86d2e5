//! RFC 8888 feedback from Python: `PacketReport`, `Feedback` and the codec
//! (`encode_feedback`, `decode_feedback`), over the library's `wire::ccfb`.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyMemoryView};
use scream::wire::ccfb::{self, CountConvention, ParseOptions, TimestampUnwrapper};
use scream::{Ecn, PacketStatus, RemoteInstant};

use super::args::{self, ECN_NAMES};
use crate::errors::{Kind, error};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PacketReport>()?;
    m.add_class::<Feedback>()?;
    m.add_function(wrap_pyfunction!(encode_feedback, m)?)?;
    m.add_function(wrap_pyfunction!(decode_feedback, m)?)?;
    Ok(())
}

/// What a receiver reports about one RTP packet.
///
/// `PacketReport(ssrc, seq, arrival_ns=None, ecn=0, received=True)`: `arrival_ns` is
/// the arrival on the receiver's clock in integer nanoseconds (None: received, but the
/// time is not representable in the report); `ecn` the codepoint it arrived with
/// (0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE, or that name). `received=False` reports a
/// packet that has not arrived; it then has no arrival time and no ECN.
#[pyclass(module = "scream._scream", frozen, eq, hash, get_all)]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PacketReport {
    /// RTP SSRC of the media stream.
    ssrc: u32,
    /// RTP sequence number (16 bits).
    seq: u16,
    /// Whether the packet arrived.
    received: bool,
    /// Arrival time on the receiver's clock, integer ns; None if not received or not
    /// representable.
    arrival_ns: Option<u64>,
    /// ECN codepoint as received (0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE); 0 if not received.
    ecn: u8,
}

impl PacketReport {
    fn of(r: &scream::PacketReport) -> Self {
        let (received, arrival_ns, ecn) = match r.status {
            PacketStatus::NotReceived => (false, None, 0),
            PacketStatus::Received { arrival, ecn } => {
                (true, arrival.map(RemoteInstant::as_nanos), ecn.bits())
            }
        };
        Self {
            ssrc: r.ssrc,
            seq: r.seq,
            received,
            arrival_ns,
            ecn,
        }
    }

    fn to_library(&self) -> scream::PacketReport {
        scream::PacketReport {
            ssrc: self.ssrc,
            seq: self.seq,
            status: if self.received {
                PacketStatus::Received {
                    arrival: self.arrival_ns.map(RemoteInstant::from_nanos),
                    ecn: Ecn::from_bits(self.ecn),
                }
            } else {
                PacketStatus::NotReceived
            },
        }
    }
}

#[pymethods]
impl PacketReport {
    #[new]
    #[pyo3(
        signature = (ssrc, seq, arrival_ns = None, ecn = None, received = None),
        text_signature = "(ssrc, seq, arrival_ns=None, ecn=0, received=True)"
    )]
    fn new(
        ssrc: &Bound<'_, PyAny>,
        seq: &Bound<'_, PyAny>,
        arrival_ns: Option<&Bound<'_, PyAny>>,
        ecn: Option<&Bound<'_, PyAny>>,
        received: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let received = received.map_or(Ok(true), |r| args::flag("received", r))?;
        let ssrc = args::u32_arg("ssrc", ssrc, "an RTP SSRC (int)")?;
        let seq = args::seq("seq", seq)?;
        let arrival_ns = arrival_ns
            .filter(|a| !a.is_none())
            .map(|a| args::instant("arrival_ns", a).map(|t| t.as_nanos()))
            .transpose()?;
        let ecn = ecn
            .filter(|e| !e.is_none())
            .map(|e| args::ecn("ecn", e))
            .transpose()?;
        if !received && (arrival_ns.is_some() || ecn.is_some()) {
            return Err(PyValueError::new_err(
                "received: a packet reported as not received has no arrival_ns and no ecn",
            ));
        }
        Ok(Self {
            ssrc,
            seq,
            received,
            arrival_ns,
            ecn: ecn.unwrap_or(Ecn::NotEct).bits(),
        })
    }

    /// `__match_args__`: `case PacketReport(ssrc, seq, received, arrival_ns, ecn)`.
    #[classattr]
    fn __match_args__() -> (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    ) {
        ("ssrc", "seq", "received", "arrival_ns", "ecn")
    }

    fn __repr__(&self) -> String {
        if self.received {
            let arrival = self
                .arrival_ns
                .map_or_else(|| "None".to_owned(), |a| a.to_string());
            format!(
                "PacketReport(ssrc={}, seq={}, arrival_ns={arrival}, ecn={} ({}))",
                self.ssrc,
                self.seq,
                self.ecn,
                ECN_NAMES[usize::from(self.ecn & 3)]
            )
        } else {
            format!(
                "PacketReport(ssrc={}, seq={}, received=False)",
                self.ssrc, self.seq
            )
        }
    }
}

/// One feedback report: per-packet reports of one or more media streams, as one RFC
/// 8888 packet carries them.
///
/// `Feedback(report_time_ns, reports)`: `report_time_ns` is when the receiver made the
/// report, on its own clock (integer ns); `reports` an iterable of `PacketReport`.
/// `decode_feedback` makes one from bytes; `encode()` gives the bytes back. On the
/// wire the report time is Q16 seconds (1/65536 s) and arrival times count 1/1024 s
/// back from it, so a round trip through bytes rounds them to those units.
#[pyclass(module = "scream._scream", frozen, eq)]
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Feedback {
    pub(crate) inner: scream::Feedback,
}

#[pymethods]
impl Feedback {
    #[new]
    fn new(report_time_ns: &Bound<'_, PyAny>, reports: &Bound<'_, PyAny>) -> PyResult<Self> {
        let report_time = args::instant("report_time_ns", report_time_ns)?;
        let iter = reports.try_iter().map_err(|_| {
            PyTypeError::new_err(format!(
                "reports: an iterable of PacketReport, not {}",
                args::type_name(reports)
            ))
        })?;
        let mut out = Vec::new();
        for (i, item) in iter.enumerate() {
            let item = item?;
            let report = item.cast::<PacketReport>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "reports[{i}]: a PacketReport, not {}",
                    args::type_name(&item)
                ))
            })?;
            out.push(report.get().to_library());
        }
        Ok(Self {
            inner: scream::Feedback {
                report_time: RemoteInstant::from_nanos(report_time.as_nanos()),
                reports: out,
            },
        })
    }

    /// When the receiver made the report, on its clock, integer ns.
    #[getter]
    fn report_time_ns(&self) -> u64 {
        self.inner.report_time.as_nanos()
    }

    /// The per-packet reports, in order (a new list at each access).
    #[getter]
    fn reports<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.inner.reports.iter().map(PacketReport::of))
    }

    /// The RFC 8888 bytes of this feedback; see `encode_feedback`.
    #[pyo3(
        signature = (sender_ssrc = None, count = None),
        text_signature = "($self, sender_ssrc=0, count='rfc')"
    )]
    fn encode<'py>(
        &self,
        py: Python<'py>,
        sender_ssrc: Option<&Bound<'py, PyAny>>,
        count: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        encode(py, &self.inner, sender_ssrc, count)
    }

    fn __len__(&self) -> usize {
        self.inner.reports.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "Feedback(report_time_ns={}, reports=<{} reports>)",
            self.inner.report_time.as_nanos(),
            self.inner.reports.len()
        )
    }
}

/// `num_reports` as `count` names its convention.
pub(crate) fn convention(count: &str) -> PyResult<CountConvention> {
    match count {
        "rfc" => Ok(CountConvention::Rfc),
        "minus-one" => Ok(CountConvention::MinusOne),
        _ => Err(PyValueError::new_err(format!(
            "count: \"rfc\" (RFC 8888 with erratum 8166) or \"minus-one\" (the Ericsson \
             reference), not {count:?}"
        ))),
    }
}

pub(crate) fn encode<'py>(
    py: Python<'py>,
    feedback: &scream::Feedback,
    sender_ssrc: Option<&Bound<'py, PyAny>>,
    count: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let ssrc = sender_ssrc.map_or(Ok(0), |s| {
        args::u32_arg("sender_ssrc", s, "an RTCP SSRC (int)")
    })?;
    let convention = convention(&args::text("count", count, "rfc")?)?;
    let mut out = Vec::new();
    ccfb::encode_feedback_with(feedback, ssrc, convention, &mut out);
    Ok(PyBytes::new(py, &out))
}

/// Encodes `feedback` (a `Feedback`) as RFC 8888 bytes, ready to send as RTCP.
///
/// `sender_ssrc` is the SSRC of the RTCP packet's sender (the receiver). `count`
/// says how `num_reports` is written: `"rfc"` (the number of reports, RFC 8888 with
/// erratum 8166) or `"minus-one"` (that number minus one, as the Ericsson reference
/// reads it). Feedback too large for one RTCP packet becomes a compound packet.
#[pyfunction]
#[pyo3(
    signature = (feedback, sender_ssrc = None, count = None),
    text_signature = "(feedback, sender_ssrc=0, count='rfc')"
)]
fn encode_feedback<'py>(
    py: Python<'py>,
    feedback: &Bound<'py, PyAny>,
    sender_ssrc: Option<&Bound<'py, PyAny>>,
    count: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let feedback = feedback.cast::<Feedback>().map_err(|_| {
        PyTypeError::new_err(format!(
            "feedback: a Feedback, not {}",
            args::type_name(feedback)
        ))
    })?;
    encode(py, &feedback.get().inner, sender_ssrc, count)
}

/// How `count` tells the parser to read `num_reports`.
fn parse_options(count: &str) -> PyResult<ParseOptions> {
    match count {
        "auto" => Ok(ParseOptions::AUTO),
        "rfc" => Ok(ParseOptions::RFC),
        "minus-one" => Ok(ParseOptions::MINUS_ONE),
        _ => Err(PyValueError::new_err(format!(
            "count: \"auto\", \"rfc\" or \"minus-one\", not {count:?}"
        ))),
    }
}

/// The bytes of `data`: `bytes`, `bytearray` or `memoryview`.
pub(crate) fn with_bytes<T>(
    name: &str,
    data: &Bound<'_, PyAny>,
    f: impl FnOnce(&[u8]) -> T,
) -> PyResult<T> {
    if let Ok(b) = data.cast::<PyBytes>() {
        return Ok(f(b.as_bytes()));
    }
    if let Ok(b) = data.cast::<PyByteArray>() {
        return Ok(f(&b.to_vec()));
    }
    if data.is_instance_of::<PyMemoryView>() {
        let copy = data.call_method0("tobytes")?;
        if let Ok(b) = copy.cast::<PyBytes>() {
            return Ok(f(b.as_bytes()));
        }
    }
    Err(PyTypeError::new_err(format!(
        "{name}: bytes, bytearray or memoryview, not {}",
        args::type_name(data)
    )))
}

/// Decodes RFC 8888 bytes (one CCFB packet, or a compound RTCP packet holding one or
/// more) into a `Feedback`.
///
/// Raises `FeedbackError` with the parser's reason (what is wrong and at which byte
/// offset) for bytes that are not well-formed feedback. Hostile bytes cannot crash it
/// and cost time linear in their length. `count`: `"auto"` (detect per packet whether
/// `num_reports` counts the reports or that number minus one, RFC when ambiguous),
/// `"rfc"` or `"minus-one"`.
///
/// The report timestamp on the wire is 32 bits of Q16 seconds and wraps every 18.2 h;
/// it is decoded as is. `Sender.on_feedback(now_ns, data)` takes the bytes directly and
/// extends the timestamps across wraps itself.
#[pyfunction]
#[pyo3(
    signature = (data, count = None),
    text_signature = "(data, count='auto')"
)]
fn decode_feedback(
    data: &Bound<'_, PyAny>,
    count: Option<&Bound<'_, PyAny>>,
) -> PyResult<Feedback> {
    let options = parse_options(&args::text("count", count, "auto")?)?;
    with_bytes("data", data, |bytes| {
        ccfb::decode_feedback(bytes, &options, &TimestampUnwrapper::new())
    })?
    .map(|inner| Feedback { inner })
    .map_err(|e| error(Kind::Feedback, e.to_string()))
}
