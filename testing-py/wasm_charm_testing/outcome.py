"""What happened: the ``run`` result of the harness protocol, read."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Optional

from .state import State
from .status import Status


@dataclasses.dataclass(frozen=True)
class Handler:
    """One handler's result: ``set`` (with ``status``), ``cleared``,
    ``error`` or ``trapped`` (with ``message``), ``action-done``."""

    name: str
    result: str
    status: Optional[Status] = None
    message: Optional[str] = None


def _status(value: Optional[dict[str, Any]]) -> Optional[Status]:
    return None if value is None else Status(value["status"], value["message"])


class Outcome:
    """The event's outcome; ``str(outcome)`` shows all of it, for an
    assertion's message."""

    def __init__(self, charm: str, event: str, reply: dict[str, Any]) -> None:
        self.charm = charm
        self.event = event
        self.reply = reply

    def __str__(self) -> str:
        return f"charm {self.charm}, event {self.event}:\n" + json.dumps(self.reply, indent=2)

    @property
    def ok(self) -> bool:
        """Whether the hook succeeded."""
        return not self.reply["failed"]

    @property
    def failed(self) -> bool:
        return bool(self.reply["failed"])

    @property
    def failures(self) -> list[str]:
        """Why the hook failed, one line per cause."""
        return list(self.reply["failures"]) + ([self.reply["error"]] if self.reply["error"] else [])

    def assert_ok(self) -> None:
        assert self.ok, f"the hook failed: {self.failures}\n{self}"

    def assert_failed(self) -> None:
        assert self.failed, f"the hook succeeded\n{self}"

    @property
    def handlers(self) -> list[Handler]:
        """Each handler's result, in the order they ran."""
        return [
            Handler(h["name"], h["result"], _status(h.get("status")), h.get("message"))
            for h in self.reply["handlers"]
        ]

    def handler(self, name: str) -> Optional[Handler]:
        return next((h for h in self.handlers if h.name == name), None)

    def _scope(self, target: str, name: str) -> Optional[Status]:
        scope = self.reply["scopes"][target].get(name)
        return None if scope is None else _status(scope["current"])

    def scope(self, name: str) -> Optional[Status]:
        """The unit scope ``name`` (``handler/config``) as committed; ``None`` for none."""
        return self._scope("unit", name)

    def app_scope(self, name: str) -> Optional[Status]:
        return self._scope("app", name)

    def scopes(self) -> dict[str, Status]:
        """Every unit scope that holds a status."""
        return {
            name: _status(s["current"])
            for name, s in self.reply["scopes"]["unit"].items()
            if s["current"] is not None
        }

    def scope_history(self, name: str) -> list[tuple[Optional[Status], str]]:
        """A unit scope's changes, oldest first: (status or None for a clear, event)."""
        scope = self.reply["scopes"]["unit"].get(name) or {"history": []}
        return [
            (None if c["status"] is None else Status(c["status"], c["message"]), c["event"])
            for c in scope["history"]
        ]

    @property
    def unit_status(self) -> Optional[Status]:
        """The unit status last written with ``status-set``."""
        return _status(self.reply["state"].get("status", {}).get("unit"))

    @property
    def app_status(self) -> Optional[Status]:
        return _status(self.reply["state"].get("status", {}).get("app"))

    @property
    def unit_status_set(self) -> bool:
        """Whether this event ran ``status-set`` for the unit."""
        return bool(self.reply["status-set"]["unit"])

    def stored(self, key: str) -> Any:
        """A stored value read from JSON; ``None`` when absent."""
        text = self.reply["stored"].get(key)
        return None if text is None else json.loads(text)

    def relation(self, relation_id: str) -> Optional[dict[str, Any]]:
        """A relation and its bags, as the next state holds it."""
        return self.reply["state"].get("relations", {}).get(relation_id)

    @property
    def logs(self) -> list[str]:
        return list(self.reply["state"].get("log", []))

    def logged(self, text: str) -> bool:
        """Whether a line of the unit log holds ``text``."""
        return any(text in line for line in self.logs)

    @property
    def tool_calls(self) -> list[str]:
        return [
            c if isinstance(c, str) else " ".join(c) for c in self.reply["state"].get("calls", [])
        ]

    @property
    def action_results(self) -> dict[str, Any]:
        return dict(self.reply["state"].get("action-results") or {})

    @property
    def action_failed(self) -> Optional[str]:
        return self.reply["state"].get("action-failed")

    def pebble_calls(self, container: str) -> list[str]:
        """What the charm asked of ``container``'s Pebble, in order
        (``add-layer app combine``, ``replan``, ``exec python3 --version``)."""
        return list(self._container(container).get("calls", []))

    def pebble_layers(self, container: str) -> list[str]:
        """The labels of the layers in ``container``'s plan, oldest first."""
        return [layer.get("label", "") for layer in self._container(container).get("layers", [])]

    def pebble_service(self, container: str, service: str) -> Optional[str]:
        """A Pebble service's ``current`` (``active``, ``inactive``,
        ``backoff``, ``error``); ``None`` for one Pebble does not have."""
        return self._container(container).get("services", {}).get(service)

    def pebble_file(self, container: str, path: str) -> Optional[str]:
        """A file in ``container`` after the event, as text; ``None`` when
        absent or not text (the state file's ``hex`` bytes that are not
        UTF-8)."""
        return _file_text(self._container(container).get("files", {}).get(path))

    def _container(self, container: str) -> dict[str, Any]:
        return self.reply["state"].get("containers", {}).get(container) or {}

    @property
    def gating(self) -> list[str]:
        """The declared probes that gate readiness after the event."""
        return sorted(name for name, gate in (self.reply.get("gates") or {}).items() if gate)

    def probe(self, name: str) -> Optional[tuple[bool, str]]:
        """What probe ``name`` last found: healthy or not, and its detail;
        ``None`` before it first ran."""
        last = (self.reply.get("probes") or {}).get(name)
        return None if last is None else (bool(last["healthy"]), last["detail"])

    def state(self) -> State:
        """The state to run the next event from."""
        return State(dict(self.reply["state"]))


def _file_text(entry: Any) -> Optional[str]:
    """A file of a container's ``files``, as the state file holds it: text,
    or ``{content}`` / ``{hex}`` with its mode and owner.

    >>> _file_text("a"), _file_text({"content": "b", "permissions": "640"}), _file_text({"hex": "6869"})
    ('a', 'b', 'hi')
    >>> _file_text({"hex": "ff"}) is None
    True
    """
    if isinstance(entry, str):
        return entry
    if not isinstance(entry, dict):
        return None
    if isinstance(entry.get("content"), str):
        return entry["content"]
    try:
        return bytes.fromhex(entry.get("hex", "")).decode("utf-8") if "hex" in entry else None
    except (ValueError, UnicodeDecodeError):
        return None
