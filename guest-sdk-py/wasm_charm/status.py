"""Statuses: a handler's return value, and scopes of its own.

A handler returns the status of its scope ``handler/<name>``: a
:class:`Status` while it has something to report, ``None`` when all is well.
A handler may also set other scopes: one per relation
(:func:`set_relation`), per remote unit (:func:`set_remote_unit`), or any
free name (:func:`set`). The host merges every scope into the unit's status
(most severe first): one handler's success never hides another's problem.

>>> from wasm_charm import BlockedStatus, Status, StatusKind
>>> BlockedStatus("Config item `kind` must be set") == Status.blocked("Config item `kind` must be set")
True
>>> Status.waiting("Waiting for leadership").kind is StatusKind.WAITING
True
"""

from __future__ import annotations

import enum

from . import _wit
from .errors import StatusError


class StatusKind(enum.Enum):
    """The workload status kinds a charm may set: Juju's settable four.

    Severity, lowest first: active < waiting < maintenance < blocked.
    """

    ACTIVE = "active"
    MAINTENANCE = "maintenance"
    WAITING = "waiting"
    BLOCKED = "blocked"


class Target(enum.Enum):
    """Which status a scope feeds: this unit's, or (leader only) the application's."""

    UNIT = "unit"
    APP = "app"


class Priority(enum.Enum):
    """Tie-break band between scopes of the same severity (severity always wins)."""

    CRITICAL = "critical"
    NORMAL = "normal"
    LOW = "low"


class Status:
    """One status: what ``juju status`` shows in its Workload and Message columns.

    >>> Status.blocked("no kind")
    BlockedStatus('no kind')
    """

    __slots__ = ("kind", "message")

    def __init__(self, kind: StatusKind, message: str = "") -> None:
        if not isinstance(kind, StatusKind):
            raise TypeError(f"Status: kind must be a StatusKind, not {kind!r}")
        self.kind = kind
        self.message = str(message)

    @classmethod
    def active(cls, message: str = "") -> Status:
        """All is well."""
        return ActiveStatus(message)

    @classmethod
    def maintenance(cls, message: str) -> Status:
        """The charm is doing something that takes a while."""
        return MaintenanceStatus(message)

    @classmethod
    def waiting(cls, message: str) -> Status:
        """Waiting for something outside the charm's control."""
        return WaitingStatus(message)

    @classmethod
    def blocked(cls, message: str) -> Status:
        """Needs a human: config, a missing relation."""
        return BlockedStatus(message)

    @property
    def name(self) -> str:
        """The kind's name as Juju spells it (``blocked``), ops' ``StatusBase.name``."""
        return self.kind.value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Status):
            return NotImplemented
        return (self.kind, self.message) == (other.kind, other.message)

    def __hash__(self) -> int:
        return hash((self.kind, self.message))

    def __repr__(self) -> str:
        return f"{_CLASS_NAMES[self.kind]}({self.message!r})"

    def __str__(self) -> str:
        return f"{self.kind.value} {self.message!r}"

    def _to_wit(self):  # noqa: ANN202 - a bindings type
        return _wit.types.Status(_kind_to_wit(self.kind), self.message)


class ActiveStatus(Status):
    """ops' ``ActiveStatus``: all is well."""

    __slots__ = ()

    def __init__(self, message: str = "") -> None:
        super().__init__(StatusKind.ACTIVE, message)


class MaintenanceStatus(Status):
    """ops' ``MaintenanceStatus``: the charm is busy."""

    __slots__ = ()

    def __init__(self, message: str) -> None:
        super().__init__(StatusKind.MAINTENANCE, message)


class WaitingStatus(Status):
    """ops' ``WaitingStatus``: waiting for something outside the charm."""

    __slots__ = ()

    def __init__(self, message: str) -> None:
        super().__init__(StatusKind.WAITING, message)


class BlockedStatus(Status):
    """ops' ``BlockedStatus``: needs a human."""

    __slots__ = ()

    def __init__(self, message: str) -> None:
        super().__init__(StatusKind.BLOCKED, message)


_CLASS_NAMES = {
    StatusKind.ACTIVE: "ActiveStatus",
    StatusKind.MAINTENANCE: "MaintenanceStatus",
    StatusKind.WAITING: "WaitingStatus",
    StatusKind.BLOCKED: "BlockedStatus",
}


def _kind_to_wit(kind: StatusKind):  # noqa: ANN202
    return getattr(_wit.types.StatusKind, kind.name)


def _target_to_wit(target: Target):  # noqa: ANN202
    return getattr(_wit.types.Target, target.name)


def _priority_to_wit(priority: Priority):  # noqa: ANN202
    return getattr(_wit.types.Priority, priority.name)


def set(  # noqa: A001 - the interface's name
    target: Target, scope: str, status: Status, priority: Priority = Priority.NORMAL
) -> None:
    """Set the free scope ``scope`` of ``target`` (kept until cleared).

    Raises :class:`~wasm_charm.errors.StatusError` with the host's words for
    a name it does not take (``handler/`` and ``probe/`` are the host's).
    """
    try:
        _wit.status.set(
            _target_to_wit(target), scope, status._to_wit(), _priority_to_wit(priority)
        )
    except _wit.WitErr as e:
        raise StatusError(str(e.value)) from None


def clear(target: Target, scope: str) -> None:
    """Clear the scope ``scope`` of ``target``; clearing an unset scope is fine."""
    try:
        _wit.status.clear(_target_to_wit(target), scope)
    except _wit.WitErr as e:
        raise StatusError(str(e.value)) from None


def relation_scope(endpoint: str, relation_id: int) -> str:
    """The scope of one relation, cleared by the host when it is broken.

    >>> relation_scope("db", 3)
    'relation/db:3'
    """
    return f"relation/{endpoint}:{relation_id}"


def set_relation(relation, status: Status, priority: Priority = Priority.NORMAL) -> None:  # noqa: ANN001
    """Set the unit scope of ``relation`` (a :class:`~wasm_charm.model.Relation`)."""
    set(Target.UNIT, relation_scope(relation.name, relation.id), status, priority)


def clear_relation(relation) -> None:  # noqa: ANN001
    """Clear the unit scope of ``relation``."""
    clear(Target.UNIT, relation_scope(relation.name, relation.id))


def remote_unit_scope(unit: str) -> str:
    """The scope of one remote unit, cleared by the host when it departs.

    >>> remote_unit_scope("db/0")
    'unit/db/0'
    """
    return f"unit/{unit}"


def set_remote_unit(unit: str, status: Status, priority: Priority = Priority.NORMAL) -> None:
    """Set the unit scope of the remote unit ``unit`` (``db/0``)."""
    set(Target.UNIT, remote_unit_scope(unit), status, priority)


def clear_remote_unit(unit: str) -> None:
    """Clear the unit scope of the remote unit ``unit``."""
    clear(Target.UNIT, remote_unit_scope(unit))
