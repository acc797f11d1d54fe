"""The charm's own data, kept between events with the scopes (ops'
``StoredState``). Values are stored as JSON; a handler's writes are seen by
its own reads at once, kept only if it returns.

>>> from wasm_charm import stored
>>> # in a handler: stored.set("restarts", stored.get("restarts", 0) + 1)
"""

from __future__ import annotations

import json
from typing import Any

from . import _wit
from .errors import StoredError

_MISSING = object()


def get(key: str, default: Any = None) -> Any:
    """The value of ``key`` read from JSON; ``default`` when nothing is stored."""
    text = _wit.stored.get(key)
    if text is None:
        return default
    try:
        return json.loads(text)
    except ValueError as e:
        raise StoredError(f"stored key {key!r}: {e}") from None


def set(key: str, value: Any) -> None:  # noqa: A001 - the interface's name
    """Store ``value`` under ``key``, as JSON."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError) as e:
        raise StoredError(f"stored key {key!r}: {e}") from None
    set_raw(key, text)


def get_raw(key: str) -> str | None:
    """The text stored under ``key``, as it is."""
    return _wit.stored.get(key)


def set_raw(key: str, value: str) -> None:
    """Store the text ``value`` under ``key``, as it is."""
    try:
        _wit.stored.set(key, value)
    except _wit.WitErr as e:
        raise StoredError(str(e.value)) from None


def delete(key: str) -> None:
    """Remove ``key``; removing a key that is not stored is fine."""
    try:
        _wit.stored.delete(key)
    except _wit.WitErr as e:
        raise StoredError(str(e.value)) from None


def keys() -> list[str]:
    """Every stored key, sorted."""
    return list(_wit.stored.keys())
