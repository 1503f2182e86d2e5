"""The guide (docs/python.md), docs/tuning.md, the README's Python example and the
notebooks (docs/notebooks) run as they stand.

Every ```python block of the guide and of the README runs, each on its own in an
empty folder, unless an HTML comment on the line before it says
`<!-- not run: WHY -->`; the block after `<!-- ten-lines -->` is the guide's opening
example and must stay within ten lines.
Running every block by default, rather than the ones someone remembered to mark, is
what keeps a new example from going stale unnoticed.
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

import scream

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "docs" / "python.md"
# Other pages whose ```python blocks run (or say why not) as the guide's do.
PAGES = [REPO / "docs" / "tuning.md"]
README = REPO / "README.md"
NOTEBOOKS = sorted((REPO / "docs" / "notebooks").glob("*.ipynb"))
TEN_LINES = "<!-- ten-lines -->"
NOT_RUN = re.compile(r"<!-- not run: \S.* -->")

matplotlib = pytest.importorskip("matplotlib", reason="the guide's figures need matplotlib")
# No display: figures are drawn into files.
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


@dataclass
class Block:
    """A fenced ```python block of a Markdown file."""

    path: Path
    line: int  # of the opening fence, 1-based
    code: str
    marker: str  # the HTML comment on the line before the fence, or ""


def python_blocks(path: Path) -> list[Block]:
    blocks: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            before = lines[i - 1].strip() if i > 0 else ""
            end = i + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            assert end < len(lines), f"{path.name}:{i + 1}: unclosed ```python block"
            marker = before if before.startswith("<!--") else ""
            blocks.append(Block(path, i + 1, "\n".join(lines[i + 1 : end]) + "\n", marker))
            i = end
        i += 1
    return blocks


BLOCKS = python_blocks(GUIDE)
README_BLOCKS = python_blocks(README)
PAGE_BLOCKS = [b for page in PAGES for b in python_blocks(page)]
RUNNABLE = [b for b in BLOCKS + README_BLOCKS + PAGE_BLOCKS if b.marker == ""]


def run_block(block: Block, folder: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Runs `block` as a script would, in `folder`; returns what it printed."""
    monkeypatch.chdir(folder)
    printed = io.StringIO()
    code = compile(block.code, f"{block.path}:{block.line}", "exec")
    try:
        with contextlib.redirect_stdout(printed):
            exec(code, {"__name__": "__main__"})
    finally:
        plt.close("all")
    return printed.getvalue()


def test_every_block_of_the_guide_is_run_or_says_why_not() -> None:
    markers = [b.marker for b in BLOCKS if b.marker]
    for marker in markers:
        assert marker == TEN_LINES or NOT_RUN.fullmatch(marker), marker
    for block in PAGE_BLOCKS:
        assert block.marker == "" or NOT_RUN.fullmatch(block.marker), block.marker
    assert markers.count(TEN_LINES) == 1
    # The guide shows every part of the API with code: a page with few blocks left
    # would mean the examples were dropped, not that they passed.
    assert len([b for b in BLOCKS if b.marker == ""]) >= 8
    assert README_BLOCKS and all(b.marker == "" for b in README_BLOCKS)


def test_the_ten_line_example_fits_and_plots_both_generations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (block,) = [b for b in BLOCKS if b.marker == TEN_LINES]
    assert len(block.code.splitlines()) <= 10, block.code
    drawn: list[tuple[list[str], str, str]] = []
    real_savefig = plt.savefig

    def savefig(*args: object, **kwargs: object) -> None:
        ax = plt.gca()
        labels = [str(line.get_label()) for line in ax.get_lines()]
        drawn.append((labels, ax.get_xlabel(), ax.get_ylabel()))
        real_savefig(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(plt, "savefig", savefig)
    printed = run_block(block, tmp_path, monkeypatch)
    # Three numbers of the default run's summary: throughput, queue and frame delay.
    numbers = [float(word) for word in printed.split()]
    assert len(numbers) == 3 and all(n > 0 for n in numbers), printed
    ((labels, xlabel, ylabel),) = drawn
    assert labels == scream.GENERATIONS[:2] == ["scream-v2", "scream-v1"]
    assert xlabel.endswith("(s)") and ylabel.endswith("(Mbit/s)")
    (png,) = tmp_path.glob("*.png")
    assert png.stat().st_size > 10_000


@pytest.mark.parametrize("block", RUNNABLE, ids=lambda b: f"{b.path.name}:{b.line}")
def test_a_block_of_the_guide_runs(
    block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_block(block, tmp_path, monkeypatch)


def test_the_guides_links_lead_to_files() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    assert targets
    for target in targets:
        if "://" not in target:
            assert (GUIDE.parent / target).exists(), target


def test_there_are_notebooks() -> None:
    assert "quickstart.ipynb" in [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_notebook_is_stored_without_outputs(path: Path) -> None:
    """Outputs (figures as base64, timings) would turn every rerun into a diff."""
    nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert notebook.metadata.kernelspec.name == "python3"
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_notebook_runs_and_draws(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every cell runs in a fresh kernel (an error fails the test with its traceback),
    and the notebook shows at least one figure."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel", reason="the notebooks run on the python3 kernel")
    # The kernel inherits the environment; a backend chosen there (Agg, say) would
    # draw nothing into the notebook.
    monkeypatch.delenv("MPLBACKEND", raising=False)
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=300,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    figures = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if "image/png" in output.get("data", {})
    ]
    assert figures, "the notebook drew no figure"
