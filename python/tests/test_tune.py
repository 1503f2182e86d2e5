"""scream.tune: the front it writes, the runs it makes (the sweep's own, each once), a
study that resumes, the errors it raises before running anything, the samplers, and
one study on a Dask LocalCluster.

The trials run on a thread pool in this process (a ``concurrent.futures`` executor,
which ``tune`` takes as it takes a Dask client), except in the Dask test. Runs are 2 s
of ``paper-step-v2``: milliseconds each.
"""

from __future__ import annotations

import concurrent.futures
import csv
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

optuna = pytest.importorskip("optuna", reason="optuna is not installed: pip install optuna")

import scream  # noqa: E402
from scream import _scream  # noqa: E402

THROUGHPUT = "throughput_mbps"
DELAY = "qdelay_p95_ms"
OBJECTIVES = (f"{THROUGHPUT}:max", f"{DELAY}:min")
TARGET = "flows.0.params.qdelay_target"
CAPACITY = "link.capacity_mbps"

# 3 x 2 = 6 points, and a second base for the errors.
SPEC = f"""
name = "tiny"
seeds = [3]
metrics = ["{THROUGHPUT}", "{DELAY}", "frame_delay_p95_ms"]
[design]
kind = "factorial"
[[base]]
name = "b"
scenario = "paper-step-v2"
set = ["duration_s=2"]
[[axis]]
key = "{TARGET}"
values = [0.02, 0.06, 0.1]
[[axis]]
key = "{CAPACITY}"
values = [5, 10]
"""
POINTS = 6


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(SPEC)
    return path


@pytest.fixture
def pool() -> Iterator[concurrent.futures.ThreadPoolExecutor]:
    with concurrent.futures.ThreadPoolExecutor(2) as executor:
        yield executor


def run_tune(spec: Path, out: Path, pool: Any, n_trials: int, **kw: Any) -> scream.TuneResult:
    kw.setdefault("sampler", "random")
    return scream.tune(spec, OBJECTIVES, n_trials, out=out, client=pool, **kw)


def dominates(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """a is at least as good as b in both (more throughput, less delay), better in one."""
    return a[0] >= b[0] and a[1] <= b[1] and a != b


def test_the_front_is_non_dominated_covers_the_rest_and_is_the_studys(
    spec: Path, tmp_path: Path, pool: Any
) -> None:
    result = run_tune(spec, tmp_path / "out", pool, 12, seed=4)
    trials = result.trials
    complete = trials[trials["state"] == "COMPLETE"]
    assert len(complete) == 12
    points = [(r[THROUGHPUT], r[DELAY]) for _, r in complete.iterrows()]
    front = [(r[THROUGHPUT], r[DELAY]) for _, r in result.pareto.iterrows()]
    assert front
    for a in front:
        assert not any(dominates(b, a) for b in front)
    for p in points:
        assert any(f == p or dominates(f, p) for f in front), p
    # pareto.csv is Optuna's best_trials, parameters and values.
    with result.pareto_csv.open(newline="") as f:
        written = list(csv.DictReader(f))
    best = result.study.best_trials
    assert [int(r["number"]) for r in written] == [t.number for t in best]
    for row, t in zip(written, best):
        assert (float(row[THROUGHPUT]), float(row[DELAY])) == tuple(t.values)
        assert float(row[TARGET]) == t.params[TARGET]
    settings = json.loads(result.tune_json.read_text())
    assert settings["objectives"] == list(OBJECTIVES)
    assert settings["base"] == "b" and settings["sampler"] == "random"
    assert settings["storage"] == result.storage
    assert result.storage.startswith("sqlite:///") and (tmp_path / "out" / "study.db").is_file()
    assert result.pareto_png is not None and result.pareto_png.stat().st_size > 0


def sweep_rows(spec: Path, out: Path) -> dict[tuple[str, str], dict[str, str]]:
    """The spec's sweep run here without Dask: rows by (target, capacity) cell."""
    handle = _scream.open_sweep(str(spec), str(out))
    try:
        for run_id in handle.pending():
            assert handle.append(_scream.run_job(handle.job(run_id)))
    finally:
        handle.close()
    with (out / "results.csv").open(newline="") as f:
        return {(r[TARGET], r[CAPACITY]): r for r in csv.DictReader(f)}


def test_a_trial_is_the_sweeps_run_and_a_repeated_point_runs_once(
    spec: Path, tmp_path: Path, pool: Any
) -> None:
    result = run_tune(spec, tmp_path / "out", pool, 20, seed=1)
    rows = sweep_rows(spec, tmp_path / "sweep")
    trials = result.trials
    assert len(trials) == 20
    for _, t in trials.iterrows():
        row = rows[(f"{t[TARGET]:g}", f"{t[CAPACITY]:g}")]
        for metric in (THROUGHPUT, DELAY, "frame_delay_p95_ms"):
            assert t[metric] == float(row[metric]), (t["number"], metric)
    # 20 trials over 6 points: each point ran once, the others were told its values.
    distinct = trials[[TARGET, CAPACITY]].drop_duplicates()
    assert result.runs == len(distinct) <= POINTS
    assert int(trials["ran"].sum()) == result.runs
    ran = trials[trials["ran"]]
    assert len(ran[[TARGET, CAPACITY]].drop_duplicates()) == len(ran)
    # A trial's run is the sweep's: same overrides after the base's set, same seed.
    native = _scream.open_tune(str(spec))
    job, _ = native.job("b", 0, [], [(TARGET, "0.06"), (CAPACITY, "10")], 3, [])
    handle = _scream.open_sweep(str(spec), str(tmp_path / "sweep"))
    try:
        design = json.loads(handle.job(rows[("0.06", "10")]["run_id"]))
    finally:
        handle.close()
    mine = json.loads(job)
    assert (mine["overrides"], mine["seed"]) == (design["overrides"], design["seed"])
    assert mine["scenario"] == design["scenario"]


def test_a_study_resumes_with_only_the_missing_trials(
    spec: Path, tmp_path: Path, pool: Any
) -> None:
    out = tmp_path / "out"
    space = {TARGET: (0.02, 0.2)}
    first = run_tune(spec, out, pool, 4, space=space)
    assert (first.asked, len(first.trials)) == (4, 4)
    second = run_tune(spec, out, pool, 7, space=space)
    assert second.asked == 3
    assert len(second.trials) == 7
    assert list(second.trials["number"]) == list(range(7))
    # Interrupted after its first trial: the trials it had in flight do not count.
    calls: list[int] = []

    def stop(done: int, total: int, failed: int) -> None:
        calls.append(done)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tune(spec, out, pool, 10, space=space, parallel=2, progress=stop)
    assert calls == [8]
    third = run_tune(spec, out, pool, 10, space=space)
    states = list(third.trials["state"])
    assert states.count("COMPLETE") == 10
    assert all(s in ("COMPLETE", "FAIL") for s in states)
    not_run = third.trials[third.trials["state"] == "FAIL"]
    assert all(e == "the tuning call was interrupted" for e in not_run["error"])
    assert third.runs == 10
    # A study that searches something else is not joined.
    with pytest.raises(ValueError, match="give another study_name"):
        run_tune(spec, out, pool, 11, space={TARGET: (0.02, 0.3)})


def test_a_failed_run_is_a_failed_trial_with_its_reason(
    spec: Path, tmp_path: Path, pool: Any
) -> None:
    # -1 Mbit/s loads only as a value of a list: each trial picks it or 10.
    result = run_tune(spec, tmp_path / "out", pool, 6, space={CAPACITY: [-1, 10]}, seed=2)
    trials = result.trials
    failed = trials[trials["state"] == "FAIL"]
    assert len(failed) > 0 and len(failed) < 6
    assert all(failed[CAPACITY] == -1)
    assert all("capacity" in e for e in failed["error"])
    assert all(trials[trials["state"] == "COMPLETE"][CAPACITY] == 10)


@pytest.mark.parametrize("sampler", ["nsga2", "tpe", "random"])
def test_every_sampler_searches_a_range(
    sampler: str, spec: Path, tmp_path: Path, pool: Any
) -> None:
    space = {TARGET: (0.01, 0.3, "log"), "flows.0.max_bitrate_mbps": (2, 20)}
    result = run_tune(spec, tmp_path / "out", pool, 10, space=space, sampler=sampler)
    done = result.trials[result.trials["state"] == "COMPLETE"]
    assert len(done) == 10
    assert done[TARGET].between(0.01, 0.3).all()
    assert done["flows.0.max_bitrate_mbps"].map(lambda v: float(v).is_integer()).all()
    assert json.loads(result.tune_json.read_text())["sampler"] == sampler


def test_the_same_seed_gives_the_same_study(spec: Path, tmp_path: Path, pool: Any) -> None:
    space = {TARGET: (0.01, 0.3)}
    a = run_tune(spec, tmp_path / "a", pool, 5, space=space, sampler="tpe", parallel=1)
    b = run_tune(spec, tmp_path / "b", pool, 5, space=space, sampler="tpe", parallel=1)
    assert list(a.trials[TARGET]) == list(b.trials[TARGET])
    assert list(a.trials[DELAY]) == list(b.trials[DELAY])


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"objectives": ["throughput:max"]}, "unknown metric 'throughput'.*link_utilization"),
        ({"objectives": ["throughput_mbps"]}, "'metric:max' or 'metric:min'"),
        ({"base": "c"}, "no base 'c'; its bases: b"),
        ({"space": {TARGET: (0.2, 0.1)}}, "lo must be below hi"),
        ({"space": {TARGET: (0, 0.1, "log")}}, "log range needs lo > 0"),
        ({"space": {TARGET: []}}, "list of values is empty"),
        ({"space": {TARGET: ("a", 1)}}, "lo must be a finite number"),
        ({"space": {TARGET: (0.1, 0.2, -1)}}, "step must be in"),
        ({"space": {"flows.0.params.qdelay_targt": (0.1, 0.2)}}, "qdelay_targt"),
        ({"set": {TARGET: 0.1}}, "is searched"),
        ({"sampler": "cmaes"}, "not one of nsga2, tpe, random"),
        ({"n_trials": 0}, "n_trials"),
    ],
)
def test_bad_arguments_are_named_before_anything_runs(
    kw: dict[str, Any], message: str, spec: Path, tmp_path: Path
) -> None:
    args: dict[str, Any] = {"objectives": OBJECTIVES, "n_trials": 2, **kw}
    with pytest.raises(ValueError, match=message):
        scream.tune(spec, out=tmp_path / "out", client=None, scheduler="tcp://127.0.0.1:9", **args)
    assert not (tmp_path / "out" / "study.db").exists()


def test_a_spec_of_several_bases_needs_one_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="has 2 bases; name one of delay, l4s"):
        scream.tune("tuning", OBJECTIVES, 2, out=tmp_path / "out")


def test_importing_scream_does_not_import_optuna_and_without_it_tune_says_how() -> None:
    code = (
        "import sys; import scream\n"
        "print('optuna' in sys.modules)\n"
        "sys.modules['optuna'] = None\n"
        "try:\n"
        "    scream.tune('tuning', n_trials=1)\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "False"
    assert "pip install 'scream-toolkit[tune]'" in done.stdout


def test_trials_run_on_a_dask_local_cluster(spec: Path, tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed", reason="dask[distributed] is not installed")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        result = scream.tune(spec, OBJECTIVES, 8, out=tmp_path / "dask", client=client, seed=5)
    assert (result.trials["state"] == "COMPLETE").all()
    rows = sweep_rows(spec, tmp_path / "sweep")
    for _, t in result.trials.iterrows():
        row = rows[(f"{t[TARGET]:g}", f"{t[CAPACITY]:g}")]
        assert t[THROUGHPUT] == float(row[THROUGHPUT])
