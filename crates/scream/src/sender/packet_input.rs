//! The RTP-packet entry point: media that an RTP payloader has already cut into
//! packets (GStreamer's `rtph264pay`, `rtpvp8pay`, ...) enters the RTP queue packet by
//! packet, each to leave whole, instead of as a frame the sender cuts itself.
//!
//! The generation still sees frames: a frame opens with its first packet (which is
//! when frame skipping decides for the whole frame, and when the frame period is
//! measured) and closes with the packet that ends it (which is when the generation
//! is told the frame's size, the sum of its packets, and the targets are updated,
//! as `on_media_frame` does for a whole frame).

use super::events::push_event;
use super::{Event, MediaFrame, Sender, StreamId, scheduler};
use crate::time::{Duration, Instant};

/// One RTP packet handed to [`Sender::on_rtp_packet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct MediaPacket {
    /// The whole RTP packet as it will go on the wire (header included), bytes. It is
    /// accounted as it is: [`SenderConfig::rtp_overhead_bytes`](super::SenderConfig)
    /// is not added.
    pub size_bytes: u32,
    /// Whether the packet is the last of its frame: the RTP marker bit of video
    /// (RFC 3551 §4.1; H.264 and VP8 payloaders set it on a frame's last packet).
    /// For media without frames (audio), pass `true` on every packet.
    pub end_of_frame: bool,
    /// Whether its frame is a key frame (looked at on a frame's first packet).
    pub key_frame: bool,
    /// The caller's name for the packet's bytes, handed back in
    /// [`SentPacket::handle`](super::SentPacket::handle). 0 unless set.
    pub handle: u64,
}

impl MediaPacket {
    /// An RTP packet of `size_bytes`, the last of its frame or not, of a delta frame.
    pub fn new(size_bytes: u32, end_of_frame: bool) -> Self {
        Self {
            size_bytes,
            end_of_frame,
            key_frame: false,
            handle: 0,
        }
    }

    /// The same packet, its frame marked as a key frame or not.
    pub fn with_key_frame(self, key_frame: bool) -> Self {
        Self { key_frame, ..self }
    }

    /// The same packet, its bytes named by `handle`.
    pub fn with_handle(self, handle: u64) -> Self {
        Self { handle, ..self }
    }
}

/// A frame whose packets are coming in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OpenFrame {
    index: u64,
    /// Whether the generation took it (frame skipping decides at its first packet).
    admitted: bool,
    /// Age of the RTP queue just before its first packet.
    queue_delay: Duration,
    /// Bytes and packets queued so far.
    bytes: u32,
    packets: u32,
}

impl Sender {
    /// An RTP packet was produced: it enters the stream's RTP queue to leave whole
    /// (one [`SentPacket`](super::SentPacket) of the same size, `payload_offset` 0,
    /// the caller's `handle`). Returns whether it was queued: not for an unknown
    /// `stream`, an empty packet, or a packet of a frame the generation skips
    /// ([`Event::FrameSkipped`], decided on the frame's first packet).
    ///
    /// Feed one stream through this or through
    /// [`on_media_frame`](Sender::on_media_frame), not both: a frame handed to
    /// `on_media_frame` while a packetised frame is still open (its last packet not
    /// yet in) is queued behind the packets already in, and the open frame goes on.
    pub fn on_rtp_packet(&mut self, now: Instant, stream: StreamId, packet: MediaPacket) -> bool {
        let now = self.clock(now);
        let idx = stream.index();
        let Some(s) = self.streams.get_mut(idx) else {
            return false;
        };
        if packet.size_bytes == 0 {
            return false;
        }
        let mut open = match s.open_frame {
            Some(open) => open,
            None => {
                let index = s.on_frame(now);
                let queue_delay = s.queue.delay(now);
                let frame = MediaFrame::new(packet.size_bytes).with_key_frame(packet.key_frame);
                let admitted = self.generation.admit_frame(idx, frame, queue_delay, now);
                if !admitted {
                    s.frames_skipped += 1;
                    let frame_index = index;
                    push_event(
                        &mut self.events,
                        Event::FrameSkipped {
                            stream,
                            frame_index,
                        },
                    );
                }
                OpenFrame {
                    index,
                    admitted,
                    queue_delay,
                    bytes: 0,
                    packets: 0,
                }
            }
        };
        if open.admitted {
            let was_empty = s.queue.is_empty();
            let ids = (open.index, packet.handle);
            s.queue
                .push_packet(now, ids, packet.size_bytes, packet.end_of_frame);
            if was_empty {
                scheduler::on_backlogged(&mut self.streams, idx);
            }
            self.rate_media.add(now, u64::from(packet.size_bytes));
            open.bytes = open.bytes.saturating_add(packet.size_bytes);
            open.packets = open.packets.saturating_add(1);
        }
        let s = &mut self.streams[idx];
        if !packet.end_of_frame {
            s.open_frame = Some(open);
            self.check_queues(now);
            return open.admitted;
        }
        s.open_frame = None;
        if open.admitted {
            // The generations count a frame as payload plus one accounted header per
            // packet; a packetised frame's headers are inside its packets already.
            let headers = open.packets.saturating_mul(self.config.rtp_overhead_bytes);
            let payload = open.bytes.saturating_sub(headers);
            self.generation.on_frame(idx, s, payload, open.queue_delay);
        }
        self.check_queues(now);
        if self.have_feedback {
            self.update_targets(now);
        } else {
            self.update_pacing_rate();
        }
        open.admitted
    }
}
