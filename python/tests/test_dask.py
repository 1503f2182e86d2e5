"""scream.sweep on a real Dask cluster on loopback: a scheduler and worker processes
started here, a worker killed mid-sweep, every run once, the rows of a local run.

Skipped, with the reason, where dask[distributed] is not installed.
"""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

distributed = pytest.importorskip(
    "distributed",
    reason="dask[distributed] is not installed: pip install 'scream-toolkit[dask]'",
)

import scream  # noqa: E402
from scream import _scream  # noqa: E402
from scream.sweep import main as sweep_main  # noqa: E402

# A process that has not started or ended in this time has failed.
START_TIMEOUT_S = 60.0
SWEEP_TIMEOUT_S = 600.0

# 4 capacities (one impossible: error rows travel too) x 3 targets x 3 seeds: 36 runs
# of 2 s on a fast link, so that each takes long enough (tens of ms) for a worker to
# be caught with a run in hand.
SPEC = """
name = "loopback"
seeds = 3
[design]
kind = "factorial"
[[base]]
name = "fast"
scenario = "paper-step-v2"
set = ["duration_s=2", "flows.0.max_bitrate_mbps=200"]
[[axis]]
key = "link.capacity_mbps"
values = [-1, 100, 150, 200]
[[axis]]
key = "flows.0.params.qdelay_target"
values = [0.02, 0.06, 0.1]
"""
RUNS = 36
TIMING = {"wall_time_s"}


class Cluster:
    """A scheduler and workers, each a process of its own, on 127.0.0.1."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.scheduler_file = folder / "scheduler.json"
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.log = folder / "cluster.log"

    def _spawn(self, name: str, *args: str) -> None:
        with self.log.open("ab") as log:
            self.processes[name] = subprocess.Popen(
                [sys.executable, "-m", "dask", *args],
                cwd=self.folder,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def start_scheduler(self) -> str:
        self._spawn(
            "scheduler",
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(self.scheduler_file),
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.scheduler_file.is_file():
                try:
                    address: str = json.loads(self.scheduler_file.read_text())["address"]
                    return address
                except (ValueError, KeyError):
                    pass  # written but not whole yet
            if self.processes["scheduler"].poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"the scheduler did not start:\n{self.log.read_text()}")

    def start_worker(self, name: str) -> None:
        # No nanny: the worker is the process, so killing it loses the worker at once
        # (a nanny would start another in its place).
        (self.folder / name).mkdir(exist_ok=True)
        self._spawn(
            name,
            "worker",
            "--scheduler-file",
            str(self.scheduler_file),
            "--nthreads",
            "1",
            "--no-nanny",
            "--no-dashboard",
            "--name",
            name,
            "--local-directory",
            str(self.folder / name),
            "--death-timeout",
            str(START_TIMEOUT_S),
        )

    def kill(self, name: str) -> None:
        process = self.processes[name]
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=START_TIMEOUT_S)

    def stop(self) -> None:
        # Killed, not asked to stop: they hold nothing worth saving, and a worker asked
        # to stop takes seconds to say goodbye to its scheduler.
        for process in self.processes.values():
            if process.poll() is None:
                process.kill()
        for process in self.processes.values():
            process.wait(timeout=START_TIMEOUT_S)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cluster, str]]:
    """One cluster for the module: a test that kills a worker starts another."""
    c = Cluster(tmp_path_factory.mktemp("cluster"))
    try:
        address = c.start_scheduler()
        c.start_worker("w1")
        c.start_worker("w2")
        with distributed.Client(address, set_as_default=False) as observer:
            observer.wait_for_workers(2, timeout=START_TIMEOUT_S)
        yield c, address
    finally:
        c.stop()


def rows_by_run(results: Path) -> dict[str, dict[str, str]]:
    """results.csv by run id, without the timing columns; fails on a run twice."""
    import csv

    out: dict[str, dict[str, str]] = {}
    with results.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            run_id = row["run_id"]
            assert run_id not in out, f"{run_id} has two rows"
            out[run_id] = {k: v for k, v in row.items() if k not in TIMING}
    return out


def local_rows(spec: Path, out: Path) -> dict[str, dict[str, str]]:
    """The same sweep run here, one run after another, without Dask."""
    handle = _scream.open_sweep(str(spec), str(out))
    try:
        for run_id in handle.pending():
            assert handle.append(_scream.run_job(handle.job(run_id)))
    finally:
        handle.close()
    return rows_by_run(out / "results.csv")


def wait_for(condition: Any, what: str, timeout_s: float = SWEEP_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def line_count(path: Path) -> int:
    return len(path.read_bytes().splitlines()) if path.is_file() else 0


def test_a_worker_killed_mid_sweep_loses_no_run_and_doubles_none(
    cluster: tuple[Cluster, str], tmp_path: Path
) -> None:
    c, address = cluster
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    out = tmp_path / "dask"
    results = out / "results.csv"
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["tally"] = scream.sweep(spec, out, scheduler=address)
        except BaseException as e:
            outcome["error"] = e

    sweeper = threading.Thread(target=run, daemon=True)
    sweeper.start()
    killed_keys: list[str] = []
    with distributed.Client(address, set_as_default=False) as observer:
        # Once rows come in (the cluster is working), kill a worker caught with a run
        # of the sweep in hand: early, so that most runs are still to come.
        wait_for(lambda: line_count(results) >= 2 or not sweeper.is_alive(), "rows")
        deadline = time.monotonic() + START_TIMEOUT_S
        while sweeper.is_alive() and not killed_keys and time.monotonic() < deadline:
            names = {a: w["name"] for a, w in observer.scheduler_info()["workers"].items()}
            for worker, keys in observer.processing().items():
                ours = [str(k) for k in keys if str(k).startswith("scream-")]
                if ours and names.get(worker) in ("w1", "w2"):
                    c.kill(str(names[worker]))
                    killed_keys = ours
                    break
        assert killed_keys, "the sweep ended before a worker could be killed with a run"
        rows_at_kill = line_count(results) - 1
        c.start_worker("w3")
        sweeper.join(SWEEP_TIMEOUT_S)
    assert not sweeper.is_alive(), "the sweep did not end"
    assert "error" not in outcome, outcome.get("error")
    tally = outcome["tally"]
    assert rows_at_kill < RUNS, "the kill came after the last row"
    assert (tally.runs, tally.ran, tally.already_done, tally.not_run) == (RUNS, RUNS, 0, {})
    assert tally.errors == RUNS // 4
    dask_rows = rows_by_run(results)
    assert len(dask_rows) == RUNS
    # The runs the killed worker held were run elsewhere, once.
    for key in killed_keys:
        assert key.split("-", 2)[2] in dask_rows, key
    assert dask_rows == local_rows(spec, tmp_path / "local")
    # Nothing left: a second call runs nothing and needs no cluster.
    again = scream.sweep(spec, out, scheduler="tcp://127.0.0.1:9")
    assert (again.ran, again.already_done) == (0, RUNS)


def test_a_killed_client_resumes_with_the_runs_it_lacks(
    cluster: tuple[Cluster, str], tmp_path: Path
) -> None:
    _, address = cluster
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    out = tmp_path / "dask"
    results = out / "results.csv"
    command = [sys.executable, "-m", "scream.sweep", str(spec), "--scheduler", address]
    client = subprocess.Popen(
        [*command, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for(lambda: line_count(results) >= 6 or client.poll() is not None, "rows")
        client.send_signal(signal.SIGKILL)
    finally:
        client.kill()
        client.wait(timeout=START_TIMEOUT_S)
    done_before = len(rows_by_run(results))
    assert 0 < done_before < RUNS, "killed before the first or after the last row"
    tally = scream.sweep(spec, out, scheduler=address)
    assert tally.already_done == done_before
    assert tally.ran == RUNS - done_before
    assert len(rows_by_run(results)) == RUNS


def test_the_default_is_a_local_cluster_and_the_rows_go_to_parquet_too(tmp_path: Path) -> None:
    spec = tmp_path / "small.toml"
    spec.write_text(SPEC.replace("seeds = 3", "seeds = 1").replace("-1, 100, 150, ", ""))
    seen: list[tuple[int, int, int]] = []
    tally = scream.sweep(spec, tmp_path / "out", progress=lambda *p: seen.append(p))
    assert (tally.runs, tally.ran, tally.errors) == (3, 3, 0)
    assert [s[0] for s in seen] == [1, 2, 3] and all(s[1] == 3 for s in seen)
    pyarrow = pytest.importorskip("pyarrow", reason="pyarrow is not installed")
    assert tally.parquet == tmp_path / "out" / "results.parquet"
    table = pyarrow.parquet.read_table(tally.parquet)
    assert table.num_rows == 3
    assert str(table.schema.field("seed").type) == "uint64"
    assert str(table.schema.field("throughput_mbps").type) == "double"
    assert table.column("error").to_pylist() == ["", "", ""]
    csv_ids = sorted(rows_by_run(tally.results))
    assert sorted(table.column("run_id").to_pylist()) == csv_ids


def test_the_command_line_entry_runs_and_says_what_it_did(
    cluster: tuple[Cluster, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, address = cluster
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.replace("seeds = 3", "seeds = 1"))
    out = tmp_path / "out"
    assert sweep_main([str(spec), "--scheduler", address, "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert f"12 runs; 12 run now, 0 already in {out / 'results.csv'}, 3 errors" in printed.out
    assert "error fast/p0/s1: " in printed.out
    assert "sweeping: 12/12 runs, 3 errors" in printed.err
    assert sweep_main([str(spec), "--out", str(out), "--scheduler", address]) == 0
    assert "0 run now, 12 already" in capsys.readouterr().out
    assert sweep_main([str(tmp_path / "nowhere.toml"), "--scheduler", address]) == 1
    assert capsys.readouterr().err.startswith("error: ")


def test_a_worker_of_another_build_is_refused(tmp_path: Path) -> None:
    from scream._sweep import build, run_task

    job = _scream.open_sweep(str(_write(tmp_path)), str(tmp_path / "out"))
    try:
        text = job.job(job.pending()[0])
    finally:
        job.close()
    assert run_task(text, build())[0] == "fast/p0/s1"
    with pytest.raises(RuntimeError, match="install the same build on every worker"):
        run_task(text, "0.0.0 (another)")


def _write(tmp_path: Path) -> Path:
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    return spec


def test_the_command_scream_sweep_prints_for_a_scheduler_runs_the_sweep(
    cluster: tuple[Cluster, str], tmp_path: Path, scream_cli: list[str]
) -> None:
    _, address = cluster
    (tmp_path / "spec.toml").write_text(SPEC.replace("seeds = 3", "seeds = 1"))
    told = run_cli(scream_cli, "sweep", "spec.toml", "--scheduler", address, cwd=tmp_path)
    assert told.returncode == 1
    command = shlex.split(told.stderr.split("with this command: ", 1)[1])
    assert command[:3] == ["python", "-m", "scream.sweep"]
    done = subprocess.run(
        [sys.executable, *command[1:]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=SWEEP_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert len(rows_by_run(tmp_path / "out" / "sweep-loopback" / "results.csv")) == 12


def test_a_damaged_line_is_set_aside_with_a_warning_and_run_again(
    cluster: tuple[Cluster, str], tmp_path: Path
) -> None:
    _, address = cluster
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.replace("seeds = 3", "seeds = 1"))
    out = tmp_path / "out"
    clean = local_rows(spec, out)
    results = out / "results.csv"
    lines = results.read_text().splitlines(keepends=True)
    lines[3] = lines[3].replace(",ok,", ",done,").replace(",error,", ",done,")
    results.write_text("".join(lines))
    with pytest.warns(UserWarning, match="1 damaged lines moved to .*results.rejected.csv"):
        tally = scream.sweep(spec, out, scheduler=address)
    assert (tally.already_done, tally.ran) == (11, 1)
    assert tally.set_aside is not None and tally.set_aside[1][0][0] == 4
    assert rows_by_run(results) == clean
