//! The link emulator's client table and queue against many source addresses and a
//! flood.

use std::net::{SocketAddr, UdpSocket};
use std::thread::sleep;
use std::time::Duration as StdDuration;

use super::{report, secs};
use crate::common::{any_port, link_to, links};
use scream::{Bitrate, Duration};
use scream_net::LinkEmulator;
use scream_net::link::MAX_CLIENTS;

/// Runs `link` for `ms` milliseconds.
fn run_for(link: &mut LinkEmulator, ms: u64) {
    let until = link.clock().now() + Duration::from_millis(ms);
    link.run(until, Duration::from_millis(1), |_, _| {})
        .expect("the link runs");
}

/// A UDP socket on loopback that waits at most `timeout` for a datagram.
fn socket(timeout: StdDuration) -> UdpSocket {
    let s = UdpSocket::bind(any_port()).unwrap();
    s.set_read_timeout(Some(timeout)).unwrap();
    s
}

/// Every datagram waiting on `s`, with its source.
fn drain(s: &UdpSocket) -> Vec<(SocketAddr, Vec<u8>)> {
    let mut buf = [0; 2048];
    let mut got = Vec::new();
    while let Ok((n, from)) = s.recv_from(&mut buf) {
        got.push((from, buf[..n].to_vec()));
    }
    got
}

/// Clients from more source addresses than the emulator serves: the longest-silent
/// one makes room for each new one, and the table does not grow.
#[test]
fn link_serves_at_most_max_clients_and_evicts_the_longest_silent() {
    const CLIENTS: usize = MAX_CLIENTS + 8;
    let wait = StdDuration::from_millis(500);
    let server = socket(wait);
    let mut link = link_to(server.local_addr().unwrap(), links(None, Duration::ZERO, 0));
    let link_addr = link.local_addr().unwrap();
    let clients: Vec<UdpSocket> = (0..CLIENTS).map(|_| socket(wait)).collect();
    // One datagram each, one client after the other; the server answers each. Returns
    // the address the server saw the client at.
    let mut buf = [0; 64];
    let mut round_trip = |link: &mut LinkEmulator, i: usize| {
        clients[i].send_to(&[i as u8], link_addr).unwrap();
        run_for(link, 2);
        let (n, seen_as) = server.recv_from(&mut buf).expect("the server gets it");
        assert_eq!(&buf[..n], &[i as u8]);
        server.send_to(&buf[..n], seen_as).unwrap();
        run_for(link, 2);
        let (n, from) = clients[i].recv_from(&mut buf).expect("the answer");
        assert_eq!((&buf[..n], from), (&[i as u8][..], link_addr));
        seen_as
    };
    let seen: Vec<SocketAddr> = (0..CLIENTS).map(|i| round_trip(&mut link, i)).collect();
    let evicted = link.counters().clients_evicted;
    let (served, evicted_first) = (link.clients(), evicted);
    // The newest MAX_CLIENTS are still the same clients to the server...
    let again: Vec<SocketAddr> = (CLIENTS - MAX_CLIENTS..CLIENTS)
        .map(|i| round_trip(&mut link, i))
        .collect();
    let evicted_again = link.counters().clients_evicted;
    // ...and the oldest one comes back as a new client.
    let back = round_trip(&mut link, 0);
    let c = link.counters();
    report(
        "link clients",
        &format!(
            "{CLIENTS} clients: {served} served, {evicted_first} evicted; the newest \
             {MAX_CLIENTS} again: {} evicted; the first again: {} evicted, {} served",
            evicted_again - evicted_first,
            c.clients_evicted,
            link.clients()
        ),
    );
    assert_eq!(served, MAX_CLIENTS);
    assert_eq!(evicted_first as usize, CLIENTS - MAX_CLIENTS);
    assert_eq!(again, seen[CLIENTS - MAX_CLIENTS..]);
    assert_eq!(evicted_again, evicted_first);
    assert!(!seen.contains(&back), "{back} was an evicted client's");
    assert_eq!(c.clients_evicted, evicted_first + 1);
    assert_eq!(link.clients(), MAX_CLIENTS);
}

/// Clients whose datagrams still wait in the emulator's queue when they are evicted:
/// none of those datagrams may leave as another client's, in either direction.
#[test]
fn link_eviction_never_hands_a_clients_datagrams_to_another() {
    const CLIENTS: usize = MAX_CLIENTS + 8;
    const EACH: usize = 3;
    let server = socket(StdDuration::from_millis(20));
    // 500-byte datagrams at 1 Mbit/s: 4 ms each, so the burst of all clients queues.
    let mut link = link_to(
        server.local_addr().unwrap(),
        links(Some(Bitrate::from_mbps(1.0)), Duration::ZERO, 0),
    );
    let link_addr = link.local_addr().unwrap();
    let clients: Vec<UdpSocket> = (0..CLIENTS)
        .map(|_| socket(StdDuration::from_millis(20)))
        .collect();
    for (i, c) in clients.iter().enumerate() {
        for _ in 0..EACH {
            c.send_to(&[i as u8; 500], link_addr).unwrap();
        }
    }
    run_for(&mut link, 600);
    let arrived = drain(&server);
    // The server answers each datagram to where it came from.
    for (from, payload) in &arrived {
        server.send_to(payload, from).unwrap();
    }
    // The answers take the same 1 Mbit/s back: 0.2 s for 48.
    run_for(&mut link, 400);
    let mut tags_at: Vec<(SocketAddr, u8)> = arrived.iter().map(|(f, p)| (*f, p[0])).collect();
    tags_at.sort();
    tags_at.dedup();
    let mut answers = 0;
    for (i, c) in clients.iter().enumerate() {
        for (_, payload) in drain(c) {
            assert_eq!(
                payload[0] as usize, i,
                "client {i} got client {}'s",
                payload[0]
            );
            answers += 1;
        }
    }
    let c = link.counters();
    report(
        "link eviction",
        &format!(
            "{} datagrams queued by {CLIENTS} clients, {} reached the server from {} source \
             addresses, {answers} answers came back; {} clients evicted, {} datagrams of \
             theirs dropped",
            CLIENTS * EACH,
            arrived.len(),
            tags_at.len(),
            c.clients_evicted,
            c.orphaned
        ),
    );
    // One client per source address at the server.
    for w in tags_at.windows(2) {
        assert_ne!(
            w[0].0, w[1].0,
            "{} carried clients {} and {}",
            w[0].0, w[0].1, w[1].1
        );
    }
    assert_eq!(c.clients_evicted as usize, CLIENTS - MAX_CLIENTS);
    // The clients served at the end had all of theirs delivered and answered.
    assert!(arrived.len() >= MAX_CLIENTS * EACH, "{}", arrived.len());
    assert_eq!(answers, arrived.len());
    // The evicted clients' datagrams went nowhere, and were counted.
    assert_eq!(arrived.len() + c.orphaned as usize, CLIENTS * EACH);
}

/// A client that sends far more than the link carries fills the queue to its limit
/// and no further: the rest is dropped on arrival, and the emulator holds no more than
/// the queue allows.
#[test]
fn link_drops_a_flood_at_the_queue_limit() {
    const LIMIT: u64 = 30_000;
    const RATE_MBPS: f64 = 2.0;
    let server = socket(StdDuration::from_millis(20));
    let mut link = link_to(
        server.local_addr().unwrap(),
        links(Some(Bitrate::from_mbps(RATE_MBPS)), Duration::ZERO, LIMIT),
    );
    let link_addr = link.local_addr().unwrap();
    // 1200-byte datagrams at about 50 Mbit/s, 25 times the link, for half a second.
    let flood = std::thread::spawn(move || {
        let s = UdpSocket::bind(any_port()).unwrap();
        let start = std::time::Instant::now();
        let mut sent = 0u64;
        while start.elapsed() < secs(0.5) {
            for _ in 0..50 {
                sent += u64::from(s.send_to(&[0x55; 1200], link_addr).is_ok());
            }
            sleep(secs(0.01));
        }
        (sent, start.elapsed().as_secs_f64())
    });
    let start = link.clock().now();
    let until = start + Duration::from_millis(1000);
    let mut most_queued = 0;
    link.run(until, Duration::from_millis(1), |_, l| {
        most_queued = most_queued.max(l.forward.queue_bytes());
    })
    .expect("the link runs");
    let (sent, flooded) = flood.join().expect("the flood");
    let elapsed = link.clock().now().saturating_duration_since(start);
    let s = *link.forward.stats();
    let delivered = link.forward.delivered_bytes as f64;
    let bytes_per_s = RATE_MBPS * 1e6 / 8.0;
    report(
        "link flood",
        &format!(
            "{sent} datagrams sent in {flooded:.2} s, {} reached the link, {} dropped at the \
             queue limit, most queued {most_queued} B (limit {LIMIT}), {delivered} B delivered \
             in {:.2} s ({:.0} B at the link rate while the flood lasted)",
            s.packets_in,
            s.dropped_queue_full,
            elapsed.as_secs_f64(),
            bytes_per_s * flooded,
        ),
    );
    assert!(s.packets_in > 1000, "{s:?}");
    assert!(s.dropped_queue_full * 2 > s.packets_in, "{s:?}");
    assert!(most_queued <= LIMIT, "{most_queued}");
    // The link carried its rate, no more, while the flood kept its queue full.
    let most = bytes_per_s * elapsed.as_secs_f64() + LIMIT as f64;
    assert!(delivered <= most, "{delivered} of at most {most}");
    let least = 0.7 * bytes_per_s * flooded;
    assert!(delivered > least, "{delivered} of at least {least}");
    assert_eq!(link.forward.dropped_overflow, 0);
    assert_eq!(link.clients(), 1);
}
