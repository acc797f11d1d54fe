"""The event to run, with the context ``wasm-charm run``'s flags give."""

from __future__ import annotations

import copy
from typing import Any, Optional


class Event:
    """An event by its hook name; build it with the constructor of its kind
    (``Event.install()``, ``Event.relation_changed("db")``,
    ``Event.action("backup")``) and chain its context."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.flags: dict[str, Any] = {}

    def _with(self, key: str, value: Any) -> Event:
        new = Event(self.name)
        new.flags = copy.deepcopy(self.flags)
        new.flags[key] = value
        return new

    def _with_pair(self, key: str, k: str, v: Any) -> Event:
        pairs = dict(self.flags.get(key, {}))
        pairs[k] = v
        return self._with(key, pairs)

    # Context, as run's flags of the same names.
    def relation(self, relation_id: str) -> Event:
        return self._with("relation", relation_id)

    def remote_app(self, app: str) -> Event:
        return self._with("remote-app", app)

    def remote_unit(self, unit: str) -> Event:
        return self._with("remote-unit", unit)

    def remote_app_data(self, key: str, value: str) -> Event:
        return self._with_pair("remote-app-data", key, value)

    def remote_unit_data(self, key: str, value: str) -> Event:
        return self._with_pair("remote-unit-data", key, value)

    def container(self, name: str) -> Event:
        """The container of a Pebble event (it must match the hook's)."""
        return self._with("container", name)

    def notice(self, id: str, key: str) -> Event:  # noqa: A002 - Pebble's name
        """The notice of a ``pebble-custom-notice`` event: its id and key.

        >>> Event.pebble_custom_notice("web").notice("1", "example.com/a").to_json({})
        {'name': 'web-pebble-custom-notice', 'notice-id': '1', 'notice-key': 'example.com/a'}
        """
        return self._with("notice-id", id)._with("notice-key", key)

    def notice_type(self, kind: str) -> Event:
        """The notice's type (default ``custom``)."""
        return self._with("notice-type", kind)

    def check(self, name: str) -> Event:
        """The check of a ``pebble-check-failed`` or ``-recovered`` event."""
        return self._with("check", name)

    def secret(self, id: str) -> Event:  # noqa: A002 - the flag's name
        """The secret of a secret event (``secret:...``).

        >>> Event.secret_changed().secret("secret:d0000000000000000010").to_json({})
        {'name': 'secret-changed', 'secret-id': 'secret:d0000000000000000010'}
        """
        return self._with("secret-id", id)

    def param(self, key: str, value: Any) -> Event:
        """An action's parameter, checked against actions.yaml."""
        return self._with_pair("params", key, value)

    def at(self, secs_since_epoch: int) -> Event:
        """The time the event runs at."""
        return self._with("time", {"secs_since_epoch": secs_since_epoch, "nanos_since_epoch": 0})

    def to_json(self, config: dict[str, str]) -> dict[str, Any]:
        event: dict[str, Any] = {"name": self.name, **self.flags}
        if config:
            event["config"] = dict(config)
        return event

    # The events of no entity.
    @staticmethod
    def install() -> Event:
        return Event("install")

    @staticmethod
    def start() -> Event:
        return Event("start")

    @staticmethod
    def stop() -> Event:
        return Event("stop")

    @staticmethod
    def remove() -> Event:
        return Event("remove")

    @staticmethod
    def upgrade_charm() -> Event:
        return Event("upgrade-charm")

    @staticmethod
    def config_changed() -> Event:
        return Event("config-changed")

    @staticmethod
    def update_status() -> Event:
        return Event("update-status")

    @staticmethod
    def leader_elected() -> Event:
        return Event("leader-elected")

    @staticmethod
    def secret_changed() -> Event:
        """A secret this unit reads has a new revision (name it with ``secret``)."""
        return Event("secret-changed")

    # An entity's events.
    @staticmethod
    def relation_created(endpoint: str) -> Event:
        return Event(f"{endpoint}-relation-created")

    @staticmethod
    def relation_joined(endpoint: str) -> Event:
        return Event(f"{endpoint}-relation-joined")

    @staticmethod
    def relation_changed(endpoint: str) -> Event:
        return Event(f"{endpoint}-relation-changed")

    @staticmethod
    def relation_departed(endpoint: str) -> Event:
        return Event(f"{endpoint}-relation-departed")

    @staticmethod
    def relation_broken(endpoint: str) -> Event:
        return Event(f"{endpoint}-relation-broken")

    @staticmethod
    def pebble_ready(container: str) -> Event:
        return Event(f"{container}-pebble-ready")

    @staticmethod
    def pebble_custom_notice(container: str) -> Event:
        return Event(f"{container}-pebble-custom-notice")

    @staticmethod
    def pebble_check_failed(container: str) -> Event:
        return Event(f"{container}-pebble-check-failed")

    @staticmethod
    def pebble_check_recovered(container: str) -> Event:
        return Event(f"{container}-pebble-check-recovered")

    @staticmethod
    def action(name: str, params: Optional[dict[str, Any]] = None) -> Event:
        event = Event(f"actions/{name}")
        for k, v in (params or {}).items():
            event = event.param(k, v)
        return event
