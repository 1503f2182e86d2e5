"""The exceptions the package raises.

Each also subclasses the built-in exception a caller would catch for that kind of
mistake, so ``except ValueError`` works without knowing this package, and
``except scream.ScreamError`` catches every one of them.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "FeedbackError",
    "OutputError",
    "ScenarioError",
    "ScreamError",
    "SimulationError",
    "SweepError",
]


class ScreamError(Exception):
    """Base of every error the scream package raises."""


class ScenarioError(ScreamError, ValueError):
    """A scenario that cannot run.

    An unknown key or value, a value out of range, a bad override or an unreadable
    file. The message is the one ``scream sim`` prints: the key, the file and line or
    the override that wrote it, the allowed range, and a suggestion for a misspelling.
    """


class OutputError(ScreamError, OSError):
    """An output folder that cannot be written, or that holds another run.

    ``Run.write(folder, force=True)`` replaces another run's files (only those).
    """


class FeedbackError(ScreamError, ValueError):
    """Bytes that are not a well-formed RFC 8888 feedback packet."""


class ConfigError(ScreamError, ValueError):
    """A sender or receiver parameter that is unknown or out of its range."""


class SimulationError(ScreamError, RuntimeError):
    """A simulation that failed while running (a trace file that went away, say)."""


class SweepError(ScreamError, ValueError):
    """A row handed to a sweep's folder that is not one of its rows.

    ``results.csv`` takes only the rows of the sweep's own plan: a row of another
    sweep, of another shape, or of a run the plan does not hold is refused, and the
    message says which and why.
    """
