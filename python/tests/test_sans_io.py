"""The sans-I/O Sender and Receiver, and the RFC 8888 codec, from Python."""

from __future__ import annotations

import contextlib
import random
import re
import struct
import subprocess
import sys
from collections import deque
from pathlib import Path
from typing import Any, Callable

import pytest

import scream
from scream import (
    ConfigError,
    Event,
    Feedback,
    FeedbackError,
    PacketReport,
    Receiver,
    Sender,
    SentPacket,
    decode_feedback,
    encode_feedback,
)

MS = 1_000_000
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "asyncio_loopback.py"


def video_sender(**kwargs: Any) -> tuple[Sender, int]:
    """A sender with the README's stream: 0.1 / 1 (start) / 10 Mbit/s."""
    sender = Sender(**kwargs)
    return sender, sender.add_stream(0x1234, 100e3, 1e6, 10e6)


def run_ideal_path(
    sender: Sender, stream: int, receiver: Receiver, ms: int, delay_ms: int = 10
) -> list[Event]:
    """The README's loop: 1 ms steps, a frame every 20 ms at the target bitrate, every
    packet arriving ``delay_ms`` after it left, feedback back at once as bytes."""
    network: deque[tuple[int, SentPacket]] = deque()
    events: list[Event] = []
    for step in range(ms):
        now = step * MS
        if step % 20 == 0:
            size = int(sender.target_bitrate(stream) / 8 / 50)
            sender.on_media_frame(now, stream, size)
        while network and network[0][0] <= now:
            _, arrived = network.popleft()
            receiver.on_packet(
                now, arrived.ssrc, arrived.seq, arrived.size_bytes, arrived.ecn, arrived.marker
            )
        while (report := receiver.poll_feedback(now)) is not None:
            assert sender.on_feedback(now, report) == "taken"
        timeout = sender.poll_timeout()
        if timeout is not None and timeout <= now:
            sender.handle_timeout(now)
        while isinstance(p := sender.poll_transmit(now), SentPacket):
            network.append((now + delay_ms * MS, p))
        while (event := sender.poll_event()) is not None:
            events.append(event)
    return events


def test_target_rises_above_its_start_over_an_ideal_10_ms_path() -> None:
    sender, video = video_sender()
    receiver = Receiver()
    events = run_ideal_path(sender, video, receiver, 2_000)
    stats = sender.stats()
    assert stats["srtt_ns"] >= 10 * MS
    assert sender.target_bitrate(video) > 1e6
    assert stats["packets_acked"] > 0
    assert stats["packets_acked"] == receiver.stats()["packets_received"]
    assert stats["streams"][0]["target_bitrate_bps"] == sender.target_bitrate(video)
    assert stats["generation"]["name"] == "scream-v2"
    # The encoder heard of the rise, and the last word is the current target.
    rises = [e for e in events if isinstance(e, Event.TargetBitrate)]
    assert rises and rises[-1] == Event.TargetBitrate(video, sender.target_bitrate(video))


@pytest.mark.parametrize("generation", scream.GENERATIONS)
def test_every_generation_runs_the_loop(generation: str) -> None:
    sender, video = video_sender(generation=generation)
    assert sender.generation == generation
    run_ideal_path(sender, video, Receiver(), 1_000)
    stats = sender.stats()
    assert stats["generation"]["name"] == generation
    assert stats["packets_acked"] > 0 and stats["srtt_ns"] >= 10 * MS


def test_poll_transmit_gives_a_packet_an_instant_or_none() -> None:
    sender, video = video_sender()
    assert sender.poll_transmit(0) is None, "nothing queued"
    sender.on_media_frame(0, video, 10_000)
    first = sender.poll_transmit(0)
    assert isinstance(first, SentPacket)
    assert (first.stream, first.ssrc, first.seq, first.frame_index) == (video, 0x1234, 0, 0)
    assert first.size_bytes == 1000 + 12, "MSS payload plus the RTP header"
    assert first.ecn == 0 and not first.marker and first.frame_enqueued_ns == 0
    # The pacer spaces the rest: the next one is due at an instant after now.
    wait = sender.poll_transmit(0)
    assert isinstance(wait, int) and wait > 0
    second = sender.poll_transmit(wait)
    assert isinstance(second, SentPacket) and second.seq == 1


def test_packets_carry_the_ecn_codepoint_of_the_mode() -> None:
    for ecn, bits in [("none", 0), ("classic", 2), ("l4s", 1)]:
        sender, video = video_sender(ecn=ecn)
        sender.on_media_frame(0, video, 500)
        p = sender.poll_transmit(0)
        assert isinstance(p, SentPacket) and p.ecn == bits and p.marker


def test_an_old_rtp_queue_is_discarded_with_a_key_frame_request() -> None:
    sender, video = video_sender(params={"max_rtp_queue_delay": 0.1})
    # A frame nobody sends: the queue ages until poll_timeout says it is too old.
    sender.on_media_frame(0, video, 50_000)
    due = sender.poll_timeout()
    assert due is not None and 100 * MS <= due <= 1_000 * MS
    sender.handle_timeout(due)
    assert sender.poll_event() == Event.KeyFrameRequest(video)
    assert sender.stats()["streams"][0]["queue_discards"] == 1
    assert sender.poll_transmit(due) is None


def test_params_are_set_by_the_librarys_names_and_units() -> None:
    sender = Sender(params={"mss_bytes": 1200, "max_rtp_queue_delay": 0.5})
    assert sender.params["mss_bytes"] == 1200
    assert sender.params["max_rtp_queue_delay"] == 0.5
    assert set(sender.params) == set(scream.params())
    # Values bound to each other (overhead <= its maximum) set together, in any order.
    raised = {"ref_wnd_overhead": 6.0, "ref_wnd_overhead_max": 8.0}
    for params in (raised, dict(reversed(raised.items()))):
        got = Sender(params=params).params
        assert (got["ref_wnd_overhead"], got["ref_wnd_overhead_max"]) == (6.0, 8.0)
    with pytest.raises(ConfigError, match=r"ref_wnd_overhead_max.*at least ref_wnd_overhead"):
        Sender(params={"ref_wnd_overhead": 6.0, "ref_wnd_overhead_max": 5.0})
    v1 = Sender("scream-v1")
    assert set(v1.params) == set(scream.params("scream-v1"))
    receiver = Receiver(params={"packets_per_report": 1, "max_report_interval": 0.01})
    assert receiver.params["packets_per_report"] == 1
    assert receiver.params["max_report_interval"] == pytest.approx(0.01)
    # One report per packet.
    for seq in range(3):
        receiver.on_packet(seq * MS, 7, seq, 100)
        assert receiver.poll_feedback(seq * MS) is not None
        assert receiver.poll_feedback(seq * MS) is None
    assert receiver.stats()["reports"] == 3


def test_bad_params_raise_config_error_with_the_librarys_message() -> None:
    mss = scream.params()["mss_bytes"]
    with pytest.raises(ConfigError, match=r"mss_bytes.*must be in \[100, 65000\]") as e:
        Sender(params={"mss_bytes": mss["min"] - 1})
    assert isinstance(e.value, ValueError)
    with pytest.raises(ConfigError, match="unknown parameter of scream-v2; known: mss_bytes"):
        Sender(params={"no_such_param": 1.0})
    with pytest.raises(ConfigError, match="unknown generation"):
        Sender("scream-v9")
    with pytest.raises(ConfigError, match="unknown improvement; known: outage-recovery"):
        Sender(improvements=["warp-drive"])
    with pytest.raises(ConfigError, match=r"report_window.*1\.\.=16384"):
        Receiver(params={"report_window": 20_000})
    with pytest.raises(ConfigError, match="unknown receiver parameter"):
        Receiver(params={"packets": 3})
    sender, _ = video_sender()
    with pytest.raises(ConfigError, match=r"ssrc.*already used"):
        sender.add_stream(0x1234, 1e5, 1e6, 1e7)


def test_feedback_from_the_receiver_round_trips_through_bytes() -> None:
    receiver = Receiver(ssrc=99)
    for seq in (10, 11, 13):
        receiver.on_packet(1_000 * MS + seq * MS, 0xABC, seq, 1200, ecn="ect1")
    receiver.on_packet(1_020 * MS, 0xABC, 14, 1200, ecn=3, marker=True)
    data = receiver.poll_feedback(1_020 * MS)
    assert isinstance(data, bytes)
    fb = decode_feedback(data)
    assert len(fb) == len(fb.reports) == 5
    assert [r.seq for r in fb.reports] == [10, 11, 12, 13, 14]
    assert [r.received for r in fb.reports] == [True, True, False, True, True]
    assert [r.ecn for r in fb.reports] == [1, 1, 0, 1, 3]
    assert fb.reports[2] == PacketReport(0xABC, 12, received=False)
    assert fb.report_time_ns == pytest.approx(1_020 * MS, abs=MS)
    arrival = fb.reports[0].arrival_ns
    assert arrival is not None and abs(arrival - 1_010 * MS) <= MS
    # The decoded report encodes to the same bytes.
    assert encode_feedback(fb, sender_ssrc=99) == data == fb.encode(99)


def test_on_feedback_takes_decoded_feedback_as_well_as_bytes() -> None:
    sender, video = video_sender()
    receiver = Receiver()
    sender.on_media_frame(0, video, 2_500)
    # Three packets, paced; the last one, with the marker bit, makes the report due.
    now = 0
    while (p := sender.poll_transmit(now)) is not None:
        if isinstance(p, SentPacket):
            receiver.on_packet(now + 5 * MS, p.ssrc, p.seq, p.size_bytes, p.ecn, p.marker)
        else:
            now = p
    data = receiver.poll_feedback(now + 5 * MS)
    assert data is not None
    assert sender.on_feedback(now + 10 * MS, decode_feedback(data)) == "taken"
    assert sender.stats()["packets_acked"] == 3
    # A report of someone else's packets changes nothing.
    stranger = Feedback(20 * MS, [PacketReport(0x999, 0, arrival_ns=19 * MS)])
    assert sender.on_feedback(20 * MS, stranger) == "unproven"
    assert sender.on_feedback(20 * MS, stranger.encode()) == "unproven"
    assert sender.stats()["feedback_unproven"] == 2


def test_feedback_built_by_hand_decodes_to_what_was_built() -> None:
    reports = [
        PacketReport(5, 65_534, arrival_ns=4_990 * MS, ecn="ect0"),
        PacketReport(5, 65_535, received=False),
        PacketReport(5, 0, arrival_ns=None, ecn="ce"),
        PacketReport(6, 100, arrival_ns=4_999 * MS),
    ]
    built = Feedback(5_000 * MS, reports)
    back = decode_feedback(built.encode())
    assert [(r.ssrc, r.seq, r.received, r.ecn) for r in back.reports] == [
        (r.ssrc, r.seq, r.received, r.ecn) for r in reports
    ]
    for want, got in zip(reports, back.reports):
        if want.arrival_ns is None:
            assert got.arrival_ns is None
        else:
            assert got.arrival_ns is not None
            assert abs(got.arrival_ns - want.arrival_ns) <= MS, "1/1024 s on the wire"
    # Count-minus-one bytes read back under that convention and under detection.
    minus_one = built.encode(count="minus-one")
    assert minus_one != built.encode()
    assert decode_feedback(minus_one, count="minus-one") == back
    assert decode_feedback(minus_one, count="auto") == back


def valid_feedback() -> bytes:
    reports = [PacketReport(1, seq, arrival_ns=900 * MS, ecn=1) for seq in range(8)]
    return Feedback(1_000 * MS, reports).encode()


def test_every_truncation_of_valid_feedback_raises_feedback_error() -> None:
    data = valid_feedback()
    for n in range(len(data)):
        with pytest.raises(FeedbackError):
            decode_feedback(data[:n])


def test_huge_counts_and_lengths_raise_feedback_error() -> None:
    data = bytearray(valid_feedback())
    # num_reports of the first block (after the 8-byte header, the sender SSRC and the
    # media SSRC and begin_seq).
    struct.pack_into("!H", data, 14, 0xFFFF)
    with pytest.raises(FeedbackError, match="16384"):
        decode_feedback(bytes(data))
    struct.pack_into("!H", data, 14, 16_000)
    with pytest.raises(FeedbackError, match="num_reports 16000"):
        decode_feedback(bytes(data))
    # An RTCP length field claiming the largest packet.
    data = bytearray(valid_feedback())
    struct.pack_into("!H", data, 2, 0xFFFF)
    with pytest.raises(FeedbackError, match="declares 262144 bytes"):
        decode_feedback(bytes(data))


def test_random_bytes_never_crash_the_decoder_or_the_sender() -> None:
    rng = random.Random(8888)
    sender, video = video_sender()
    sender.on_media_frame(0, video, 5_000)
    while isinstance(sender.poll_transmit(0), SentPacket):
        pass
    before = sender.stats()
    valid = valid_feedback()
    parsed = 0
    for i in range(3_000):
        if i % 2:
            data = bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 200)))
        else:
            # Valid bytes with a few flipped: a plausible header over damaged blocks.
            flipped = bytearray(valid)
            for _ in range(rng.randrange(1, 4)):
                flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
            data = bytes(flipped)
        with contextlib.suppress(FeedbackError):
            decode_feedback(data)
        try:
            used = sender.on_feedback(MS, data)
        except FeedbackError:
            continue
        # What parses names packets this sender never sent (SSRC 1): no effect.
        assert used == "unproven"
        parsed += 1
    assert parsed > 100, "damaged packets that still parse reach the sender"
    after = sender.stats()
    for key in ("packets_acked", "packets_lost", "bytes_in_flight", "window_bytes"):
        assert after[key] == before[key], key


def test_decoding_accepts_bytes_bytearray_and_memoryview() -> None:
    data = valid_feedback()
    assert decode_feedback(bytearray(data)) == decode_feedback(memoryview(data))
    assert decode_feedback(data) == decode_feedback(bytearray(data))


def test_events_are_classes_to_match_on() -> None:
    event = Event.TargetBitrate(0, 2e6)
    assert isinstance(event, Event) and event.stream == 0 and event.bitrate_bps == 2e6
    assert repr(event) == "Event.TargetBitrate(stream=0, bitrate_bps=2000000.0)"
    assert Event.KeyFrameRequest(1) != Event.KeyFrameRequest(0)
    assert Event.FrameSkipped(1, 7).frame_index == 7


# The calls below are wrong on purpose, so they go through `Any`, past the stubs.
untyped: Any = scream

BAD_CALLS: list[tuple[str, Callable[[Any, Any], object], type[Exception], str]] = [
    ("negative time", lambda s, r: s.handle_timeout(-1), ValueError, "now_ns"),
    ("float time", lambda s, r: s.poll_transmit(0.5), TypeError, "now_ns"),
    ("time past u64", lambda s, r: s.poll_transmit(2**64), ValueError, "now_ns"),
    ("str time", lambda s, r: r.poll_feedback("0"), TypeError, "now_ns"),
    ("unknown stream", lambda s, r: s.on_media_frame(0, 5, 100), ValueError, "stream"),
    ("stream of wrong type", lambda s, r: s.target_bitrate("0"), TypeError, "stream"),
    ("negative size", lambda s, r: s.on_media_frame(0, 0, -1), ValueError, "size_bytes"),
    ("size past u32", lambda s, r: s.on_media_frame(0, 0, 2**32), ValueError, "size_bytes"),
    ("bool size", lambda s, r: s.on_media_frame(0, 0, True), TypeError, "size_bytes"),
    ("key frame not a bool", lambda s, r: s.on_media_frame(0, 0, 1, "x"), TypeError, "key_frame"),
    ("feedback of wrong type", lambda s, r: s.on_feedback(0, "bytes"), TypeError, "feedback"),
    ("ssrc past u32", lambda s, r: s.add_stream(2**32, 1e5, 1e6, 1e7), ValueError, "ssrc"),
    ("negative ssrc", lambda s, r: r.on_packet(0, -1, 0, 100), ValueError, "ssrc"),
    ("negative bitrate", lambda s, r: s.add_stream(1, -1, 1e6, 1e7), ValueError, "min_bitrate_bps"),
    (
        "NaN bitrate",
        lambda s, r: s.add_stream(1, 1e5, float("nan"), 1e7),
        ValueError,
        "start_bitrate_bps",
    ),
    (
        "bitrate too high",
        lambda s, r: s.add_stream(1, 1e5, 1e6, 1e12),
        ValueError,
        "max_bitrate_bps",
    ),
    ("str bitrate", lambda s, r: s.add_stream(1, "1", 1e6, 1e7), TypeError, "min_bitrate_bps"),
    (
        "zero priority",
        lambda s, r: s.add_stream(1, 1e5, 1e6, 1e7, priority=0),
        ValueError,
        "priority",
    ),
    ("seq past u16", lambda s, r: r.on_packet(0, 1, 65_536, 100), ValueError, "seq"),
    (
        "initial seq past u16",
        lambda s, r: s.add_stream(1, 1e5, 1e6, 1e7, 1.0, -1),
        ValueError,
        "initial_seq",
    ),
    ("ECN past 3", lambda s, r: r.on_packet(0, 1, 0, 100, ecn=4), ValueError, "ecn"),
    ("unknown ECN name", lambda s, r: r.on_packet(0, 1, 0, 100, ecn="ect2"), ValueError, "ecn"),
    ("marker not a bool", lambda s, r: r.on_packet(0, 1, 0, 100, marker=2), TypeError, "marker"),
    ("negative packet size", lambda s, r: r.on_packet(0, 1, 0, -5), ValueError, "size_bytes"),
    ("generation not a str", lambda s, r: untyped.Sender(generation=2), TypeError, "generation"),
    ("unknown ECN mode", lambda s, r: untyped.Sender(ecn="l5s"), ValueError, "ecn"),
    ("params not a dict", lambda s, r: untyped.Sender(params=[1]), TypeError, "params"),
    (
        "param value not a number",
        lambda s, r: untyped.Sender(params={"mss_bytes": "1"}),
        TypeError,
        "mss_bytes",
    ),
    (
        "improvements a str",
        lambda s, r: untyped.Sender(improvements="fresh-srtt"),
        TypeError,
        "improvements",
    ),
    (
        "receiver param not whole",
        lambda s, r: untyped.Receiver(params={"max_ssrcs": 2.5}),
        ValueError,
        "max_ssrcs",
    ),
    ("receiver ssrc past u32", lambda s, r: untyped.Receiver(ssrc=2**32), ValueError, "ssrc"),
    ("unknown count", lambda s, r: untyped.Receiver(count="minus-two"), ValueError, "count"),
    ("decode of a str", lambda s, r: untyped.decode_feedback("abc"), TypeError, "data"),
    (
        "decode count",
        lambda s, r: untyped.decode_feedback(valid_feedback(), count=3),
        TypeError,
        "count",
    ),
    (
        "encode of bytes",
        lambda s, r: untyped.encode_feedback(valid_feedback()),
        TypeError,
        "feedback",
    ),
    (
        "encode sender ssrc",
        lambda s, r: untyped.encode_feedback(untyped.Feedback(0, []), -1),
        ValueError,
        "sender_ssrc",
    ),
    ("report seq", lambda s, r: untyped.PacketReport(1, 70_000), ValueError, "seq"),
    (
        "report arrival",
        lambda s, r: untyped.PacketReport(1, 1, arrival_ns=-1),
        ValueError,
        "arrival_ns",
    ),
    (
        "lost with arrival",
        lambda s, r: untyped.PacketReport(1, 1, 5, received=False),
        ValueError,
        "received",
    ),
    ("report time", lambda s, r: untyped.Feedback(-1, []), ValueError, "report_time_ns"),
    ("reports not reports", lambda s, r: untyped.Feedback(0, [1]), TypeError, "reports[0]"),
]


@pytest.mark.parametrize(
    ("what", "call", "kind", "argument"), BAD_CALLS, ids=[c[0] for c in BAD_CALLS]
)
def test_bad_arguments_name_the_argument(
    what: str, call: Callable[[Any, Any], object], kind: type[Exception], argument: str
) -> None:
    sender, _ = video_sender()
    receiver = Receiver()
    before = sender.stats()
    with pytest.raises(kind) as e:
        call(sender, receiver)
    assert argument in str(e.value), f"{what}: {e.value}"
    assert sender.stats() == before, f"{what} changed the sender"


def test_integer_types_other_than_int_are_accepted() -> None:
    numpy = pytest.importorskip("numpy")
    sender, video = video_sender()
    sender.on_media_frame(numpy.int64(0), numpy.uint32(video), numpy.int32(1200))
    assert isinstance(sender.poll_transmit(numpy.uint64(0)), SentPacket)


def test_the_asyncio_example_sends_packets_over_loopback() -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "1"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    packets = re.search(r"packets: (\d+) sent, (\d+) received", done.stdout)
    assert packets, done.stdout
    sent, received = int(packets[1]), int(packets[2])
    assert sent > 0 and received > 0, done.stdout
    taken = re.search(r"(\d+) taken", done.stdout)
    assert taken and int(taken[1]) > 0, done.stdout
    assert "target bitrate:" in done.stdout and "srtt:" in done.stdout


SANS_IO_NAMES = (
    "Sender",
    "Receiver",
    "SentPacket",
    "Event",
    "Feedback",
    "PacketReport",
    "encode_feedback",
    "decode_feedback",
)


def test_the_stubs_of_the_sans_io_names_match_the_module() -> None:
    pytest.importorskip("mypy")
    done = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "scream._scream"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    errors = [line for line in done.stdout.splitlines() if line.startswith("error: ")]
    ours = [
        e for e in errors if any(e.startswith(f"error: scream._scream.{n}") for n in SANS_IO_NAMES)
    ]
    assert not ours, "\n".join(ours)
    # Every name is in the stubs and re-exported by the package.
    stub = (Path(scream.__file__).parent / "_scream.pyi").read_text()
    for name in SANS_IO_NAMES:
        assert re.search(rf"^(class|def) {name}\b", stub, re.MULTILINE), name
        assert name in scream.__all__ and getattr(scream, name) is getattr(scream._scream, name)


def test_random_operations_with_extreme_values_never_fail() -> None:
    """Any valid call in any order, with times that jump, step back or sit at the
    ends of the range, frames of any size: nothing raises (a panic in the library
    would surface as PanicException), and the counters only grow."""
    rng = random.Random(3550)
    extreme_times = [0, 1, 10**9, 2**40, 2**63, 2**64 - 1]
    for _ in range(40):
        sender = Sender(rng.choice(scream.GENERATIONS), ecn=rng.choice(["none", "classic", "l4s"]))
        video = sender.add_stream(rng.getrandbits(32), 1e5, rng.choice([1e3, 1e6, 1e11]), 1e11)
        window = rng.choice([1, 64, 16384])
        receiver = Receiver(params={"report_window": window, "packets_per_report": min(16, window)})
        now = 0
        sent = acked = 0
        for _ in range(250):
            if rng.random() < 0.05:
                now = rng.choice(extreme_times)
            else:
                now = min(2**64 - 1, now + rng.randrange(0, 10**8))
            op = rng.randrange(6)
            if op == 0:
                sender.on_media_frame(now, video, rng.choice([0, 1, 1000, 2**32 - 1]))
            elif op == 1 and isinstance(p := sender.poll_transmit(now), SentPacket):
                receiver.on_packet(now, p.ssrc, p.seq, p.size_bytes, p.ecn, p.marker)
            elif op == 2 and (report := receiver.poll_feedback(now)) is not None:
                sender.on_feedback(now, report)
            elif op == 3:
                sender.handle_timeout(now)
            elif op == 4:
                # A stranger's packet.
                receiver.on_packet(
                    now, rng.getrandbits(32), rng.getrandbits(16), 1200, rng.randrange(4)
                )
            else:
                while sender.poll_event() is not None:
                    pass
            stats = sender.stats()
            assert stats["packets_sent"] >= sent and stats["packets_acked"] >= acked
            sent, acked = stats["packets_sent"], stats["packets_acked"]
