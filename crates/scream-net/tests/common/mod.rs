//! Endpoints for the wire tests: a constant-rate encoder, a sender and a receiver each
//! on a thread of its own with a time series of what it counted, a relay that lets a
//! test speak with the source address of either end, and datagram makers.

use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use scream::receiver::ReceiverConfig;
use scream::sender::{Improvements, MediaFrame, Sender, SenderConfig, StreamConfig};
use scream::wire::ccfb::{CountConvention, encode_feedback};
use scream::wire::rtp;
use scream::{Bitrate, Duration, Ecn, Feedback, PacketReport, PacketStatus, RemoteInstant};
use scream_net::auth::FeedbackKey;
use scream_net::link::Transport;
use scream_net::link::udp::UdpRelay;
use scream_net::receiver::PeerView;
use scream_net::sender::SendCounters;
use scream_net::{Clock, Encoder, LinkDatagram, LinkEmulator, MediaReceiver, MediaSender};
use scream_net::{MediaReceiverConfig, MediaSenderConfig, sender::PAYLOAD_TYPE};
use scream_netmodel::queue::Fifo;
use scream_netmodel::{Capacity, DirectedLink, PathEffects, Queue, QueueLimit};

/// Frames per second of the test encoder.
pub(crate) const FPS: f64 = 50.0;
/// How often the endpoints' loops record a sample.
const SAMPLE_EVERY: Duration = Duration::from_millis(50);

/// Loopback, any free port.
pub(crate) fn any_port() -> SocketAddr {
    (Ipv4Addr::LOCALHOST, 0).into()
}

/// Frames of exactly the target bitrate over the frame rate.
#[derive(Debug)]
pub(crate) struct ConstantEncoder {
    target: Bitrate,
}

impl Encoder for ConstantEncoder {
    fn next_frame(&mut self) -> MediaFrame {
        MediaFrame::new((self.target.bytes_per_sec() / FPS).round() as u32)
    }
    fn set_target(&mut self, bitrate: Bitrate) {
        self.target = bitrate;
    }
    fn request_key_frame(&mut self) {}
}

/// The rates of a test stream, Mbit/s.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rates {
    pub(crate) start: f64,
    pub(crate) max: f64,
}

/// What a sender is asked to be.
#[derive(Debug, Clone)]
pub(crate) struct SenderSpec {
    pub(crate) peer: SocketAddr,
    pub(crate) ssrc: u32,
    pub(crate) initial_seq: u16,
    pub(crate) rates: Rates,
    pub(crate) improvements: Improvements,
    /// Feedback is taken only when sealed with this key.
    pub(crate) feedback_key: Option<FeedbackKey>,
}

impl SenderSpec {
    /// A SCReAM V2 sender without ECN from any loopback port to `peer`, with
    /// `fresh-srtt`: the faithful smoothed RTT starts at 50 ms and follows a
    /// sub-millisecond loopback RTT with gain 1/1024 while the encoder is below the
    /// window, which holds the target near 60 % of its start for about 3 s; with the
    /// improvement it is at its maximum within 0.2 s, so that the tests can compare
    /// rates with the maximum.
    pub(crate) fn new(peer: SocketAddr, ssrc: u32, rates: Rates) -> Self {
        Self {
            peer,
            ssrc,
            initial_seq: 0,
            rates,
            improvements: Improvements {
                fresh_srtt: true,
                ..Improvements::default()
            },
            feedback_key: None,
        }
    }

    /// Binds the sender.
    pub(crate) fn build(&self) -> MediaSender<ConstantEncoder> {
        let cfg = SenderConfig {
            improvements: self.improvements,
            ..SenderConfig::default()
        };
        let mut sender = Sender::new(cfg).expect("a valid sender configuration");
        let start = Bitrate::from_mbps(self.rates.start);
        let stream = sender
            .add_stream_with_initial_seq(
                StreamConfig {
                    ssrc: self.ssrc,
                    min_bitrate: Bitrate::from_mbps(0.1),
                    start_bitrate: start,
                    max_bitrate: Bitrate::from_mbps(self.rates.max),
                    priority: 1.0,
                },
                self.initial_seq,
            )
            .expect("a valid stream");
        let cfg = MediaSenderConfig {
            peer: self.peer,
            bind: any_port(),
            fps: FPS,
            feedback_key: self.feedback_key.clone(),
        };
        MediaSender::new(
            cfg,
            Clock::start(),
            (sender, stream),
            ConstantEncoder { target: start },
        )
        .expect("the sender binds")
    }
}

/// A sender's state at one instant.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SendSample {
    /// Seconds since the sender started.
    pub(crate) t: f64,
    pub(crate) target_mbps: f64,
    pub(crate) counters: SendCounters,
    pub(crate) acked: u64,
    pub(crate) ignored: u64,
}

/// A sender's run: the sender at its end, and its samples.
pub(crate) type SendRun = (MediaSender<ConstantEncoder>, Vec<SendSample>);

/// Runs `tx` for `secs` on a thread of its own.
pub(crate) fn run_sender(mut tx: MediaSender<ConstantEncoder>, secs: f64) -> JoinHandle<SendRun> {
    std::thread::spawn(move || {
        let until = tx.clock().now() + Duration::from_nanos((secs * 1e9) as u64);
        let mut samples = Vec::new();
        tx.run(until, SAMPLE_EVERY, |now, tx| {
            let s = tx.sender().stats();
            samples.push(SendSample {
                t: now.as_secs_f64(),
                target_mbps: s.target_bitrate.mbps(),
                counters: tx.counters(),
                acked: s.packets_acked,
                ignored: s.feedback_ignored,
            });
        })
        .expect("the sender runs");
        (tx, samples)
    })
}

/// The sample nearest after `t` seconds (the last if none is).
pub(crate) fn send_at(samples: &[SendSample], t: f64) -> SendSample {
    *samples
        .iter()
        .find(|s| s.t >= t)
        .or(samples.last())
        .expect("samples")
}

/// Mean target over `[from, to)` seconds, Mbit/s.
pub(crate) fn mean_target(samples: &[SendSample], from: f64, to: f64) -> f64 {
    let v: Vec<f64> = samples
        .iter()
        .filter(|s| s.t >= from && s.t < to)
        .map(|s| s.target_mbps)
        .collect();
    assert!(!v.is_empty(), "no sender samples in [{from}, {to})");
    v.iter().sum::<f64>() / v.len() as f64
}

/// Lowest target over `[from, to)` seconds, Mbit/s.
pub(crate) fn min_target(samples: &[SendSample], from: f64, to: f64) -> f64 {
    samples
        .iter()
        .filter(|s| s.t >= from && s.t < to)
        .map(|s| s.target_mbps)
        .fold(f64::INFINITY, f64::min)
}

/// What the sender handed to its socket over `[from, to]` seconds, Mbit/s.
pub(crate) fn tx_mbps(samples: &[SendSample], from: f64, to: f64) -> f64 {
    let (a, b) = (send_at(samples, from), send_at(samples, to));
    assert!(b.t > a.t, "no sender samples in [{from}, {to}]");
    (b.counters.bytes - a.counters.bytes) as f64 * 8.0 / (b.t - a.t) / 1e6
}

/// A receiver's state at one instant.
#[derive(Debug, Clone)]
pub(crate) struct RecvSample {
    /// Seconds since the receiver started.
    pub(crate) t: f64,
    pub(crate) peers: Vec<PeerView>,
}

/// A receiver's run: the receiver at its end, and its samples.
pub(crate) type RecvRun = (MediaReceiver, Vec<RecvSample>);

/// A receiver on `listen` with default settings and its own clock.
pub(crate) fn receiver(listen: SocketAddr) -> MediaReceiver {
    sealing_receiver(listen, None)
}

/// A receiver on `listen` that seals its feedback with `key`.
pub(crate) fn sealing_receiver(listen: SocketAddr, key: Option<FeedbackKey>) -> MediaReceiver {
    let cfg = MediaReceiverConfig {
        listen,
        feedback_to: None,
        rtcp_ssrc: 1,
        receiver: ReceiverConfig::default(),
        count: CountConvention::Rfc,
        feedback_key: key,
    };
    MediaReceiver::new(cfg, Clock::start()).expect("the receiver binds")
}

/// Runs `rx` for `secs` on a thread of its own.
pub(crate) fn run_receiver(mut rx: MediaReceiver, secs: f64) -> JoinHandle<RecvRun> {
    std::thread::spawn(move || {
        let until = rx.clock().now() + Duration::from_nanos((secs * 1e9) as u64);
        let mut samples = Vec::new();
        rx.run(until, SAMPLE_EVERY, |now, rx| {
            samples.push(RecvSample {
                t: now.as_secs_f64(),
                peers: rx.peers().collect(),
            });
        })
        .expect("the receiver runs");
        (rx, samples)
    })
}

/// Bytes received from the peer whose first SSRC is `ssrc`, by `t` seconds.
fn bytes_by(samples: &[RecvSample], ssrc: u32, t: f64) -> (f64, u64) {
    samples
        .iter()
        .rev()
        .find(|s| s.t <= t)
        .map(|s| {
            let bytes = s
                .peers
                .iter()
                .find(|p| p.ssrc == ssrc)
                .map_or(0, |p| p.counters.bytes);
            (s.t, bytes)
        })
        .unwrap_or((0.0, 0))
}

/// Media received from the peer of `ssrc` over `[from, to]` seconds, Mbit/s.
pub(crate) fn rx_mbps(samples: &[RecvSample], ssrc: u32, from: f64, to: f64) -> f64 {
    let (t0, b0) = bytes_by(samples, ssrc, from);
    let (t1, b1) = bytes_by(samples, ssrc, to);
    assert!(t1 > t0, "no receiver samples in [{from}, {to}]");
    b1.saturating_sub(b0) as f64 * 8.0 / (t1 - t0) / 1e6
}

/// A UDP relay between one client (a sender) and a target (a receiver) that can also
/// speak to either side from the address that side expects: to the client as its
/// peer, to the target as the client.
#[derive(Debug)]
pub(crate) struct Relay {
    /// Where the client sends.
    pub(crate) listen: SocketAddr,
    to_client: Arc<UdpSocket>,
    to_target: Arc<UdpSocket>,
    target: SocketAddr,
    client: Arc<Mutex<Option<SocketAddr>>>,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Relay {
    pub(crate) fn start(target: SocketAddr) -> Self {
        let bind = |_| {
            let s = UdpSocket::bind(any_port()).expect("a relay socket");
            s.set_read_timeout(Some(std::time::Duration::from_millis(20)))
                .expect("a read timeout");
            Arc::new(s)
        };
        let (to_client, to_target) = (bind(0), bind(1));
        let client = Arc::new(Mutex::new(None));
        let stop = Arc::new(AtomicBool::new(false));
        let forward = {
            let (from, to) = (Arc::clone(&to_client), Arc::clone(&to_target));
            let (client, stop) = (Arc::clone(&client), Arc::clone(&stop));
            std::thread::spawn(move || {
                let mut buf = vec![0; 65_536];
                while !stop.load(Ordering::Relaxed) {
                    if let Ok((n, addr)) = from.recv_from(&mut buf) {
                        *client.lock().expect("client lock") = Some(addr);
                        let _ = to.send_to(&buf[..n], target);
                    }
                }
            })
        };
        let back = {
            let (from, to) = (Arc::clone(&to_target), Arc::clone(&to_client));
            let (client, stop) = (Arc::clone(&client), Arc::clone(&stop));
            std::thread::spawn(move || {
                let mut buf = vec![0; 65_536];
                while !stop.load(Ordering::Relaxed) {
                    if let Ok((n, _)) = from.recv_from(&mut buf) {
                        if let Some(c) = *client.lock().expect("client lock") {
                            let _ = to.send_to(&buf[..n], c);
                        }
                    }
                }
            })
        };
        Self {
            listen: to_client.local_addr().expect("relay address"),
            to_client,
            to_target,
            target,
            client,
            stop,
            threads: vec![forward, back],
        }
    }

    /// Sends `payload` to the client from its peer's address; false until the client
    /// has been heard.
    pub(crate) fn inject_to_client(&self, payload: &[u8]) -> bool {
        let client = *self.client.lock().expect("client lock");
        client.is_some_and(|c| self.to_client.send_to(payload, c).is_ok())
    }

    /// Sends `payload` to the target from the client's address as the target sees it.
    pub(crate) fn inject_to_target(&self, payload: &[u8]) -> bool {
        self.to_target.send_to(payload, self.target).is_ok()
    }

    pub(crate) fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads {
            t.join().expect("relay thread");
        }
    }
}

/// A reproducible stream of pseudo-random numbers (xorshift64*), so that a failure
/// replays with the same bytes.
#[derive(Debug)]
pub(crate) struct Noise(u64);

impl Noise {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed | 1)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// `len` random bytes whose first has version bits 0, so that no demultiplexer can
    /// take them for RTP or RTCP (RFC 5761 §4), nor a feedback parser for RFC 8888.
    pub(crate) fn junk(&mut self, len: usize) -> Vec<u8> {
        let mut v: Vec<u8> = (0..len).map(|_| self.next_u64() as u8).collect();
        if let Some(first) = v.first_mut() {
            *first &= 0x3f;
        }
        v
    }
}

/// A valid RTP packet of `payload` bytes.
pub(crate) fn rtp_packet(ssrc: u32, seq: u16, payload: usize) -> Vec<u8> {
    let header = rtp::Repr {
        marker: true,
        payload_type: PAYLOAD_TYPE,
        sequence_number: seq,
        timestamp: u32::from(seq) * 1800,
        ssrc,
        csrcs: rtp::CsrcList::default(),
        payload_len: payload,
    };
    let mut buf = vec![0; rtp::field::FIXED_HEADER_LEN + payload];
    header.emit_bytes(&mut buf).expect("the buffer fits");
    buf
}

/// RFC 8888 feedback acknowledging `seq` of `ssrc` at `report_ms` on the receiver's
/// clock.
pub(crate) fn feedback_packet(ssrc: u32, seq: u16, report_ms: u64) -> Vec<u8> {
    let t = RemoteInstant::from_millis(report_ms);
    let fb = Feedback {
        report_time: t,
        reports: vec![PacketReport {
            ssrc,
            seq,
            status: PacketStatus::Received {
                arrival: Some(t),
                ecn: Ecn::NotEct,
            },
        }],
    };
    let mut out = Vec::new();
    encode_feedback(&fb, 7, &mut out);
    out
}

/// Both directions of a link of `capacity` (`None`: unlimited) with `one_way` delay
/// and a tail-drop queue of `queue_bytes` (0: unlimited).
pub(crate) fn links(
    capacity: Option<Bitrate>,
    one_way: Duration,
    queue_bytes: u64,
) -> (DirectedLink<LinkDatagram>, DirectedLink<LinkDatagram>) {
    let link = links_one_way(capacity, queue_bytes);
    (link(one_way, "forward"), link(one_way, "reverse"))
}

/// A maker of one direction of a link of `capacity` (`None`: unlimited) with a
/// tail-drop queue of `queue_bytes` (0: unlimited), given its delay and name.
pub(crate) fn links_one_way(
    capacity: Option<Bitrate>,
    queue_bytes: u64,
) -> impl Fn(Duration, &'static str) -> DirectedLink<LinkDatagram> {
    move |one_way, id| {
        DirectedLink::new(
            capacity.map_or(Capacity::Unlimited, Capacity::Constant),
            Queue::TailDrop(Fifo::new()),
            QueueLimit {
                time: Duration::ZERO,
                bytes: queue_bytes,
            },
            PathEffects::delay_only(one_way),
            1,
            id,
        )
    }
}

/// A link emulator on a loopback port in front of `server`.
pub(crate) fn link_to(
    server: SocketAddr,
    (forward, reverse): (DirectedLink<LinkDatagram>, DirectedLink<LinkDatagram>),
) -> LinkEmulator {
    LinkEmulator::new(
        Transport::Udp(UdpRelay::bind(any_port(), server).expect("the relay binds")),
        (forward, reverse),
        Clock::start(),
    )
    .expect("the link binds")
}

/// Runs `link` for `secs` on a thread of its own.
pub(crate) fn run_link(mut link: LinkEmulator, secs: f64) -> JoinHandle<LinkEmulator> {
    std::thread::spawn(move || {
        let until = link.clock().now() + Duration::from_nanos((secs * 1e9) as u64);
        link.run(until, Duration::from_millis(100), |_, _| {})
            .expect("the link runs");
        link
    })
}
