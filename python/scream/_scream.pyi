# Type stubs of the native module scream._scream (crates/scream-py). The public API is
# re-exported, with its documentation, by scream/__init__.py; the checks in
# python/tests compare these stubs with the module (mypy.stubtest).

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, final

from typing_extensions import disjoint_base

__all__ = [
    "GENERATIONS",
    "Event",
    "Feedback",
    "NativeRun",
    "PacketReport",
    "Receiver",
    "Sender",
    "SentPacket",
    "__commit__",
    "__version__",
    "decode_feedback",
    "encode_feedback",
    "params",
    "scenario_text",
    "scenarios",
    "simulate",
    "toml_to_dict",
]

__version__: str
__commit__: str
GENERATIONS: list[str]

_Column = tuple[str, str, bytes | list[str | None]]

@final
class NativeRun:
    @property
    def name(self) -> str: ...
    @property
    def warnings(self) -> list[str]: ...
    def summary_json(self) -> str: ...
    def timeseries_columns(self) -> list[_Column]: ...
    def links_columns(self) -> list[_Column]: ...
    def scenario_toml(self) -> str: ...
    def manifest_json(self) -> str: ...
    def write(
        self, folder: str | os.PathLike[str], force: bool = False, plots: bool = True
    ) -> list[Path]: ...

def simulate(
    scenario: Any, set: Any = None, seed: Any = None, call: str | None = None
) -> NativeRun: ...
def scenarios() -> dict[str, str]: ...
def scenario_text(name: str) -> str: ...
def params(generation: str = "scream-v2") -> dict[str, dict[str, Any]]: ...
def toml_to_dict(text: str) -> Any: ...

# Sender, Receiver and the RFC 8888 codec (crates/scream-py/src/sans_io/).

_Bytes = bytes | bytearray | memoryview
# An ECN codepoint: the two ECN bits of the IP header (0 Not-ECT, 1 ECT(1), 2 ECT(0),
# 3 CE) or the library's name of one ("not-ect", "ect1", "ect0", "ce").
_Ecn = int | str

@final
class SentPacket:
    @property
    def stream(self) -> int: ...
    @property
    def ssrc(self) -> int: ...
    @property
    def seq(self) -> int: ...
    @property
    def size_bytes(self) -> int: ...
    @property
    def marker(self) -> bool: ...
    @property
    def ecn(self) -> int: ...
    @property
    def frame_index(self) -> int: ...
    @property
    def frame_enqueued_ns(self) -> int: ...

@disjoint_base
class Event:
    @final
    class TargetBitrate(Event):
        __match_args__ = ("stream", "bitrate_bps")
        def __new__(cls, stream: int, bitrate_bps: float) -> Event.TargetBitrate: ...
        @property
        def stream(self) -> int: ...
        @property
        def bitrate_bps(self) -> float: ...

    @final
    class KeyFrameRequest(Event):
        __match_args__ = ("stream",)
        def __new__(cls, stream: int) -> Event.KeyFrameRequest: ...
        @property
        def stream(self) -> int: ...

    @final
    class FrameSkipped(Event):
        __match_args__ = ("stream", "frame_index")
        def __new__(cls, stream: int, frame_index: int) -> Event.FrameSkipped: ...
        @property
        def stream(self) -> int: ...
        @property
        def frame_index(self) -> int: ...

@final
class Sender:
    def __new__(
        cls,
        generation: str = "scream-v2",
        params: dict[str, float] | None = None,
        ecn: str = "none",
        improvements: Iterable[str] | None = None,
    ) -> Sender: ...
    @property
    def generation(self) -> str: ...
    @property
    def params(self) -> dict[str, float]: ...
    def add_stream(
        self,
        ssrc: int,
        min_bitrate_bps: float,
        start_bitrate_bps: float,
        max_bitrate_bps: float,
        priority: float = 1.0,
        initial_seq: int = 0,
    ) -> int: ...
    def on_media_frame(
        self, now_ns: int, stream: int, size_bytes: int, key_frame: bool = False
    ) -> None: ...
    def on_feedback(self, now_ns: int, feedback: _Bytes | Feedback) -> str: ...
    def handle_timeout(self, now_ns: int) -> None: ...
    def poll_transmit(self, now_ns: int) -> SentPacket | int | None: ...
    def poll_timeout(self) -> int | None: ...
    def poll_event(self) -> Event | None: ...
    def target_bitrate(self, stream: int) -> float: ...
    def stats(self) -> dict[str, Any]: ...

@final
class Receiver:
    def __new__(
        cls,
        params: dict[str, float] | None = None,
        ssrc: int = 0,
        count: str = "rfc",
    ) -> Receiver: ...
    @property
    def params(self) -> dict[str, float]: ...
    def on_packet(
        self,
        now_ns: int,
        ssrc: int,
        seq: int,
        size_bytes: int,
        ecn: _Ecn = 0,
        marker: bool = False,
    ) -> None: ...
    def poll_feedback(self, now_ns: int) -> bytes | None: ...
    def poll_timeout(self) -> int | None: ...
    def stats(self) -> dict[str, int]: ...

@final
class PacketReport:
    __match_args__ = ("ssrc", "seq", "received", "arrival_ns", "ecn")
    def __new__(
        cls,
        ssrc: int,
        seq: int,
        arrival_ns: int | None = None,
        ecn: _Ecn = 0,
        received: bool = True,
    ) -> PacketReport: ...
    @property
    def ssrc(self) -> int: ...
    @property
    def seq(self) -> int: ...
    @property
    def received(self) -> bool: ...
    @property
    def arrival_ns(self) -> int | None: ...
    @property
    def ecn(self) -> int: ...
    def __hash__(self) -> int: ...

@final
class Feedback:
    def __new__(cls, report_time_ns: int, reports: Iterable[PacketReport]) -> Feedback: ...
    @property
    def report_time_ns(self) -> int: ...
    @property
    def reports(self) -> list[PacketReport]: ...
    def encode(self, sender_ssrc: int = 0, count: str = "rfc") -> bytes: ...
    def __len__(self) -> int: ...

def encode_feedback(feedback: Feedback, sender_ssrc: int = 0, count: str = "rfc") -> bytes: ...
def decode_feedback(data: _Bytes, count: str = "auto") -> Feedback: ...
