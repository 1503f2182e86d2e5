# Type stubs of the native module scream._scream (crates/scream-py). The public API is
# re-exported, with its documentation, by scream/__init__.py; the checks in
# python/tests compare these stubs with the module (mypy.stubtest).

import os
from pathlib import Path
from typing import Any, final

__all__ = [
    "GENERATIONS",
    "NativeRun",
    "__commit__",
    "__version__",
    "params",
    "scenario_text",
    "scenarios",
    "simulate",
    "toml_to_dict",
]

__version__: str
__commit__: str
GENERATIONS: list[str]

_Column = tuple[str, str, bytes | list[str | None]]

@final
class NativeRun:
    @property
    def name(self) -> str: ...
    @property
    def warnings(self) -> list[str]: ...
    def summary_json(self) -> str: ...
    def timeseries_columns(self) -> list[_Column]: ...
    def links_columns(self) -> list[_Column]: ...
    def scenario_toml(self) -> str: ...
    def manifest_json(self) -> str: ...
    def write(
        self, folder: str | os.PathLike[str], force: bool = False, plots: bool = True
    ) -> list[Path]: ...

def simulate(
    scenario: Any, set: Any = None, seed: Any = None, call: str | None = None
) -> NativeRun: ...
def scenarios() -> dict[str, str]: ...
def scenario_text(name: str) -> str: ...
def params(generation: str = "scream-v2") -> dict[str, dict[str, Any]]: ...
def toml_to_dict(text: str) -> Any: ...

# --- Sender, Receiver and the RFC 8888 codec (crates/scream-py/src/sans_io*.rs) ---
