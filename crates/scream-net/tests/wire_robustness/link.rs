//! The link emulator's client table and queue against many source addresses and a
//! flood. A source becomes a client by sending RTP in sequence, so the clients here
//! send RTP.

use std::net::{SocketAddr, UdpSocket};
use std::thread::sleep;
use std::time::Duration as StdDuration;

use super::{report, secs};
use crate::common::{any_port, link_to, links, links_one_way, rtp_packet};
use scream::wire::rtp::field::FIXED_HEADER_LEN;
use scream::{Bitrate, Duration};
use scream_net::LinkEmulator;
use scream_net::link::{MAX_CLIENTS, PROBATION_PACKETS};

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

/// `PROBATION_PACKETS` RTP packets in sequence from `c` to `to`, from `seq` on, their
/// payload all `tag`; returns the next sequence number.
fn prove(c: &UdpSocket, to: SocketAddr, seq: u16, tag: u8) -> u16 {
    for k in 0..PROBATION_PACKETS as u16 {
        let mut d = rtp_packet(0x00c1_1e00 + u32::from(tag), seq.wrapping_add(k), 20);
        d[FIXED_HEADER_LEN..].fill(tag);
        c.send_to(&d, to).unwrap();
    }
    seq.wrapping_add(PROBATION_PACKETS as u16)
}

/// The tag (first payload byte) of an RTP datagram.
fn tag(d: &[u8]) -> u8 {
    d[FIXED_HEADER_LEN]
}

/// Clients from more source addresses than the emulator serves: the first
/// `MAX_CLIENTS` to prove themselves are served, later ones are refused while every
/// client is active, and a client silent for `EVICTABLE_AFTER` makes room for one.
#[test]
fn link_refuses_newcomers_while_its_clients_are_active_and_evicts_only_silent_ones() {
    const CLIENTS: usize = MAX_CLIENTS + 8;
    let server = socket(StdDuration::from_millis(20));
    let mut link = link_to(server.local_addr().unwrap(), links(None, Duration::ZERO, 0));
    let link_addr = link.local_addr().unwrap();
    let clients: Vec<UdpSocket> = (0..CLIENTS)
        .map(|_| socket(StdDuration::from_millis(20)))
        .collect();
    let mut seqs = [0u16; CLIENTS];
    // Client `i` sends a proof; returns the address the server saw it at, if any of
    // it arrived, after checking that all of it did, from one address.
    let mut send = |link: &mut LinkEmulator, i: usize| -> Option<SocketAddr> {
        seqs[i] = prove(&clients[i], link_addr, seqs[i], i as u8);
        run_for(link, 5);
        let got = drain(&server);
        let from = got.first().map(|g| g.0)?;
        assert_eq!(got.len(), PROBATION_PACKETS as usize, "client {i}: {got:?}");
        assert!(got.iter().all(|(f, d)| *f == from && tag(d) == i as u8));
        Some(from)
    };
    let first: Vec<Option<SocketAddr>> = (0..CLIENTS).map(|i| send(&mut link, i)).collect();
    let after_first = link.counters();
    let served = link.clients();
    // The server's answers reach the clients it heard, from the link's address.
    let mut buf = [0; 64];
    for (i, seen_as) in first.iter().enumerate().take(MAX_CLIENTS) {
        server
            .send_to(&[i as u8], seen_as.expect("served"))
            .unwrap();
        run_for(&mut link, 2);
        let (n, from) = clients[i].recv_from(&mut buf).expect("the answer");
        assert_eq!((&buf[..n], from), (&[i as u8][..], link_addr));
    }
    // Half of the clients speak again 1.2 s later, and the newcomers 1 s after that:
    // the other half has been silent for longer than `EVICTABLE_AFTER` by then.
    sleep(secs(1.2));
    let again: Vec<Option<SocketAddr>> = (MAX_CLIENTS / 2..MAX_CLIENTS)
        .map(|i| send(&mut link, i))
        .collect();
    sleep(secs(1.0));
    let late: Vec<Option<SocketAddr>> =
        (MAX_CLIENTS..CLIENTS).map(|i| send(&mut link, i)).collect();
    // The first client, evicted, is now refused: every client spoke within 2 s.
    let back = send(&mut link, 0);
    let c = link.counters();
    report(
        "link clients",
        &format!(
            "{CLIENTS} clients prove themselves: {served} served, {} refused, {} evicted; \
             after 2.2 s with half of them silent: {} newcomers served, {} evicted; the \
             first client again: {back:?}; {c:?}",
            after_first.clients_refused,
            after_first.clients_evicted,
            late.iter().flatten().count(),
            c.clients_evicted,
        ),
    );
    assert_eq!(served, MAX_CLIENTS);
    assert!(
        first[..MAX_CLIENTS].iter().all(Option::is_some),
        "{first:?}"
    );
    assert!(
        first[MAX_CLIENTS..].iter().all(Option::is_none),
        "{first:?}"
    );
    assert_eq!(after_first.clients_refused as usize, CLIENTS - MAX_CLIENTS);
    assert_eq!(after_first.clients_evicted, 0);
    // The active half kept their addresses; the newcomers took the silent half's slots.
    assert_eq!(again, first[MAX_CLIENTS / 2..MAX_CLIENTS]);
    assert!(late.iter().all(Option::is_some), "{late:?}");
    // No newcomer speaks from the address of a client still served, nor two from one
    // address. An evicted client's outbound socket is closed, and the kernel may hand
    // its port to a newcomer's new socket (seen once in a full test run), so the
    // silent half's addresses are not excluded.
    assert!(late.iter().all(|l| !again.contains(l)), "{late:?}");
    let distinct: std::collections::HashSet<_> = late.iter().collect();
    assert_eq!(distinct.len(), late.len(), "{late:?}");
    assert_eq!(c.clients_evicted as usize, MAX_CLIENTS / 2);
    assert_eq!(back, None);
    assert_eq!(c.clients_refused as usize, CLIENTS - MAX_CLIENTS + 1);
    assert_eq!(link.clients(), MAX_CLIENTS);
}

/// Clients whose datagrams are still inside the emulator (2.3 s of delay) when they
/// are evicted: none of those datagrams may leave as another client's, in either
/// direction.
#[test]
fn link_eviction_never_hands_a_clients_datagrams_to_another() {
    const CLIENTS: usize = MAX_CLIENTS + 8;
    let server = socket(StdDuration::from_millis(20));
    let direction = links_one_way(None, 0);
    let mut link = link_to(
        server.local_addr().unwrap(),
        (
            direction(Duration::from_millis(2300), "forward"),
            direction(Duration::ZERO, "reverse"),
        ),
    );
    let link_addr = link.local_addr().unwrap();
    let clients: Vec<UdpSocket> = (0..CLIENTS)
        .map(|_| socket(StdDuration::from_millis(20)))
        .collect();
    for (i, c) in clients.iter().enumerate().take(MAX_CLIENTS) {
        prove(c, link_addr, 0, i as u8);
    }
    run_for(&mut link, 5);
    // Silent for longer than `EVICTABLE_AFTER`, with all of their datagrams in flight.
    sleep(secs(2.1));
    for (i, c) in clients.iter().enumerate().skip(MAX_CLIENTS) {
        prove(c, link_addr, 0, i as u8);
    }
    run_for(&mut link, 2600);
    let arrived = drain(&server);
    // The server answers each datagram to where it came from.
    for (from, payload) in &arrived {
        server.send_to(payload, from).unwrap();
    }
    run_for(&mut link, 100);
    let mut tags_at: Vec<(SocketAddr, u8)> = arrived.iter().map(|(f, p)| (*f, tag(p))).collect();
    tags_at.sort();
    tags_at.dedup();
    let mut answers = 0;
    for (i, c) in clients.iter().enumerate() {
        for (_, payload) in drain(c) {
            assert_eq!(
                tag(&payload) as usize,
                i,
                "client {i} got client {}'s",
                tag(&payload)
            );
            answers += 1;
        }
    }
    let c = link.counters();
    report(
        "link eviction",
        &format!(
            "{} datagrams sent by {CLIENTS} clients, {} reached the server from {} source \
             addresses, {answers} answers came back; {} clients evicted, {} datagrams of \
             theirs dropped",
            CLIENTS * PROBATION_PACKETS as usize,
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
    let each = PROBATION_PACKETS as usize;
    assert_eq!(c.clients_evicted as usize, CLIENTS - MAX_CLIENTS);
    // The clients served at the end had all of theirs delivered and answered...
    assert_eq!(arrived.len(), MAX_CLIENTS * each, "{arrived:?}");
    assert_eq!(answers, arrived.len());
    // ...and the evicted clients' datagrams went nowhere, and were counted.
    assert_eq!(c.orphaned as usize, (CLIENTS - MAX_CLIENTS) * each);
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
        let (mut sent, mut seq) = (0u64, 0u16);
        while start.elapsed() < secs(0.5) {
            for _ in 0..50 {
                let d = rtp_packet(0xf1_00d0, seq, 1200 - FIXED_HEADER_LEN);
                seq = seq.wrapping_add(1);
                sent += u64::from(s.send_to(&d, link_addr).is_ok());
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
