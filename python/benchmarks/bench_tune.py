"""Optuna against the Sensors 2023 hybrid grid: how many runs a tuner needs to find the
grid's trade-off between throughput and queue delay.

    python python/benchmarks/bench_tune.py [--trials 200] [--seeds 3]
        [--samplers nsga2,tpe,random] [--bases l4s-off,l4s-on] [--workers 2]
        [--continuous] [--verify 20] [--out out/bench-tune] [--grid DIR] [--figure PNG]

1. The grid: the built-in ``paper-hybrid`` study (nine SCReAM V1 parameters at two
   values, 512 points per base; 100 s over the Lumos5G walking trace 54, which must be
   in the data folder: ``scream data fetch lumos5g``), run with ``scream.sweep`` or
   read back from its folder.
2. Per base, ``scream.tune`` over the same 512 categorical points, for each sampler and
   sampler seed, with the objectives the study judged: throughput up and the sender's
   queue delay (``est_qdelay_ms``, the study's "network queue delay") down.
3. Hypervolume in 2-D, each objective normalised by the grid's range (0 = the grid's
   best, 1 = its worst) and the reference point fixed from the grid alone, before any
   tuner result: the grid's nadir plus 10 % of its range, (1.1, 1.1). For each
   sampler: the hypervolume of the best-so-far front against distinct runs (median and
   range over the seeds), the trials and runs to reach 95 % of the grid's hypervolume,
   and the share of the grid's Pareto points weakly dominated by the front found
   within the budget. The grid itself taken in a random order (``--orders``
   permutations) is the second baseline.
4. docs/figures/tune-vs-grid.png, ``<out>/tune-vs-grid.csv`` (one row per sampler,
   base and seed) and the table, printed as Markdown.

``--continuous`` adds a study per sampler and seed over ranges spanning each axis's two
values (MSS as an integer): does a search off the grid's points find a better front?
Its hypervolume is measured against the same reference, so above 100 % means it does.

A trial whose parameters are a grid point's is answered with that point's row of the
grid's results.csv, without simulating again: a trial's run is exactly the sweep's run
of the same point (python/tests/test_tune.py pins it), so the rows are the ones the
trials would compute, and the benchmark measures the search rather than the simulator.
``--verify N`` runs N of those trials for real and checks that every metric is the
same. Trials off the grid (``--continuous``) are simulated on this machine's cores.
Studies run one per worker thread, each with one trial in flight, so that each is
the same on every run of this script.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import random
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import scream
from scream import _scream, _sweep

REPO = Path(__file__).resolve().parents[2]
STUDY = "paper-hybrid"
OBJECTIVES = ("throughput_mbps:max", "est_qdelay_ms:min")
X, Y = "throughput_mbps", "est_qdelay_ms"
SHARE = 0.95
FIGURE = REPO / "docs" / "figures" / "tune-vs-grid.png"
#: One colour per search, the same in every panel.
COLOURS = {"grid": "0.35", "nsga2": "C1", "tpe": "C3", "random": "C2"}


def oriented(frame: pd.DataFrame) -> np.ndarray:
    """Both objectives as costs: (-throughput, delay)."""
    return np.column_stack([-frame[X].to_numpy(float), frame[Y].to_numpy(float)])


class Normaliser:
    """The grid's range of each cost: 0 its best, 1 its worst; reference (1.1, 1.1)."""

    def __init__(self, grid: np.ndarray) -> None:
        self.low = grid.min(axis=0)
        self.span = grid.max(axis=0) - self.low
        self.reference = np.array([1.1, 1.1])

    def __call__(self, costs: np.ndarray) -> np.ndarray:
        return (costs - self.low) / self.span


def hypervolume(points: np.ndarray, reference: np.ndarray) -> float:
    """Area dominated by ``points`` (costs, 2-D) and bounded by ``reference``: a sweep
    in increasing first cost, adding the strip each new best second cost opens."""
    inside = points[(points < reference).all(axis=1)]
    if len(inside) == 0:
        return 0.0
    order = np.lexsort((inside[:, 1], inside[:, 0]))
    area, best = 0.0, reference[1]
    for x, y in inside[order]:
        if y < best:
            area += (reference[0] - x) * (best - y)
            best = y
    return float(area)


def front(points: np.ndarray) -> np.ndarray:
    """The non-dominated points (costs), duplicates kept once."""
    unique = np.unique(points, axis=0)
    keep = [not np.any((unique <= p).all(axis=1) & (unique < p).any(axis=1)) for p in unique]
    return unique[np.array(keep, dtype=bool)]


def covered(grid_front: np.ndarray, found: np.ndarray) -> float:
    """Share of the grid's front weakly dominated by some point found."""
    if len(found) == 0:
        return 0.0
    hit = [np.any((found <= p).all(axis=1)) for p in grid_front]
    return float(np.mean(hit))


def curve(costs: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Hypervolume of the first k points, k = 1..n."""
    return np.array([hypervolume(costs[: k + 1], reference) for k in range(len(costs))])


def first_reaching(values: np.ndarray, level: float) -> int | None:
    """1-based count at which ``values`` first reaches ``level``."""
    hits = np.nonzero(values >= level)[0]
    return int(hits[0]) + 1 if len(hits) else None


class GridReplay(concurrent.futures.Executor):
    """An executor for ``scream.tune`` that answers a job at a grid point with the
    grid's row of that point (re-keyed to the trial), and runs any other job on
    ``fallback``. ``answered`` keeps the jobs it answered, for ``verify``."""

    def __init__(self, grid_dir: Path, fallback: concurrent.futures.Executor) -> None:
        self.fallback = fallback
        self.rows: dict[tuple[str, tuple[str, ...], int], dict[str, str]] = {}
        self.answered: list[str] = []
        self.lock = threading.Lock()
        with (grid_dir / "results.csv").open(newline="", encoding="utf-8") as f:
            import csv

            rows = list(csv.DictReader(f))
        handle = _scream.open_sweep(STUDY, str(grid_dir))
        try:
            for row in rows:
                job = json.loads(handle.job(row["run_id"]))
                self.rows[(job["base"], tuple(job["overrides"]), job["seed"])] = row
        finally:
            handle.close()

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[Any]:
        job = json.loads(args[0])
        row = self.rows.get((job["base"], tuple(job["overrides"]), job["seed"]))
        if row is None:
            return self.fallback.submit(fn, *args, **kwargs)
        with self.lock:
            self.answered.append(args[0])
        # The row as run_job would give it for this job: its ids, the grid's outcome.
        cells = [job["run_id"], job["base"], str(job["point"]), "", ""]
        cells += [c or "" for c in job["params"]]
        cells += [str(job["seed"]), row["status"], row["error"]]
        cells += [row[m["metric"]] for m in job["metrics"]]
        cells.append(row["wall_time_s"])
        done: concurrent.futures.Future[Any] = concurrent.futures.Future()
        done.set_result(cells)
        return done


def verify(replay: GridReplay, n: int, pool: concurrent.futures.Executor) -> int:
    """Runs ``n`` of the answered jobs for real; fails on any metric that differs."""
    picked = random.Random(1).sample(replay.answered, min(n, len(replay.answered)))
    for job in picked:
        real = pool.submit(_sweep.run_task, job, _sweep.build()).result()
        answer = replay.submit(_sweep.run_task, job, _sweep.build()).result()
        # Everything but the wall time.
        if real[:-1] != answer[:-1]:
            raise AssertionError(f"{json.loads(job)['run_id']}: {real} != {answer}")
    return len(picked)


def grid_results(grid_dir: Path, client: Any) -> pd.DataFrame:
    tally = scream.sweep(STUDY, grid_dir, client=client)
    print(
        f"grid: {tally.runs} runs, {tally.ran} run now ({tally.wall_time_s:.0f} s), "
        f"{tally.errors} errors",
        file=sys.stderr,
    )
    results = pd.read_csv(tally.results)
    return results[results["status"] == "ok"]


def one_study(
    base: str, sampler: str, seed: int, trials: int, out: Path, client: Any, space: Any
) -> tuple[pd.DataFrame, float]:
    kind = "continuous" if space else "grid"
    started = time.perf_counter()
    result = scream.tune(
        STUDY,
        OBJECTIVES,
        trials,
        base=base,
        sampler=sampler,
        seed=seed,
        space=space,
        out=out / f"{kind}-{base}-{sampler}-{seed}",
        client=client,
        parallel=1,
    )
    took = time.perf_counter() - started
    print(f"{kind} {base} {sampler} seed {seed}: {result.runs} runs, {took:.0f} s", file=sys.stderr)
    return result.trials, took


def continuous_space() -> dict[str, Any]:
    """Ranges spanning each axis of the study (MSS in whole bytes)."""
    axes = scream._scream.open_tune(STUDY).axes
    space: dict[str, Any] = {}
    for key, texts in axes:
        values = sorted(float(t) for t in texts)
        integer = key.endswith("mss_bytes")
        space[key] = (int(values[0]), int(values[-1])) if integer else (values[0], values[-1])
    return space


def measure(
    trials: pd.DataFrame, norm: Normaliser, grid_hv: float, grid_front: np.ndarray, budget: int
) -> dict[str, Any]:
    """The study's curve against distinct runs and against trials, and its scores."""
    ok = trials["state"] == "COMPLETE"
    costs = np.where(ok.to_numpy()[:, None], norm(oriented(trials.fillna(0))), np.inf)
    by_trial = curve(costs, norm.reference) / grid_hv
    new_run = (trials["ran"] & trials["run_id"].ne("")).to_numpy()
    by_run = by_trial[new_run]
    within = np.flatnonzero(new_run)[:budget]
    last = within[-1] + 1 if len(within) else 0
    found = front(costs[:last][np.isfinite(costs[:last]).all(axis=1)])
    return {
        "by_run": by_run,
        "runs": int(new_run.sum()),
        "trials_to_95": first_reaching(by_trial, SHARE),
        "runs_to_95": first_reaching(by_run, SHARE),
        "hv_at_budget": float(by_trial[last - 1]) if last else 0.0,
        "grid_front_covered": covered(grid_front, found),
    }


def describe(values: list[Any]) -> str:
    """Median [min-max] of counts, or how many of the seeds never got there."""
    got = sorted(v for v in values if v is not None)
    missing = len(values) - len(got)
    if not got:
        return f"not reached ({missing}/{len(values)})"
    text = f"{np.median(got):.0f} [{got[0]}-{got[-1]}]"
    return text + (f", {missing} not reached" if missing else "")


def plot(curves: dict[tuple[str, str], list[np.ndarray]], bases: list[str], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(bases), figsize=(6.0 * len(bases), 4.4), squeeze=False)
    for ax, base in zip(axes[0], bases):
        for (b, name), runs in sorted(curves.items()):
            if b != base or not runs:
                continue
            n = max(len(r) for r in runs)
            padded = np.array([np.pad(r, (0, n - len(r)), mode="edge") for r in runs])
            x = np.arange(1, n + 1)
            style = "--" if name.startswith("grid") else "-"
            colour = COLOURS.get(name.split(" ")[0].rstrip(","), "C0")
            ax.plot(x, np.median(padded, axis=0), style, color=colour, label=name)
            ax.fill_between(x, padded.min(axis=0), padded.max(axis=0), color=colour, alpha=0.15)
        ax.axhline(1.0, color="k", lw=0.8)
        ax.axhline(SHARE, color="k", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_xlabel("distinct runs (100 s simulations)")
        ax.set_ylabel("hypervolume / the grid's")
        ax.set_title(f"{STUDY}, {base}: throughput up, est_qdelay_ms down", fontsize=10)
        ax.set_ylim(0, max(1.1, ax.get_ylim()[1]))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--samplers", default="nsga2,tpe,random")
    parser.add_argument("--bases", default="l4s-off,l4s-on")
    parser.add_argument("--orders", type=int, default=20, help="random orders of the grid")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--continuous", action="store_true")
    parser.add_argument("--verify", type=int, default=20, help="answered trials run for real")
    parser.add_argument("--out", type=Path, default=Path("out/bench-tune"))
    parser.add_argument("--grid", type=Path, help="the grid's sweep folder (default OUT/grid)")
    parser.add_argument("--figure", type=Path, default=FIGURE)
    args = parser.parse_args()
    try:
        scream._scream.open_tune(STUDY)
    except scream.ScenarioError as e:
        print(f"skipped: {STUDY} needs the Lumos5G traces ({e})", file=sys.stderr)
        return 0
    import distributed

    samplers = args.samplers.split(",")
    bases = args.bases.split(",")
    grid_dir = args.grid or args.out / "grid"
    rows: list[dict[str, Any]] = []
    curves: dict[tuple[str, str], list[np.ndarray]] = {}
    cluster = distributed.LocalCluster(
        n_workers=args.workers, threads_per_worker=1, dashboard_address=":0"
    )
    with cluster, distributed.Client(cluster) as client:
        grid = grid_results(grid_dir, client)
    space = continuous_space() if args.continuous else None
    kinds = [("grid", None)] + ([("continuous", space)] if space else [])
    jobs = {}
    with (
        concurrent.futures.ThreadPoolExecutor(args.workers) as simulations,
        concurrent.futures.ThreadPoolExecutor(args.workers) as studies,
    ):
        replay = GridReplay(grid_dir, simulations)
        for base in bases:
            for kind, sp in kinds:
                for sampler in samplers:
                    for seed in range(args.seeds):
                        what = (base, kind, sampler, seed)
                        jobs[what] = studies.submit(
                            one_study, base, sampler, seed, args.trials, args.out, replay, sp
                        )
        outcomes = {what: job.result() for what, job in jobs.items()}
        checked = verify(replay, args.verify, simulations)
    print(
        f"{len(replay.answered)} trials answered from the grid; {checked} of them run "
        "again for real: every metric the same",
        file=sys.stderr,
    )
    for base in bases:
        costs = oriented(grid[grid["base"] == base])
        norm = Normaliser(costs)
        grid_hv = hypervolume(norm(costs), norm.reference)
        grid_front = norm(front(costs))
        shuffler = random.Random(0)
        orders, shares = [], []
        for _ in range(args.orders):
            order = list(range(len(costs)))
            shuffler.shuffle(order)
            orders.append(curve(norm(costs[order]), norm.reference) / grid_hv)
            shares.append(covered(grid_front, front(norm(costs[order[: args.trials]]))))
        curves[(base, "grid, random order")] = orders
        got = [first_reaching(o, SHARE) for o in orders]
        rows.append(
            {
                "base": base,
                "search": "grid, random order",
                "seed": "all",
                "runs_to_95": describe(got),
                "hv_at_budget": float(np.median([o[args.trials - 1] for o in orders])),
                "grid_front_covered": float(np.median(shares)),
            }
        )
        print(
            f"{base}: grid hypervolume {grid_hv:.4f} (normalised), "
            f"{len(grid_front)} Pareto points of {len(costs)}",
            file=sys.stderr,
        )
        for kind, _ in kinds:
            for sampler in samplers:
                name = f"{sampler}" + (" (ranges)" if kind == "continuous" else "")
                scores = []
                for seed in range(args.seeds):
                    trials, took = outcomes[(base, kind, sampler, seed)]
                    score = measure(trials, norm, grid_hv, grid_front, args.trials)
                    score["study_s"] = round(took, 1)
                    scores.append(score)
                curves[(base, name)] = [s["by_run"] for s in scores]
                for seed, score in enumerate(scores):
                    cells = {k: v for k, v in score.items() if k != "by_run"}
                    rows.append({"base": base, "search": name, "seed": seed, **cells})
    table = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "tune-vs-grid.csv", index=False)
    plot(curves, bases, args.figure)
    print(summary(table, bases))
    print(f"\nper seed: {args.out / 'tune-vs-grid.csv'}; figure: {args.figure}")
    return 0


def counts(column: pd.Series) -> list[int | None]:
    return [None if pd.isna(v) else int(v) for v in column]


def summary(table: pd.DataFrame, bases: list[str]) -> str:
    """One line per base and search: median [range] over the seeds."""
    lines = [
        "| base | search | runs | trials to 95 % | runs to 95 % | HV at budget | "
        "grid front covered |",
        "| --- | --- | ---: | --- | --- | ---: | ---: |",
    ]
    for base in bases:
        for name, part in table[table["base"] == base].groupby("search", sort=False):
            if name == "grid, random order":
                row = part.iloc[0]
                lines.append(
                    f"| {base} | {name} | - | - | {row['runs_to_95']} | "
                    f"{row['hv_at_budget']:.3f} | {row['grid_front_covered']:.0%} |"
                )
                continue
            hv = part["hv_at_budget"]
            cov = part["grid_front_covered"]
            lines.append(
                f"| {base} | {name} | {part['runs'].median():.0f} | "
                f"{describe(counts(part['trials_to_95']))} | "
                f"{describe(counts(part['runs_to_95']))} | "
                f"{hv.median():.3f} [{hv.min():.3f}-{hv.max():.3f}] | "
                f"{cov.median():.0%} [{cov.min():.0%}-{cov.max():.0%}] |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
