"""What simulating from Python costs, against the `scream` command, and how two threads
scale.

    python python/benchmarks/bench_simulate.py [--scenario NAME] [--repeat N] [--cli PATH]

- CPU time of ``simulate()`` with both frames built, against the CPU time of ``scream
  sim NAME --no-plots`` for the same run (the command writes the CSV files the frames
  stand for; neither draws plots). Each side is the median of ``--repeat`` runs, taken
  alternately so that a change in the machine's load hits both.
- Wall time of two runs on two threads against the same two runs one after the other.

Build both sides in release mode first: ``cargo build --release -p scream-cli`` and
``pip install ./python`` (maturin builds the module in release mode).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import scream

REPO = Path(__file__).resolve().parents[2]


def python_cpu_s(scenario: str, seed: int) -> float:
    started = time.process_time()
    run = scream.simulate(scenario, seed=seed)
    _ = (run.timeseries, run.links, run.summary)
    return time.process_time() - started


def cli_cpu_s(cli: str, scenario: str, seed: int, out: Path) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [cli, "sim", scenario, "--seed", str(seed), "--no-plots", "--force", "--out", str(out)],
        check=True,
        capture_output=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="default")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--cli", default=str(REPO / "target" / "release" / "scream"))
    args = parser.parse_args()

    python_runs, cli_runs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        python_cpu_s(args.scenario, 1)  # warm the page cache and the allocator
        for i in range(args.repeat):
            python_runs.append(python_cpu_s(args.scenario, 1 + i))
            cli_runs.append(cli_cpu_s(args.cli, args.scenario, 1 + i, Path(tmp)))
    py, cli = statistics.median(python_runs), statistics.median(cli_runs)
    print(f"scenario {args.scenario}, median of {args.repeat} runs, CPU time:")
    print(f"  scream.simulate + frames   {py * 1e3:8.1f} ms")
    print(f"  scream sim --no-plots      {cli * 1e3:8.1f} ms")
    print(f"  ratio python / command     {py / cli:8.3f}")

    def one(seed: int) -> None:
        scream.simulate(args.scenario, seed=seed)

    serial, parallel = [], []
    for i in range(max(3, args.repeat // 2)):
        started = time.perf_counter()
        one(10 + i)
        one(20 + i)
        serial.append(time.perf_counter() - started)
        started = time.perf_counter()
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(one, [10 + i, 20 + i]))
        parallel.append(time.perf_counter() - started)
    s, p = statistics.median(serial), statistics.median(parallel)
    print(f"two runs, wall time ({os.cpu_count()} CPUs):")
    print(f"  one after the other        {s * 1e3:8.1f} ms")
    print(f"  on two threads             {p * 1e3:8.1f} ms")
    print(f"  speed-up                   {s / p:8.2f}x")


if __name__ == "__main__":
    main()
