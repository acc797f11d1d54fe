"""The state before an event: the sections of the state file (docs/offline-state.md)."""

from __future__ import annotations

import copy
import json
from typing import Any, Optional

from .status import Status

#: Pebble's words for a service's ``current`` state.
_PEBBLE_CURRENT = ("active", "inactive", "backoff", "error")


class Relation:
    """A relation and its bags, as the state file's ``relations`` holds it.

    >>> Relation("db:0", "postgresql").unit("postgresql/0").app_data("host", "h").body
    {'app': 'postgresql', 'units': ['postgresql/0'], 'app-data': {'host': 'h'}}
    """

    def __init__(self, id: str, remote_app: str) -> None:  # noqa: A002 - the state file's name
        self.id = id
        self.body: dict[str, Any] = {"app": remote_app}

    def unit(self, unit: str) -> Relation:
        units = self.body.setdefault("units", [])
        if unit not in units:
            units.append(unit)
        return self

    def _bag(self, key: str, *path: str) -> dict[str, str]:
        at = self.body.setdefault(key, {})
        for p in path:
            at = at.setdefault(p, {})
        return at

    def app_data(self, key: str, value: str) -> Relation:
        self._bag("app-data")[key] = value
        return self

    def unit_data(self, unit: str, key: str, value: str) -> Relation:
        self.unit(unit)
        self._bag("unit-data", unit)[key] = value
        return self

    def local_app_data(self, key: str, value: str) -> Relation:
        self._bag("local-app-data")[key] = value
        return self

    def local_unit_data(self, key: str, value: str) -> Relation:
        self._bag("local-unit-data")[key] = value
        return self

    def app_bag(self, value: Any) -> Relation:
        """The remote application's bag holding ``value``, one of the SDK's
        typed bags (``wasm_charm.interfaces``), in its interface's encoding.

        >>> from wasm_charm.interfaces import ingress_v2
        >>> Relation("ingress:1", "traefik").app_bag(ingress_v2.ProviderApp(ingress={"url": "http://x/"})).body
        {'app': 'traefik', 'app-data': {'ingress': '{"url":"http://x/"}'}}
        """
        self._bag("app-data").update({k: v for k, v in value.to_bag().items() if v})
        return self


class State:
    """What holds before the event. Every method returns a changed copy, so a
    state reads as one expression and a shared one is never changed."""

    def __init__(self, doc: Optional[dict[str, Any]] = None) -> None:
        self.doc: dict[str, Any] = doc or {}
        self.config_values: dict[str, str] = {}
        self.seed: dict[str, Any] = {"scopes": [], "stored": {}}

    def _copy(self) -> State:
        new = State(copy.deepcopy(self.doc))
        new.config_values = dict(self.config_values)
        new.seed = copy.deepcopy(self.seed)
        return new

    def config(self, key: str, value: str | int | float | bool) -> State:
        """A config option, checked at the run against config.yaml."""
        new = self._copy()
        if isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = str(value)
        new.config_values[key] = text
        return new

    def leader(self, leader: bool) -> State:
        """Whether this unit leads its application."""
        return self.section("leader", leader)

    def unit(self, name: str) -> State:
        """This unit's name (default ``<charm>/0``)."""
        return self.section("unit", name)

    def relation(self, relation: Relation) -> State:
        """A relation, replacing one of the same id."""
        new = self._copy()
        new.doc.setdefault("relations", {})[relation.id] = copy.deepcopy(relation.body)
        return new

    def secret(self, id: str, owner: str, content: dict[str, str]) -> State:  # noqa: A002
        """A secret by id: ``owner`` is ``application`` or ``unit`` for the
        charm's own, else the application that shared it; one revision."""
        state, secrets = self._at("secrets")
        secrets[id] = {"owner": owner, "revisions": [{"revision": 1, "content": dict(content)}]}
        return state

    def database_provider(
        self, relation: str, app: str, database: str, endpoints: str, username: str, password: str
    ) -> State:
        """The other side of ``postgresql_client`` in one line: a provider
        (``app``, one unit) that answered with ``database``, ``endpoints``
        and a user secret holding ``username`` and ``password``, as the
        data platform's libraries answer.

        >>> s = State().database_provider("database:1", "pg", "app", "10.0.0.1:5432", "u", "p")
        >>> sorted(s.get("relations")["database:1"]["app-data"])
        ['database', 'endpoints', 'secret-user']
        """
        from wasm_charm.interfaces import postgresql_client_v0

        number = "".join(c for c in relation.rsplit(":", 1)[-1] if c.isdigit())[:18]
        # An id as Juju makes them: 20 characters of base32hex, the last 0.
        secret = f"secret:d{number:0>18}0"
        answer = postgresql_client_v0.ProviderApp(
            database=database, endpoints=endpoints, secret_user=secret
        )
        return self.secret(secret, app, {"username": username, "password": password}).relation(
            Relation(relation, app).unit(f"{app}/0").app_bag(answer)
        )

    def stored(self, key: str, value: Any) -> State:
        """A stored value as the SDK keeps it (JSON)."""
        return self.stored_text(key, json.dumps(value))

    def stored_text(self, key: str, text: str) -> State:
        """A stored value as the exact text kept."""
        new = self._copy()
        new.seed["stored"][key] = text
        return new

    def scope(self, name: str, status: Status, target: str = "unit") -> State:
        """A scope holding ``status``, as if an earlier event had set it."""
        new = self._copy()
        new.seed["scopes"].append(
            {"target": target, "name": name, "status": status.kind, "message": status.message}
        )
        return new

    def _at(self, *path: str) -> tuple[State, dict[str, Any]]:
        """A changed copy, and the mapping at ``path`` in its document."""
        new = self._copy()
        at = new.doc
        for p in path:
            at = at.setdefault(p, {})
        return new, at

    def can_connect(self, container: str, reachable: bool) -> State:
        """Whether ``container``'s Pebble answers (it does by default)."""
        new, at = self._at("containers", container)
        at["can-connect"] = reachable
        return new

    def pebble_check(self, container: str, check: str, up: bool) -> State:
        """Pebble's health check ``check`` of ``container``, up or down
        (down: with as many failures as its threshold)."""
        new, at = self._at("containers", container, "checks", check)
        at["status"] = "up" if up else "down"
        return new

    def pebble_exec(self, container: str, name: str, code: int, stdout: str, stderr: str) -> State:
        """What the command ``name`` that wasm-charm.yaml declares for
        ``container`` does through Pebble's exec: exits ``code`` having
        printed ``stdout`` and ``stderr``. One not scripted exits 0, silent."""
        new, at = self._at("containers", container, "exec")
        at[name] = {"exit": code, "stdout": stdout, "stderr": stderr}
        return new

    def pebble_service(self, container: str, service: str, current: str) -> State:
        """Service ``service`` of ``container``'s Pebble, with Pebble's
        ``current`` state: ``active``, ``inactive``, ``backoff`` or ``error``.

        >>> State().pebble_service("web", "web", "inactive").doc["containers"]["web"]["services"]
        {'web': 'inactive'}
        """
        if current not in _PEBBLE_CURRENT:
            raise ValueError(
                f"service {service!r} of {container!r}: {current!r} is not Pebble's "
                "(active, inactive, backoff, error)"
            )
        new, at = self._at("containers", container, "services")
        at[service] = current
        return new

    def pebble_file(self, container: str, path: str, text: str) -> State:
        """A text file in ``container``, as Pebble would pull it (mode 644)."""
        new, at = self._at("containers", container, "files")
        at[path] = text
        return new

    def pebble_notice(self, container: str, key: str, data: dict[str, str]) -> State:
        """A custom notice ``key`` that ``container``'s Pebble recorded, with
        ``data`` as its last data; its id is its position among the
        container's notices, from 1 (what ``Event.notice`` names).

        >>> State().pebble_notice("web", "example.com/a", {"k": "v"}).doc["containers"]["web"]["notices"]
        [{'type': 'custom', 'key': 'example.com/a', 'last-data': {'k': 'v'}}]
        """
        new, at = self._at("containers", container)
        notices = at.get("notices")
        if not isinstance(notices, list):
            notices = at["notices"] = []
        notices.append({"type": "custom", "key": key, "last-data": dict(data)})
        return new

    def get(self, section: str) -> Any:
        """One section of the state file (``containers``, ``relations``, …)
        as JSON; ``None`` when the file leaves it out or has it null."""
        return copy.deepcopy(self.doc.get(section))

    def section(self, name: str, value: Any) -> State:
        """Any other section of the state file, as JSON."""
        new = self._copy()
        new.doc[name] = copy.deepcopy(value)
        return new

    def _seed(self) -> Optional[dict[str, Any]]:
        return self.seed if self.seed["scopes"] or self.seed["stored"] else None
