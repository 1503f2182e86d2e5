"""SCReAM congestion control from Python.

- ``simulate(scenario, set=None, seed=None, seeds=None)``: run the toolkit's simulator on a
  built-in scenario, a file, TOML text or a dict; the ``Run`` it returns has the
  summary as a dict and the time series as pandas (or polars) frames, and writes the
  same files as ``scream sim``; with ``seeds=`` it runs once per seed and returns
  ``Runs``, with the statistics of ``scream sim --seeds``.
- ``compare(*runs, out=...)``: runs side by side, as ``scream compare``.
- ``scenarios()``, ``scenario(name)``, ``params(generation)``: what can be run and
  tuned.
- ``Sender``, ``Receiver``, ``encode_feedback``, ``decode_feedback``: the sans-I/O
  SCReAM state machines and the RFC 8888 codec, to drive SCReAM from a media stack.

Errors are ``ScreamError`` subclasses that also subclass the matching built-in
exception (``ScenarioError`` is a ``ValueError``). The guide is docs/python.md.
"""

from __future__ import annotations

from typing import Any

from . import _scream
from ._compare import Comparison, compare
from ._errors import (
    ConfigError,
    FeedbackError,
    OutputError,
    ScenarioError,
    ScreamError,
    SimulationError,
    SweepError,
)
from ._run import PolarsFrames, Run, simulate
from ._scream import (
    Event,
    Feedback,
    PacketReport,
    Receiver,
    Sender,
    SentPacket,
    decode_feedback,
    encode_feedback,
)
from ._seeds import Runs
from ._sweep import sweep
from ._tune import TuneResult, tune

__version__: str = _scream.__version__
#: The sender generations a flow's ``algorithm`` can name, the default first.
GENERATIONS: list[str] = list(_scream.GENERATIONS)

__all__ = [
    "GENERATIONS",
    "Comparison",
    "ConfigError",
    "Event",
    "Feedback",
    "FeedbackError",
    "OutputError",
    "PacketReport",
    "PolarsFrames",
    "Receiver",
    "Run",
    "Runs",
    "ScenarioError",
    "ScreamError",
    "Sender",
    "SentPacket",
    "SimulationError",
    "SweepError",
    "TuneResult",
    "__version__",
    "compare",
    "decode_feedback",
    "encode_feedback",
    "params",
    "scenario",
    "scenario_text",
    "scenarios",
    "simulate",
    "sweep",
    "tune",
]


def scenarios() -> dict[str, str]:
    """Built-in scenario name -> one-line description (``scream scenarios``)."""
    result: dict[str, str] = _scream.scenarios()
    return result


def scenario_text(name: str) -> str:
    """A built-in scenario's TOML as shipped, comments included."""
    return _scream.scenario_text(name)


def scenario(name: str) -> dict[str, Any]:
    """A built-in scenario as a dict, as its file writes it (defaults left out).

    Edit it and pass it to ``simulate``; ``Run.scenario`` gives every key resolved.
    """
    result: dict[str, Any] = _scream.toml_to_dict(_scream.scenario_text(name))
    return result


def params(generation: str = "scream-v2") -> dict[str, dict[str, Any]]:
    """Every sender parameter of ``generation`` (``scream params``).

    Name -> ``summary``, ``unit``, ``default``, ``min``, ``min_exclusive``, ``max``,
    ``source``, and ``shared`` (whether every generation has it). These are the keys of
    a flow's ``params`` table and of a sweep's axes.
    """
    result: dict[str, dict[str, Any]] = _scream.params(generation)
    return result
