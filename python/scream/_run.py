"""``simulate`` and the ``Run`` it returns."""

from __future__ import annotations

import json
import os
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Union, overload

from . import _scream
from ._errors import ScenarioError

if TYPE_CHECKING:
    import pandas
    import polars

    from ._seeds import Runs, SeedsLike

__all__ = ["PolarsFrames", "Run", "ScenarioLike", "SetLike", "simulate"]

#: What ``simulate`` takes as a scenario: a built-in name, a path, TOML text or a dict.
ScenarioLike = Union[str, "os.PathLike[str]", dict[str, Any]]
#: What ``simulate`` takes as overrides: ``{"KEY": value}`` or ``["KEY=VALUE", ...]``.
SetLike = Union[dict[str, Any], list[str], tuple[str, ...], str]


class PolarsFrames(NamedTuple):
    """A run's frames as polars DataFrames."""

    timeseries: polars.DataFrame
    links: polars.DataFrame


def _numpy_columns(columns: list[tuple[str, str, Any]]) -> dict[str, Any]:
    """The native module's (name, dtype, data) columns as numpy arrays and lists."""
    import numpy as np

    out: dict[str, Any] = {}
    for name, dtype, data in columns:
        if dtype == "O":
            out[name] = np.array(data, dtype=object)
        elif dtype == "u8":
            # Counts stay far below 2^63: int64 is what a CSV reader gives.
            out[name] = np.frombuffer(data, dtype=np.uint64).astype(np.int64)
        else:
            # frombuffer shares the bytes, which are immutable: copy to get an array
            # the caller may write to.
            out[name] = np.frombuffer(data, dtype=np.dtype(dtype)).copy()
    return out


class Run:
    """A finished simulation.

    ``summary`` is summary.json as a dict; ``timeseries`` and ``links`` are the rows of
    timeseries.csv and links.csv as pandas DataFrames, built from the simulator's
    columns without a file (the values are those the CSV holds: floats rounded to 6
    decimals, empty cells NaN); ``to_polars()`` gives them as polars DataFrames.
    ``scenario`` is the scenario as run, after overrides (``scenario_toml`` as a file
    that loads back to it); ``manifest`` is manifest.json as it stands before any file
    is written. ``write(folder)`` writes the files ``scream sim --out folder`` writes.
    """

    def __init__(self, native: _scream.NativeRun) -> None:
        self._native = native

    def __repr__(self) -> str:
        s = self.summary
        return f"<scream.Run {s['scenario']!r} seed={s['seed']} duration_s={s['duration_s']}>"

    @property
    def name(self) -> str:
        """The scenario's name."""
        return self._native.name

    @property
    def warnings(self) -> list[str]:
        """What the scenario's loader warned about (as ``scream sim`` prints on stderr)."""
        return self._native.warnings

    @cached_property
    def summary(self) -> dict[str, Any]:
        """summary.json as a dict (floats at 6 decimals, as in the file)."""
        result: dict[str, Any] = json.loads(self._native.summary_json())
        return result

    @cached_property
    def timeseries(self) -> pandas.DataFrame:
        """timeseries.csv: one row per stream per sampling period (docs/outputs.md)."""
        import pandas as pd

        return pd.DataFrame(_numpy_columns(self._native.timeseries_columns()))

    @cached_property
    def links(self) -> pandas.DataFrame:
        """links.csv: one row per link direction per sampling period (docs/outputs.md)."""
        import pandas as pd

        return pd.DataFrame(_numpy_columns(self._native.links_columns()))

    def to_polars(self) -> PolarsFrames:
        """The time series and link rows as polars DataFrames (needs ``polars``)."""
        try:
            import polars as pl
        except ImportError as e:
            raise ImportError(
                "Run.to_polars needs polars: pip install polars "
                "(or the package's extra: pip install 'scream-toolkit[polars]')"
            ) from e
        return PolarsFrames(
            timeseries=pl.DataFrame(_numpy_columns(self._native.timeseries_columns())),
            links=pl.DataFrame(_numpy_columns(self._native.links_columns())),
        )

    @cached_property
    def scenario_toml(self) -> str:
        """The scenario as run (after overrides) as the text of a scenario file."""
        return self._native.scenario_toml()

    @cached_property
    def scenario(self) -> dict[str, Any]:
        """The scenario as run (after overrides), every key resolved, as a dict."""
        result: dict[str, Any] = _scream.toml_to_dict(self.scenario_toml)
        return result

    @cached_property
    def manifest(self) -> dict[str, Any]:
        """manifest.json as a dict, its file list empty until ``write``."""
        result: dict[str, Any] = json.loads(self._native.manifest_json())
        return result

    def write(
        self, folder: str | os.PathLike[str], *, force: bool = False, plots: bool = True
    ) -> list[Path]:
        """Writes the run's files into ``folder``, as ``scream sim --out folder`` does.

        summary.json, summary.csv, links_summary.csv, timeseries.csv, links.csv, the
        plots (unless ``plots=False``) and manifest.json. The folder must be empty or
        hold this same run; ``force=True`` replaces another run's files (only those).
        Raises ``OutputError`` otherwise. Returns the paths written.
        """
        return self._native.write(os.fspath(folder), force=force, plots=plots)


def _call_text(scenario: Any, set: Any, seed: Any, seeds: Any = None) -> str:
    """The call as manifest.json records it, so that a folder says how it was made."""
    shown = scenario if not isinstance(scenario, dict) else "<dict>"
    if isinstance(shown, str) and "\n" in shown:
        shown = "<TOML text>"
    args = [repr(os.fspath(shown)) if isinstance(shown, os.PathLike) else repr(shown)]
    if set is not None:
        args.append(f"set={set!r}")
    if seed is not None:
        args.append(f"seed={seed!r}")
    if seeds is not None:
        args.append(f"seeds={seeds!r}")
    return f"scream.simulate({', '.join(args)})"


@overload
def simulate(
    scenario: ScenarioLike = ...,
    set: SetLike | None = ...,
    seed: int | None = ...,
    seeds: None = ...,
) -> Run: ...
@overload
def simulate(
    scenario: ScenarioLike = ...,
    set: SetLike | None = ...,
    seed: None = ...,
    *,
    seeds: SeedsLike,
) -> Runs: ...
def simulate(
    scenario: ScenarioLike = "default",
    set: SetLike | None = None,
    seed: int | None = None,
    seeds: SeedsLike | None = None,
) -> Run | Runs:
    """Simulates a scenario and returns the finished ``Run``.

    The Python form of ``scream sim``; the same scenario and seed give the same
    results, byte for byte once written.

    ``scenario``: a built-in name (``scream.scenarios()``), the path of a scenario
    .toml file (str or ``os.PathLike``), TOML text (a str with a newline or ``=``), or
    a dict with the keys of a scenario file (docs/scenarios.md).

    ``set``: overrides, as ``--set``: a dict ``{"link.capacity_mbps": 5,
    "flows.0.ecn": "l4s"}`` or a list of ``"KEY=VALUE"`` strings.

    ``seed``: the master seed (default: the scenario's ``seed``).

    ``seeds``: instead of ``seed``, a set of seeds, as ``scream sim --seeds``: integers
    (a list, a ``range``) or the command's text (``"1..10"``, ``"1,4,9"``), each once,
    at most 10,000. The scenario runs once per seed, on every core, and the result is
    a ``Runs``: the runs, their metrics per seed and the statistics over the seeds.

    Raises ``ScenarioError`` (a ``ValueError``) with the command's message, naming the
    key, where it was written and the allowed range (also for a bad seed or seed set,
    or ``seed`` and ``seeds`` together); ``TypeError`` for a value of a type no
    scenario key takes. The simulation releases the GIL: threads simulate in
    parallel.
    """
    if seeds is not None:
        if seed is not None:
            raise ScenarioError(
                f"seed={seed!r} and seeds={seeds!r} together: give seed for one run, or "
                "seeds for one run per seed"
            )
        from ._seeds import Runs

        call = _call_text(scenario, set, None, seeds)
        return Runs(_scream.simulate_seeds(scenario, set, seeds, call))
    native = _scream.simulate(scenario, set, seed, _call_text(scenario, set, seed))
    return Run(native)
