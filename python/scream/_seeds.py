"""``Runs``: one scenario over a set of seeds, as ``scream sim --seeds`` runs it."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union, overload

from . import _scream
from ._run import Run

if TYPE_CHECKING:
    import pandas

__all__ = ["Runs", "SeedsLike"]

#: What ``simulate`` takes as ``seeds``: integers (a list, a ``range``) or the text
#: ``scream sim --seeds`` takes (``"1..10"``, ``"1,4,9"``).
SeedsLike = Union[str, Iterable[int]]

# The columns of seeds.csv (and of ``Runs.stats()``), in the file's order.
_STATS = [
    "flow",
    "metric",
    "unit",
    "n",
    "mean",
    "sd",
    "ci95_half_width",
    "ci95_low",
    "ci95_high",
    "min",
    "max",
]


def _floats(values: list[float | None]) -> Any:
    """A list with gaps as a float array, a gap NaN."""
    import numpy as np

    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


class Runs(Sequence[Run]):
    """A scenario's runs over a set of seeds, and the spread of its metrics.

    A sequence of ``Run``, one per seed in the order given (``runs[0]`` is the run of
    ``runs.seeds[0]``). ``summary`` holds the headline metrics of each run (one row
    per seed), ``stats()`` their mean, standard deviation and 95 % confidence interval,
    and ``write(folder)`` the folder ``scream sim --seeds ... --out folder`` writes:
    the numbers are the command's, computed by the same code.
    """

    def __init__(self, native: _scream.NativeSeeds) -> None:
        self._native = native
        self._runs = [Run(r) for r in native.runs]

    def __repr__(self) -> str:
        return f"<scream.Runs {self.name!r} seeds={len(self)}>"

    def __len__(self) -> int:
        return len(self._runs)

    @overload
    def __getitem__(self, index: int) -> Run: ...
    @overload
    def __getitem__(self, index: slice) -> list[Run]: ...
    def __getitem__(self, index: int | slice) -> Run | list[Run]:
        return self._runs[index]

    @property
    def name(self) -> str:
        """The scenario's name."""
        return self._native.name

    @property
    def seeds(self) -> list[int]:
        """The seeds, in the order given."""
        return self._native.seeds

    @property
    def warnings(self) -> list[str]:
        """The scenario loader's warnings, and a note when the scenario has no random
        element (every seed then gives the same run), as the command prints them."""
        return self._native.warnings

    @cached_property
    def _seeds_json(self) -> dict[str, Any]:
        result: dict[str, Any] = json.loads(self._native.seeds_json())
        return result

    @cached_property
    def summary(self) -> pandas.DataFrame:
        """The headline metrics of each run: one row per seed (the index, ``seed``).

        The metrics of seeds.csv, each run's value at six decimals as the statistics
        take it: every flow's ``throughput_mbps``, ``target_mbps``, delays and ratios,
        then the run's own (``utilization``, ...). With one flow a column is the
        metric's name; with several, a flow's columns are prefixed ``f<i>_`` (0-based),
        as the columns of a sweep's results.csv. A run without a value (no frame
        delivered, say) has NaN.
        """
        import pandas as pd

        rows = self._seeds_json["rows"]
        columns = self._native.columns()
        return pd.DataFrame(
            {name: _floats(row["values"]) for name, row in zip(columns, rows)},
            index=pd.Index(self.seeds, name="seed"),
        )

    def stats(self) -> pandas.DataFrame:
        """seeds.csv as a DataFrame: per flow and metric, over the seeds.

        Columns ``flow`` (missing for a metric of the whole run), ``metric``, ``unit``,
        ``n`` (the seeds with a value), ``mean``, ``sd`` (sample standard deviation),
        ``ci95_half_width`` (half width of the 95 % Student t confidence interval of the
        mean), ``ci95_low``, ``ci95_high``, ``min`` and ``max``; NaN where fewer than
        two seeds have a value (one for the mean). The numbers are those the command
        writes, from the same code.
        """
        import pandas as pd

        rows = self._seeds_json["rows"]
        frame = pd.DataFrame({c: [row[c] for row in rows] for c in _STATS[:4]})
        for c in _STATS[4:]:
            frame[c] = _floats([row[c] for row in rows])
        return frame

    def write(
        self, folder: str | os.PathLike[str], *, force: bool = False, plots: bool = True
    ) -> list[Path]:
        """Writes the set into ``folder``, as ``scream sim --seeds ... --out folder``.

        manifest.json (the seeds, overrides and scenario as run), each seed's run in
        ``s<seed>/`` (the files ``Run.write`` writes; the plots unless
        ``plots=False``), seeds.csv and seeds.json. The folder follows the rule of
        ``Run.write``: empty, or holding this same set, or ``force=True``; else
        ``OutputError``. The runs are written on every core, without the GIL. Returns
        the set's own files: manifest.json, seeds.csv and seeds.json.
        """
        return self._native.write(os.fspath(folder), force=force, plots=plots)
