"""The folder ``scream.tune`` writes: trials.csv, pareto.csv, tune.json, pareto.png.

Every file is made from the study in its storage, so it holds the trials of every
process that joined the study, and the files of a resumed study cover all its trials.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from . import _scream
from ._tune_space import Dimension, Objective

TRIALS_CSV = "trials.csv"
PARETO_CSV = "pareto.csv"
TUNE_JSON = "tune.json"
PARETO_PNG = "pareto.png"


@dataclasses.dataclass
class Written:
    trials: pd.DataFrame
    pareto: pd.DataFrame
    runs: int
    trials_csv: Path
    pareto_csv: Path
    tune_json: Path
    pareto_png: Path | None


def _replace(path: Path, write: Any) -> None:
    """Writes through a temporary file: a reader never sees half a file."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(partial)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def trials_frame(study: Any, dims: dict[str, Dimension], metrics: list[str]) -> pd.DataFrame:
    """Every trial in order: number, state, parameters, metrics, run id, whether it
    ran (False: told the values of an identical earlier run), why it failed."""
    rows = []
    for t in study.get_trials(deepcopy=False):
        attrs = t.user_attrs
        row: dict[str, Any] = {"number": t.number, "state": t.state.name}
        row.update({k: t.params.get(k) for k in dims})
        measured = attrs.get("metrics") or {}
        row.update({m: measured.get(m) for m in metrics})
        row["run_id"] = attrs.get("run_id", "")
        row["ran"] = bool(attrs.get("ran", False))
        row["error"] = attrs.get("error") or attrs.get("not_run") or ""
        rows.append(row)
    columns = ["number", "state", *dims, *metrics, "run_id", "ran", "error"]
    return pd.DataFrame(rows, columns=columns)


def pareto_frame(study: Any, dims: dict[str, Dimension], goals: list[Objective]) -> pd.DataFrame:
    """The non-dominated complete trials (Optuna's ``best_trials``): number,
    parameters, objective values."""
    rows = []
    for t in study.best_trials:
        row: dict[str, Any] = {"number": t.number}
        row.update({k: t.params.get(k) for k in dims})
        row.update({g.metric: v for g, v in zip(goals, t.values)})
        rows.append(row)
    return pd.DataFrame(rows, columns=["number", *dims, *(g.metric for g in goals)])


def label(objective: Objective) -> str:
    """An axis label: the metric, its unit and which way is better."""
    units = {name: unit for name, unit, _ in _scream.metric_registry()}
    bare = objective.metric
    head, _, tail = bare.partition("_")
    if head[:1] == "f" and head[1:].isdigit() and tail in units:
        bare = tail
    unit = units.get(bare, "")
    way = "higher" if objective.maximise else "lower"
    return f"{objective.metric}" + (f" ({unit})" if unit else "") + f", {way} is better"


def plot(path: Path, trials: pd.DataFrame, pareto: pd.DataFrame, goals: list[Objective]) -> bool:
    """pareto.png: every complete trial in grey, the front highlighted, on the first
    two objectives; False without matplotlib or with one objective."""
    if len(goals) < 2:
        return False
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    x, y = goals[0].metric, goals[1].metric
    done = trials[trials["state"] == "COMPLETE"]
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    ax.scatter(done[x], done[y], s=14, color="0.7", label=f"trials ({len(done)})")
    front = pareto.sort_values(x)
    ax.plot(front[x], front[y], "o-", color="C3", ms=5, label=f"Pareto front ({len(front)})")
    ax.set_xlabel(label(goals[0]))
    ax.set_ylabel(label(goals[1]))
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    _replace(path, lambda p: fig.savefig(p, dpi=110, format="png"))
    plt.close(fig)
    return True


def write(
    out_dir: Path,
    study: Any,
    dims: dict[str, Dimension],
    goals: list[Objective],
    metrics: list[str],
    settings: dict[str, Any],
) -> Written:
    trials = trials_frame(study, dims, metrics)
    pareto = pareto_frame(study, dims, goals)
    # A run made by a trial, whatever its outcome; a trial cut off has no metrics.
    runs = sum(
        1
        for t in study.get_trials(deepcopy=False)
        if t.user_attrs.get("ran") and "metrics" in t.user_attrs
    )
    paths = {name: out_dir / name for name in (TRIALS_CSV, PARETO_CSV, TUNE_JSON, PARETO_PNG)}
    _replace(paths[TRIALS_CSV], lambda p: trials.to_csv(p, index=False))
    _replace(paths[PARETO_CSV], lambda p: pareto.to_csv(p, index=False))
    summary = {
        **settings,
        "trials": len(trials),
        "complete": int((trials["state"] == "COMPLETE").sum()),
        "runs": runs,
        "pareto": len(pareto),
    }
    text = json.dumps(summary, indent=2) + "\n"
    _replace(paths[TUNE_JSON], lambda p: p.write_text(text, encoding="utf-8"))
    png = paths[PARETO_PNG] if plot(paths[PARETO_PNG], trials, pareto, goals) else None
    return Written(
        trials=trials,
        pareto=pareto,
        runs=runs,
        trials_csv=paths[TRIALS_CSV],
        pareto_csv=paths[PARETO_CSV],
        tune_json=paths[TUNE_JSON],
        pareto_png=png,
    )
