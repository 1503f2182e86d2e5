"""What ``scream.tune`` searches and judges: the search space (a spec's axes, then the
caller's ``space``) and the objectives, both checked before any trial runs.

Optuna is never imported here: a dimension is plain data, and ``suggest`` calls the
trial object it is given.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Union

from . import _scream

#: What ``space`` maps a key to: a list of values, ``(lo, hi)``, ``(lo, hi, "log")``
#: or ``(lo, hi, step)``.
SpaceEntry = Union[Sequence[Any], tuple[float, float], tuple[float, float, Any]]

#: The Python types Optuna keeps as categorical choices.
_SCALARS = (bool, int, float, str)


@dataclasses.dataclass(frozen=True)
class Dimension:
    """One searched key."""

    key: str
    #: Categorical: the choices as Optuna sees them, each with its ``--set`` text.
    choices: tuple[Any, ...] = ()
    texts: tuple[str, ...] = ()
    #: A range: low, high, log scale, step (None: continuous), integer.
    low: float = 0.0
    high: float = 0.0
    log: bool = False
    step: float | None = None
    integer: bool = False

    @property
    def categorical(self) -> bool:
        return bool(self.choices)

    def suggest(self, trial: Any) -> tuple[Any, str]:
        """The trial's value of this key, and its ``--set`` text."""
        if self.categorical:
            value = trial.suggest_categorical(self.key, list(self.choices))
            return value, self.texts[self.choices.index(value)]
        if self.integer:
            step = 1 if self.step is None else int(self.step)
            value = trial.suggest_int(
                self.key, int(self.low), int(self.high), step=step, log=self.log
            )
            return value, str(value)
        value = trial.suggest_float(self.key, self.low, self.high, step=self.step, log=self.log)
        return value, _scream.toml_text(self.key, float(value))

    def text_of(self, value: Any) -> str:
        """The ``--set`` text of a value this dimension gave (a stored trial's)."""
        if self.categorical:
            return self.texts[self.choices.index(value)]
        if self.integer:
            return str(int(value))
        return _scream.toml_text(self.key, float(value))

    def probe_texts(self) -> list[str]:
        """Values to check that the key loads: the choices (at most 100), or the ends
        of the range."""
        if self.categorical:
            return list(self.texts[:100])
        if self.integer:
            return [str(int(self.low)), str(int(self.high))]
        return [_scream.toml_text(self.key, v) for v in (self.low, self.high)]

    def describe(self) -> Any:
        """For tune.json."""
        if self.categorical:
            return list(self.texts)
        out: dict[str, Any] = {"low": self.low, "high": self.high}
        if self.log:
            out["log"] = True
        if self.step is not None:
            out["step"] = self.step
        out["integer"] = self.integer
        return out


def _choice(text: str) -> Any:
    """A spec value's text as the choice Optuna is given: the number, string or bool
    it writes, or the text itself for a list or table (Optuna takes only scalars)."""
    value = _scream.toml_to_dict(f"v = {text}")["v"]
    return value if isinstance(value, _SCALARS) else text


def from_axes(axes: list[tuple[str, list[str]]]) -> dict[str, Dimension]:
    """The spec's axes as categorical dimensions: on a factorial spec the space is
    exactly its grid."""
    out = {}
    for key, texts in axes:
        choices = tuple(_choice(t) for t in texts)
        if len(set(map(repr, choices))) != len(choices):
            # Two texts for one value (5 and 5.0): the text tells them apart.
            choices = tuple(texts)
        out[key] = Dimension(key=key, choices=choices, texts=tuple(texts))
    return out


def _number(key: str, what: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ValueError(f"space[{key!r}]: {what} must be a finite number, not {v!r}")
    return float(v)


def from_entry(key: str, entry: Any) -> Dimension:
    """One ``space`` entry; a ValueError says which and what it may be."""
    form = (
        f"a list of values, (lo, hi), (lo, hi, 'log') or (lo, hi, step) with lo < hi, not {entry!r}"
    )
    if isinstance(entry, list):
        if not entry:
            raise ValueError(f"space[{key!r}]: the list of values is empty")
        texts = tuple(_scream.toml_text(f"space[{key!r}]", v) for v in entry)
        if len(set(texts)) != len(texts):
            raise ValueError(f"space[{key!r}]: a value is listed twice in {entry!r}")
        choices = tuple(v if isinstance(v, _SCALARS) else t for v, t in zip(entry, texts))
        return Dimension(key=key, choices=choices, texts=texts)
    if not isinstance(entry, tuple) or len(entry) not in (2, 3):
        raise ValueError(f"space[{key!r}]: {form}")
    low = _number(key, "lo", entry[0])
    high = _number(key, "hi", entry[1])
    if not low < high:
        raise ValueError(f"space[{key!r}]: lo must be below hi: {form}")
    integer = all(isinstance(v, int) and not isinstance(v, bool) for v in entry[:2])
    log = False
    step: float | None = None
    if len(entry) == 3:
        third = entry[2]
        if third == "log":
            if low <= 0:
                raise ValueError(f"space[{key!r}]: a log range needs lo > 0, not {entry!r}")
            log = True
        elif isinstance(third, (int, float)) and not isinstance(third, bool):
            step = _number(key, "step", third)
            if step <= 0 or step > high - low:
                raise ValueError(
                    f"space[{key!r}]: step must be in (0, hi - lo] = (0, {high - low:g}], "
                    f"not {third!r}"
                )
            integer = integer and isinstance(third, int)
        else:
            raise ValueError(f"space[{key!r}]: the third item is 'log' or a step: {form}")
    return Dimension(key=key, low=low, high=high, log=log, step=step, integer=integer)


def build(
    axes: list[tuple[str, list[str]]], space: Mapping[str, Any] | None
) -> dict[str, Dimension]:
    """The spec's axes with ``space``'s entries added or put in their place."""
    dims = from_axes(axes)
    if space is not None:
        if not isinstance(space, Mapping):
            raise ValueError(f"space: a dict of key -> entry, not {type(space).__name__}")
        for key, entry in space.items():
            if not isinstance(key, str) or not key.strip():
                raise ValueError(f"space: keys are dotted scenario keys, not {key!r}")
            dims[key.strip()] = from_entry(key.strip(), entry)
    if not dims:
        raise ValueError("tune: nothing to search: the spec has no axes and space is empty")
    return dims


@dataclasses.dataclass(frozen=True)
class Objective:
    """A metric column and whether more of it is better."""

    metric: str
    maximise: bool

    @property
    def direction(self) -> Literal["maximize", "minimize"]:
        return "maximize" if self.maximise else "minimize"

    def __str__(self) -> str:
        return f"{self.metric}:{'max' if self.maximise else 'min'}"


def objectives_of(given: str | Sequence[str], allowed: Sequence[str]) -> list[Objective]:
    """``"metric:max|min"`` strings, checked against the metric columns ``allowed``."""
    items = [given] if isinstance(given, str) else list(given)
    if not items:
        raise ValueError("objectives: give at least one, such as 'throughput_mbps:max'")
    out: list[Objective] = []
    for item in items:
        metric, _, way = str(item).partition(":")
        metric = metric.strip()
        if way not in ("max", "min"):
            raise ValueError(
                f"objectives: {item!r} must be 'metric:max' or 'metric:min' "
                "(whether more of the metric is better)"
            )
        if metric not in allowed:
            raise ValueError(
                f"objectives: unknown metric {metric!r}; the metrics are {', '.join(allowed)}"
            )
        if any(o.metric == metric for o in out):
            raise ValueError(f"objectives: {metric!r} is named twice")
        out.append(Objective(metric, way == "max"))
    return out
