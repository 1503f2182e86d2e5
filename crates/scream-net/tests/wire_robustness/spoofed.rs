//! Spoofed sources against the receiver's peer table and the link emulator's client
//! table: an established call keeps its slot and its rate, and the receiver sends no
//! source more than it received from it. Each spoofed source port is a loopback
//! socket of its own.

use std::net::{SocketAddr, UdpSocket};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::thread::{JoinHandle, sleep};
use std::time::Instant as StdInstant;

use super::{SSRC, report, secs};
use crate::common::{
    Noise, Rates, SenderSpec, any_port, link_to, links, receiver, rtp_packet, run_link,
    run_receiver, run_sender, rx_mbps, tx_mbps,
};
use scream::{Bitrate, Duration};
use scream_net::link::MAX_CLIENTS;
use scream_net::receiver::{MAX_PEERS, PROBATION_PACKETS};

/// Spoofed source ports: more than either table holds.
const PORTS: usize = 40;
/// The call's rate, Mbit/s: start and maximum alike, so that any dent shows.
const RATE: f64 = 10.0;
/// When the spray starts and how long it lasts, seconds into the call.
const SPRAY_AT: f64 = 1.5;
const SPRAY_SECS: f64 = 2.5;

/// Held by each test here for its whole run: two sprays at once, each with its
/// endpoints, would starve one another's loops of CPU (debug builds on two cores), and
/// the delay that adds is what a delay-based controller backs off from.
static ONE_SPRAY_AT_A_TIME: Mutex<()> = Mutex::new(());

pub(super) fn one_spray_at_a_time() -> MutexGuard<'static, ()> {
    // A failed test poisons the lock; the next one runs all the same.
    ONE_SPRAY_AT_A_TIME
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// What a spray sent.
#[derive(Debug, Clone, Copy, Default)]
struct Sprayed {
    datagrams: u64,
    bytes: u64,
}

/// Sends `per_sec` datagrams a second in all, round robin from `PORTS` sockets of
/// their own, `burst` from each in a row, to `to` for `secs`; `make(port, n)` is the
/// `n`-th datagram of `port`. At most `per_sec · secs` datagrams, so a stalled thread
/// cannot make it burst.
fn spray(
    to: SocketAddr,
    (per_sec, burst): (f64, u64),
    duration_s: f64,
    mut make: impl FnMut(usize, u64) -> Vec<u8> + Send + 'static,
) -> JoinHandle<Sprayed> {
    std::thread::spawn(move || {
        let sockets: Vec<UdpSocket> = (0..PORTS)
            .map(|_| UdpSocket::bind(any_port()).expect("a spoofed port"))
            .collect();
        let total = (per_sec * duration_s) as u64;
        let mut next = vec![0u64; PORTS];
        let mut out = Sprayed::default();
        let start = StdInstant::now();
        let mut sent = 0u64;
        while sent < total && start.elapsed() < secs(duration_s) {
            let due = ((per_sec * start.elapsed().as_secs_f64()) as u64).min(total);
            while sent < due {
                let port = ((sent / burst) % PORTS as u64) as usize;
                let d = make(port, next[port]);
                next[port] += 1;
                if sockets[port].send_to(&d, to).is_ok() {
                    out.datagrams += 1;
                    out.bytes += d.len() as u64;
                }
                sent += 1;
            }
            sleep(secs(0.001));
        }
        out
    })
}

/// Valid RTP, each port a stream of its own with consecutive sequence numbers: a
/// spoofer that passes any "in sequence" test. Sent `PROBATION_PACKETS` from a port
/// in a row, so that each port proves itself at once.
const IN_SEQUENCE_BURST: u64 = PROBATION_PACKETS as u64;

fn in_sequence_rtp(port: usize, n: u64) -> Vec<u8> {
    rtp_packet(0xbad1_0000 + port as u32, n as u16, 100)
}

/// Straight at the receiver: valid RTP in sequence from 40 ports, 10 000 a second
/// (20 000 a second used to cut the call to a tenth, evicting a peer for almost every
/// datagram). The first 15 spoofers take the free slots, the other 25 are refused, the
/// call keeps its slot and its rate. A release build keeps the call at its rate at
/// 20 000 a second too; a debug build sharing two cores with other tests sometimes
/// spends enough CPU on the 15 served spoofers' reports that the delay it adds dents
/// the call.
#[test]
fn recv_keeps_an_established_flow_under_rtp_from_40_spoofed_ports() {
    const PER_SEC: f64 = 10_000.0;
    let _alone = one_spray_at_a_time();
    let rates = Rates {
        start: RATE,
        max: RATE,
    };
    let rx = receiver(any_port());
    let rx_addr = rx.local_addr().unwrap();
    let rx_run = run_receiver(rx, SPRAY_AT + SPRAY_SECS + 0.6);
    let tx_run = run_sender(
        SenderSpec::new(rx_addr, SSRC, rates).build(),
        SPRAY_AT + SPRAY_SECS + 0.5,
    );
    sleep(secs(SPRAY_AT));
    let sprayed = spray(
        rx_addr,
        (PER_SEC, IN_SEQUENCE_BURST),
        SPRAY_SECS,
        in_sequence_rtp,
    )
    .join()
    .expect("the spray");
    let (tx, s) = tx_run.join().expect("the sender thread");
    let (rx, r) = rx_run.join().expect("the receiver thread");
    let during = (SPRAY_AT + 0.2, SPRAY_AT + SPRAY_SECS);
    let before = tx_mbps(&s, 0.5, SPRAY_AT);
    let sent = tx_mbps(&s, during.0, during.1);
    let received = rx_mbps(&r, SSRC, during.0, during.1);
    let c = rx.counters();
    let call = rx.peers().find(|p| p.ssrc == SSRC);
    report(
        "recv under spoofed rtp",
        &format!(
            "{} datagrams ({} B) from {PORTS} ports in {SPRAY_SECS} s; call sent {before:.2} \
             Mbit/s before, {sent:.2} during, received {received:.2}; {} peers served; \
             {c:?}; the call's peer {call:?}; sender {:?}",
            sprayed.datagrams,
            sprayed.bytes,
            rx.peers().count(),
            tx.counters(),
        ),
    );
    assert!(
        sprayed.datagrams as f64 > 0.5 * PER_SEC * SPRAY_SECS,
        "{sprayed:?}"
    );
    assert!(before > 0.9 * RATE, "{before} Mbit/s before the spray");
    assert!(
        sent >= 0.9 * before,
        "{sent} Mbit/s during, {before} before"
    );
    assert!(received >= 0.9 * before, "{received} Mbit/s received");
    // The call and 15 spoofers are served; the other 25 are refused, each once.
    assert_eq!(rx.peers().count(), MAX_PEERS);
    assert_eq!(c.peers_refused as usize, PORTS + 1 - MAX_PEERS, "{c:?}");
    assert_eq!(c.peers_evicted, 0, "{c:?}");
    // The call is the peer it was from the start: one entry, every packet counted.
    let call = call.expect("the call is still served");
    assert_eq!(call.addr, tx.local_addr().unwrap());
    assert!(
        call.counters.packets * 100 >= tx.counters().datagrams * 99,
        "{call:?}"
    );
}

/// Through the link emulator: junk of 1 to 11 bytes from 40 ports, 20 000 a second
/// (3 000 a second used to evict the call's client every few milliseconds).
#[test]
fn link_keeps_an_established_flow_under_junk_from_40_spoofed_ports() {
    const PER_SEC: f64 = 20_000.0;
    let mut noise = Noise::new(0x1ee7);
    let junk = move |_, _| {
        let len = 1 + (noise.next_u64() % 11) as usize;
        noise.junk(len)
    };
    let (sprayed, text, link) = call_through_link((PER_SEC, 1), junk);
    let c = link.counters();
    report("link under junk", &format!("{text}; {c:?}"));
    assert_eq!(c.clients_evicted, 0, "{c:?}");
    assert_eq!(link.clients(), 1, "junk made clients");
    // Junk from sources the link does not serve never reaches its queue.
    assert!(
        c.not_rtp * 10 >= sprayed.datagrams * 9,
        "{c:?} of {sprayed:?}"
    );
}

/// Through the link emulator: valid RTP in sequence from 40 ports, 5 000 a second.
/// Such sources prove themselves and fill the free client slots, but the call's
/// client stays, and so does its peer at the receiver. The 15 spoofed clients are
/// then relayed as any client is, at the cost of any client: in a debug build on a
/// busy machine, 10 000 a second sometimes costs the two loops enough CPU that the
/// delay they add dents the call (to 7.7 of 10 Mbit/s once in nine runs); a release
/// build keeps the call at its rate at 20 000 a second.
#[test]
fn link_keeps_an_established_flow_under_rtp_from_40_spoofed_ports() {
    const PER_SEC: f64 = 5_000.0;
    let (_, text, link) = call_through_link((PER_SEC, IN_SEQUENCE_BURST), in_sequence_rtp);
    let c = link.counters();
    report("link under spoofed rtp", &format!("{text}; {c:?}"));
    // The call and 15 spoofers are served; the other 25 are refused, each once.
    assert_eq!(link.clients(), MAX_CLIENTS, "{c:?}");
    assert_eq!(c.clients_refused as usize, PORTS + 1 - MAX_CLIENTS, "{c:?}");
    assert_eq!(c.clients_evicted, 0, "{c:?}");
}

/// A call of `RATE` through a link emulator (40 Mbit/s, 5 ms each way: the link is not
/// the bottleneck, so any dent is the spray's) to a receiver, with `make` sprayed at
/// the link from `PORTS` ports during the call. Asserts that the call kept its rate,
/// its one client at the link and its one peer at the receiver; returns what was
/// sprayed, a report and the link.
fn call_through_link(
    (per_sec, burst): (f64, u64),
    make: impl FnMut(usize, u64) -> Vec<u8> + Send + 'static,
) -> (Sprayed, String, scream_net::LinkEmulator) {
    let _alone = one_spray_at_a_time();
    let rates = Rates {
        start: RATE,
        max: RATE,
    };
    let total = SPRAY_AT + SPRAY_SECS + 0.5;
    let rx = receiver(any_port());
    let rx_addr = rx.local_addr().unwrap();
    let link = link_to(
        rx_addr,
        links(
            Some(Bitrate::from_mbps(4.0 * RATE)),
            Duration::from_millis(5),
            0,
        ),
    );
    let link_addr = link.local_addr().unwrap();
    let rx_run = run_receiver(rx, total + 0.2);
    let link_run = run_link(link, total + 0.1);
    let tx_run = run_sender(SenderSpec::new(link_addr, SSRC, rates).build(), total);
    sleep(secs(SPRAY_AT));
    let sprayed = spray(link_addr, (per_sec, burst), SPRAY_SECS, make)
        .join()
        .expect("the spray");
    let (tx, s) = tx_run.join().expect("the sender thread");
    let link = link_run.join().expect("the link thread");
    let (rx, r) = rx_run.join().expect("the receiver thread");
    let during = (SPRAY_AT + 0.2, SPRAY_AT + SPRAY_SECS);
    let before = tx_mbps(&s, 0.5, SPRAY_AT);
    let sent = tx_mbps(&s, during.0, during.1);
    let received = rx_mbps(&r, SSRC, during.0, during.1);
    let calls = rx.peers().filter(|p| p.ssrc == SSRC).count();
    let text = format!(
        "{} datagrams ({} B) from {PORTS} ports in {SPRAY_SECS} s; call sent {before:.2} \
         Mbit/s before, {sent:.2} during, received {received:.2}; link clients {}, \
         receiver peers {} (call {calls}), receiver {:?}; sender {:?}",
        sprayed.datagrams,
        sprayed.bytes,
        link.clients(),
        rx.peers().count(),
        rx.counters(),
        tx.counters(),
    );
    assert!(
        sprayed.datagrams as f64 > 0.5 * per_sec * SPRAY_SECS,
        "{text}"
    );
    assert!(before > 0.9 * RATE, "{text}");
    assert!(sent >= 0.9 * before, "{text}");
    assert!(received >= 0.9 * before, "{text}");
    assert_eq!(calls, 1, "{text}");
    assert_eq!(rx.counters().peers_evicted, 0, "{text}");
    (sprayed, text, link)
}

/// RTP in many shapes, each from a port of its own: tiny packets in sequence (the
/// best ratio of feedback to media an attacker can get), sparse, random, duplicate and
/// backward sequence numbers, and three packets then silence. No source gets back more
/// bytes than it sent; only the one that sends in sequence gets anything at all.
#[test]
fn recv_never_sends_a_source_more_bytes_than_it_received() {
    const PACKETS: u64 = 200;
    type Make = Box<dyn FnMut(u64) -> Option<Vec<u8>>>;
    let _alone = one_spray_at_a_time();
    let rx = receiver(any_port());
    let rx_addr = rx.local_addr().unwrap();
    let rx_run = run_receiver(rx, 1.8);
    let mut noise = Noise::new(0xfeed);
    let header_only = |ssrc: u32, seq: u64| Some(rtp_packet(ssrc, seq as u16, 0));
    let mut shapes: Vec<(&str, bool, Make)> = vec![
        ("in sequence", true, Box::new(move |n| header_only(0xa1, n))),
        (
            "sparse",
            false,
            Box::new(move |n| header_only(0xa2, n * 1000)),
        ),
        (
            "random",
            false,
            Box::new(move |_| {
                let r = noise.next_u64();
                header_only((r >> 32) as u32, r)
            }),
        ),
        ("duplicate", false, Box::new(move |_| header_only(0xa4, 7))),
        (
            "backward",
            false,
            Box::new(move |n| header_only(0xa5, 60_000 - n)),
        ),
        (
            "three then silence",
            false,
            Box::new(move |n| (n < 3).then(|| rtp_packet(0xa6, n as u16, 0))),
        ),
    ];
    let sockets: Vec<UdpSocket> = shapes
        .iter()
        .map(|_| {
            let s = UdpSocket::bind(any_port()).unwrap();
            s.set_nonblocking(true).unwrap();
            s
        })
        .collect();
    let mut sent = vec![0u64; shapes.len()];
    let mut back = vec![0u64; shapes.len()];
    let mut buf = [0u8; 2048];
    let mut drain = |back: &mut [u64]| {
        for (i, s) in sockets.iter().enumerate() {
            while let Ok((n, _)) = s.recv_from(&mut buf) {
                back[i] += n as u64;
            }
        }
    };
    // One packet of each shape every 5 ms, for a second.
    for n in 0..PACKETS {
        for (i, (_, _, make)) in shapes.iter_mut().enumerate() {
            if let Some(d) = make(n) {
                sockets[i].send_to(&d, rx_addr).unwrap();
                sent[i] += d.len() as u64;
            }
        }
        drain(&mut back);
        sleep(secs(0.005));
    }
    sleep(secs(0.3));
    drain(&mut back);
    let (rx, _) = rx_run.join().expect("the receiver thread");
    let c = rx.counters();
    let texts: Vec<String> = shapes
        .iter()
        .enumerate()
        .map(|(i, (name, _, _))| {
            format!(
                "{name}: {} B in, {} B back (x{:.2})",
                sent[i],
                back[i],
                back[i] as f64 / sent[i] as f64
            )
        })
        .collect();
    report("reflection", &format!("{}; {c:?}", texts.join(", ")));
    for (i, (name, sender, _)) in shapes.iter().enumerate() {
        assert!(
            back[i] <= sent[i],
            "{name}: {} B back for {} B",
            back[i],
            sent[i]
        );
        assert_eq!(back[i] > 0, *sender, "{name}: {} B back", back[i]);
    }
}
