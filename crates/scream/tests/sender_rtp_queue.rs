//! How the sender's pacing reacts to a backlog in the RTP queue.

use scream::sender::{MediaFrame, Sender, SenderConfig, StreamConfig, StreamId, Transmit};
use scream::{Bitrate, Duration, Instant};

/// Frame period of the synthetic encoder.
const FRAME_PERIOD: Duration = Duration::from_millis(20);
/// A frame whose packets (payload plus RTP headers) stay just under the nominal frame
/// size at the 1 Mbit/s start target and 50 fps (2500 bytes).
const FRAME_BYTES: u32 = 2400;

fn sender(config: SenderConfig) -> (Sender, StreamId) {
    let mut sender = Sender::new(config).expect("valid config");
    let stream = sender
        .add_stream(StreamConfig {
            ssrc: 1,
            min_bitrate: Bitrate::from_mbps(0.1),
            start_bitrate: Bitrate::from_mbps(1.0),
            max_bitrate: Bitrate::from_mbps(20.0),
            priority: 1.0,
        })
        .expect("valid stream");
    (sender, stream)
}

fn frame(sender: &mut Sender, stream: StreamId, now: Instant) {
    sender.on_media_frame(now, stream, MediaFrame::new(FRAME_BYTES));
}

/// Feeds `frames` frames 20 ms apart, releasing packets only at the last
/// frame when `backlog` (the earlier ones pile up in the RTP queue), else after every
/// frame. Returns the pacing gap between the first two packets released at the last
/// frame.
fn gap_after_last_frame(config: SenderConfig, frames: u32, backlog: bool) -> Duration {
    let (mut s, stream) = sender(config);
    let mut now = Instant::from_millis(1000);
    for i in 0..frames {
        frame(&mut s, stream, now);
        if backlog && i + 1 < frames {
            now += FRAME_PERIOD;
            continue;
        }
        let mut first = None;
        loop {
            match s.poll_transmit(now) {
                Transmit::Now(_) => match first {
                    None => first = Some(now),
                    Some(t) if i + 1 == frames => return now.saturating_duration_since(t),
                    Some(_) => {}
                },
                Transmit::At(t) => now = t,
                Transmit::Idle => break,
            }
        }
        now = now.max(Instant::from_millis(1000) + FRAME_PERIOD * (i + 1));
    }
    panic!("the last frame released fewer than two packets");
}

#[test]
fn pacing_speeds_up_by_the_rtp_queue_backlog_not_only_the_last_frame_size() {
    let cfg = SenderConfig::default();
    let scale = cfg.v2().unwrap().max_adaptive_pacing_scale;
    // Five frames of about nominal size: each alone needs no faster pacing, but four of
    // them still queued make the backlog five nominal frames.
    let drained = gap_after_last_frame(cfg.clone(), 5, false);
    let backlogged = gap_after_last_frame(cfg.clone(), 5, true);
    let ratio = drained.as_secs_f64() / backlogged.as_secs_f64();
    assert!(
        (ratio - scale).abs() < 0.02,
        "backlog paces {ratio:.3}x faster, expected the cap {scale}"
    );

    // With adaptive pacing disabled the backlog changes nothing.
    let mut off = cfg;
    off.v2_mut().unwrap().max_adaptive_pacing_scale = 1.0;
    let drained = gap_after_last_frame(off.clone(), 5, false);
    let backlogged = gap_after_last_frame(off, 5, true);
    assert_eq!(drained, backlogged);
}
