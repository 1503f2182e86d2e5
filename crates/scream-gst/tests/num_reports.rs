//! `screamrecv num-reports`: the feedback it sends writes `num_reports` as the RFC
//! does, or as the count minus one that Ericsson's screamtx reads. A plain UDP socket
//! plays the sender, so the test reads the very bytes the element puts on the wire.

mod common;

use std::collections::BTreeSet;
use std::net::UdpSocket;
use std::time::{Duration, Instant};

use common::*;
use gst::prelude::*;
use scream::wire::ccfb::{CountConvention, CountMode, Packet, ParseOptions};

const SSRC: u32 = 0x5c4e_a300;
/// RTP packets sent.
const PACKETS: u16 = 300;

/// An RTP packet (version 2, payload type 96) of 800 bytes with sequence number `seq`.
fn rtp(seq: u16) -> Vec<u8> {
    let mut p = vec![0u8; 800];
    p[0] = 0x80;
    p[1] = 96;
    p[2..4].copy_from_slice(&seq.to_be_bytes());
    p[4..8].copy_from_slice(&(u32::from(seq) * 3000).to_be_bytes());
    p[8..12].copy_from_slice(&SSRC.to_be_bytes());
    p
}

/// Sends `PACKETS` RTP packets to `screamrecv` (its `num-reports` set to `name`) in
/// bursts of varying length, so that reports announce both odd and even counts, and
/// returns the feedback datagrams it answers with.
fn feedback(name: &str) -> Vec<Vec<u8>> {
    init();
    let port = free_port();
    let pipeline = play(&format!(
        "screamrecv name=recv address=127.0.0.1 port={port} num-reports={name} \
         ! fakesink sync=false"
    ));
    let recv = element(&pipeline, "recv");
    assert_eq!(recv.property::<String>("num-reports"), name);
    let socket = UdpSocket::bind("127.0.0.1:0").expect("bind");
    socket
        .set_read_timeout(Some(Duration::from_millis(5)))
        .expect("a read timeout");
    let mut out = Vec::new();
    let mut buf = [0u8; 2048];
    let mut drain = |out: &mut Vec<Vec<u8>>| {
        while let Ok(n) = socket.recv(&mut buf) {
            out.push(buf[..n].to_vec());
        }
    };
    // The element may still be binding its port: a first packet until it answers.
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut seq = 0u16;
    while out.is_empty() && Instant::now() < deadline {
        socket
            .send_to(&rtp(seq), ("127.0.0.1", port))
            .expect("send");
        seq += 1;
        drain(&mut out);
    }
    assert!(!out.is_empty(), "screamrecv never answered");
    let mut burst = 1u16;
    while seq < PACKETS {
        for _ in 0..burst.min(PACKETS - seq) {
            socket
                .send_to(&rtp(seq), ("127.0.0.1", port))
                .expect("send");
            seq += 1;
        }
        burst = burst % 7 + 1;
        drain(&mut out);
    }
    let until = Instant::now() + Duration::from_millis(300);
    while Instant::now() < until {
        drain(&mut out);
    }
    let problems = bus_problems(&pipeline);
    stop(&pipeline);
    assert!(problems.is_empty(), "bus: {problems:#?}");
    out
}

fn other(c: CountConvention) -> CountConvention {
    match c {
        CountConvention::Rfc => CountConvention::MinusOne,
        CountConvention::MinusOne => CountConvention::Rfc,
    }
}

/// The convention the library's decoder detects in `bytes`, falling back to
/// `fallback` when both readings fit.
fn detected(bytes: &[u8], fallback: CountConvention) -> CountConvention {
    let auto = ParseOptions {
        count: CountMode::Auto { fallback },
    };
    Packet::new_checked(bytes, &auto)
        .unwrap_or_else(|e| panic!("feedback {bytes:02x?} does not parse: {e:?}"))
        .count_convention()
}

/// Every feedback datagram reads as `expected`, never as the other convention; some
/// are unambiguous (detected as `expected` even with the other as the fallback); and
/// read as `expected`, the reports acknowledge what was sent.
fn check(name: &str, expected: CountConvention) {
    let datagrams = feedback(name);
    let mut unambiguous = 0;
    let mut acked = BTreeSet::new();
    let mut counts = BTreeSet::new();
    for d in &datagrams {
        assert_eq!(detected(d, expected), expected, "{d:02x?}");
        if detected(d, other(expected)) == expected {
            unambiguous += 1;
        }
        let fixed = ParseOptions {
            count: CountMode::Fixed(expected),
        };
        let p = Packet::new_checked(&d[..], &fixed).expect("parses as detected");
        for block in p.blocks() {
            assert_eq!(block.media_ssrc(), SSRC);
            counts.insert(block.report_count());
            for (i, m) in block.metrics().enumerate() {
                if m.received {
                    acked.insert(block.seq(i));
                }
            }
        }
    }
    println!(
        "num-reports={name}: {} reports, {unambiguous} unambiguous, counts {counts:?}, \
         {} of {PACKETS} acknowledged",
        datagrams.len(),
        acked.len()
    );
    assert!(
        unambiguous >= 3,
        "{unambiguous} of {} reports tell the convention apart",
        datagrams.len()
    );
    // Loopback loses nothing; every packet sent falls in some report's window.
    assert_eq!(acked.len(), usize::from(PACKETS), "acknowledged: {acked:?}");
}

#[test]
fn rfc_is_the_default_and_writes_the_count() {
    init();
    let recv = gst::ElementFactory::make("screamrecv")
        .build()
        .expect("screamrecv");
    assert_eq!(recv.property::<String>("num-reports"), "rfc");
    check("rfc", CountConvention::Rfc);
}

#[test]
fn minus_one_writes_the_count_minus_one() {
    check("minus-one", CountConvention::MinusOne);
}

#[test]
fn an_unknown_name_leaves_the_value_unchanged() {
    init();
    let recv = gst::ElementFactory::make("screamrecv")
        .property("num-reports", "minus-one")
        .build()
        .expect("screamrecv");
    recv.set_property("num-reports", "minus_one");
    assert_eq!(recv.property::<String>("num-reports"), "minus-one");
    recv.set_property("num-reports", "RFC");
    assert_eq!(recv.property::<String>("num-reports"), "minus-one");
    recv.set_property("num-reports", "rfc");
    assert_eq!(recv.property::<String>("num-reports"), "rfc");
}
