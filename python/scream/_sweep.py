"""Sweeps on a Dask cluster: ``scream.sweep(spec, ...)``.

A run of a sweep is a pure function of its base scenario's text, its overrides and its
seed, so each run travels to a worker as a job description (JSON) and comes back as its
row of results.csv. This process keeps the sweep's folder open (its lock, sweep.json,
results.csv) and appends each row as its run finishes: the folder is the one ``scream
sweep`` writes, a killed sweep resumes where it stopped, by either front end.

Dask is imported only when there is something to run, so ``import scream`` never
imports it, and it is an optional extra: ``pip install 'scream-toolkit[dask]'``.
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import os
import socket
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from . import _scream

__all__ = ["SweepTally", "sweep"]

#: Most jobs handed to the cluster at once. Every job carries its scenario's text (a few
#: KB); a sweep of a million runs submitted at once would hold gigabytes in the
#: scheduler. Finished runs are replaced as they complete, so this only has to exceed
#: the cluster's threads by enough to keep them all busy.
IN_FLIGHT = 2000

#: Most rounds of submissions of the runs still without a row (see ``_run``).
ROUNDS = 3

#: Where the rows also go, as a typed table, when pyarrow is importable.
PARQUET = "results.parquet"

#: Columns of text in the Parquet file (the parameter columns are typed by their
#: values).
_TEXT_COLUMNS = ("run_id", "base", "axis", "status", "error")


@dataclasses.dataclass(frozen=True)
class SweepTally:
    """What a call of ``sweep`` did."""

    #: Runs in the plan.
    runs: int
    #: Runs skipped because results.csv already held them.
    already_done: int
    #: Runs done in this call.
    ran: int
    #: Of ``ran``, those recorded as ``error`` (their reason is in the row).
    errors: int
    #: The results file.
    results: Path
    #: The same rows as a typed table, or None without pyarrow.
    parquet: Path | None
    #: The first error rows: (run id, reason).
    first_errors: list[tuple[str, str]]
    #: Runs the cluster could not run (every worker that took one died): run id ->
    #: why. They have no row; calling ``sweep`` again runs them.
    not_run: dict[str, str]
    #: Damaged lines of results.csv moved aside before resuming (their runs ran
    #: again): (file, [(line, reason)]), or None.
    set_aside: tuple[Path, list[tuple[int, str]]] | None
    #: Wall time of this call, s.
    wall_time_s: float
    #: Sum of the wall times of the runs done, s.
    run_time_s: float


def sweep(
    spec: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    client: Any = None,
    scheduler: str | None = None,
    fresh: bool = False,
    keep_runs: bool = False,
    progress: Callable[[int, int, int], None] | None = None,
) -> SweepTally:
    """Runs (or resumes) the sweep ``spec`` on a Dask cluster into ``out``.

    ``spec`` is a sweep spec file (docs/sweeps.md) or the name of a built-in study;
    ``out`` is the folder of results.csv (default ``out/sweep-<name>``). The runs go
    to ``client`` (a ``distributed.Client``), or to a new client of the scheduler at
    ``scheduler`` (``"tcp://host:8786"``), or by default to a ``LocalCluster`` of one
    single-threaded worker process per core, started and stopped by this call.

    Each run is one task; its row is appended to results.csv as it finishes, so a
    sweep that is stopped resumes with the runs it lacks. ``fresh`` discards earlier
    results, ``keep_runs`` writes every run's folder under ``out/runs`` (from the
    workers: the folder must be the same path on every machine). ``progress`` is
    called with (done, to do, errors) after each run. Workers need the same scream
    build as this process, and the data files the scenarios name.
    """
    if client is not None and scheduler is not None:
        raise ValueError(
            "sweep: give client (a distributed.Client) or scheduler (an address such as "
            "tcp://host:8786), not both"
        )
    call = f"scream.sweep({os.fspath(spec)!r}, {out if out is None else os.fspath(out)!r})"
    handle = _scream.open_sweep(
        os.fspath(spec),
        None if out is None else os.fspath(out),
        fresh,
        keep_runs,
        ["python", call],
    )
    not_run: dict[str, str] = {}
    parquet = Path(handle.out_dir) / PARQUET
    try:
        if fresh:
            # Under the folder's lock, with the rest of what --fresh discards.
            parquet.unlink(missing_ok=True)
        pending = handle.pending()
        if pending:
            with _connected(client, scheduler) as connected:
                not_run = _run(connected, handle, pending, progress)
        # Still under the lock: no other sweep appends while the table is made.
        written = _write_parquet(Path(handle.results), handle.columns, parquet)
    finally:
        # Also on an error or an interrupt: the rows written so far stay, and the
        # folder is free for the next call, which resumes it.
        native = handle.close()
    set_aside = native["set_aside"]
    if set_aside is not None:
        warnings.warn(
            f"{native['results']}: {len(set_aside[1])} damaged lines moved to "
            f"{set_aside[0]}, and their runs were run again",
            stacklevel=2,
        )
    return SweepTally(
        runs=native["runs"],
        already_done=native["already_done"],
        ran=native["ran"],
        errors=native["errors"],
        results=Path(native["results"]),
        parquet=written,
        first_errors=list(native["first_errors"]),
        not_run=not_run,
        set_aside=None if set_aside is None else (Path(set_aside[0]), list(set_aside[1])),
        wall_time_s=native["wall_time_s"],
        run_time_s=native["run_time_s"],
    )


def build() -> str:
    """This process's scream build: version and commit."""
    return f"{_scream.__version__} ({_scream.__commit__})"


def run_task(job: str, expected_build: str) -> list[str]:
    """What a worker runs: one job into its row, if the worker has the client's build.

    Two builds may measure the same run differently; their rows must not meet in one
    results file.
    """
    mine = build()
    if mine != expected_build:
        raise RuntimeError(
            f"the worker on {socket.gethostname()} has scream {mine}, but the sweep was "
            f"started with {expected_build}: install the same build on every worker"
        )
    return _scream.run_job(job)


@contextmanager
def _connected(client: Any, scheduler: str | None) -> Iterator[Any]:
    """The client to use; a client or cluster made here is closed on the way out."""
    try:
        import distributed
    except ImportError as e:
        raise ImportError(
            "scream.sweep runs its runs on Dask, which is not installed: "
            "pip install 'scream-toolkit[dask]' (or run the sweep with `scream sweep`)"
        ) from e
    if client is not None:
        yield client
    elif scheduler is not None:
        with distributed.Client(scheduler) as own:
            yield own
    else:
        # Processes, not threads: a run holds no GIL, but a worker per core keeps one
        # stuck or crashed run from taking the others with it. The scheduler's HTTP
        # server (its dashboard, with bokeh) on any free port: two sweeps on one
        # machine do not compete for the default one.
        cluster = distributed.LocalCluster(
            processes=True, threads_per_worker=1, dashboard_address=":0"
        )
        with cluster, distributed.Client(cluster) as own:
            yield own


@dataclasses.dataclass
class _Count:
    """Rows appended so far, for ``progress``."""

    to_do: int
    done: int = 0
    errors: int = 0


def _run(
    client: Any,
    handle: _scream.NativeSweep,
    pending: list[str],
    progress: Callable[[int, int, int], None] | None,
) -> dict[str, str]:
    """Runs the pending runs on ``client``, appending each row as it comes back;
    returns the runs the cluster gave up on.

    A round submits every run still without a row. Dask's futures change state under
    a client when workers come and go (a finished run whose worker died is to be
    computed again); should one slip through a round anyway, the next round, which
    asks the folder what it still lacks, runs it. One round is the rule.
    """
    count = _Count(to_do=len(pending))
    not_run: dict[str, str] = {}
    to_run = pending
    for _ in range(ROUNDS):
        _round(client, handle, to_run, count, not_run, progress)
        to_run = [i for i in handle.pending() if i not in not_run]
        if not to_run:
            return not_run
    for run_id in to_run:
        not_run[run_id] = f"no result from the cluster in {ROUNDS} rounds"
    return not_run


def _round(
    client: Any,
    handle: _scream.NativeSweep,
    run_ids: list[str],
    count: _Count,
    not_run: dict[str, str],
    progress: Callable[[int, int, int], None] | None,
) -> None:
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    expected = build()
    status = handle.columns.index("status")
    ids: Iterator[str] = iter(run_ids)
    # Keyed by run: the scheduler treats a second submission of a key it holds as the
    # same task, so a run is never computed twice for one sweep (the plan's hash
    # keeps two sweeps apart on a shared scheduler).
    prefix = f"scream-{handle.plan_hash}-"
    outstanding: dict[str, Any] = {}

    def submit(batch: list[str]) -> list[Any]:
        # One message to the scheduler for the lot: a graph per task would cost the
        # scheduler more than a short run.
        futures = client.map(
            run_task,
            [handle.job(i) for i in batch],
            [expected] * len(batch),
            key=[prefix + i for i in batch],
            pure=True,
        )
        outstanding.update(zip(batch, futures))
        return list(futures)

    queue = as_completed(submit(list(itertools.islice(ids, IN_FLIGHT))))
    try:
        for batch in queue.batches():
            finished = [f for f in batch if f.status == "finished"]
            # The rows of a batch in one round trip (a row lost with its worker in
            # the meantime is computed again, and waited for).
            for row in client.gather(finished) if finished else []:
                if handle.append(row):
                    count.done += 1
                    count.errors += row[status] == "error"
                    if progress is not None:
                        progress(count.done, count.to_do, count.errors)
            ended = 0
            for future in batch:
                run_id = str(future.key)[len(prefix) :]
                if future.status == "error":
                    failure = future.exception()
                    if not isinstance(failure, KilledWorker):
                        raise failure
                    # The run killed every worker it was given (or they died under
                    # it): no row, so the next call runs it again.
                    not_run[run_id] = str(failure)
                elif future.status == "cancelled":
                    # Not by this loop: the scheduler dropped it (restarted, say).
                    not_run[run_id] = "the cluster cancelled the task"
                elif future.status != "finished":
                    # Finished, then lost with its worker before its row came: the
                    # scheduler computes it again.
                    queue.add(future)
                    continue
                outstanding.pop(run_id, None)
                future.release()
                ended += 1
            following = list(itertools.islice(ids, ended))
            if following:
                queue.update(submit(following))
    finally:
        # On an error or an interrupt: nothing more reaches results.csv, and a
        # client the caller owns is left without this sweep's tasks.
        if outstanding:
            client.cancel(list(outstanding.values()))


def _write_parquet(results: Path, header: list[str], parquet: Path) -> Path | None:
    """results.csv as Parquet beside it, whole or not at all; None without pyarrow."""
    try:
        # Imported by name: pyarrow is optional and ships no type information.
        pa = importlib.import_module("pyarrow")
        pa_csv = importlib.import_module("pyarrow.csv")
        pq = importlib.import_module("pyarrow.parquet")
    except ImportError:
        return None
    types = {c: pa.string() for c in _TEXT_COLUMNS}
    types.update({"point": pa.int64(), "transition": pa.int64(), "seed": pa.uint64()})
    metrics = header[header.index("error") + 1 :]
    types.update({c: pa.float64() for c in metrics})
    table = pa_csv.read_csv(
        results,
        convert_options=pa_csv.ConvertOptions(
            column_types={c: t for c, t in types.items() if c in header},
            # An empty error is "", not missing; an empty number is missing.
            strings_can_be_null=False,
        ),
    )
    partial = parquet.with_name(f".{parquet.name}.{os.getpid()}.tmp")
    try:
        pq.write_table(table, partial)
        os.replace(partial, parquet)
    finally:
        partial.unlink(missing_ok=True)
    return parquet
