"""compare(): the files and errors of `scream compare`, for folders and Runs alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli

import scream

TABLES = ["compare.csv", "compare.md"]


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two short runs written as folders: `default` and its ECN variant."""
    root = tmp_path_factory.mktemp("runs")
    runs = {
        "plain": scream.simulate("default", set={"duration_s": 4}),
        "l4s": scream.simulate("default", set={"duration_s": 4, "flows.0.ecn": "l4s"}, seed=3),
    }
    for name, run in runs.items():
        run.write(root / name, plots=False)
    return {name: root / name for name in runs}


def test_the_files_equal_the_commands_byte_for_byte(
    tmp_path: Path, scream_cli: list[str], folders: dict[str, Path]
) -> None:
    dirs = [str(folders["plain"]), str(folders["l4s"])]
    cli = run_cli(scream_cli, "compare", *dirs, "--out", str(tmp_path / "cli"), cwd=tmp_path)
    assert cli.returncode == 0, cli.stderr
    result = scream.compare(*dirs, out=tmp_path / "py")
    assert [p.name for p in result.files] == [
        "manifest.json",
        "compare.csv",
        "compare.md",
        "timeseries.png",
        "timeseries.svg",
        "throughput_delay.png",
        "throughput_delay.svg",
    ]
    for name in [*TABLES, "timeseries.svg", "throughput_delay.svg"]:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    assert result.out == tmp_path / "py" and result.runs == [Path(d) for d in dirs]
    # The table is compare.csv; its numbers are the summaries' own.
    assert list(result.table.run) == ["plain", "l4s"]
    summary = json.loads((folders["l4s"] / "summary.json").read_text())
    assert result.table.throughput_mbps.iloc[1] == summary["flows"][0]["throughput_mbps"]
    assert result.table.queue_delay_p95_ms.iloc[1] == summary["flows"][0]["queue_delay_ms"]["p95"]
    manifests = [json.loads((tmp_path / d / "manifest.json").read_text()) for d in ("py", "cli")]
    assert manifests[0]["compare"] == manifests[1]["compare"]
    assert manifests[0]["labels"] == manifests[1]["labels"]


def test_labels_are_the_commands(
    tmp_path: Path, scream_cli: list[str], folders: dict[str, Path]
) -> None:
    dirs = [str(folders["plain"]), str(folders["l4s"])]
    cli = run_cli(
        scream_cli,
        "compare",
        *dirs,
        "--labels",
        "a,b",
        "--out",
        str(tmp_path / "cli"),
        cwd=tmp_path,
    )
    assert cli.returncode == 0, cli.stderr
    result = scream.compare(*dirs, out=tmp_path / "py", labels=["a", "b"])
    for name in TABLES:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    assert list(result.table.run) == ["a", "b"]
    for labels, says in [(["a"], "1 given for 2 run folders"), (["a", "a"], "must differ")]:
        with pytest.raises(ValueError, match=says):
            scream.compare(*dirs, out=tmp_path / "bad", labels=labels)
    assert not (tmp_path / "bad").exists()


def test_runs_in_memory_are_written_under_out_runs(
    tmp_path: Path, folders: dict[str, Path]
) -> None:
    a = scream.simulate("default", set={"duration_s": 4})
    b = scream.simulate("default", set={"duration_s": 4}, seed=2)
    result = scream.compare(a, b, folders["l4s"], out=tmp_path / "cmp")
    out = tmp_path / "cmp"
    assert result.runs == [out / "runs" / "default-s1", out / "runs" / "default-s2", folders["l4s"]]
    assert list(result.table.run) == ["default-s1", "default-s2", "l4s"]
    written = json.loads((out / "runs" / "default-s2" / "summary.json").read_text())
    assert written["flows"] == b.summary["flows"]
    # A folder of runs written that way compares as the command does.
    again = scream.compare(*result.runs, out=tmp_path / "folders")
    for name in TABLES:
        assert (out / name).read_bytes() == (tmp_path / "folders" / name).read_bytes()
    # The same call again refreshes its own folder.
    scream.compare(a, b, folders["l4s"], out=out)
    assert again.table.equals(result.table)


def test_a_run_already_written_is_read_from_its_folder(tmp_path: Path) -> None:
    run = scream.simulate("default", set={"duration_s": 4})
    run.write(tmp_path / "mine", plots=False)
    other = scream.simulate("default", set={"duration_s": 4}, seed=9)
    result = scream.compare(run, other, out=tmp_path / "cmp")
    assert result.runs[0] == (tmp_path / "mine").absolute()
    assert list(result.table.run) == ["mine", "default"]
    assert not (tmp_path / "cmp" / "runs" / "mine").exists()
    # Once the folder holds another run, the Run is written again under the output.
    other.write(tmp_path / "mine", force=True, plots=False)
    result = scream.compare(run, out=tmp_path / "cmp2")
    assert result.runs == [tmp_path / "cmp2" / "runs" / "default"]


def test_a_folder_that_is_not_a_run_raises_the_commands_message(
    tmp_path: Path, scream_cli: list[str], folders: dict[str, Path]
) -> None:
    half = tmp_path / "half"
    half.mkdir()
    (half / "summary.json").write_text("{}")
    for bad in [half, tmp_path / "missing"]:
        cli = run_cli(scream_cli, "compare", str(folders["plain"]), str(bad), cwd=tmp_path)
        assert cli.returncode != 0
        with pytest.raises(scream.OutputError) as raised:
            scream.compare(folders["plain"], bad, out=tmp_path / "out")
        assert isinstance(raised.value, OSError)
        assert f"error: {raised.value}" in cli.stderr, (str(raised.value), cli.stderr)
    assert not (tmp_path / "out").exists(), "nothing is written before every run is read"
    with pytest.raises(TypeError, match="a run folder"):
        scream.compare(3, out=tmp_path / "out")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="folder name"):
        scream.compare(scream.simulate(set={"duration_s": 1}), out=tmp_path / "o", labels=["a/b"])


def test_the_output_folder_follows_the_rule(tmp_path: Path, folders: dict[str, Path]) -> None:
    out = tmp_path / "cmp"
    scream.compare(folders["plain"], out=out)
    scream.compare(folders["plain"], out=out)  # the same comparison: refreshed
    with pytest.raises(scream.OutputError, match="force=True"):
        scream.compare(folders["plain"], folders["l4s"], out=out)
    result = scream.compare(folders["plain"], folders["l4s"], out=out, force=True)
    assert len(result.table) == 2
