"""A SCReAM video call over UDP on 127.0.0.1, driven from asyncio.

The twin of the README's "Using the library" example, over real sockets: a sender and a
receiver, each on its own UDP endpoint. The sender makes a frame every 1/fps s at its
stream's target bitrate, sends what ``Sender.poll_transmit`` releases as RTP-like
packets (a 12-byte RTP header carrying the SSRC, sequence number and marker bit, then
zero payload), and wakes up for the pacer, its timers and each feedback packet. The
receiver hands each packet to ``Receiver.on_packet`` and sends back the RFC 8888 bytes
``Receiver.poll_feedback`` gives, on its own timer too. Times are
``time.monotonic_ns()`` on both sides.

    python examples/asyncio_loopback.py [SECONDS] [--fps FPS]

ECN is left out: asyncio's datagram endpoints read with ``recvfrom``, which does not
return the IP header's TOS byte (that needs ``IP_RECVTOS`` and ``recvmsg`` ancillary
data), so the receiver could not report the codepoints; and loopback never marks CE,
so the sender would have nothing to react to. A real stack passes the two ECN bits it
read to ``Receiver.on_packet(..., ecn=...)`` and sets ``SentPacket.ecn`` on the
packets it sends.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import struct
import time
from dataclasses import dataclass
from typing import cast

import scream
from scream import Receiver, Sender, SentPacket

#: The fixed RTP header (RFC 3550 §5.1): V=2/P/X/CC, M/PT, sequence number,
#: timestamp, SSRC.
RTP_HEADER = struct.Struct("!BBHII")
RTP_VERSION_BYTE = 0x80
#: A dynamic payload type (RFC 3551 §6).
PAYLOAD_TYPE = 96
#: The RTP timestamp clock of video (RFC 3551 §5).
RTP_CLOCK_HZ = 90_000
SSRC = 0x5C12_EA11
ZEROS = bytes(65_536)
NS_PER_S = 1_000_000_000
#: A sender that fell behind its frame clock by more than this starts the clock again
#: rather than making a burst of frames.
FRAME_CATCH_UP_NS = 100_000_000


def rtp_packet(p: SentPacket, start_ns: int) -> bytes:
    """The datagram for ``p``: its RTP header and zero payload, ``p.size_bytes`` long."""
    timestamp = (p.frame_enqueued_ns - start_ns) * RTP_CLOCK_HZ // NS_PER_S
    header = RTP_HEADER.pack(
        RTP_VERSION_BYTE,
        (0x80 if p.marker else 0) | PAYLOAD_TYPE,
        p.seq,
        timestamp & 0xFFFF_FFFF,
        p.ssrc,
    )
    return header + ZEROS[: max(0, p.size_bytes - RTP_HEADER.size)]


class ReceiverEndpoint(asyncio.DatagramProtocol):
    """The receiving side: RTP in, RFC 8888 feedback back to where it came from."""

    def __init__(self) -> None:
        self.receiver = Receiver()
        self.transport: asyncio.DatagramTransport | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.packets = 0
        self.feedback_sent = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A datagram endpoint's transport, whatever its class says.
        self.transport = cast(asyncio.DatagramTransport, transport)

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        now = time.monotonic_ns()
        if len(data) < RTP_HEADER.size:
            return
        first, marker_pt, seq, _timestamp, ssrc = RTP_HEADER.unpack_from(data)
        if first >> 6 != 2:
            return
        self.receiver.on_packet(now, ssrc, seq, len(data), marker=bool(marker_pt & 0x80))
        self.packets += 1
        self.send_feedback(addr)

    def send_feedback(self, addr: tuple[str, int]) -> None:
        """Sends every report due now, then sleeps until the next one falls due."""
        now = time.monotonic_ns()
        while (report := self.receiver.poll_feedback(now)) is not None:
            if self.transport is not None:
                self.transport.sendto(report, addr)
                self.feedback_sent += 1
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        due = self.receiver.poll_timeout()
        if due is not None:
            delay = max(0, due - time.monotonic_ns()) / NS_PER_S
            self.timer = asyncio.get_running_loop().call_later(delay, self.send_feedback, addr)


class SenderEndpoint(asyncio.DatagramProtocol):
    """The sending side: a video source, the SCReAM sender and its socket."""

    def __init__(self, fps: float) -> None:
        # `fresh-srtt` is what `scream send` runs with on a real network: without it an
        # application-limited sender lets its sRTT fall from the initial 50 ms to a
        # loopback's fraction of a millisecond over minutes, not RTTs.
        self.sender = Sender(improvements=["fresh-srtt"])
        self.stream = self.sender.add_stream(
            SSRC, min_bitrate_bps=100e3, start_bitrate_bps=1e6, max_bitrate_bps=10e6
        )
        self.frame_period_ns = round(NS_PER_S / fps)
        self.fps = fps
        self.transport: asyncio.DatagramTransport | None = None
        self.wake = asyncio.Event()
        self.feedback = {"taken": 0, "unproven": 0, "stale": 0, "malformed": 0}
        self.frames = 0
        self.key_frame_requests = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A datagram endpoint's transport, whatever its class says.
        self.transport = cast(asyncio.DatagramTransport, transport)

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        try:
            used = self.sender.on_feedback(time.monotonic_ns(), data)
        except scream.FeedbackError:
            used = "malformed"
        self.feedback[used] += 1
        # The run loop sends what the feedback opened up.
        self.wake.set()

    def transmit(self, now: int, start_ns: int) -> int | None:
        """Sends what the sender releases; returns the pacer's next instant, if any."""
        while isinstance(p := self.sender.poll_transmit(now), SentPacket):
            if self.transport is not None:
                self.transport.sendto(rtp_packet(p, start_ns))
        return p

    async def run(self, seconds: float) -> None:
        start = time.monotonic_ns()
        end = start + round(seconds * NS_PER_S)
        next_frame = start
        while (now := time.monotonic_ns()) < end:
            if now - next_frame > FRAME_CATCH_UP_NS:
                next_frame = now
            while next_frame <= now:
                # The encoder makes a frame at the current target bitrate.
                size = int(self.sender.target_bitrate(self.stream) / 8 / self.fps)
                self.sender.on_media_frame(now, self.stream, size)
                self.frames += 1
                next_frame += self.frame_period_ns
            timeout = self.sender.poll_timeout()
            if timeout is not None and timeout <= now:
                self.sender.handle_timeout(now)
            paced_until = self.transmit(now, start)
            while (event := self.sender.poll_event()) is not None:
                if isinstance(event, scream.Event.KeyFrameRequest):
                    self.key_frame_requests += 1
            # Sleep until the next frame, timer or pacing slot, or until feedback comes.
            deadlines = [next_frame, end]
            deadlines += [t for t in (paced_until, self.sender.poll_timeout()) if t is not None]
            delay = (min(deadlines) - time.monotonic_ns()) / NS_PER_S
            self.wake.clear()
            if delay > 0:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self.wake.wait(), delay)


@dataclass
class Outcome:
    """What one call achieved."""

    seconds: float
    sent: int
    received: int
    feedback_sent: int
    feedback: dict[str, int]
    target_bps: float
    srtt_ns: int
    acked_bps: float


async def call(seconds: float, fps: float) -> Outcome:
    """One call of ``seconds`` over loopback."""
    loop = asyncio.get_running_loop()
    recv_transport, recv = await loop.create_datagram_endpoint(
        ReceiverEndpoint, local_addr=("127.0.0.1", 0)
    )
    address = recv_transport.get_extra_info("sockname")
    send_transport, send = await loop.create_datagram_endpoint(
        lambda: SenderEndpoint(fps), remote_addr=address
    )
    try:
        await send.run(seconds)
        # Let the last packets and reports land.
        await asyncio.sleep(0.05)
    finally:
        send_transport.close()
        recv_transport.close()
        if recv.timer is not None:
            recv.timer.cancel()
    stats = send.sender.stats()
    return Outcome(
        seconds=seconds,
        sent=stats["packets_sent"],
        received=recv.packets,
        feedback_sent=recv.feedback_sent,
        feedback=send.feedback,
        target_bps=send.sender.target_bitrate(send.stream),
        srtt_ns=stats["srtt_ns"],
        acked_bps=stats["rate_acked_bps"],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("seconds", nargs="?", type=float, default=3.0, help="call length (3)")
    parser.add_argument("--fps", type=float, default=50.0, help="frames per second (50)")
    args = parser.parse_args()
    if not args.seconds > 0 or not args.fps > 0:
        parser.error("seconds and --fps must be > 0")
    out = asyncio.run(call(args.seconds, args.fps))
    fb = out.feedback
    print(f"asyncio loopback: {out.seconds:g} s at {args.fps:g} fps over 127.0.0.1")
    print(f"packets: {out.sent} sent, {out.received} received")
    print(
        f"feedback: {out.feedback_sent} reports sent, {fb['taken']} taken, "
        f"{fb['stale']} stale, {fb['unproven']} unproven, {fb['malformed']} malformed"
    )
    print(f"target bitrate: {out.target_bps / 1e6:.2f} Mbit/s (started at 1.00)")
    print(f"acked rate: {out.acked_bps / 1e6:.2f} Mbit/s")
    print(f"srtt: {out.srtt_ns / 1e6:.3f} ms")


if __name__ == "__main__":
    main()
