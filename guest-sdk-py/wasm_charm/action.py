"""The running action: its parameters, results, failure and progress
messages (ops' ``ActionEvent.params``, ``set_results``, ``fail``, ``log``).
Calls outside an action raise :class:`~wasm_charm.errors.NotInAction`.

>>> from wasm_charm.action import flatten
>>> flatten({"backup": {"size": 3, "name": "b1"}})
[('backup.name', 'b1'), ('backup.size', '3')]
"""

from __future__ import annotations

import json
from typing import Any

from . import _wit
from .errors import action_error


def _call(fn, *args):  # noqa: ANN001, ANN202
    return _wit.call(action_error, fn, *args)


def params() -> dict[str, Any]:
    """The action's parameters, checked against actions.yaml, defaults filled in."""
    return json.loads(_call(_wit.action.params))


def flatten(results: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """Nested results as Juju's dotted keys, sorted, values as text."""
    out: list[tuple[str, str]] = []
    for key, value in sorted(results.items()):
        dotted = f"{prefix}{key}"
        if isinstance(value, dict):
            out.extend(flatten(value, dotted + "."))
        else:
            out.append((dotted, value if isinstance(value, str) else json.dumps(value)))
    return out


def set_results(results: dict[str, Any]) -> None:
    """Add results; nested dicts become dotted keys (``backup.size``)."""
    _call(_wit.action.set_results, flatten(results))


def fail(message: str = "") -> None:
    """Fail the action with ``message``; the event itself succeeds."""
    _call(_wit.action.fail, message)


def log(message: str) -> None:
    """A progress message, shown at once by ``juju run``."""
    _call(_wit.action.log, message)
