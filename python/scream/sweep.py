"""``python -m scream.sweep SPEC [--scheduler ADDR] [--out DIR]``: a sweep on Dask.

The command-line form of ``scream.sweep``: runs (or resumes) the sweep SPEC (a spec
file or a built-in study) on the Dask scheduler at ADDR, or on a local cluster of one
worker process per core, into DIR (default ``out/sweep-<name>``). It prints what ran,
as ``scream sweep`` does, and ends with status 1 on an error or when runs were left
without a row.
"""

from __future__ import annotations

import argparse
import sys
import time
import types
from typing import Any

from ._errors import ScreamError
from ._sweep import SweepTally
from ._sweep import sweep as _sweep

#: Seconds between two progress lines on stderr.
PROGRESS_EVERY_S = 5.0


class _Progress:
    """A line on stderr at most every PROGRESS_EVERY_S seconds, and at the end."""

    def __init__(self) -> None:
        self.last = time.monotonic()

    def __call__(self, done: int, to_do: int, errors: int) -> None:
        now = time.monotonic()
        if now - self.last >= PROGRESS_EVERY_S or done == to_do:
            self.last = now
            failed = f", {errors} errors" if errors else ""
            print(f"sweeping: {done}/{to_do} runs{failed}", file=sys.stderr, flush=True)


def summary(tally: SweepTally) -> str:
    """The closing lines: what ran, how fast, where the results are."""
    lines = [
        f"{tally.runs} runs; {tally.ran} run now, {tally.already_done} already in "
        f"{tally.results}" + (f", {tally.errors} errors" if tally.errors else "")
    ]
    if tally.ran and tally.wall_time_s > 0:
        lines.append(
            f"{tally.wall_time_s:.1f} s: {tally.ran / tally.wall_time_s:.2f} runs/s, "
            f"{tally.run_time_s / tally.ran:.3f} s per run"
        )
    lines += [f"  error {run_id}: {why}" for run_id, why in tally.first_errors]
    if tally.set_aside is not None:
        file, damaged = tally.set_aside
        lines.append(
            f"note: {len(damaged)} damaged lines of {tally.results} moved to {file}; "
            "their runs ran again"
        )
    if tally.not_run:
        lines.append(
            f"{len(tally.not_run)} runs have no row (the cluster lost them); run the "
            "same command again to run them:"
        )
        lines += [f"  {run_id}: {why}" for run_id, why in list(tally.not_run.items())[:5]]
    if tally.parquet is not None:
        lines.append(f"the same rows as Parquet: {tally.parquet}")
    lines.append(f"tables and figures: scream report {tally.results}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scream.sweep",
        description="Run a scream parameter sweep on a Dask cluster (docs/scale.md).",
    )
    parser.add_argument("spec", help="sweep spec file (docs/sweeps.md) or built-in study")
    parser.add_argument(
        "--scheduler",
        metavar="ADDR",
        help="the Dask scheduler, e.g. tcp://host:8786 (default: a local cluster, one "
        "worker process per core)",
    )
    parser.add_argument("--out", metavar="DIR", help="output folder (default out/sweep-<name>)")
    parser.add_argument(
        "--fresh", action="store_true", help="discard the folder's results and start over"
    )
    parser.add_argument(
        "--keep-runs",
        action="store_true",
        help="also write each run's folder under DIR/runs (the same path on every worker)",
    )
    args = parser.parse_args(argv)
    try:
        tally = _sweep(
            args.spec,
            args.out,
            scheduler=args.scheduler,
            fresh=args.fresh,
            keep_runs=args.keep_runs,
            progress=_Progress(),
        )
    except (ScreamError, ImportError, ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(summary(tally))
    return 1 if tally.not_run else 0


class _CallableModule(types.ModuleType):
    """``import scream.sweep`` rebinds ``scream.sweep`` from the function to this
    module; the module answers calls as the function does, so code that did
    ``scream.sweep(...)`` keeps working whichever import ran last."""

    def __call__(self, *args: Any, **kwargs: Any) -> SweepTally:
        return _sweep(*args, **kwargs)


if __name__ == "scream.sweep":
    sys.modules[__name__].__class__ = _CallableModule

if __name__ == "__main__":
    sys.exit(main())
