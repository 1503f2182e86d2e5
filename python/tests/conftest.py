"""Shared fixtures: the repository, the `scream` command to compare against."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _scream_command() -> list[str] | None:
    """The `scream` command: $SCREAM_BIN, the release build, or one on PATH."""
    given = os.environ.get("SCREAM_BIN")
    if given:
        return [given]
    for profile in ("release", "debug"):
        built = REPO / "target" / profile / "scream"
        if built.is_file():
            return [str(built)]
    found = shutil.which("scream")
    return [found] if found else None


@pytest.fixture(scope="session")
def scream_cli() -> list[str]:
    """Runs the `scream` command; skipped, visibly, where none is built."""
    command = _scream_command()
    if command is None:
        pytest.skip("no scream command: build it with cargo build --release -p scream-cli")
    return command


def run_cli(command: list[str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*command, *args], cwd=cwd, capture_output=True, text=True, timeout=600, check=False
    )
