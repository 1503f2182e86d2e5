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
}

/// Queues `event`, replacing a pending one of the same kind for the same stream, so the
/// queue stays bounded when the application drains it late.
pub(super) fn push_event(events: &mut VecDeque<Event>, event: Event) {
    let same = |e: &Event| match (e, &event) {
        (Event::TargetBitrate { stream: a, .. }, Event::TargetBitrate { stream: b, .. })
        | (Event::KeyFrameRequest { stream: a }, Event::KeyFrameRequest { stream: b }) => a == b,
        _ => false,
    };
    if let Some(slot) = events.iter_mut().find(|e| same(e)) {
        *slot = event;
    } else {
        events.push_back(event);
    }
}
