//! Real video across `scream link` on loopback: an encoder, a payloader and
//! `screamsend` on one side, `screamrecv`, a depayloader and a decoder on the other,
//! the link's capacity stepping 5 -> 2 -> 5 Mbit/s with L4S marking. The encoder's
//! bitrate must follow the capacity, every frame that arrives must decode, and the
//! end-to-end frame latency (source to sink) is printed.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use gst::prelude::*;

/// Length of each capacity step, seconds, and the capacities, Mbit/s.
const STEP_S: u64 = 10;
const STEPS_MBPS: [f64; 3] = [5.0, 2.0, 5.0];
/// After a step, the encoder has this long to follow it.
const SETTLE_S: u64 = 3;
/// How far the encoder's bitrate may be from the link's capacity.
const TOLERANCE: f64 = 0.25;
/// RTP clock of video, Hz.
const RTP_HZ: u64 = 90_000;

/// One codec's elements.
struct Codec {
    name: &'static str,
    encode: &'static str,
    caps: &'static str,
    decode: &'static str,
    /// The encoder's bitrate property and its unit in bit/s.
    property: &'static str,
    unit_bps: f64,
}

const H264: Codec = Codec {
    name: "H.264",
    encode: "x264enc name=enc tune=zerolatency speed-preset=ultrafast key-int-max=500 vbv-buf-capacity=100 \
             ! rtph264pay name=pay timestamp-offset=0 config-interval=-1",
    caps: "application/x-rtp,media=video,clock-rate=90000,encoding-name=H264",
    decode: "rtph264depay name=depay ! avdec_h264 output-corrupt=false",
    property: "bitrate",
    unit_bps: 1000.0,
};

/// The RTP timestamp of a frame whose presentation time is `pts_ns`, as the
/// payloader computes it with `timestamp-offset=0`.
fn rtp_ticks(pts_ns: u64) -> u64 {
    pts_ns * RTP_HZ / 1_000_000_000
}

/// Counts the buffers that pass `pad`.
fn counter(pad: &gst::Pad) -> Arc<Mutex<u64>> {
    let n = Arc::new(Mutex::new(0u64));
    let c = n.clone();
    pad.add_probe(gst::PadProbeType::BUFFER, move |_, _| {
        *c.lock().unwrap() += 1;
        gst::PadProbeReturn::Ok
    });
    n
}

/// One run; returns the steps the encoder did not follow (the other checks panic).
fn run(codec: &Codec) -> Vec<String> {
    init();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (link_port, recv_port) = (free_port(), free_port());
    let steps: Vec<String> = STEPS_MBPS
        .iter()
        .enumerate()
        .map(|(i, c)| format!("[{},{c}]", i as u64 * STEP_S))
        .collect();
    let total = STEP_S * STEPS_MBPS.len() as u64;
    let _link = scream(
        &[
            "link",
            "--listen",
            &format!("127.0.0.1:{link_port}"),
            "--forward",
            &format!("127.0.0.1:{recv_port}"),
            "--queue",
            "l4s-ramp",
            // The default 8-12 ms ramp marks the tail of nearly every frame at these
            // rates (a 50 fps frame at 5 Mbit/s takes 20 ms to serialise), which
            // holds any L4S sender far below the capacity; 20-40 ms marks queues
            // that frames leave behind, not the frames' own serialisation.
            "--set",
            "link.queue.ramp_min_ms=20",
            "--set",
            "link.queue.ramp_max_ms=40",
            "--delay",
            "10",
            "--set",
            &format!("link.capacity_steps=[{}]", steps.join(",")),
            "--duration",
            &(total + 10).to_string(),
        ],
        dir.path(),
    );
    let receiver = play(&format!(
        "screamrecv name=recv port={recv_port} caps=\"{}\" ! {} ! fakesink name=sink sync=false",
        codec.caps, codec.decode
    ));
    let sender = play(&format!(
        "videotestsrc name=src is-live=true pattern=snow \
         ! video/x-raw,width=640,height=360,framerate=50/1 ! {} \
         ! screamsend name=send port={link_port} ecn=l4s max-bitrate=8000",
        codec.encode
    ));
    let t0 = Instant::now();

    // When each frame left the source, by its RTP timestamp.
    let born: Arc<Mutex<HashMap<u64, Instant>>> = Arc::default();
    let b = born.clone();
    let src_pad = element(&sender, "src")
        .static_pad("src")
        .expect("a src pad");
    src_pad.add_probe(gst::PadProbeType::BUFFER, move |_, info| {
        if let Some(pts) = info.buffer().and_then(|b| b.pts()) {
            b.lock()
                .unwrap()
                .insert(rtp_ticks(pts.nseconds()), Instant::now());
        }
        gst::PadProbeReturn::Ok
    });
    // The receiver stamps arrival times; the test restamps each packet with its RTP
    // timestamp instead, so that the decoded frame names the source frame it was.
    let recv_pad = element(&receiver, "recv")
        .static_pad("src")
        .expect("a src pad");
    recv_pad.add_probe(gst::PadProbeType::BUFFER, |_, info| {
        if let Some(gst::PadProbeData::Buffer(buffer)) = &mut info.data {
            let ticks = buffer
                .map_readable()
                .ok()
                .filter(|m| m.len() >= 8)
                .map(|m| u64::from(u32::from_be_bytes([m[4], m[5], m[6], m[7]])));
            if let Some(ticks) = ticks {
                let ns = (ticks * 1_000_000_000).div_ceil(RTP_HZ);
                buffer.make_mut().set_pts(gst::ClockTime::from_nseconds(ns));
            }
        }
        gst::PadProbeReturn::Ok
    });
    let latencies: Arc<Mutex<Vec<f64>>> = Arc::default();
    let unmatched = Arc::new(Mutex::new(0u64));
    let (l, u, b) = (latencies.clone(), unmatched.clone(), born.clone());
    let sink_pad = element(&receiver, "sink")
        .static_pad("sink")
        .expect("a sink pad");
    sink_pad.add_probe(gst::PadProbeType::BUFFER, move |_, info| {
        if let Some(pts) = info.buffer().and_then(|b| b.pts()) {
            match b.lock().unwrap().get(&rtp_ticks(pts.nseconds())) {
                Some(at) => l.lock().unwrap().push(at.elapsed().as_secs_f64() * 1000.0),
                None => *u.lock().unwrap() += 1,
            }
        }
        gst::PadProbeReturn::Ok
    });
    let depay_pad = element(&receiver, "depay")
        .static_pad("src")
        .expect("a src pad");
    let assembled = counter(&depay_pad);
    let decoded = counter(&sink_pad);
    let produced = counter(&src_pad);

    // The encoder's bitrate, sampled every 100 ms.
    let enc = element(&sender, "enc");
    let mut samples: Vec<(f64, f64)> = Vec::new();
    while t0.elapsed() < Duration::from_secs(total) {
        sleep(Duration::from_millis(100));
        let v: f64 = match enc.property_value(codec.property).get::<u32>() {
            Ok(v) => f64::from(v),
            Err(_) => f64::from(enc.property::<i32>(codec.property)),
        };
        samples.push((t0.elapsed().as_secs_f64(), v * codec.unit_bps / 1e6));
    }
    let send = element(&sender, "send");
    let recv = element(&receiver, "recv");
    let (sent, ce, acked) = (
        stat(&send, "packets-sent"),
        stat(&send, "packets-ce"),
        stat(&send, "packets-acked"),
    );
    let received = stat(&recv, "packets");
    let problems: Vec<_> = bus_problems(&sender)
        .into_iter()
        .chain(bus_problems(&receiver))
        .collect();
    stop(&sender);
    // Frames still crossing the link when the sender stopped may still decode.
    sleep(Duration::from_millis(300));
    stop(&receiver);

    let mut lat = latencies.lock().unwrap().clone();
    let (assembled, decoded, produced) = (
        *assembled.lock().unwrap(),
        *decoded.lock().unwrap(),
        *produced.lock().unwrap(),
    );
    println!(
        "{}: {produced} frames at the source, {assembled} assembled, {decoded} decoded; \
         packets sent {sent}, received {received}, acked {acked}, CE {ce}",
        codec.name
    );
    println!(
        "{}: end-to-end frame latency p50 {:.1} ms, p95 {:.1} ms ({} frames)",
        codec.name,
        quantile(&mut lat, 0.5),
        quantile(&mut lat, 0.95),
        lat.len()
    );
    let mut failures = Vec::new();
    for (i, &capacity) in STEPS_MBPS.iter().enumerate() {
        let (from, to) = (
            (i as u64 * STEP_S + SETTLE_S) as f64,
            ((i as u64 + 1) * STEP_S) as f64,
        );
        let mut v: Vec<f64> = samples
            .iter()
            .filter(|(t, _)| *t >= from && *t < to)
            .map(|s| s.1)
            .collect();
        let (lo, hi) = (capacity * (1.0 - TOLERANCE), capacity * (1.0 + TOLERANCE));
        let (min, median, max) = (
            quantile(&mut v, 0.0),
            quantile(&mut v, 0.5),
            quantile(&mut v, 1.0),
        );
        println!(
            "{}: {from:.0}-{to:.0} s, link {capacity} Mbit/s: encoder median {median:.2} Mbit/s \
             (min {min:.2}, max {max:.2})",
            codec.name
        );
        if !(lo..=hi).contains(&median) {
            failures.push(format!(
                "{from:.0}-{to:.0} s: encoder at {median:.2} Mbit/s, link {capacity} Mbit/s"
            ));
        }
    }
    assert!(problems.is_empty(), "bus: {problems:#?}");
    assert!(ce > 0, "the link marked no packet CE");
    assert!(
        decoded > produced / 2,
        "{decoded} of {produced} frames decoded"
    );
    // A frame assembled but not decoded is corrupt (output-corrupt=false drops it);
    // one may be in the decoder when the pipeline stops.
    assert!(
        decoded + 1 >= assembled,
        "{assembled} frames assembled, {decoded} decoded"
    );
    assert_eq!(
        *unmatched.lock().unwrap(),
        0,
        "decoded frames that no source frame matched"
    );
    failures
}

#[test]
fn h264_follows_the_link_capacity_and_every_arriving_frame_decodes() {
    // A real-time test on a shared machine: a stall of a few hundred milliseconds
    // (seen under a load average of 13 on two cores) costs the sender a back-off that
    // can outlast a step's window, so one failed run is retried.
    let first = run(&H264);
    if first.is_empty() {
        return;
    }
    println!("H.264: retrying once after {first:#?}");
    let second = run(&H264);
    assert!(
        second.is_empty(),
        "H.264 did not follow the capacity in two runs: {first:#?} then {second:#?}"
    );
}

/// VP8 at the capacities above costs more CPU than a test machine has (libvpx on
/// noise at 640x360, 50 fps, fell to 4 fps on two busy cores), so VP8 is checked on
/// its own, without the link: `screamsend` drives vp8enc's `target-bitrate` in
/// bit/s, and what arrives decodes.
#[test]
fn vp8_encoder_is_driven_in_bits_per_second() {
    init();
    let port = free_port();
    let receiver = play(&format!(
        "screamrecv name=recv port={port} caps=\"application/x-rtp,media=video,\
         clock-rate=90000,encoding-name=VP8\" ! rtpvp8depay name=depay ! vp8dec \
         ! fakesink name=sink sync=false"
    ));
    let sender = play(&format!(
        "videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=180,framerate=25/1 \
         ! vp8enc name=enc deadline=1 cpu-used=8 lag-in-frames=0 ! rtpvp8pay \
         ! screamsend name=send port={port} start-bitrate=700 max-bitrate=900"
    ));
    let sink_pad = element(&receiver, "sink")
        .static_pad("sink")
        .expect("a sink pad");
    let decoded = counter(&sink_pad);
    let assembled = counter(
        &element(&receiver, "depay")
            .static_pad("src")
            .expect("a src pad"),
    );
    sleep(Duration::from_secs(3));
    let enc = element(&sender, "enc");
    let set = enc.property::<i32>("target-bitrate");
    let target = stat(&element(&sender, "send"), "target-bitrate");
    let problems: Vec<_> = bus_problems(&sender)
        .into_iter()
        .chain(bus_problems(&receiver))
        .collect();
    stop(&sender);
    sleep(Duration::from_millis(200));
    stop(&receiver);
    let (decoded, assembled) = (*decoded.lock().unwrap(), *assembled.lock().unwrap());
    println!(
        "VP8: target {target} bit/s, vp8enc target-bitrate {set}; {assembled} frames assembled, {decoded} decoded"
    );
    assert!(problems.is_empty(), "bus: {problems:#?}");
    // The target moves between the encoder's update and the read; both stay within the
    // stream's limits, in bit/s (a kbit/s value would be below 1000).
    assert!(
        (700_000..=900_000).contains(&set),
        "vp8enc target-bitrate {set}"
    );
    assert!((700_000..=900_000).contains(&target), "target {target}");
    assert!(decoded > 25, "{decoded} frames decoded");
    assert!(
        decoded + 1 >= assembled,
        "{assembled} frames assembled, {decoded} decoded"
    );
}
