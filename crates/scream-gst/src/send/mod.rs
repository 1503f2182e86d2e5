//! `screamsend`: a sink for RTP (after any payloader) that queues and paces it with
//! the SCReAM sender, sends it over UDP with the chosen ECN codepoint, reads RFC 8888
//! feedback on the same socket and drives the encoder upstream.

mod core;
mod imp;
mod worker;

use gst::glib;
use gst::prelude::*;

glib::wrapper! {
    /// The `screamsend` element.
    pub struct ScreamSend(ObjectSubclass<imp::ScreamSend>)
        @extends gst_base::BaseSink, gst::Element, gst::Object;
}

/// Registers `screamsend` with `plugin`.
pub fn register(plugin: &gst::Plugin) -> Result<(), glib::BoolError> {
    gst::Element::register(
        Some(plugin),
        "screamsend",
        gst::Rank::NONE,
        ScreamSend::static_type(),
    )
}
