"""simulate(): the same runs, files and errors as `scream sim`, frames from columns."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import REPO, run_cli

import scream

# Short and random (jitter, a random AQM): a seed changes the outcome, and the test
# stays quick.
SHORT = {"duration_s": 4}
# pandas before 3 parses floats to the nearest double only when asked to; 3 always does
# (and deprecates the argument).
EXACT_FLOATS: dict[str, Any] = (
    {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
)
CSVS = ["summary.csv", "links_summary.csv", "timeseries.csv", "links.csv"]


def without_wall_time(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k != "wall_time_s"}


@pytest.fixture(scope="module")
def default_run() -> scream.Run:
    return scream.simulate("default", set=SHORT)


def test_written_files_equal_the_commands_byte_for_byte(
    tmp_path: Path, scream_cli: list[str]
) -> None:
    sets = ["duration_s=4", "link.capacity_mbps=8", "flows.0.ecn=l4s"]
    cli = run_cli(
        scream_cli,
        "sim",
        "default",
        "--seed",
        "7",
        *[a for s in sets for a in ("--set", s)],
        "--no-plots",
        "--out",
        str(tmp_path / "cli"),
        cwd=tmp_path,
    )
    assert cli.returncode == 0, cli.stderr
    run = scream.simulate("default", set=sets, seed=7)
    written = run.write(tmp_path / "py", plots=False)
    assert {Path(p).name for p in written} == {
        "summary.json",
        *CSVS,
        "manifest.json",
    }
    for name in CSVS:
        ours = (tmp_path / "py" / name).read_bytes()
        assert ours == (tmp_path / "cli" / name).read_bytes(), name
    summaries = [json.loads((tmp_path / d / "summary.json").read_text()) for d in ("cli", "py")]
    assert without_wall_time(summaries[0]) == without_wall_time(summaries[1])
    manifests = [json.loads((tmp_path / d / "manifest.json").read_text()) for d in ("cli", "py")]
    for key in ("scenario", "seed", "overrides", "scenario_toml"):
        assert manifests[0][key] == manifests[1][key], key
    # The commit may differ: the command may be built from another checkout.
    assert manifests[0]["toolkit"]["version"] == manifests[1]["toolkit"]["version"]
    assert manifests[1]["command_line"][1].startswith("scream.simulate('default'")


def test_frames_equal_the_csv_files_read_back_exactly(
    default_run: scream.Run, tmp_path: Path
) -> None:
    default_run.write(tmp_path, plots=False)
    for frame, name in (
        (default_run.timeseries, "timeseries.csv"),
        (default_run.links, "links.csv"),
    ):
        from_file = pd.read_csv(tmp_path / name, **EXACT_FLOATS)
        assert list(frame.columns) == list(from_file.columns)
        assert len(frame) > 100
        pd.testing.assert_frame_equal(frame, from_file, check_dtype=False, check_exact=True)
        numeric = frame.select_dtypes("number").columns
        assert list(numeric) == list(from_file.select_dtypes("number").columns)


def test_polars_frames_hold_the_same_values(default_run: scream.Run) -> None:
    pl = pytest.importorskip("polars")
    frames = default_run.to_polars()
    assert isinstance(frames.timeseries, pl.DataFrame)
    assert frames.timeseries.columns == list(default_run.timeseries.columns)
    assert frames.links.height == len(default_run.links)
    assert frames.timeseries["tx_mbps"].to_list() == default_run.timeseries["tx_mbps"].tolist()


def test_every_form_of_a_scenario_gives_the_same_run(tmp_path: Path) -> None:
    base = without_wall_time(scream.simulate("default", set=SHORT).summary)
    text = scream.scenario_text("default")
    path = tmp_path / "mine.toml"
    path.write_text(text)
    as_dict = scream.scenario("default")
    as_dict["duration_s"] = 4
    forms: list[Any] = [
        (text, SHORT),
        (str(path), SHORT),
        (path, ["duration_s=4"]),
        (as_dict, None),
        ("default", "duration_s=4"),
    ]
    for scenario, set_ in forms:
        got = without_wall_time(scream.simulate(scenario, set=set_).summary)
        assert got == base, type(scenario)


def test_the_resolved_scenario_loads_back_to_the_same_run(default_run: scream.Run) -> None:
    resolved = default_run.scenario
    assert resolved["duration_s"] == 4
    assert resolved["name"] == "default"
    again = scream.simulate(resolved)
    assert without_wall_time(again.summary) == without_wall_time(default_run.summary)
    assert scream.simulate(default_run.scenario_toml).summary["duration_s"] == 4


def test_the_seed_is_used_and_recorded() -> None:
    a = scream.simulate("default", set=SHORT, seed=1)
    b = scream.simulate("default", set=SHORT, seed=2)
    again = scream.simulate("default", set=SHORT, seed=2)
    assert (a.summary["seed"], b.summary["seed"], b.manifest["seed"]) == (1, 2, 2)
    assert without_wall_time(b.summary) == without_wall_time(again.summary)
    assert b.manifest["overrides"] == ["duration_s=4"]
    assert b.manifest["files"] == []


def test_errors_carry_the_commands_message(tmp_path: Path, scream_cli: list[str]) -> None:
    cases = [
        ("default", ["link.capacity_mbps=-1"]),
        ("default", ["flows.0.algoritm=scream-v1"]),
        ("defualt", []),
    ]
    for scenario, sets in cases:
        cli = run_cli(
            scream_cli, "sim", scenario, *[a for s in sets for a in ("--set", s)], cwd=tmp_path
        )
        assert cli.returncode != 0
        with pytest.raises(scream.ScenarioError) as caught:
            scream.simulate(scenario, set=sets)
        assert str(caught.value) in cli.stderr, (str(caught.value), cli.stderr)


def test_errors_name_the_key_line_and_range() -> None:
    with pytest.raises(ValueError, match=r"link\.capacity_mbps must be in .*\(is -1\)"):
        scream.simulate("default", set={"link.capacity_mbps": -1})
    with pytest.raises(scream.ScenarioError, match=r"<string>:2: .*duration_s"):
        scream.simulate('name = "x"\nduration_s = "long"\n')
    with pytest.raises(scream.ScenarioError, match="did you mean"):
        scream.simulate("default", set={"link.capasity_mbps": 5})
    with pytest.raises(scream.ScenarioError, match="seed: must be an integer"):
        scream.simulate("default", seed=-1)
    with pytest.raises(scream.ScenarioError, match=r"exist\.toml: No such file"):
        scream.simulate("does/not/exist.toml")


def test_values_of_a_wrong_type_name_their_key() -> None:
    with pytest.raises(TypeError, match=r"set\[\"duration_s\"\]: an object has no TOML form"):
        scream.simulate("default", set={"duration_s": object()})
    with pytest.raises(TypeError, match=r"link\.capacity_mbps: None has no TOML form"):
        scream.simulate({"link": {"capacity_mbps": None}})
    with pytest.raises(TypeError, match="scenario: a built-in name"):
        scream.simulate(42)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="set: a dict"):
        scream.simulate("default", set=3.5)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="keys must be str"):
        scream.simulate({1: 2})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="does not fit a TOML integer"):
        scream.simulate("default", set={"duration_s": 2**70})


def test_hostile_scenarios_raise_errors_and_never_panic() -> None:
    """Whatever a caller passes comes back as an exception of the package or a
    TypeError; a Rust panic would surface as PanicException, a BaseException."""
    junk: list[Any] = [
        {},
        {"flows": [{}]},
        {"flows": "x"},
        {"duration_s": 1e300},
        {"duration_s": float("nan")},
        {"link": {"capacity_mbps": float("inf"), "queue": {"kind": "nope"}}},
        'name = "x"\n[[flows]]\nalgorithm = 3\n',
        "[[[",
        "x" * 5000,
        {"flows": [{"streams": [{}] * 1000}]},
    ]
    for scenario in junk:
        with contextlib.suppress(scream.ScreamError, TypeError, ValueError):
            scream.simulate(scenario, set={"duration_s": 1} if isinstance(scenario, str) else None)


def test_write_refuses_another_runs_folder_unless_forced(tmp_path: Path) -> None:
    first = scream.simulate("default", set={"duration_s": 2})
    second = scream.simulate("default", set={"duration_s": 3})
    first.write(tmp_path, plots=False)
    first.write(tmp_path, plots=False)  # the same run refreshes its own folder
    with pytest.raises(scream.OutputError, match=r"holds another run .*force=True"):
        second.write(tmp_path, plots=False)
    with pytest.raises(OSError):
        second.write(tmp_path, plots=False)
    second.write(tmp_path, force=True, plots=False)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["duration_s"] == 3


def test_write_draws_the_commands_plots(default_run: scream.Run, tmp_path: Path) -> None:
    names = {Path(p).name for p in default_run.write(tmp_path)}
    assert {"overview.png", "overview.svg", "delay_cdf.png"} <= names
    assert (tmp_path / "overview.png").stat().st_size > 10_000


def test_simulation_releases_the_gil() -> None:
    """While one thread simulates, another runs Python at the pace it has alone. Were
    the GIL held through the run, the counter would get only the switch intervals of
    the call's Python parts: a few ms of a run of hundreds."""
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
        beside_a_run = pace(lambda: scream.simulate("default", set={"duration_s": 60}))
    finally:
        done.set()
        counter.join()
    assert beside_a_run > 0.25 * alone, (beside_a_run, alone)


def test_two_threads_simulate_at_once_and_agree() -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda s: scream.simulate("default", set=SHORT, seed=s), [5, 5]))
    assert without_wall_time(runs[0].summary) == without_wall_time(runs[1].summary)


def test_the_catalogue_matches_the_scenario_files() -> None:
    names = scream.scenarios()
    assert "default" in names and "rmcat-5.1" in names
    assert all(isinstance(d, str) and d for d in names.values())
    assert scream.scenario("default")["name"] == "default"
    with pytest.raises(scream.ScenarioError, match="unknown built-in scenario"):
        scream.scenario("nope")
    v2 = scream.params()
    assert v2["mss_bytes"]["shared"] is True
    assert all({"unit", "default", "min", "max", "source"} <= set(p) for p in v2.values())
    v1 = scream.params("scream-v1")
    assert set(v1) != set(v2)
    assert scream.GENERATIONS[0] == "scream-v2"
    with pytest.raises(scream.ConfigError, match="unknown generation"):
        scream.params("scream-v9")


def test_help_says_what_the_command_docs_say() -> None:
    doc = scream.simulate.__doc__ or ""
    for phrase in ("built-in name", "--set", "seed", "ScenarioError", "GIL"):
        assert phrase in doc
    assert REPO.joinpath("docs", "scenarios.md").is_file()
