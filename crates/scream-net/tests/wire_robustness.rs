//! The endpoints on real loopback sockets against what a network and its other users
//! do to them: junk and foreign datagrams, feedback that stops, peers that restart,
//! sequence numbers that wrap, a second sender, and a link emulator's client table
//! and queue under a flood. Every endpoint runs in real time on a thread of its own;
//! the bounds are coarse so that a loaded machine passes them.

mod common;
// The link emulator's tests; a module, not a test target of its own.
#[path = "wire_robustness/link.rs"]
mod link;
// Spoofed sources against the peer and client tables.
#[path = "wire_robustness/spoofed.rs"]
mod spoofed;
// Feedback forged from the peer's address, and keyed feedback.
#[path = "wire_robustness/forged.rs"]
mod forged;

use std::net::{SocketAddr, UdpSocket};
use std::thread::sleep;
use std::time::Duration as StdDuration;

use common::{
    Noise, Rates, Relay, SenderSpec, any_port, feedback_packet, link_to, links, mean_target,
    min_target, receiver, rtp_packet, run_link, run_receiver, run_sender, rx_mbps, send_at,
    tx_mbps,
};
use scream::Duration;

const SSRC: u32 = 0x5c4e_a301;
/// A stream that starts at its maximum, which loopback always carries.
const RATES: Rates = Rates {
    start: 3.0,
    max: 3.0,
};

#[expect(
    clippy::print_stderr,
    reason = "the measured figures are part of the test report"
)]
fn report(name: &str, text: &str) {
    eprintln!("{name}: {text}");
}

fn secs(s: f64) -> StdDuration {
    StdDuration::from_secs_f64(s)
}

#[test]
fn junk_and_foreign_datagrams_are_counted_and_leave_the_call_alone() {
    const ROUNDS: u64 = 100;
    const FOREIGN: u32 = 0xbad0_0001;
    const SPOOFED: u32 = 0xbad0_0002;
    let rates = RATES;
    let rx = receiver(any_port());
    let rx_addr = rx.local_addr().unwrap();
    let relay = Relay::start(rx_addr);
    let tx = SenderSpec::new(relay.listen, SSRC, rates).build();
    let tx_addr = tx.local_addr().unwrap();
    let rx_run = run_receiver(rx, 4.5);
    let tx_run = run_sender(tx, 4.0);
    sleep(secs(0.5));

    let rogue = UdpSocket::bind(any_port()).unwrap();
    let mut noise = Noise::new(0x5eed);
    // Datagrams of each kind that left.
    let (mut rx_malformed, mut rx_rtcp, mut rx_foreign_rtp, mut spoofed) = (0u64, 0u64, 0u64, 0u64);
    let (mut tx_foreign, mut tx_malformed) = (0u64, 0u64);
    let to = |payload: &[u8], addr: SocketAddr| u64::from(rogue.send_to(payload, addr).is_ok());
    for round in 0..ROUNDS {
        let seq = round as u16;
        // At the receiver, from an address it has not heard.
        let len = 1 + (noise.next_u64() % 1400) as usize;
        rx_malformed += to(&noise.junk(len), rx_addr);
        // Truncated RTP: shorter than the fixed header, and a header whose CSRC count
        // runs past the end.
        rx_malformed += to(&rtp_packet(FOREIGN, seq, 100)[..7], rx_addr);
        let mut csrcs = rtp_packet(FOREIGN, seq, 0);
        csrcs[0] |= 0x0f;
        rx_malformed += to(&csrcs, rx_addr);
        rx_malformed += to(&[0x80], rx_addr);
        // An empty receiver report (RFC 3550 §6.4.2).
        rx_rtcp += to(&[0x80, 201, 0, 1, 0, 0, 0, 9], rx_addr);
        // Valid RTP of another SSRC: a peer of its own.
        rx_foreign_rtp += to(&rtp_packet(FOREIGN, seq, 200), rx_addr);
        // Valid RTP of another SSRC from the call's own source address.
        spoofed += u64::from(relay.inject_to_target(&rtp_packet(SPOOFED, seq, 200)));

        // At the sender, from an address that is not its peer: junk and feedback.
        tx_foreign += to(&noise.junk(64), tx_addr);
        tx_foreign += to(&feedback_packet(SSRC, seq, 1000 + round), tx_addr);
        // From its peer's address: junk and truncated feedback.
        tx_malformed += u64::from(relay.inject_to_client(&noise.junk(40)));
        let fb = feedback_packet(SSRC, seq, 1000 + round);
        tx_malformed += u64::from(relay.inject_to_client(&fb[..fb.len() - 4]));
        sleep(secs(0.025));
    }
    let (tx, tx_samples) = tx_run.join().expect("the sender thread");
    let (rx, rx_samples) = rx_run.join().expect("the receiver thread");
    relay.stop();

    let rc = rx.counters();
    let sc = tx.counters();
    let peers: Vec<_> = rx.peers().collect();
    let call = peers
        .iter()
        .find(|p| p.ssrc == SSRC)
        .expect("the call's peer");
    let foreign = peers
        .iter()
        .find(|p| p.ssrc == FOREIGN)
        .expect("the foreign sender as a peer");
    let clean = rx_mbps(&rx_samples, SSRC, 0.2, 0.5);
    let sprayed = rx_mbps(&rx_samples, SSRC, 0.6, 3.0);
    let target = mean_target(&tx_samples, 0.6, 3.0);
    let stats = tx.sender().stats();
    report(
        "junk",
        &format!(
            "receiver malformed {}/{rx_malformed} rtcp {}/{rx_rtcp}, foreign peer {} packets of \
             {rx_foreign_rtp}; sender malformed {}/{tx_malformed} foreign {}/{tx_foreign} \
             feedback {} ignored reports {}; call {clean:.2} Mbit/s before, {sprayed:.2} during \
             (target {target:.2}), lost {}",
            rc.malformed,
            rc.rtcp,
            foreign.counters.packets,
            sc.malformed,
            sc.foreign,
            sc.feedback,
            stats.feedback_ignored,
            stats.packets_lost,
        ),
    );
    // Every datagram that left was counted, as what it is (loopback drops only when a
    // socket buffer overflows, which these rates do not reach; 10 % spare).
    let about = |got: u64, sent: u64| got <= sent && got * 10 >= sent * 9;
    assert!(
        about(rc.malformed, rx_malformed),
        "{rc:?} of {rx_malformed}"
    );
    assert!(about(rc.rtcp, rx_rtcp), "{rc:?} of {rx_rtcp}");
    assert!(
        about(foreign.counters.packets, rx_foreign_rtp),
        "{foreign:?}"
    );
    assert!(
        about(sc.malformed, tx_malformed),
        "{sc:?} of {tx_malformed}"
    );
    assert!(about(sc.foreign, tx_foreign), "{sc:?} of {tx_foreign}");
    assert!(spoofed > ROUNDS / 2);
    // The call kept its rate, and lost nothing (the spoofed stream counts apart).
    assert!(
        sprayed > 0.8 * rates.max && sprayed > 0.9 * clean,
        "{sprayed} Mbit/s during the spray, {clean} before"
    );
    assert!(target > 0.9 * rates.max, "target {target}");
    assert!(
        call.counters.lost <= call.counters.packets / 100,
        "{call:?}"
    );
    // The receiver reports the spoofed SSRC with the call's; the sender ignores those
    // reports and takes its own.
    assert!(stats.feedback_ignored > 0, "{stats:?}");
    assert!(
        stats.packets_acked * 100 >= stats.packets_sent * 95,
        "{stats:?}"
    );
    assert!(stats.packets_lost <= stats.packets_sent / 100, "{stats:?}");
    assert!(sc.feedback > 100, "{sc:?}");
}

/// When feedback stops, a SCReAM V2 sender keeps its congestion window (nothing is
/// acknowledged, nothing reported lost) and its send window closes on the bytes in
/// flight. Media then waits in the RTP queue, whose age lowers the target by at most a
/// factor 1.5 (the reference's rate adjustment, `v2::streams`), and `stall_timeout`
/// (0.5 s) after the last transmission the stall guard gives the flight up as lost,
/// without a back-off, so that a window's worth can leave again (`sender::stall`, the
/// `stall_timeout` parameter). So the faithful sender sends into the silence at two
/// thirds of its rate for as long as it lasts.
///
/// With `outage-recovery` (`Improvements::outage_recovery`) a sender that hears nothing
/// sends one window, then one probe per probe timeout (two RTTs) for as long as the
/// silence lasts: the circuit-breaker behaviour RFC 8083 §4.3 asks of a sender whose
/// reports stopped (cease, or cut to a trickle). It keeps its window, so that the call
/// resumes at its rate once feedback is back (halving the window at each silent stall,
/// as this option once did, starved flows after dead stretches on drawn links:
/// docs/evaluation.md).
///
/// One receiver serves a faithful sender and one with `outage-recovery` through a link
/// of 20 ms each way (on bare loopback, with an RTT of 0.1 ms, even the smallest
/// window carries more than the maximum rate, so a window cut would not show in the
/// target). The receiver is stopped for 2 s, then a new one listens on its port.
#[test]
fn feedback_outage_lowers_the_target_and_the_call_recovers() {
    const OTHER: u32 = 0x5c4e_a302;
    let rates = RATES;
    let rx = receiver(any_port());
    let rx_addr = rx.local_addr().unwrap();
    let link = link_to(rx_addr, links(None, Duration::from_millis(20), 0));
    let link_addr = link.local_addr().unwrap();
    let link_run = run_link(link, 8.0);
    let faithful = run_sender(SenderSpec::new(link_addr, SSRC, rates).build(), 7.5);
    let mut spec = SenderSpec::new(link_addr, OTHER, rates);
    spec.improvements.outage_recovery = true;
    let breaker = run_sender(spec.build(), 7.5);
    let (rx, _) = run_receiver(rx, 2.5).join().expect("the receiver thread");
    drop(rx);
    sleep(secs(2.0));
    let (rx, _) = run_receiver(receiver(rx_addr), 3.0)
        .join()
        .expect("the second receiver thread");
    let mut texts = Vec::new();
    // What each may send while nothing is heard, as a fraction of its rate before.
    for (name, run, ssrc, silent_share) in [
        ("faithful", faithful, SSRC, 0.9),
        ("outage-recovery", breaker, OTHER, 0.1),
    ] {
        let (tx, s) = run.join().expect("a sender thread");
        let before = mean_target(&s, 1.5, 2.5);
        let low = min_target(&s, 2.5, 4.6);
        let after = mean_target(&s, 6.5, 7.5);
        let sent_silent = tx_mbps(&s, 2.6, 4.4);
        let silent = send_at(&s, 4.4).counters.feedback - send_at(&s, 2.6).counters.feedback;
        let peer = rx
            .peers()
            .find(|p| p.ssrc == ssrc)
            .expect("the sender is served again");
        texts.push(format!(
            "{name}: target {before:.2} Mbit/s before, lowest {low:.2} and sent \
             {sent_silent:.2} without feedback, {after:.2} 2-3 s after it returned \
             (feedback then {}); send errors {:?}",
            peer.counters.feedback,
            tx.counters().send_errors
        ));
        assert_eq!(silent, 0, "{name}: no feedback while no receiver runs");
        assert!(before > 0.9 * rates.max, "{name}: {before}");
        assert!(low < 0.8 * before, "{name}: lowest {low} of {before}");
        assert!(
            sent_silent < silent_share * before,
            "{name}: sent {sent_silent} Mbit/s into the silence, of {before}"
        );
        assert!(after > 0.8 * before, "{name}: after {after} of {before}");
        assert!(peer.counters.feedback > 20, "{name}: {peer:?}");
    }
    let link = link_run.join().expect("the link thread");
    assert_eq!(link.clients(), 2);
    let c = link.counters();
    texts.push(format!("link: {c:?}, {} delivered", link.forward.delivered));
    report("outage", &texts.join("; "));
}

/// A sender that restarts (new SSRC, new source port) is a new peer to the receiver;
/// the old one is forgotten once it has been silent for the receiver's idle time.
#[test]
fn restarted_sender_is_a_new_peer_and_the_old_one_expires() {
    const SECOND: u32 = 0x5c4e_a3f0;
    let rates = RATES;
    let rx = receiver(any_port());
    let rx_addr = rx.local_addr().unwrap();
    let rx_run = run_receiver(rx, 4.5);
    let (first, _) = run_sender(SenderSpec::new(rx_addr, SSRC, rates).build(), 1.5)
        .join()
        .expect("the first sender");
    let first_addr = first.local_addr().unwrap();
    drop(first);
    let (second, s) = run_sender(SenderSpec::new(rx_addr, SECOND, rates).build(), 2.5)
        .join()
        .expect("the second sender");
    let (mut rx, r) = rx_run.join().expect("the receiver thread");
    let second_addr = second.local_addr().unwrap();
    assert_ne!(first_addr, second_addr);
    // When the receiver last heard the first sender, by its samples.
    let packets_of = |sample: &common::RecvSample, ssrc| {
        sample
            .peers
            .iter()
            .find(|p| p.ssrc == ssrc)
            .map_or(0, |p| p.counters.packets)
    };
    let last = r.last().expect("receiver samples");
    let heard_until = r
        .iter()
        .find(|x| packets_of(x, SSRC) == packets_of(last, SSRC))
        .map_or(0.0, |x| x.t);
    // Both are peers now: the second one served, the first remembered.
    let both: Vec<_> = last.peers.iter().map(|p| (p.ssrc, p.addr)).collect();
    assert!(both.contains(&(SSRC, first_addr)), "{both:?}");
    assert!(both.contains(&(SECOND, second_addr)), "{both:?}");
    let rate = rx_mbps(&r, SECOND, 2.5, 4.0);
    let feedback = second.counters().feedback;
    // The receiver forgets a peer after 10 s of silence (its `PEER_IDLE`).
    let clock = rx.clock();
    let until = scream::Instant::from_nanos(((heard_until + 10.4) * 1e9) as u64);
    let mut kept = Vec::new();
    rx.run(until, Duration::from_millis(100), |now, rx| {
        if now.as_secs_f64() < heard_until + 9.5 {
            kept.push(rx.peers().count());
        }
    })
    .expect("the receiver runs on");
    let c = rx.counters();
    let left: Vec<_> = rx.peers().map(|p| p.ssrc).collect();
    report(
        "sender restart",
        &format!(
            "second call {rate:.2} Mbit/s, {feedback} feedback; first heard until {heard_until:.2} \
             s, peers expired {} by {:.2} s, left {left:x?}",
            c.peers_expired,
            clock.now().as_secs_f64()
        ),
    );
    assert!(rate > 0.8 * rates.max, "{rate}");
    assert!(feedback > 50, "{feedback}");
    assert!(
        send_at(&s, 2.4).target_mbps > 0.9 * rates.max,
        "{:?}",
        s.last()
    );
    assert!(!kept.is_empty() && kept.iter().all(|&n| n == 2), "{kept:?}");
    assert_eq!(c.peers_expired, 1);
    assert_eq!(left, [SECOND]);
    assert_eq!(c.peers_evicted, 0);
    // The first sender left the table but not the record: its counters are kept for
    // the summary, as they were when it fell silent.
    let departed: Vec<_> = rx.departed_peers().collect();
    assert_eq!(departed.len(), 1, "{departed:?}");
    assert_eq!((departed[0].ssrc, departed[0].addr), (SSRC, first_addr));
    assert_eq!(departed[0].counters.packets, packets_of(last, SSRC));
}

/// A receiver that restarts on the same port has a new clock: its report times start
/// again near zero, seconds behind the last ones. The sender ignores the first reports
/// of the new clock and follows it once a few in a row agree (`delay::report_clock`,
/// `RESYNC_REPORTS`), so acknowledgements go on and the rate holds.
#[test]
fn restarted_receiver_is_followed_after_a_few_reports() {
    let rates = RATES;
    let rx = receiver(any_port());
    let rx_addr = rx.local_addr().unwrap();
    let tx_run = run_sender(SenderSpec::new(rx_addr, SSRC, rates).build(), 6.0);
    let (rx, _) = run_receiver(rx, 2.5).join().expect("the receiver thread");
    let old_feedback = rx.peers().next().expect("the sender").counters.feedback;
    drop(rx);
    // A new receiver, on a clock of its own that starts now.
    let (rx, r) = run_receiver(receiver(rx_addr), 3.5)
        .join()
        .expect("the second receiver thread");
    let (tx, s) = tx_run.join().expect("the sender thread");
    let restart = s
        .iter()
        .find(|x| x.counters.feedback > old_feedback)
        .map_or(f64::NAN, |x| x.t);
    let (at, end) = (send_at(&s, restart), *s.last().expect("samples"));
    let ignored = end.ignored - send_at(&s, 2.4).ignored;
    let acked = end.acked - at.acked;
    let sent = end.counters.datagrams - at.counters.datagrams;
    let before = mean_target(&s, 1.5, 2.5);
    let after = mean_target(&s, 4.5, 6.0);
    let rate = rx_mbps(&r, SSRC, 1.5, 3.4);
    let peer = rx
        .peers()
        .next()
        .expect("the sender, to the second receiver");
    report(
        "receiver restart",
        &format!(
            "feedback {old_feedback} to the first receiver; reports ignored across the restart \
             {ignored}; acknowledged {acked} of {sent} sent after it; target {before:.2} -> \
             {after:.2} Mbit/s; second receiver got {rate:.2} Mbit/s"
        ),
    );
    // Some reports of the new clock were ignored, but no more than a few feedback
    // packets' worth (each reports at most the receiver's window of 64 packets).
    assert!(ignored > 0, "the clock step went unnoticed");
    assert!(ignored <= 5 * 64, "{ignored} reports ignored");
    assert!(acked * 10 >= sent * 9, "{acked} of {sent} acknowledged");
    assert!(
        after > 0.9 * before && before > 0.9 * rates.max,
        "{before} -> {after}"
    );
    assert!(rate > 0.8 * rates.max, "{rate}");
    assert_eq!(peer.ssrc, SSRC);
    assert!(peer.counters.feedback > 50, "{peer:?}");
    assert_eq!(tx.sender().stats().time_steps, 0);
}

/// RTP sequence numbers wrap from 65535 to 0 within the call: nothing is taken for
/// lost and feedback goes on across the wrap, at both ends.
#[test]
fn sequence_numbers_wrap_without_losses() {
    const FIRST_SEQ: u16 = 65_000;
    let rates = Rates {
        start: 6.0,
        max: 6.0,
    };
    let rx = receiver(any_port());
    let rx_addr = rx.local_addr().unwrap();
    let mut spec = SenderSpec::new(rx_addr, SSRC, rates);
    spec.initial_seq = FIRST_SEQ;
    let rx_run = run_receiver(rx, 3.2);
    let (tx, s) = run_sender(spec.build(), 3.0)
        .join()
        .expect("the sender thread");
    let (rx, _) = rx_run.join().expect("the receiver thread");
    let to_wrap = u64::from(u16::MAX - FIRST_SEQ) + 1;
    let wrap = s
        .iter()
        .find(|x| x.counters.datagrams >= to_wrap)
        .copied()
        .expect("the sequence numbers wrapped");
    let end = *s.last().expect("samples");
    let peer = rx.peers().next().expect("the sender as a peer");
    let stats = tx.sender().stats();
    report(
        "wrap",
        &format!(
            "wrapped at {:.2} s; {} packets sent ({} after the wrap), receiver counted {} \
             lost of {}; sender: {} lost, {} acknowledged after the wrap, {} feedback after \
             it, {} reports ignored",
            wrap.t,
            end.counters.datagrams,
            end.counters.datagrams - wrap.counters.datagrams,
            peer.counters.lost,
            peer.counters.packets,
            stats.packets_lost,
            end.acked - wrap.acked,
            end.counters.feedback - wrap.counters.feedback,
            stats.feedback_ignored,
        ),
    );
    let after = end.counters.datagrams - wrap.counters.datagrams;
    assert!(wrap.t < 2.0 && after > to_wrap, "wrap at {} s", wrap.t);
    assert_eq!(peer.counters.lost, 0);
    assert_eq!(stats.packets_lost, 0);
    assert!(stats.feedback_ignored < 10, "{stats:?}");
    assert!(
        (end.acked - wrap.acked) * 10 >= after * 9,
        "{end:?} {wrap:?}"
    );
    assert!(end.counters.feedback - wrap.counters.feedback > 30);
    assert!(end.target_mbps > 0.9 * rates.max);
}

/// Two senders to one receiver: each is a peer of its own with its own feedback, and
/// neither is told about the other's packets.
#[test]
fn two_senders_share_a_receiver_and_each_gets_its_own_feedback() {
    const OTHER: u32 = 0x0bb0_0002;
    let rates = RATES;
    let rx = receiver(any_port());
    let rx_addr = rx.local_addr().unwrap();
    let rx_run = run_receiver(rx, 4.2);
    let a = run_sender(SenderSpec::new(rx_addr, SSRC, rates).build(), 4.0);
    let b = run_sender(SenderSpec::new(rx_addr, OTHER, rates).build(), 4.0);
    let (a, sa) = a.join().expect("sender a");
    let (b, sb) = b.join().expect("sender b");
    let (rx, r) = rx_run.join().expect("the receiver thread");
    let peers: Vec<_> = rx.peers().collect();
    let mut texts = Vec::new();
    for (tx, s, ssrc) in [(&a, &sa, SSRC), (&b, &sb, OTHER)] {
        let peer = peers
            .iter()
            .find(|p| p.ssrc == ssrc)
            .expect("each sender is a peer");
        let stats = tx.sender().stats();
        let target = mean_target(s, 1.0, 4.0);
        let rate = rx_mbps(&r, ssrc, 1.0, 4.0);
        let fb = tx.counters().feedback;
        texts.push(format!(
            "{ssrc:#x}: feedback {fb} received of {} sent to it, {} reports ignored, target \
             {target:.2}, received {rate:.2} Mbit/s",
            peer.counters.feedback, stats.feedback_ignored
        ));
        assert_eq!(peer.addr, tx.local_addr().unwrap());
        assert!(
            fb > 100 && fb * 10 >= peer.counters.feedback * 9,
            "{fb} {peer:?}"
        );
        assert!(stats.feedback_ignored < 10, "{stats:?}");
        assert!(target > 0.9 * rates.max, "{target}");
        assert!(rate > 0.8 * rates.max, "{rate}");
        assert_eq!(tx.counters().foreign, 0);
    }
    report("two senders", &texts.join("; "));
    assert_eq!(peers.len(), 2);
}
