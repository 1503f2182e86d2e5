"""Multi-objective tuning with Optuna: ``scream.tune(spec, objectives, n_trials, ...)``.

A trial is a run of one base of a sweep spec with the trial's values as overrides,
made as the sweep makes its runs (the same job, run by ``_sweep.run_task`` on a Dask
client or on any ``concurrent.futures`` executor). A run is a pure function of its
job, so a parameter set already run in the study is not run again: its trial is told
the stored values. The study lives in an Optuna storage (SQLite in the output folder by
default), so a stopped study resumes and several machines can share one.

Optuna is imported only inside ``tune``: ``import scream`` does not import it.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import math
import os
import socket
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _scream, _sweep, _tune_space
from ._tune_space import Dimension, Objective

if TYPE_CHECKING:
    import pandas

__all__ = ["TuneResult", "tune"]

#: The samplers ``tune`` names.
SAMPLERS = ("nsga2", "tpe", "random")

#: User attributes of a trial (Optuna's storage keeps them with the trial).
_RUN_ID = "run_id"  # the run that gave the values (an earlier trial's when memoised)
_RAN = "ran"  # whether this trial made the run
_METRICS = "metrics"  # metric column -> value (None: empty)
_ERROR = "error"  # why the trial failed
# Failed without a result (interrupted, lost by the cluster): such a trial has no
# `error`, does not count toward the total, and is asked again.
_NOT_RUN = "not_run"
_WORKER = "worker"  # host:pid of the process that asked the trial


def population_size(n_trials: int) -> int:
    """NSGA-II's population: a tenth of the trials, so that a study runs about ten
    generations, within 8..50 (fewer is barely a population, more a slow start)."""
    return max(8, min(50, n_trials // 10))


@dataclasses.dataclass
class TuneResult:
    """What ``tune`` left: the study, its trials and front, and the files written."""

    #: The ``optuna.Study``.
    study: Any
    #: Every trial of the study in order (trials.csv).
    trials: pandas.DataFrame
    #: The non-dominated complete trials: parameters and objective values (pareto.csv).
    pareto: pandas.DataFrame
    #: Distinct simulations the study ran (trials told a stored result not counted).
    runs: int
    #: Trials finished by this call.
    asked: int
    #: The output folder and its files (``png`` is None without matplotlib).
    out_dir: Path
    trials_csv: Path
    pareto_csv: Path
    tune_json: Path
    pareto_png: Path | None
    #: The storage URL of the study.
    storage: str


def tune(
    spec: str | os.PathLike[str],
    objectives: str | Sequence[str] = ("throughput_mbps:max", "qdelay_p95_ms:min"),
    n_trials: int = 100,
    *,
    base: str | None = None,
    space: Mapping[str, Any] | None = None,
    set: Any = None,
    sampler: Any = "nsga2",
    seed: int = 0,
    run_seed: int | None = None,
    storage: str | None = None,
    study_name: str | None = None,
    out: str | os.PathLike[str] | None = None,
    client: Any = None,
    scheduler: str | None = None,
    parallel: int | None = None,
    progress: Callable[[int, int, int], None] | None = None,
) -> TuneResult:
    """Searches the parameters of a sweep spec for the Pareto front of ``objectives``.

    ``spec``: a sweep spec file or a built-in study (as ``scream.sweep`` takes). Its
    axes are the search space: each axis's values become a categorical choice (on a
    factorial spec the space is exactly its grid). ``base`` names the spec's base to
    tune (needed when it has several). ``space`` adds or replaces keys: key -> a list
    of values, ``(lo, hi)`` (integers if both are ints), ``(lo, hi, "log")`` or
    ``(lo, hi, step)``. ``set``: overrides for every trial, a dict or ``"K=V"`` list as
    ``simulate`` takes; it may not name a searched key.

    ``objectives``: ``"metric:max"`` or ``"metric:min"``, metric being a sweep metric
    (docs/sweeps.md; the spec's metric columns, such as ``f1_srtt_ms``, too).

    ``sampler``: ``"nsga2"`` (population ``population_size(n_trials)``), ``"tpe"``,
    ``"random"`` or an ``optuna.samplers.BaseSampler``; ``seed`` seeds the named ones
    (a resumed study's with its count of trials too, so that it does not repeat them).
    ``run_seed``: the runs' master seed (default the spec's first seed).

    ``storage``: an Optuna storage URL; default ``sqlite:///<out>/study.db``. Every
    process that calls ``tune`` with the same storage and ``study_name`` (default
    ``<spec name>-<base>``) joins the same study: several machines can share a
    database. ``n_trials`` is the study's total, not this call's: a call after an
    interruption runs only the trials still missing (trials cut off by it are failed
    as ``not_run`` and asked again). Joined from several processes, the total may be
    passed by the trials in flight elsewhere.

    Trials run on ``client`` (a ``distributed.Client`` or a
    ``concurrent.futures.Executor``), on a new client of ``scheduler``, or on a local
    Dask cluster (one single-threaded process per core) started for this call, with up
    to ``parallel`` in flight (default: the cluster's threads). A run with status
    ``error``, or an empty objective, is a failed trial with the reason in its
    ``error`` user attribute. ``progress`` is called with (finished trials, n_trials,
    failed) after each trial.

    Writes to ``out`` (default ``out/tune-<spec name>-<base>``): trials.csv,
    pareto.csv, tune.json and, with matplotlib, pareto.png. Needs Optuna:
    ``pip install 'scream-toolkit[tune]'``.
    """
    try:
        import optuna
    except ImportError as e:
        raise ImportError(
            "scream.tune needs Optuna, which is not installed: pip install 'scream-toolkit[tune]'"
        ) from e
    if n_trials < 1:
        raise ValueError(f"n_trials: the study's total of trials, 1 or more, not {n_trials}")
    if parallel is not None and parallel < 1:
        raise ValueError(f"parallel: trials in flight, 1 or more, not {parallel}")
    if client is not None and scheduler is not None:
        raise ValueError("tune: give client or scheduler, not both")
    native = _scream.open_tune(os.fspath(spec))
    base = _base_of(native, base)
    allowed = list(dict.fromkeys(native.metrics([]) + [m[0] for m in _scream.metric_registry()]))
    goals = _tune_space.objectives_of(objectives, allowed)
    dims = _tune_space.build(native.axes, space)
    fixed = _scream.override_texts(set)
    _check(native, base, dims, fixed)
    seeds = native.seeds
    run_seed = seeds[0] if run_seed is None else run_seed
    out_dir = Path(out) if out is not None else Path("out") / f"tune-{native.name}-{base}"
    out_dir.mkdir(parents=True, exist_ok=True)
    storage = storage or f"sqlite:///{(out_dir / 'study.db').resolve()}"
    study_name = study_name or f"{native.name}-{base}"
    chosen, sampler_name = _sampler(optuna, sampler, seed, n_trials, 0)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(
        storage=storage,
        study_name=study_name,
        directions=[g.direction for g in goals],
        sampler=chosen,
        load_if_exists=True,
    )
    _same_study(study, goals, dims, base, native.name)
    already = len(study.get_trials(deepcopy=False))
    if already:
        # A sampler seeded as before would repeat its first suggestions; seeded by
        # the study's length too, it goes on, as deterministically.
        study.sampler = _sampler(optuna, sampler, seed, n_trials, already)[0]
    metrics = native.metrics([g.metric for g in goals])
    ctx = _Context(optuna, study, native, base, dims, fixed, run_seed, goals, metrics)
    with _pool(client, scheduler) as pool:
        asked = ctx.optimise(pool, n_trials, parallel or pool.threads, progress)
    settings = {
        "spec": os.fspath(spec),
        "spec_name": native.name,
        "base": base,
        "objectives": [str(g) for g in goals],
        "sampler": sampler_name,
        "sampler_seed": seed,
        "population_size": population_size(n_trials) if sampler_name == "nsga2" else None,
        "n_trials": n_trials,
        "storage": storage,
        "study_name": study_name,
        "space": {d.key: d.describe() for d in dims.values()},
        "set": fixed,
        "run_seed": run_seed,
        "build": _sweep.build(),
    }
    # pandas (and matplotlib) only now: `import scream` stays light.
    from . import _tune_out

    written = _tune_out.write(out_dir, study, dims, goals, metrics, settings)
    return TuneResult(
        study=study,
        trials=written.trials,
        pareto=written.pareto,
        runs=written.runs,
        asked=asked,
        out_dir=out_dir,
        trials_csv=written.trials_csv,
        pareto_csv=written.pareto_csv,
        tune_json=written.tune_json,
        pareto_png=written.pareto_png,
        storage=storage,
    )


def _base_of(native: _scream.NativeTune, base: str | None) -> str:
    bases = native.bases
    if base is None:
        if len(bases) != 1:
            raise ValueError(
                f"base: {native.name} has {len(bases)} bases; name one of {', '.join(bases)}"
            )
        return bases[0]
    if base not in bases:
        raise ValueError(f"base: {native.name} has no base {base!r}; its bases: {', '.join(bases)}")
    return base


def _check(
    native: _scream.NativeTune, base: str, dims: dict[str, Dimension], fixed: list[str]
) -> None:
    """Refuses, before any run, what would make every trial fail: a misspelt key, a
    value out of range, ``set`` naming a searched key."""
    for text in fixed:
        key = text.partition("=")[0].strip()
        if key in dims:
            raise ValueError(f"set: {key!r} is searched (an axis or a space key); leave it out")
    native.check(base, fixed)
    for dim in dims.values():
        # As the sweep's pre-flight: a key no value of which loads is misspelt or
        # misplaced; one bad value is left to its trials, which fail with the reason.
        first: ValueError | None = None
        for text in dim.probe_texts():
            try:
                native.check(base, [*fixed, f"{dim.key}={text}"])
                break
            except ValueError as e:
                first = first or e
        else:
            raise ValueError(f"space[{dim.key!r}]: no value of it loads: {first}")


def _sampler(optuna: Any, sampler: Any, seed: int, n_trials: int, already: int) -> tuple[Any, str]:
    """The sampler named, seeded by ``seed`` and the trials the study already has."""
    samplers = optuna.samplers
    if isinstance(sampler, samplers.BaseSampler):
        return sampler, type(sampler).__name__
    if already:
        seed = (seed * 1_000_003 + already) % 2**32
    if sampler == "nsga2":
        return samplers.NSGAIISampler(population_size=population_size(n_trials), seed=seed), sampler
    if sampler == "tpe":
        # The constant liar keeps trials in flight together from all landing on one spot.
        return samplers.TPESampler(seed=seed, constant_liar=True), sampler
    if sampler == "random":
        return samplers.RandomSampler(seed=seed), sampler
    raise ValueError(
        f"sampler: {sampler!r} is not one of {', '.join(SAMPLERS)} or an "
        "optuna.samplers.BaseSampler"
    )


def _same_study(
    study: Any, goals: list[Objective], dims: dict[str, Dimension], base: str, spec: str
) -> None:
    """Marks a new study with what it searches; refuses to add trials of another
    search to an existing one."""
    mine = {
        "scream_spec": spec,
        "scream_base": base,
        "scream_objectives": [str(g) for g in goals],
        "scream_space": {d.key: d.describe() for d in dims.values()},
    }
    stored = study.user_attrs
    if not any(k in stored for k in mine):
        for k, v in mine.items():
            study.set_user_attr(k, v)
        return
    for k, v in mine.items():
        if stored.get(k) != v:
            raise ValueError(
                f"study {study.study_name!r} in its storage has {k[7:]} {stored.get(k)!r}, "
                f"not {v!r}: give another study_name, storage or out"
            )


class _Pool:
    """A Dask client or a ``concurrent.futures`` executor, as ``tune`` uses them."""

    def __init__(self, executor: Any) -> None:
        self.executor = executor
        self.dask = not isinstance(executor, concurrent.futures.Executor)
        if self.dask:
            self.threads = max(1, sum(executor.nthreads().values()))
        else:
            self.threads = int(getattr(executor, "_max_workers", 0) or os.cpu_count() or 1)

    def submit(self, job: str) -> Any:
        if self.dask:
            # A key of Dask's own making: two studies of one name (in two storages) on
            # one scheduler must not share a task because their trials share a number.
            return self.executor.submit(_sweep.run_task, job, _sweep.build(), pure=False)
        return self.executor.submit(_sweep.run_task, job, _sweep.build())

    def wait_first(self, futures: list[Any]) -> list[Any]:
        if self.dask:
            import distributed

            done, _ = distributed.wait(futures, return_when="FIRST_COMPLETED")
        else:
            done, _ = concurrent.futures.wait(futures, return_when="FIRST_COMPLETED")
        return list(done)

    def cancel(self, futures: list[Any]) -> None:
        if self.dask and futures:
            self.executor.cancel(futures)
        for f in futures if not self.dask else []:
            f.cancel()


@contextmanager
def _pool(client: Any, scheduler: str | None) -> Iterator[_Pool]:
    if isinstance(client, concurrent.futures.Executor):
        yield _Pool(client)
        return
    with _sweep._connected(client, scheduler) as connected:
        yield _Pool(connected)


@dataclasses.dataclass
class _Context:
    """One call's study, space and bookkeeping."""

    optuna: Any
    study: Any
    native: Any
    base: str
    dims: dict[str, Dimension]
    fixed: list[str]
    run_seed: int
    goals: list[Objective]
    metrics: list[str]

    def key_of(self, texts: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
        return tuple(sorted(texts))

    def memo(self) -> dict[tuple[tuple[str, str], ...], dict[str, Any]]:
        """What the study's finished runs gave, by parameter set (for memoisation)."""
        out = {}
        for t in self.study.get_trials(deepcopy=False):
            attrs = t.user_attrs
            if _METRICS not in attrs or not attrs.get(_RAN):
                continue
            try:
                texts = [(k, self.dims[k].text_of(v)) for k, v in t.params.items()]
            except (KeyError, ValueError):
                continue
            out[self.key_of(texts)] = {
                k: attrs[k] for k in (_RUN_ID, _METRICS, _ERROR) if k in attrs
            }
        return out

    def counted(self) -> tuple[int, int]:
        """Finished trials that count toward the total, and of them the failed."""
        done = failed = 0
        states = self.optuna.trial.TrialState
        for t in self.study.get_trials(deepcopy=False):
            if t.state == states.COMPLETE:
                done += 1
            elif t.state == states.FAIL and _ERROR in t.user_attrs:
                done += 1
                failed += 1
        return done, failed

    def fail_stale(self) -> None:
        """Fails the trials that a killed process of this host left running: without
        an ``error`` they do not count, and are asked again."""
        host = socket.gethostname()
        states = self.optuna.trial.TrialState
        for t in self.study.get_trials(deepcopy=False, states=(states.RUNNING,)):
            name, _, pid = str(t.user_attrs.get(_WORKER, "")).rpartition(":")
            if name == host and pid.isdigit() and not _alive(int(pid)):
                self.study.tell(t.number, state=states.FAIL)

    def tell(self, trial: Any, attrs: dict[str, Any]) -> None:
        for k, v in attrs.items():
            trial.set_user_attr(k, v)
        if _NOT_RUN in attrs or _ERROR in attrs:
            self.study.tell(trial, state=self.optuna.trial.TrialState.FAIL)
            return
        self.study.tell(trial, [attrs[_METRICS][g.metric] for g in self.goals])

    def outcome(self, row: list[str], columns: list[str], run_id: str) -> dict[str, Any]:
        """A run's row as the user attributes of its trial."""
        cells = dict(zip(columns, row))
        values = {m: _float(cells.get(m, "")) for m in self.metrics}
        attrs: dict[str, Any] = {_RUN_ID: run_id, _METRICS: values}
        if cells.get("status") != "ok":
            attrs[_ERROR] = cells.get("error") or "the run failed"
        else:
            empty = [g.metric for g in self.goals if values[g.metric] is None]
            if empty:
                attrs[_ERROR] = f"no value of {', '.join(empty)} in this run"
        return attrs

    def optimise(
        self,
        pool: _Pool,
        n_trials: int,
        parallel: int,
        progress: Callable[[int, int, int], None] | None,
    ) -> int:
        """Asks, runs and tells trials until the study has ``n_trials``; returns how
        many this call finished."""
        self.fail_stale()
        memo = self.memo()
        worker = f"{socket.gethostname()}:{os.getpid()}"
        # Future -> (parameter set, run id, columns); parameter set -> waiting trials.
        flying: dict[Any, tuple[Any, str, list[str]]] = {}
        waiting: dict[Any, list[Any]] = {}
        asked = 0
        done, failed = self.counted()

        def finish(told: list[tuple[Any, dict[str, Any]]]) -> None:
            # Every trial told before any progress call, which may raise (Ctrl-C):
            # none is left running.
            nonlocal asked, done, failed
            for trial, attrs in told:
                self.tell(trial, attrs)
            for _, attrs in told:
                asked += 1
                if _NOT_RUN not in attrs:
                    done += 1
                    failed += _ERROR in attrs
                    if progress is not None:
                        progress(done, n_trials, failed)

        try:
            while True:
                in_flight = sum(len(w) for w in waiting.values())
                while done + in_flight < n_trials and len(flying) < parallel:
                    trial = self.study.ask()
                    trial.set_user_attr(_WORKER, worker)
                    texts = [(d.key, d.suggest(trial)[1]) for d in self.dims.values()]
                    key = self.key_of(texts)
                    if key in memo:
                        finish([(trial, {**memo[key], _RAN: False})])
                        continue
                    in_flight += 1
                    if key in waiting:
                        waiting[key].append(trial)
                        continue
                    waiting[key] = [trial]
                    job, columns = self.native.job(
                        self.base, trial.number, self.fixed, texts, self.run_seed, self.metrics
                    )
                    run_id = f"{self.base}/t{trial.number}/s{self.run_seed}"
                    flying[pool.submit(job)] = (key, run_id, columns)
                if not flying:
                    return asked
                for future in pool.wait_first(list(flying)):
                    key, run_id, columns = flying.pop(future)
                    trials = waiting.pop(key)
                    try:
                        attrs = self.outcome(future.result(), columns, run_id)
                    except Exception as e:
                        if not _lost(e):
                            waiting[key] = trials  # failed as not run, below
                            raise
                        attrs = {_RUN_ID: run_id, _NOT_RUN: f"the cluster lost it: {e}"}
                    else:
                        memo[key] = attrs
                    first = (trials[0], {**attrs, _RAN: _NOT_RUN not in attrs})
                    finish([first] + [(t, {**attrs, _RAN: False}) for t in trials[1:]])
        finally:
            # Interrupted or failed: nothing is left running in the study.
            pool.cancel(list(flying))
            for trials in waiting.values():
                for t in trials:
                    t.set_user_attr(_NOT_RUN, "the tuning call was interrupted")
                    self.study.tell(t, state=self.optuna.trial.TrialState.FAIL)


def _lost(e: BaseException) -> bool:
    """Whether a task failed for want of a worker (no result) rather than a bug."""
    try:
        from distributed.scheduler import KilledWorker
    except ImportError:
        return False
    return isinstance(e, KilledWorker)


def _float(cell: str) -> float | None:
    if cell == "":
        return None
    value = float(cell)
    return None if math.isnan(value) else value


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
