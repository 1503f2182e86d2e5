"""simulate(..., seeds=...): the runs, numbers and folder of `scream sim --seeds`."""

from __future__ import annotations

import json
import math
import threading
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import run_cli

import scream

# Short and random (jitter, a random AQM): each seed gives another run.
SHORT = ["duration_s=4"]
EXACT_FLOATS: dict[str, Any] = (
    {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
)
RUN_FILES = ["summary.csv", "links_summary.csv", "timeseries.csv", "links.csv"]


@pytest.fixture(scope="module")
def three() -> scream.Runs:
    return scream.simulate("default", set=SHORT, seeds="1..3")


def test_the_written_set_equals_the_commands_byte_for_byte(
    tmp_path: Path, scream_cli: list[str], three: scream.Runs
) -> None:
    cli = run_cli(
        scream_cli,
        "sim",
        "default",
        "--seeds",
        "1..3",
        "--set",
        SHORT[0],
        "--no-plots",
        "--out",
        str(tmp_path / "cli"),
        cwd=tmp_path,
    )
    assert cli.returncode == 0, cli.stderr
    written = three.write(tmp_path / "py", plots=False)
    assert [p.name for p in written] == ["manifest.json", "seeds.csv", "seeds.json"]
    for name in ["seeds.csv", "seeds.json"]:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    assert three._native.seeds_csv() == (tmp_path / "cli" / "seeds.csv").read_text()
    for seed in three.seeds:
        for name in RUN_FILES:
            py, cmd = (tmp_path / d / f"s{seed}" / name for d in ("py", "cli"))
            assert py.read_bytes() == cmd.read_bytes(), (seed, name)
    # The set's manifest defines the same set; only the build, host, time and command
    # line may differ.
    py_manifest, cli_manifest = (
        json.loads((tmp_path / d / "manifest.json").read_text()) for d in ("py", "cli")
    )
    for key in ["matrix", "seeds", "overrides", "scenario_toml"]:
        assert py_manifest[key] == cli_manifest[key], key
    assert py_manifest["command_line"] == [
        "python",
        "scream.simulate('default', set=['duration_s=4'], seeds='1..3')",
    ]


def test_the_seeds_come_as_text_a_list_or_a_range(three: scream.Runs) -> None:
    for seeds in ([1, 2, 3], range(1, 4), "1,2,3", "1..=3"):
        again = scream.simulate("default", set=SHORT, seeds=seeds)
        assert again.seeds == [1, 2, 3]
        assert again._native.seeds_csv() == three._native.seeds_csv()
    other = scream.simulate("default", set=SHORT, seeds=[3, 1])
    assert other.seeds == [3, 1] and list(other.summary.index) == [3, 1]


def test_each_run_is_the_single_run_of_its_seed(three: scream.Runs) -> None:
    assert len(three) == 3 and three.name == "default"
    assert [r.summary["seed"] for r in three] == [1, 2, 3]
    assert [r.summary["seed"] for r in three[1:]] == [2, 3]
    alone = scream.simulate("default", set=SHORT, seed=2)
    assert three[1].summary["flows"] == alone.summary["flows"]
    pd.testing.assert_frame_equal(three[1].timeseries, alone.timeseries)
    assert three[0].summary["flows"] != three[1].summary["flows"]
    assert "seeds=3" in repr(three)


def test_the_summary_has_each_seeds_metrics_and_stats_their_spread(
    three: scream.Runs,
) -> None:
    summary, stats = three.summary, three.stats()
    assert list(summary.index) == [1, 2, 3] and summary.index.name == "seed"
    assert list(summary.columns) == list(stats.metric)
    assert stats.flow.iloc[0] == "video" and pd.isna(stats.flow.iloc[-1])
    for column, row in zip(summary.columns, stats.itertuples()):
        values = summary[column].dropna()
        assert row.n == len(values)
        # The statistics are of the unrounded values, the summary's at six decimals.
        assert row.mean == pytest.approx(values.mean(), abs=2e-6), column
        assert row.min == values.min() and row.max == values.max(), column
        if row.n >= 2:
            assert row.sd == pytest.approx(values.std(ddof=1), abs=2e-6), column
            assert row.ci95_low == pytest.approx(row.mean - row.ci95_half_width, abs=2e-6)
            # t(0.975, 2 degrees of freedom) = 4.302653: the interval is the command's.
            half = 4.302653 * row.sd / math.sqrt(row.n)
            assert row.ci95_half_width == pytest.approx(half, rel=1e-5, abs=2e-6), column
    assert summary["throughput_mbps"].nunique() == 3, "each seed is its own run"


def test_the_stats_are_seeds_csv(tmp_path: Path, three: scream.Runs) -> None:
    three.write(tmp_path / "set", plots=False)
    from_file = pd.read_csv(tmp_path / "set" / "seeds.csv", **EXACT_FLOATS)
    stats = three.stats()
    assert list(stats.columns) == list(from_file.columns)
    numbers = ["n", "mean", "sd", "ci95_half_width", "ci95_low", "ci95_high", "min", "max"]
    pd.testing.assert_frame_equal(stats[numbers], from_file[numbers], check_dtype=False)
    assert list(stats.metric) == list(from_file.metric)


def test_several_flows_name_their_columns_as_a_sweep_does() -> None:
    overrides = {"duration_s": 3, "flows.1.start_s": 1}
    runs = scream.simulate("two-flows", set=overrides, seeds=[1, 2])
    columns = list(runs.summary.columns)
    assert columns[0] == "f0_throughput_mbps" and "f1_throughput_mbps" in columns
    assert columns[-1] == "link_utilization"
    flows = runs.stats().flow
    assert flows.isna().sum() == 1 and flows.dropna().nunique() == 2


def test_a_bad_set_raises_the_commands_message(tmp_path: Path, scream_cli: list[str]) -> None:
    for text in ["5..1", "1..3,2", "1..x"]:
        cli = run_cli(scream_cli, "sim", "default", "--seeds", text, cwd=tmp_path)
        assert cli.returncode != 0
        with pytest.raises(scream.ScenarioError) as raised:
            scream.simulate("default", seeds=text)
        message = str(raised.value).removeprefix("seeds: ")
        assert message in cli.stderr, (message, cli.stderr)
    for seeds, says in [
        ([1, 1], "seed 1 appears twice"),
        ([-1], "-1 is not a seed"),
        ([], "holds no seed"),
        (range(20_000), "at most 10000"),
    ]:
        with pytest.raises(ValueError, match=says) as refused:
            scream.simulate("default", seeds=seeds)
        assert isinstance(refused.value, scream.ScenarioError)
    with pytest.raises(TypeError, match="an iterable of integers"):
        scream.simulate("default", seeds=3)  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="seed=1 and seeds="):
        scream.simulate("default", seed=1, seeds=[1, 2])  # type: ignore[call-overload]


def test_write_follows_the_rule_of_a_given_folder(tmp_path: Path, three: scream.Runs) -> None:
    folder = tmp_path / "set"
    three.write(folder, plots=False)
    three.write(folder, plots=False)  # the same set again: refreshed
    other = scream.simulate("default", set=SHORT, seeds=[1, 2])
    with pytest.raises(scream.OutputError, match="force=True"):
        other.write(folder, plots=False)
    other.write(folder, force=True, plots=False)
    assert json.loads((folder / "seeds.json").read_text())["seeds"] == [1, 2]


def test_a_set_without_randomness_says_so() -> None:
    plain = scream.simulate("ericsson-default-delay", set={"duration_s": 2}, seeds=[1, 2])
    assert any("every seed gives the same result" in w for w in plain.warnings)
    assert plain[0].summary["flows"] == plain[1].summary["flows"]
    assert not scream.simulate("default", set={"duration_s": 2}, seeds=[1, 2]).warnings


def test_the_set_runs_without_the_gil() -> None:
    """As for one run: another thread keeps its pace while the seeds run."""
    ticks = 0
    done = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1

    def pace(work: Any) -> float:
        before, started = ticks, time.perf_counter()
        work()
        return (ticks - before) / (time.perf_counter() - started)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        alone = pace(lambda: time.sleep(0.3))
        beside = pace(lambda: scream.simulate("default", set={"duration_s": 30}, seeds="1..2"))
    finally:
        done.set()
        counter.join()
    assert beside > alone / 4, (alone, beside)
