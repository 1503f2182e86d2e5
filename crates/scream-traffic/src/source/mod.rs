//! Media sources: video encoder models and CBR audio.

pub mod frame_trace;
pub mod video;
pub mod video_enc;

pub use frame_trace::{
    BuiltinTrace, FrameTraceError, builtin_frame_trace, load_frame_sizes, parse_frame_sizes,
};
pub use video::Video;
pub use video_enc::VideoEnc;

use scream::sender::MediaFrame;
use scream::{Bitrate, Duration};

/// Constant-bitrate audio: one packet-sized frame per interval; ignores the target.
#[derive(Debug, Clone)]
pub struct Audio {
    packet_bytes: u32,
    bitrate: Bitrate,
}

impl Audio {
    /// Audio at `bitrate` with one packet every `interval`.
    pub fn new(bitrate: Bitrate, interval: Duration) -> Self {
        let bytes = bitrate
            .bytes_in(interval)
            .round()
            .clamp(1.0, f64::from(u32::MAX)) as u32;
        Self {
            packet_bytes: bytes,
            bitrate,
        }
    }
}

/// A media source (an enum: no dynamic dispatch per frame).
#[derive(Debug, Clone)]
pub enum Source {
    /// Video (trace-driven or constant frame size).
    Video(Video),
    /// CBR audio.
    Audio(Audio),
    /// The Ericsson test application's encoder model.
    VideoEnc(VideoEnc),
}

impl Source {
    /// The next frame.
    pub fn next_frame(&mut self) -> MediaFrame {
        match self {
            Self::Video(v) => v.next_frame(),
            Self::Audio(a) => MediaFrame::new(a.packet_bytes),
            Self::VideoEnc(v) => v.next_frame(),
        }
    }

    /// A new encoder target (ignored by audio).
    pub fn set_target(&mut self, target: Bitrate) {
        match self {
            Self::Video(v) => v.set_target(target),
            Self::Audio(_) => {}
            Self::VideoEnc(v) => v.set_target(target),
        }
    }

    /// The encoder's current target.
    pub fn target(&self) -> Bitrate {
        match self {
            Self::Video(v) => v.target(),
            Self::Audio(a) => a.bitrate,
            Self::VideoEnc(v) => v.target(),
        }
    }

    /// Asks for a key frame next (ignored by audio).
    pub fn request_key_frame(&mut self) {
        match self {
            Self::Video(v) => v.request_key_frame(),
            Self::Audio(_) => {}
            Self::VideoEnc(v) => v.request_key_frame(),
        }
    }
}
