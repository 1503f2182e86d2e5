//! Checking what Python passes to the state machines. Every check names the argument
//! and says what it takes, so a mistake reads `size_bytes: must be in [0, 4294967295]
//! (is -1)` rather than a bare conversion error, and nothing reaches the library that
//! it would have to clamp or could panic on.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyString};
use scream::{Ecn, Instant};

/// The Python type name of `v`, for messages.
pub(crate) fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type()
        .name()
        .map_or_else(|_| "object".to_owned(), |n| n.to_string())
}

/// An integer in `[0, max]`. Anything `operator.index` accepts counts (numpy integers
/// too); `bool` does not, although Python makes it an `int`, because `True` where a
/// size or a time belongs is a mistake.
pub(crate) fn uint(name: &str, v: &Bound<'_, PyAny>, max: u64, what: &str) -> PyResult<u64> {
    if v.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!("{name}: {what}, not bool")));
    }
    match v.extract::<u64>() {
        Ok(x) if x <= max => Ok(x),
        // An integer, but outside the range (negative, or past `max`).
        Ok(_) => Err(out_of_range(name, v, max)),
        Err(_) if v.call_method0("__index__").is_ok() => Err(out_of_range(name, v, max)),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{name}: {what}, not {}",
            type_name(v)
        ))),
    }
}

fn out_of_range(name: &str, v: &Bound<'_, PyAny>, max: u64) -> PyErr {
    PyValueError::new_err(format!("{name}: must be in [0, {max}] (is {v})"))
}

/// A time: integer nanoseconds on the caller's clock, as `time.monotonic_ns()` gives.
/// A float is refused rather than rounded: the library counts in nanoseconds, and a
/// float of seconds since boot has lost them after about 100 days.
pub(crate) fn instant(name: &str, v: &Bound<'_, PyAny>) -> PyResult<Instant> {
    uint(
        name,
        v,
        u64::MAX,
        "an int of nanoseconds on the caller's clock (time.monotonic_ns())",
    )
    .map(Instant::from_nanos)
}

/// A 32-bit unsigned value: an SSRC or a byte count.
pub(crate) fn u32_arg(name: &str, v: &Bound<'_, PyAny>, what: &str) -> PyResult<u32> {
    uint(name, v, u64::from(u32::MAX), what).map(|x| x as u32)
}

/// An RTP sequence number, 16 bits (no silent wrap: an extended sequence number is
/// the caller's to reduce).
pub(crate) fn seq(name: &str, v: &Bound<'_, PyAny>) -> PyResult<u16> {
    uint(name, v, u64::from(u16::MAX), "an RTP sequence number (int)").map(|x| x as u16)
}

/// A real number (an int or a float); its range is the library's to check, so the
/// library's message says what the range is.
pub(crate) fn number(name: &str, v: &Bound<'_, PyAny>, what: &str) -> PyResult<f64> {
    if v.is_instance_of::<PyBool>() || v.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{name}: {what}, not {}",
            type_name(v)
        )));
    }
    v.extract::<f64>()
        .map_err(|_| PyTypeError::new_err(format!("{name}: {what}, not {}", type_name(v))))
}

/// A switch: `bool`, or 0 / 1.
pub(crate) fn flag(name: &str, v: &Bound<'_, PyAny>) -> PyResult<bool> {
    if v.is_instance_of::<PyBool>() {
        return v.extract();
    }
    match uint(name, v, 1, "a bool") {
        Ok(x) => Ok(x == 1),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{name}: a bool, not {} {v}",
            type_name(v)
        ))),
    }
}

/// The names of the ECN codepoints, as the library writes them, by wire value.
pub(crate) const ECN_NAMES: [&str; 4] = ["not-ect", "ect1", "ect0", "ce"];

/// An ECN codepoint: its two-bit value in the IP header (0 Not-ECT, 1 ECT(1),
/// 2 ECT(0), 3 CE), which is what a socket's TOS byte carries, or its name.
pub(crate) fn ecn(name: &str, v: &Bound<'_, PyAny>) -> PyResult<Ecn> {
    if v.is_instance_of::<PyString>() {
        let text: String = v.extract()?;
        return ECN_NAMES
            .iter()
            .position(|n| *n == text)
            .map(|bits| Ecn::from_bits(bits as u8))
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "{name}: unknown ECN codepoint {text:?} (known: {}, or 0..3)",
                    ECN_NAMES.join(", ")
                ))
            });
    }
    let bits = uint(
        name,
        v,
        3,
        "an ECN codepoint 0..3 (the IP header's two ECN bits) or its name",
    )?;
    Ok(Ecn::from_bits(bits as u8))
}

/// A str argument, `default` when not given.
pub(crate) fn text(name: &str, v: Option<&Bound<'_, PyAny>>, default: &str) -> PyResult<String> {
    match v {
        None => Ok(default.to_owned()),
        Some(v) => v
            .extract::<String>()
            .map_err(|_| PyTypeError::new_err(format!("{name}: a str, not {}", type_name(v)))),
    }
}

/// A bitrate in bit/s, finite and > 0: the library reads a negative or NaN rate as 0,
/// so its message would no longer show the value given.
pub(crate) fn bitrate(name: &str, v: &Bound<'_, PyAny>) -> PyResult<f64> {
    let bps = number(name, v, "a bitrate in bit/s (int or float)")?;
    if bps.is_finite() && bps > 0.0 {
        Ok(bps)
    } else {
        Err(crate::errors::error(
            crate::errors::Kind::Config,
            format!("{name}: must be a bitrate in (0, 100 Gbit/s], bit/s (is {bps})"),
        ))
    }
}
