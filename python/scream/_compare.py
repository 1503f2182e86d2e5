"""``compare``: runs side by side, as ``scream compare`` puts them."""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Union

from . import _scream
from ._run import Run

if TYPE_CHECKING:
    import pandas

__all__ = ["Comparison", "RunLike", "compare"]

#: What ``compare`` takes as a run: a run's folder, or a ``Run``.
RunLike = Union[Run, str, "os.PathLike[str]"]


class Comparison(NamedTuple):
    """What ``compare`` wrote."""

    #: The output folder.
    out: Path
    #: The files written into it, manifest.json first.
    files: list[Path]
    #: The run folders compared, in the order given.
    runs: list[Path]
    #: compare.csv: per run and flow, the headline metrics of its summary.json.
    table: pandas.DataFrame


def _call_text(runs: tuple[Any, ...], out: Any, labels: Any, force: bool) -> str:
    """The call as manifest.json records it."""
    args = [repr(os.fspath(r)) if isinstance(r, (str, os.PathLike)) else repr(r) for r in runs]
    args.append(f"out={os.fspath(out)!r}")
    if labels is not None:
        args.append(f"labels={list(labels)!r}")
    if force:
        args.append("force=True")
    return f"scream.compare({', '.join(args)})"


def compare(
    *runs: RunLike,
    out: str | os.PathLike[str],
    labels: Sequence[str] | None = None,
    force: bool = False,
) -> Comparison:
    """Puts runs side by side in ``out``, as ``scream compare RUN_DIR... --out out``.

    Writes the same files as the command, by the same code: compare.csv and
    compare.md (per run and flow, the headline metrics of its summary.json, copied),
    timeseries.png/.svg (target bitrate, throughput, queue delay and sRTT of every run
    on one time axis) and throughput_delay.png/.svg, and manifest.json.

    A run is a run's folder (what ``scream sim`` or ``Run.write`` writes) or a
    ``Run``. A ``Run`` is read from the folder it was last written into, if that still
    holds it; else it is written first into ``out/runs/<label>`` (without its plots).

    ``labels``: the runs' names in legends and tables, one per run, distinct (default:
    each folder's name; a ``Run`` not yet written is named after its scenario, with
    ``-s<seed>`` where two share a name). ``out`` follows the rule of ``Run.write``:
    empty, or holding this same comparison, or ``force=True``.

    Raises ``OutputError`` (an ``OSError``) with the command's message for a folder
    that is not a run or an output folder that holds something else, ``ValueError``
    for labels that do not fit, ``TypeError`` for something that is not a run.
    """
    given = [r._native if isinstance(r, Run) else r for r in runs]
    files, folders, csv_text = _scream.compare(
        given,
        os.fspath(out),
        None if labels is None else list(labels),
        force,
        _call_text(runs, out, labels, force),
    )
    import pandas as pd

    # pandas before 3 parses floats to the nearest double only when asked to.
    exact: dict[str, Any] = (
        {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
    )
    table = pd.read_csv(io.StringIO(csv_text), dtype={"run": str, "flow": str}, **exact)
    return Comparison(out=Path(out), files=files, runs=folders, table=table)
