"""The unit's log (``juju debug-log``), by level.

>>> from wasm_charm import log
>>> callable(log.info)
True
"""

from __future__ import annotations

from . import _wit


def _log(level: str, message: str) -> None:
    _wit.model.log(getattr(_wit.model.LogLevel, level), str(message))


def debug(message: str) -> None:
    """Log at DEBUG."""
    _log("DEBUG", message)


def info(message: str) -> None:
    """Log at INFO."""
    _log("INFO", message)


def warning(message: str) -> None:
    """Log at WARNING."""
    _log("WARNING", message)


def error(message: str) -> None:
    """Log at ERROR."""
    _log("ERROR", message)
