//! The encoder a sender element drives: found upstream (or by name), and its bitrate
//! property set in the unit it takes.

use gst::glib;
use gst::prelude::*;

/// How far upstream the search for an encoder goes (payloader, parsers, queues, tees).
const MAX_HOPS: usize = 16;

/// The unit of an encoder's bitrate property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
    Kbps,
    Bps,
}

impl Unit {
    pub(crate) fn parse(name: &str) -> Result<Self, String> {
        match name {
            "kbit/s" | "kbps" => Ok(Self::Kbps),
            "bit/s" | "bps" => Ok(Self::Bps),
            _ => Err(format!("bitrate-unit = `{name}`: expected kbit/s or bit/s")),
        }
    }

    fn of(self, bps: f64) -> f64 {
        match self {
            Self::Kbps => bps / 1000.0,
            Self::Bps => bps,
        }
    }
}

/// The bitrate property of encoders whose factory is known: x264enc and x265enc take
/// kbit/s in `bitrate`, libvpx's encoders bit/s in `target-bitrate`, openh264enc and
/// libav's encoders bit/s in `bitrate`.
pub(crate) fn known_property(factory: &str) -> Option<(&'static str, Unit)> {
    match factory {
        "x264enc" | "x265enc" | "nvh264enc" | "nvh265enc" | "vaapih264enc" | "vaapih265enc"
        | "vah264enc" | "vah265enc" | "qsvh264enc" | "qsvh265enc" => Some(("bitrate", Unit::Kbps)),
        "vp8enc" | "vp9enc" => Some(("target-bitrate", Unit::Bps)),
        "openh264enc" | "svtav1enc" | "rav1enc" => Some(("bitrate", Unit::Bps)),
        f if f.starts_with("avenc_") => Some(("bitrate", Unit::Bps)),
        _ => None,
    }
}

/// Whether `element` says it is an encoder (its factory's klass).
fn is_encoder(element: &gst::Element) -> bool {
    element.factory().is_some_and(|f| {
        f.metadata(gst::ELEMENT_METADATA_KLASS)
            .is_some_and(|k| k.contains("Encoder"))
    })
}

/// The first encoder upstream of `pad`, following each element's first sink pad.
pub(crate) fn find_upstream(pad: &gst::Pad) -> Option<gst::Element> {
    let mut pad = pad.clone();
    for _ in 0..MAX_HOPS {
        let element = pad.peer()?.parent_element()?;
        if is_encoder(&element) {
            return Some(element);
        }
        pad = element.sink_pads().into_iter().next()?;
    }
    None
}

/// The element named `name` in the pipeline that holds `element`.
pub(crate) fn find_by_name(element: &gst::Element, name: &str) -> Option<gst::Element> {
    let mut top: gst::Object = element.clone().upcast();
    while let Some(parent) = top.parent() {
        top = parent;
    }
    top.downcast::<gst::Bin>().ok()?.by_name(name)
}

/// Sets `property` of `encoder` to `bps` in `unit`, converted to the property's type
/// and clamped to its range. Returns the value set (in the property's unit), or why
/// not.
pub(crate) fn set_bitrate(
    encoder: &gst::Element,
    property: &str,
    unit: Unit,
    bps: f64,
) -> Result<f64, String> {
    let spec = encoder.find_property(property).ok_or_else(|| {
        format!(
            "encoder {} has no property `{property}` (set bitrate-property)",
            encoder.name()
        )
    })?;
    let v = unit.of(bps).round();
    let value: glib::Value = if let Some(p) = spec.downcast_ref::<glib::ParamSpecUInt>() {
        (v.clamp(f64::from(p.minimum()), f64::from(p.maximum())) as u32).to_value()
    } else if let Some(p) = spec.downcast_ref::<glib::ParamSpecInt>() {
        (v.clamp(f64::from(p.minimum()), f64::from(p.maximum())) as i32).to_value()
    } else if let Some(p) = spec.downcast_ref::<glib::ParamSpecUInt64>() {
        (v.clamp(p.minimum() as f64, p.maximum() as f64) as u64).to_value()
    } else if let Some(p) = spec.downcast_ref::<glib::ParamSpecInt64>() {
        (v.clamp(p.minimum() as f64, p.maximum() as f64) as i64).to_value()
    } else if let Some(p) = spec.downcast_ref::<glib::ParamSpecDouble>() {
        v.clamp(p.minimum(), p.maximum()).to_value()
    } else {
        return Err(format!(
            "property `{property}` of encoder {} is a {}, not a number",
            encoder.name(),
            spec.value_type()
        ));
    };
    let set: f64 = if let Ok(x) = value.get::<u32>() {
        f64::from(x)
    } else if let Ok(x) = value.get::<i32>() {
        f64::from(x)
    } else if let Ok(x) = value.get::<u64>() {
        x as f64
    } else if let Ok(x) = value.get::<i64>() {
        x as f64
    } else {
        value.get::<f64>().unwrap_or(v)
    };
    encoder.set_property_from_value(property, &value);
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_encoders_take_their_own_unit() {
        assert_eq!(known_property("x264enc"), Some(("bitrate", Unit::Kbps)));
        assert_eq!(
            known_property("vp8enc"),
            Some(("target-bitrate", Unit::Bps))
        );
        assert_eq!(known_property("avenc_mpeg4"), Some(("bitrate", Unit::Bps)));
        assert_eq!(known_property("identity"), None);
        assert_eq!(Unit::Kbps.of(2_500_000.0), 2500.0);
        assert!(
            Unit::parse("Mbit/s")
                .unwrap_err()
                .contains("kbit/s or bit/s")
        );
    }
}
