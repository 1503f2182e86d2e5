"""The sweep handle and jobs of the native module, and what needs no Dask: importing
scream leaves dask alone, and without it scream.sweep says how to get it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import scream
from scream import _scream

SPEC = """
name = "tiny"
seeds = 2
[design]
kind = "one-at-a-time"
[[base]]
name = "b"
scenario = "paper-step-v2"
set = ["duration_s=0.5"]
[[axis]]
key = "link.capacity_mbps"
values = [5, -1]
"""


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(SPEC)
    return path


def python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )


def test_importing_scream_does_not_import_dask() -> None:
    done = python(
        "import sys, scream; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_without_dask_a_sweep_says_how_to_install_it(spec: Path, tmp_path: Path) -> None:
    # None in sys.modules makes an import fail as if the package were missing.
    done = python(
        "import sys; sys.modules['distributed'] = None; import scream\n"
        "try:\n"
        f"    scream.sweep({str(spec)!r}, {str(tmp_path / 'out')!r})\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    assert done.returncode == 0, done.stderr
    assert "pip install 'scream-toolkit[dask]'" in done.stdout
    # The folder was opened and closed again: a later sweep takes it.
    handle = _scream.open_sweep(str(spec), str(tmp_path / "out"))
    assert handle.pending() == ["b/p0/s1", "b/p0/s2", "b/p1/s1", "b/p1/s2"]
    handle.close()


def test_the_handle_runs_jobs_from_json_and_writes_a_run_once(spec: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    handle = _scream.open_sweep(spec, out)
    assert (handle.name, handle.runs, handle.already_done) == ("tiny", 4, 0)
    assert handle.out_dir == out and handle.results == out / "results.csv"
    job = json.loads(handle.job("b/p1/s2"))
    assert (job["run_id"], job["seed"], job["overrides"][-1]) == (
        "b/p1/s2",
        2,
        "link.capacity_mbps=-1",
    )
    row = _scream.run_job(handle.job("b/p1/s2"))
    assert dict(zip(handle.columns, row))["status"] == "error"
    assert handle.append(row) is True
    assert handle.append(row) is False
    assert "b/p1/s2" not in handle.pending()
    with pytest.raises(KeyError, match="no run b/p9/s1"):
        handle.job("b/p9/s1")
    with pytest.raises(scream.SweepError, match="cells where the header has") as refused:
        handle.append(row[:-1])
    assert isinstance(refused.value, ValueError)
    with pytest.raises(scream.OutputError, match="in use by another sweep"):
        _scream.open_sweep(spec, out)
    tally = handle.close()
    assert (tally["ran"], tally["errors"], tally["runs"]) == (1, 1, 4)
    assert tally["first_errors"][0][0] == "b/p1/s2"
    assert handle.closed
    with pytest.raises(scream.OutputError, match="closed"):
        handle.pending()
    with pytest.raises(scream.ScenarioError, match="not a run job of a sweep"):
        _scream.run_job("{}")


def test_a_bad_spec_or_a_study_name(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[design]\nkind = "factorial"\n')
    with pytest.raises(scream.ScenarioError, match="built-in studies: tuning"):
        _scream.open_sweep(bad, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_scream_sweep_stays_the_function_after_import_scream_sweep() -> None:
    done = python(
        "import scream, scream.sweep, scream._sweep\n"
        "print(callable(scream.sweep), scream.sweep.main.__name__)\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "main"]


def test_the_command_line_entry_has_help() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "scream.sweep", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "--scheduler ADDR" in done.stdout and "--out DIR" in done.stdout
