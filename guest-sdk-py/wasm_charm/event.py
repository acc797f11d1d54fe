"""The Juju event a handler runs for, with its context.

>>> from wasm_charm import Event, EventKind
>>> Event(EventKind.CONFIG_CHANGED).entity is None
True
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Optional

from . import pebble, secrets


class EventKind(enum.Enum):
    """The kinds of event, without their context: what a handler observes.

    Each value is the kind's name as Juju's hooks spell it (without the
    entity: ``relation-changed``, ``pebble-ready``, ``action``).
    """

    INSTALL = "install"
    START = "start"
    STOP = "stop"
    REMOVE = "remove"
    UPGRADE_CHARM = "upgrade-charm"
    CONFIG_CHANGED = "config-changed"
    UPDATE_STATUS = "update-status"
    LEADER_ELECTED = "leader-elected"
    LEADER_SETTINGS_CHANGED = "leader-settings-changed"
    LEADER_DEPOSED = "leader-deposed"
    PRE_SERIES_UPGRADE = "pre-series-upgrade"
    POST_SERIES_UPGRADE = "post-series-upgrade"
    COLLECT_METRICS = "collect-metrics"
    METER_STATUS_CHANGED = "meter-status-changed"
    RELATION_CREATED = "relation-created"
    RELATION_JOINED = "relation-joined"
    RELATION_CHANGED = "relation-changed"
    RELATION_DEPARTED = "relation-departed"
    RELATION_BROKEN = "relation-broken"
    STORAGE_ATTACHED = "storage-attached"
    STORAGE_DETACHING = "storage-detaching"
    PEBBLE_READY = "pebble-ready"
    PEBBLE_CUSTOM_NOTICE = "pebble-custom-notice"
    PEBBLE_CHECK_FAILED = "pebble-check-failed"
    PEBBLE_CHECK_RECOVERED = "pebble-check-recovered"
    SECRET_CHANGED = "secret-changed"
    SECRET_ROTATE = "secret-rotate"
    SECRET_REMOVE = "secret-remove"
    SECRET_EXPIRED = "secret-expired"
    ACTION = "action"

    @property
    def has_entity(self) -> bool:
        """Whether events of this kind concern one named thing (an endpoint,
        storage, container or action)."""
        return self in _ENTITY_KINDS


_ENTITY_KINDS = frozenset(
    k
    for k in EventKind
    if k.value.startswith(("relation-", "storage-", "pebble-")) or k is EventKind.ACTION
)


@dataclasses.dataclass(frozen=True)
class RelationEvent:
    """Context of a relation event."""

    endpoint: str
    """The endpoint from metadata.yaml (``istio-pilot``)."""
    id: int
    """Juju's relation id (``1`` in ``istio-pilot:1``)."""
    remote_app: str
    """The application on the other side."""
    remote_unit: Optional[str]
    """The remote unit; ``None`` for created, broken and an application's change."""
    departing_unit: Optional[str]
    """relation-departed only: the unit that is leaving."""


@dataclasses.dataclass(frozen=True)
class StorageEvent:
    """Context of a storage event."""

    name: str
    id: str
    kind: Optional[str]
    location: Optional[str]


@dataclasses.dataclass(frozen=True)
class NoticeEvent:
    """Context of a pebble-custom-notice event."""

    container: str
    id: str
    type: str
    key: str

    def notice(self) -> pebble.Notice:
        """The event's notice, read from its container's Pebble (ops'
        ``PebbleCustomNoticeEvent.notice``), with its data."""
        return pebble.get_container(self.container).get_notice(self.id)


@dataclasses.dataclass(frozen=True)
class CheckEvent:
    """Context of a pebble-check-failed or -recovered event."""

    container: str
    check: str


@dataclasses.dataclass(frozen=True)
class SecretEvent:
    """Context of a secret event."""

    id: str
    label: Optional[str]
    revision: Optional[int]

    @property
    def secret(self) -> secrets.Secret:
        """The event's secret (ops' ``SecretEvent.secret``).

        >>> SecretEvent("secret:cqv1ruvmp25c7ntde3t0", "db-password", None).secret
        Secret(id='secret:cqv1ruvmp25c7ntde3t0', label='db-password')
        """
        return secrets.Secret(self.id, self.label)


@dataclasses.dataclass(frozen=True)
class ActionEvent:
    """Context of an action."""

    name: str
    """The action's name from actions.yaml."""
    id: str
    """Juju's id of this run of the action."""


Context = (
    RelationEvent | StorageEvent | NoticeEvent | CheckEvent | SecretEvent | ActionEvent | str | None
)


@dataclasses.dataclass(frozen=True)
class Event:
    """One event: its kind, and the context of events that have one
    (a ``pebble-ready`` event's context is the container's name)."""

    kind: EventKind
    context: Context = None

    @property
    def entity(self) -> Optional[str]:
        """The endpoint, storage, container or action the event concerns."""
        c = self.context
        if isinstance(c, RelationEvent):
            return c.endpoint
        if isinstance(c, (StorageEvent, ActionEvent)):
            return c.name
        if isinstance(c, (NoticeEvent, CheckEvent)):
            return c.container
        if isinstance(c, str):
            return c
        return None

    @property
    def relation(self) -> Optional[RelationEvent]:
        """A relation event's context."""
        return self.context if isinstance(self.context, RelationEvent) else None

    @property
    def action(self) -> Optional[ActionEvent]:
        """An action's context."""
        return self.context if isinstance(self.context, ActionEvent) else None


def _kind_of_wit(value: object) -> EventKind:
    # `Event_RelationChanged` -> RELATION_CHANGED
    name = type(value).__name__.removeprefix("Event_")
    snake = "".join("_" + c if c.isupper() else c for c in name).lstrip("_").upper()
    return EventKind[snake]


def from_wit(value: object) -> Event:
    """The SDK's event for the bindings' ``event`` variant."""
    kind = _kind_of_wit(value)
    payload = getattr(value, "value", None)
    if payload is None or isinstance(payload, str):
        return Event(kind, payload)
    name = type(payload).__name__
    if name == "RelationEvent":
        return Event(
            kind,
            RelationEvent(
                payload.relation.endpoint,
                payload.relation.id,
                payload.remote_app,
                payload.remote_unit,
                payload.departing_unit,
            ),
        )
    mirror = {
        "StorageEvent": StorageEvent,
        "NoticeEvent": NoticeEvent,
        "CheckEvent": CheckEvent,
        "SecretEvent": SecretEvent,
        "ActionEvent": ActionEvent,
    }[name]
    fields = {f.name: getattr(payload, f.name) for f in dataclasses.fields(mirror)}
    return Event(kind, mirror(**fields))
