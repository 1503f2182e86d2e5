//! Notifications for the application, polled with
//! [`Sender::poll_event`](super::Sender::poll_event).

use std::collections::VecDeque;

use super::StreamId;
use crate::units::Bitrate;

/// Notifications for the application.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// The encoder of `stream` should now produce `bitrate`.
    TargetBitrate {
        /// Stream concerned.
        stream: StreamId,
        /// New target.
        bitrate: Bitrate,
    },
    /// The RTP queue of `stream` was discarded because it grew too old; the encoder
    /// should produce a key frame.
    KeyFrameRequest {
        /// Stream concerned.
        stream: StreamId,
    },
    /// A frame handed to [`Sender::on_media_frame`](super::Sender::on_media_frame)
    /// was not queued, because the stream's RTP queue was already older than the
    /// generation allows (frame skipping; `scream-draft00` only). An encoder whose
    /// next frames predict from it should produce a key frame. While the event waits
    /// to be polled, a later skipped frame of the same stream replaces it;
    /// [`StreamStats::frames_skipped`](super::StreamStats::frames_skipped) counts
    /// them all.
    FrameSkipped {
        /// Stream concerned.
        stream: StreamId,
        /// Index of the skipped frame within its stream, as
        /// [`SentPacket::frame_index`](super::SentPacket::frame_index) numbers the
        /// frames that are sent.
        frame_index: u64,
    },
}

/// Queues `event`, replacing a pending one of the same kind for the same stream, so the
/// queue stays bounded when the application drains it late.
pub(super) fn push_event(events: &mut VecDeque<Event>, event: Event) {
    let same = |e: &Event| match (e, &event) {
        (Event::TargetBitrate { stream: a, .. }, Event::TargetBitrate { stream: b, .. })
        | (Event::KeyFrameRequest { stream: a }, Event::KeyFrameRequest { stream: b })
        | (Event::FrameSkipped { stream: a, .. }, Event::FrameSkipped { stream: b, .. }) => a == b,
        _ => false,
    };
    if let Some(slot) = events.iter_mut().find(|e| same(e)) {
        *slot = event;
    } else {
        events.push_back(event);
    }
}
