//! GStreamer elements driven by the SCReAM congestion controller (plugin `screamrs`):
//!
//! - `screamsend` takes RTP after a payloader, queues and paces it with the library's
//!   [`Sender`](scream::sender::Sender) (whole packets, `on_rtp_packet`), sends it over
//!   UDP with the ECN codepoint of its `ecn` property, reads RFC 8888 feedback on the
//!   same socket, sets the encoder's bitrate, asks it for key frames (an upstream
//!   force-key-unit event) and posts the target on the bus.
//! - `screamrecv` reads RTP from UDP with each datagram's ECN codepoint, answers with
//!   RFC 8888 feedback from the library's [`Receiver`](scream::receiver::Receiver) and
//!   pushes the RTP downstream (to a jitter buffer and a depayloader).
//!
//! The names differ from the Ericsson `gstscream` elements (`screamtx`, `screamrx`),
//! so both plugins can be installed side by side. docs/gstreamer.md has pipelines,
//! properties and the bus messages.

pub mod encoder;
pub mod recv;
pub mod send;
mod settings;

use gst::glib;

fn plugin_init(plugin: &gst::Plugin) -> Result<(), glib::BoolError> {
    send::register(plugin)?;
    recv::register(plugin)?;
    Ok(())
}

gst::plugin_define!(
    screamrs,
    env!("CARGO_PKG_DESCRIPTION"),
    plugin_init,
    env!("CARGO_PKG_VERSION"),
    "MIT/X11",
    env!("CARGO_PKG_NAME"),
    env!("CARGO_PKG_NAME"),
    "scream-toolkit"
);
