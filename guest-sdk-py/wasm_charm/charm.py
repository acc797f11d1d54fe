"""Handlers and the events they observe.

A charm is a list of handlers. Each observes some events and returns the
status of its own scope ``handler/<name>``: a :class:`~wasm_charm.Status`
while it has something to report, ``None`` when all is well. The host runs
every handler that observes an event, each in a fresh instance, in the
order they were declared.

>>> from wasm_charm import Charm, On, Status
>>> def config(event):
...     return Status.blocked("no kind")
>>> charm = Charm().observe("config", On.install() | On.config_changed(), config)
>>> [h.name for h in charm.handlers]
['config']
>>> charm.run("config", None)
BlockedStatus('no kind')
"""

from __future__ import annotations

import dataclasses
import re
import traceback
from typing import Callable, Optional

from . import _wit
from .errors import Error
from .event import Event, EventKind, from_wit
from .status import Priority, Status, _priority_to_wit

#: What a handler is: called with its event, returns its scope's status.
HandlerFn = Callable[[Event], Optional[Status]]

_NAME = re.compile(r"[a-z0-9-]{1,120}")


@dataclasses.dataclass(frozen=True)
class Observation:
    """One thing a handler observes: a kind, for every entity or one."""

    kind: EventKind
    entity: Optional[str] = None


class On:
    """A set of events a handler observes, combined with ``|``.

    Events about one relation endpoint, storage, container or action take
    its name; the ``any_`` constructors observe them for every name.

    >>> len((On.install() | On.config_changed() | On.relation("db")).observations)
    7
    """

    __slots__ = ("observations",)

    def __init__(self, observations: tuple[Observation, ...] = ()) -> None:
        self.observations = tuple(observations)

    def __or__(self, other: On) -> On:
        return On(self.observations + other.observations)

    def __repr__(self) -> str:
        return f"On({list(self.observations)!r})"

    @staticmethod
    def kind(kind: EventKind, entity: Optional[str] = None) -> On:
        """Observe ``kind``, for ``entity`` only when given."""
        if entity is not None and not kind.has_entity:
            raise ValueError(f"wasm_charm: {kind.value} events have no entity (asked for {entity!r})")
        return On((Observation(kind, entity),))

    def matches(self, event: Event) -> bool:
        """Whether this set observes ``event``."""
        return any(
            o.kind is event.kind and (o.entity is None or o.entity == event.entity)
            for o in self.observations
        )

    # One constructor per event, with ops' names (`on.install`, …).
    @staticmethod
    def install() -> On:
        """``install``."""
        return On.kind(EventKind.INSTALL)

    @staticmethod
    def start() -> On:
        """``start``."""
        return On.kind(EventKind.START)

    @staticmethod
    def stop() -> On:
        """``stop``."""
        return On.kind(EventKind.STOP)

    @staticmethod
    def remove() -> On:
        """``remove``."""
        return On.kind(EventKind.REMOVE)

    @staticmethod
    def upgrade_charm() -> On:
        """``upgrade-charm``."""
        return On.kind(EventKind.UPGRADE_CHARM)

    @staticmethod
    def config_changed() -> On:
        """``config-changed``."""
        return On.kind(EventKind.CONFIG_CHANGED)

    @staticmethod
    def update_status() -> On:
        """``update-status``."""
        return On.kind(EventKind.UPDATE_STATUS)

    @staticmethod
    def leader_elected() -> On:
        """``leader-elected``."""
        return On.kind(EventKind.LEADER_ELECTED)

    @staticmethod
    def leader_settings_changed() -> On:
        """``leader-settings-changed``."""
        return On.kind(EventKind.LEADER_SETTINGS_CHANGED)

    @staticmethod
    def secret() -> On:
        """Every secret event: changed, rotate, remove, expired."""
        return On(
            tuple(
                Observation(k)
                for k in (
                    EventKind.SECRET_CHANGED,
                    EventKind.SECRET_ROTATE,
                    EventKind.SECRET_REMOVE,
                    EventKind.SECRET_EXPIRED,
                )
            )
        )

    @staticmethod
    def relation_created(endpoint: Optional[str] = None) -> On:
        """``<endpoint>-relation-created`` (every endpoint's when ``None``)."""
        return On.kind(EventKind.RELATION_CREATED, endpoint)

    @staticmethod
    def relation_joined(endpoint: Optional[str] = None) -> On:
        """``<endpoint>-relation-joined``."""
        return On.kind(EventKind.RELATION_JOINED, endpoint)

    @staticmethod
    def relation_changed(endpoint: Optional[str] = None) -> On:
        """``<endpoint>-relation-changed``."""
        return On.kind(EventKind.RELATION_CHANGED, endpoint)

    @staticmethod
    def relation_departed(endpoint: Optional[str] = None) -> On:
        """``<endpoint>-relation-departed``."""
        return On.kind(EventKind.RELATION_DEPARTED, endpoint)

    @staticmethod
    def relation_broken(endpoint: Optional[str] = None) -> On:
        """``<endpoint>-relation-broken``."""
        return On.kind(EventKind.RELATION_BROKEN, endpoint)

    @staticmethod
    def relation(endpoint: Optional[str] = None) -> On:
        """Every event of an endpoint's relations: created, joined, changed,
        departed, broken."""
        return (
            On.relation_created(endpoint)
            | On.relation_joined(endpoint)
            | On.relation_changed(endpoint)
            | On.relation_departed(endpoint)
            | On.relation_broken(endpoint)
        )

    @staticmethod
    def storage_attached(name: Optional[str] = None) -> On:
        """``<name>-storage-attached``."""
        return On.kind(EventKind.STORAGE_ATTACHED, name)

    @staticmethod
    def storage_detaching(name: Optional[str] = None) -> On:
        """``<name>-storage-detaching``."""
        return On.kind(EventKind.STORAGE_DETACHING, name)

    @staticmethod
    def pebble_ready(container: Optional[str] = None) -> On:
        """``<container>-pebble-ready``."""
        return On.kind(EventKind.PEBBLE_READY, container)

    @staticmethod
    def pebble_custom_notice(container: Optional[str] = None) -> On:
        """``<container>-pebble-custom-notice``: a custom notice of the
        container's Pebble (``event.context`` is a
        :class:`~wasm_charm.NoticeEvent`; its ``notice()`` has the data).

        >>> from wasm_charm import NoticeEvent
        >>> notice = NoticeEvent("web", "1", "custom", "example.com/reload")
        >>> On.pebble_custom_notice("web").matches(Event(EventKind.PEBBLE_CUSTOM_NOTICE, notice))
        True
        >>> On.pebble_custom_notice("db").matches(Event(EventKind.PEBBLE_CUSTOM_NOTICE, notice))
        False
        """
        return On.kind(EventKind.PEBBLE_CUSTOM_NOTICE, container)

    @staticmethod
    def pebble_check_failed(container: Optional[str] = None) -> On:
        """``<container>-pebble-check-failed`` (``event.context`` is a
        :class:`~wasm_charm.CheckEvent`)."""
        return On.kind(EventKind.PEBBLE_CHECK_FAILED, container)

    @staticmethod
    def pebble_check_recovered(container: Optional[str] = None) -> On:
        """``<container>-pebble-check-recovered``."""
        return On.kind(EventKind.PEBBLE_CHECK_RECOVERED, container)

    @staticmethod
    def action(name: Optional[str] = None) -> On:
        """A run of the action ``name`` (every action's when ``None``)."""
        return On.kind(EventKind.ACTION, name)


@dataclasses.dataclass(frozen=True)
class Handler:
    """A handler as declared: its name, what it observes, its scope's band."""

    name: str
    on: On
    fn: HandlerFn
    priority: Priority = Priority.NORMAL


class Charm:
    """The charm's handlers, in the order they run for an event (ops'
    ``CharmBase`` with ``framework.observe``)."""

    def __init__(self) -> None:
        self.handlers: list[Handler] = []

    def observe(
        self, name: str, on: On, fn: HandlerFn, priority: Priority = Priority.NORMAL
    ) -> Charm:
        """Add the handler ``name`` (1 to 120 of ``a-z 0-9 -``), run for every
        event ``on`` observes; returns the charm, to chain."""
        if not _NAME.fullmatch(name):
            raise ValueError(
                f"wasm_charm: handler name {name!r}: use 1 to 120 lowercase letters, digits and `-`"
            )
        if any(h.name == name for h in self.handlers):
            raise ValueError(f"wasm_charm: handler name {name!r} is declared twice")
        if not on.observations:
            raise ValueError(f"wasm_charm: handler {name!r} observes no event")
        self.handlers.append(Handler(name, on, fn, priority))
        return self

    def observers(self, event: Event) -> list[str]:
        """The handlers that run for ``event``, in order."""
        return [h.name for h in self.handlers if h.on.matches(event)]

    def run(self, name: str, event: Optional[Event]) -> Optional[Status]:
        """Call the handler ``name`` with ``event``; what it returns or raises."""
        for handler in self.handlers:
            if handler.name == name:
                result = handler.fn(event)  # type: ignore[arg-type]
                if result is not None and not isinstance(result, Status):
                    raise TypeError(
                        f"handler {name!r} returned {result!r}: return a Status, or None"
                    )
                return result
        raise LookupError(f"no handler named {name!r} in this charm")


_exported: Optional[Charm] = None


def export_charm(charm: Charm) -> None:
    """Make ``charm`` the component's: call it once, at the top level of the
    charm's module (``src/charm.py``), which ``wasm-charm pack`` imports at
    build time."""
    global _exported
    if not isinstance(charm, Charm):
        raise TypeError(f"wasm_charm.export_charm: {charm!r} is not a Charm")
    _exported = charm


def exported() -> Charm:
    """The charm :func:`export_charm` was given."""
    if _exported is None:
        raise RuntimeError(
            "wasm_charm: no charm exported; call wasm_charm.export_charm(charm) in src/charm.py"
        )
    return _exported


def _declaration(handler: Handler):  # noqa: ANN202 - a bindings type
    types = _wit.types
    return types.Handler(
        handler.name,
        [
            types.Observation(getattr(types.EventKind, o.kind.name), o.entity)
            for o in handler.on.observations
        ],
        _priority_to_wit(handler.priority),
    )


class Handlers:
    """The component's export ``handlers`` (componentize-py finds it in the
    app module ``wasm-charm pack`` writes)."""

    def declare(self) -> list:
        return [_declaration(h) for h in exported().handlers]

    def run(self, handler: str, event: object):  # noqa: ANN201 - a bindings type
        try:
            status = exported().run(handler, from_wit(event))
        except Exception as e:  # noqa: BLE001 - any exception is the handler's error
            # The traceback to the unit's log; its last line is the error.
            _wit.model.log(_wit.model.LogLevel.ERROR, traceback.format_exc().rstrip())
            raise _wit.WitErr(_error_message(e)) from None
        return None if status is None else status._to_wit()


def _error_message(e: Exception) -> str:
    # The SDK's errors say what failed in their own words; others are named.
    return str(e) if isinstance(e, Error) and str(e) else f"{type(e).__name__}: {e}"
