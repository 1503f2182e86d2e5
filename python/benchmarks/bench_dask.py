"""What running a sweep on Dask costs, and how it scales on this machine's cores.

    python python/benchmarks/bench_dask.py [--tiny N] [--axes K] [--skip-scaling]

- Overhead per run: N tiny runs (``paper-step-v2`` for 0.1 s, about a millisecond each)
  through ``scream.sweep`` on a local cluster of one single-threaded worker process
  (tasks, results and rows over TCP on loopback), against the same runs in this
  process, one after another, through the same folder handle without Dask. The
  difference over N is what Dask adds to each run. Target: under 20 ms.
- Scaling: the first K axes of the built-in ``paper-standalone`` study (K x 10 values
  x 2 bases of 100 s runs over the Lumos5G walking trace; ``scream data fetch
  lumos5g``) on a local cluster of 2 workers against 1. Target: at least 1.8x on 2
  cores.

Each cluster is started and warmed up before its clock starts. The machine's load
average is printed, and the CPU time the workers spent during the sweep over its wall
time: the cores they actually got. On a shared machine two workers are only faster
than one by the second core they find free.

Build the module in release mode first: ``maturin develop --release`` in python/.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import distributed

import scream
from scream import _scream

REPO = Path(__file__).resolve().parents[2]

TINY_SPEC = """
name = "tiny"
seeds = {n}
[design]
kind = "list"
[[base]]
scenario = "paper-step-v2"
set = ["duration_s=0.1"]
[[point]]
set = ["link.capacity_mbps=10"]
"""


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def local_s(spec: Path, out: Path) -> float:
    """The sweep in this process, one run after another, without Dask."""
    started = time.perf_counter()
    handle = _scream.open_sweep(str(spec), str(out), fresh=True)
    try:
        for run_id in handle.pending():
            handle.append(_scream.run_job(handle.job(run_id)))
    finally:
        handle.close()
    return time.perf_counter() - started


def cluster_s(spec: Path, out: Path, workers: int) -> tuple[float, Any, float]:
    """The sweep on a fresh local cluster of ``workers`` single-threaded processes:
    wall time, tally, and the CPU time the workers spent (how many cores they got)."""
    cluster = distributed.LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    with cluster, distributed.Client(cluster) as client:
        # Warm: every worker imports scream and runs one job before the clock starts.
        warm = _scream.open_sweep(str(spec), str(out / "warm"), fresh=True)
        job = warm.job(warm.pending()[0])
        warm.close()
        client.run(lambda: _scream.run_job(job))
        cpu_before = client.run(time.process_time)
        started = time.perf_counter()
        tally = scream.sweep(spec, out, client=client, fresh=True)
        wall = time.perf_counter() - started
        cpu_after = client.run(time.process_time)
        cpu = sum(cpu_after[w] - cpu_before[w] for w in cpu_after)
        return wall, tally, cpu


def overhead(folder: Path, n: int) -> None:
    spec = folder / "tiny.toml"
    spec.write_text(TINY_SPEC.format(n=n))
    local = local_s(spec, folder / "local")
    dask, tally, _ = cluster_s(spec, folder / "dask", 1)
    assert tally.ran == n, tally
    print(f"overhead: {n} runs of paper-step-v2 for 0.1 s ({load()})")
    print(f"  in this process        {local:7.2f} s  {local / n * 1e3:7.2f} ms per run")
    print(f"  Dask, 1 worker         {dask:7.2f} s  {dask / n * 1e3:7.2f} ms per run")
    print(f"  Dask adds              {(dask - local) / n * 1e3:7.2f} ms per run")


def standalone_part(folder: Path, axes: int) -> Path:
    """The paper-standalone study (studies/ in the repository) cut to its first
    ``axes`` axes."""
    text = (REPO / "studies" / "paper-standalone.toml").read_text()
    head, *blocks = text.split("[[axis]]")
    spec = folder / "standalone-part.toml"
    spec.write_text(head + "".join("[[axis]]" + b for b in blocks[:axes]))
    return spec


def scaling(folder: Path, axes: int) -> None:
    spec = standalone_part(folder, axes)
    print(f"scaling: paper-standalone, first {axes} axes ({load()})")
    times = {}
    for workers in (1, 2):
        wall, tally, cpu = cluster_s(spec, folder / f"w{workers}", workers)
        times[workers] = wall
        print(
            f"  {workers} worker{'s' if workers > 1 else ' '}  {tally.ran} runs  {wall:7.1f} s  "
            f"{tally.run_time_s / tally.ran:6.3f} s per run  workers' CPU {cpu:6.1f} s = "
            f"{cpu / wall:4.2f} cores  ({load()})"
        )
    # On a shared machine the cores the workers got, not the workers, set the speed.
    print(f"  speed-up 2 workers / 1: {times[1] / times[2]:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tiny", type=int, default=1000, help="runs of the overhead test")
    parser.add_argument("--axes", type=int, default=2, help="study axes of the scaling test")
    parser.add_argument("--skip-scaling", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        overhead(Path(tmp), args.tiny)
        if not args.skip_scaling:
            scaling(Path(tmp), args.axes)


if __name__ == "__main__":
    main()
