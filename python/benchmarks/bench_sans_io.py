"""What the sans-I/O objects cost per call from Python.

    python benchmarks/bench_sans_io.py [--quick]

- ``poll_transmit`` when there is nothing to send: the call an event loop makes most
  often (after every input and every wake-up). The target is under 1 µs.
- ``poll_transmit`` while the pacer holds the next packet back (returns an int).
- ``Receiver.on_packet``, ``decode_feedback`` of a 16-packet report and
  ``Sender.on_feedback`` of its bytes: one call each.
- A Python-driven loop, the README's: 1 ms steps, a frame every 20 ms at the target
  bitrate, a 10 ms path, the receiver's feedback back as RFC 8888 bytes; its time per
  packet sent covers the sender, the receiver and the codec together, and the Python
  around them.

Each figure is the best of several ``timeit`` repeats (the least disturbed by other
work on the machine), for a build made with ``maturin develop --release``.
"""

from __future__ import annotations

import argparse
import timeit
from collections import deque

from scream import Feedback, PacketReport, Receiver, Sender, SentPacket

MS = 1_000_000


def best_ns_per_call(stmt: str, number: int, repeat: int, **names: object) -> float:
    """The best of ``repeat`` timings of ``number`` runs of ``stmt``, ns per run."""
    timer = timeit.Timer(stmt, globals=names)
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e9


def video_sender() -> tuple[Sender, int]:
    sender = Sender()
    return sender, sender.add_stream(0x1234, 100e3, 1e6, 10e6)


def python_loop(ms: int) -> int:
    """The README's loop for ``ms`` steps; returns the packets sent."""
    sender, video = video_sender()
    receiver = Receiver()
    network: deque[tuple[int, SentPacket]] = deque()
    for step in range(ms):
        now = step * MS
        if step % 20 == 0:
            sender.on_media_frame(now, video, int(sender.target_bitrate(video) / 400))
        while network and network[0][0] <= now:
            _, p = network.popleft()
            receiver.on_packet(now, p.ssrc, p.seq, p.size_bytes, p.ecn, p.marker)
        while (report := receiver.poll_feedback(now)) is not None:
            sender.on_feedback(now, report)
        timeout = sender.poll_timeout()
        if timeout is not None and timeout <= now:
            sender.handle_timeout(now)
        while isinstance(sent := sender.poll_transmit(now), SentPacket):
            network.append((now + 10 * MS, sent))
        while sender.poll_event() is not None:
            pass
    packets: int = sender.stats()["packets_sent"]
    return packets


def main() -> None:
    parser = argparse.ArgumentParser(description="Per-call cost of Sender and Receiver.")
    parser.add_argument("--quick", action="store_true", help="fewer runs (a smoke test)")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    repeat = 3 if args.quick else 7

    idle, _ = video_sender()
    idle_ns = best_ns_per_call("s.poll_transmit(t)", 1_000_000 // scale, repeat, s=idle, t=MS)

    paced, video = video_sender()
    paced.on_media_frame(0, video, 100_000)
    assert isinstance(paced.poll_transmit(0), SentPacket)
    assert isinstance(paced.poll_transmit(0), int), "the pacer holds the next packet"
    wait_ns = best_ns_per_call("s.poll_transmit(0)", 1_000_000 // scale, repeat, s=paced)

    receiver = Receiver(params={"packets_per_report": 64})
    counter = iter(range(10**9))
    on_packet_ns = best_ns_per_call(
        "n = next(c); r.on_packet(n * 1000, 7, n & 0xFFFF, 1200)",
        200_000 // scale,
        repeat,
        r=receiver,
        c=counter,
    )

    report = Feedback(
        1_000 * MS, [PacketReport(0x1234, seq, arrival_ns=990 * MS) for seq in range(16)]
    ).encode()
    decode_ns = best_ns_per_call(
        "d(b)", 200_000 // scale, repeat, d=__import__("scream").decode_feedback, b=report
    )
    feedback_ns = best_ns_per_call(
        "s.on_feedback(1000 * M, b)", 200_000 // scale, repeat, s=idle, b=report, M=MS
    )

    steps = 2_000 if args.quick else 10_000
    packets = python_loop(steps)
    loop_s = min(timeit.repeat(lambda: python_loop(steps), number=1, repeat=3))
    per_packet_us = loop_s / packets * 1e6

    print("scream sans-I/O from Python (best of the timeit repeats)")
    print(f"  poll_transmit, idle (returns None):        {idle_ns:8.0f} ns/call  (target < 1000)")
    print(f"  poll_transmit, paced (returns an int):     {wait_ns:8.0f} ns/call")
    print(f"  Receiver.on_packet:                        {on_packet_ns:8.0f} ns/call")
    print(f"  decode_feedback, 16 reports ({len(report)} bytes):    {decode_ns:8.0f} ns/call")
    print(f"  Sender.on_feedback, the same bytes:        {feedback_ns:8.0f} ns/call")
    print(
        f"  Python loop, sender+receiver+feedback:     {per_packet_us:8.2f} µs/packet "
        f"({packets} packets in {steps} ms of virtual time, {loop_s * 1e3:.0f} ms)"
    )


if __name__ == "__main__":
    main()
