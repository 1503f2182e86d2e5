//! Which of the caller's bytes each released packet carries: byte ranges of frames
//! (`on_media_frame`) and whole RTP packets (`on_rtp_packet`), with the caller's
//! handles.

use scream::sender::{
    Event, MediaFrame, MediaPacket, Sender, SenderConfig, SentPacket, StreamConfig, StreamId,
    Transmit,
};
use scream::{Bitrate, Duration, Instant};

fn sender(config: SenderConfig) -> (Sender, StreamId) {
    let mut sender = Sender::new(config).expect("valid config");
    let stream = sender
        .add_stream(StreamConfig {
            ssrc: 7,
            min_bitrate: Bitrate::from_mbps(0.1),
            start_bitrate: Bitrate::from_mbps(1.0),
            max_bitrate: Bitrate::from_mbps(20.0),
            priority: 1.0,
        })
        .expect("valid stream");
    (sender, stream)
}

/// Everything the sender releases from `now` on, time moving to each pacing slot.
fn drain(s: &mut Sender, mut now: Instant) -> Vec<SentPacket> {
    let mut out = Vec::new();
    loop {
        match s.poll_transmit(now) {
            Transmit::Now(p) => out.push(p),
            Transmit::At(t) => now = t,
            _ => return out,
        }
    }
}

#[test]
fn frame_packets_cover_their_frame_in_order_without_gap() {
    let (mut s, stream) = sender(SenderConfig::default());
    let overhead = s.config().rtp_overhead_bytes;
    let t0 = Instant::from_millis(1000);
    let frames = [(11u64, 2500u32), (12, 900), (13, 1000)];
    for (i, &(handle, size)) in frames.iter().enumerate() {
        let at = t0 + Duration::from_millis(20 * i as u64);
        s.on_media_frame(at, stream, MediaFrame::new(size).with_handle(handle));
    }
    let sent = drain(&mut s, t0 + Duration::from_millis(40));
    for &(handle, size) in &frames {
        let packets: Vec<_> = sent.iter().filter(|p| p.handle == handle).collect();
        let mut next = 0;
        for p in &packets {
            assert_eq!(
                p.payload_offset, next,
                "frame {handle}: a gap or an overlap"
            );
            assert_eq!(p.size_bytes, p.payload_len + overhead);
            next += p.payload_len;
        }
        assert_eq!(next, size, "frame {handle}: its packets carry all of it");
        let markers: Vec<_> = packets.iter().map(|p| p.marker).collect();
        assert_eq!(markers.iter().filter(|m| **m).count(), 1);
        assert_eq!(
            markers.last(),
            Some(&true),
            "the marker is on the last packet"
        );
    }
    let handles: Vec<_> = sent.iter().map(|p| p.handle).collect();
    assert!(handles.is_sorted(), "frames leave in order: {handles:?}");
}

#[test]
fn a_frame_without_a_handle_reads_handle_zero() {
    let (mut s, stream) = sender(SenderConfig::default());
    s.on_media_frame(Instant::from_millis(5), stream, MediaFrame::new(1500));
    let sent = drain(&mut s, Instant::from_millis(5));
    let got: Vec<_> = sent
        .iter()
        .map(|p| (p.handle, p.payload_offset, p.payload_len))
        .collect();
    assert_eq!(got, vec![(0, 0, 1000), (0, 1000, 500)]);
}

#[test]
fn rtp_packets_leave_whole_with_their_handles_and_markers() {
    let (mut s, stream) = sender(SenderConfig::default());
    let now = Instant::from_millis(1000);
    // Two frames: three packets, then one; sizes include the packets' own headers.
    let input = [
        (1u64, 1212u32, false),
        (2, 1212, false),
        (3, 412, true),
        (4, 812, true),
    ];
    for &(handle, size, end) in &input {
        let p = MediaPacket::new(size, end).with_handle(handle);
        assert!(s.on_rtp_packet(now, stream, p), "packet {handle} queued");
    }
    let sent = drain(&mut s, now);
    let got: Vec<_> = sent
        .iter()
        .map(|p| (p.handle, p.size_bytes, p.marker))
        .collect();
    let want: Vec<_> = input.iter().map(|&(h, size, end)| (h, size, end)).collect();
    assert_eq!(got, want, "nothing added to a packet, nothing cut");
    assert!(sent.iter().all(|p| p.payload_offset == 0));
    assert!(sent.iter().all(|p| p.payload_len == p.size_bytes));
    let frames: Vec<_> = sent.iter().map(|p| p.frame_index).collect();
    assert_eq!(frames, vec![0, 0, 0, 1], "a frame ends at its marker");
    let seqs: Vec<_> = sent.iter().map(|p| p.seq).collect();
    assert_eq!(seqs, vec![0, 1, 2, 3]);
    assert!(sent.iter().all(|p| p.ssrc == 7));
    let stats = s.stats();
    assert_eq!(stats.streams[0].ssrc, 7);
}

#[test]
fn packets_that_cannot_be_queued_say_so() {
    let (mut s, stream) = sender(SenderConfig::default());
    let now = Instant::from_millis(1);
    assert!(!s.on_rtp_packet(now, stream, MediaPacket::new(0, true)));
    let unknown = {
        let (mut other, _) = sender(SenderConfig::default());
        let extra = StreamConfig {
            ssrc: 8,
            min_bitrate: Bitrate::from_mbps(0.1),
            start_bitrate: Bitrate::from_mbps(1.0),
            max_bitrate: Bitrate::from_mbps(2.0),
            priority: 1.0,
        };
        other.add_stream(extra).expect("a second stream")
    };
    assert!(!s.on_rtp_packet(now, unknown, MediaPacket::new(100, true)));
    assert!(drain(&mut s, now).is_empty());
}

#[test]
fn a_skipped_frame_drops_all_its_packets_and_a_key_frame_passes() {
    // scream-draft00 skips frames once the RTP queue is older than frame_skip_delay
    // (0.1 s); nothing is sent here, so the queue only ages.
    let config = SenderConfig::for_generation("scream-draft00").expect("a known generation");
    let (mut s, stream) = sender(config);
    let t0 = Instant::from_millis(1000);
    assert!(s.on_rtp_packet(t0, stream, MediaPacket::new(1200, true)));
    let late = t0 + Duration::from_millis(300);
    let first = MediaPacket::new(1200, false).with_handle(20);
    assert!(!s.on_rtp_packet(late, stream, first));
    assert!(!s.on_rtp_packet(late, stream, MediaPacket::new(1200, false)));
    assert!(!s.on_rtp_packet(late, stream, MediaPacket::new(300, true)));
    let skipped: Vec<_> = std::iter::from_fn(|| s.poll_event())
        .filter(|e| matches!(e, Event::FrameSkipped { .. }))
        .collect();
    assert_eq!(
        skipped,
        vec![Event::FrameSkipped {
            stream,
            frame_index: 1
        }]
    );
    let key = MediaPacket::new(1200, true).with_key_frame(true);
    assert!(s.on_rtp_packet(late, stream, key.with_handle(30)));
}

#[test]
fn handles_of_a_discarded_queue_never_come_out() {
    let (mut s, stream) = sender(SenderConfig::default());
    let max = s.config().max_rtp_queue_delay;
    let t0 = Instant::from_millis(1000);
    // Fill the queue with more than the start window lets out, then let it grow old.
    for h in 0..40u64 {
        let p = MediaPacket::new(1200, true).with_handle(h);
        s.on_rtp_packet(t0, stream, p);
    }
    let before: Vec<_> = drain(&mut s, t0).iter().map(|p| p.handle).collect();
    assert!(!before.is_empty() && before.len() < 40, "{before:?}");
    let later = t0 + max + Duration::from_millis(1);
    s.handle_timeout(later);
    assert_eq!(s.stats().streams[0].queue_discards, 1);
    // Once the packets in flight have timed out the window is open again.
    let much_later = later + Duration::from_secs(5);
    s.handle_timeout(much_later);
    let fresh = MediaPacket::new(1200, true).with_handle(100);
    assert!(s.on_rtp_packet(much_later, stream, fresh));
    let after: Vec<_> = drain(&mut s, much_later).iter().map(|p| p.handle).collect();
    assert_eq!(after, vec![100], "the discarded handles are gone");
}
