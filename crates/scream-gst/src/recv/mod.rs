//! `screamrecv`: a live source that reads RTP from UDP with each datagram's ECN
//! codepoint, answers its sender with RFC 8888 feedback and pushes the RTP downstream.

mod core;
mod imp;

use gst::glib;
use gst::prelude::*;

glib::wrapper! {
    /// The `screamrecv` element.
    pub struct ScreamRecv(ObjectSubclass<imp::ScreamRecv>)
        @extends gst_base::PushSrc, gst_base::BaseSrc, gst::Element, gst::Object;
}

/// Registers `screamrecv` with `plugin`.
pub fn register(plugin: &gst::Plugin) -> Result<(), glib::BoolError> {
    gst::Element::register(
        Some(plugin),
        "screamrecv",
        gst::Rank::NONE,
        ScreamRecv::static_type(),
    )
}
