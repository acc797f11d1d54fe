"""The unit in its Juju model: config, leadership, relations and their data,
with ops' names (``config``, ``is_leader``, ``get_relation``,
``set_workload_version``). Every call that fails raises a
:class:`~wasm_charm.errors.ModelError` subclass.

As in ops, :data:`app` and :data:`unit` add secrets, and :data:`unit`
opens ports and gets containers; :func:`get_secret`, :func:`get_binding`
and :func:`storages` are the ``model``'s (the modules
:mod:`~wasm_charm.secrets`, :mod:`~wasm_charm.ports`,
:mod:`~wasm_charm.network`, :mod:`~wasm_charm.storage` and
:mod:`~wasm_charm.pebble` have the rest).

>>> from wasm_charm import model
>>> model.Relation("istio-pilot", 0)
Relation('istio-pilot', 0)
>>> model.unit.get_container("web")
Container('web')
"""

from __future__ import annotations

from typing import Any, Optional, Union

from . import _wit
from . import ports as _ports
from . import secrets as _secrets
from .errors import TooManyRelations, model_error
from .interfaces import DataError
from .network import get_binding
from .pebble import Container, get_container
from .secrets import Secret, SecretRotate, get_secret
from .storage import storages

__all__ = [
    "Application",
    "ConfigValue",
    "Relation",
    "Unit",
    "app",
    "app_name",
    "config",
    "get_binding",
    "get_relation",
    "get_secret",
    "is_leader",
    "name",
    "relations",
    "set_workload_version",
    "storages",
    "unit",
    "unit_name",
]

#: A config option's value, typed by config.yaml (a secret option's is its URI).
ConfigValue = Union[str, int, float, bool]


def _call(fn, *args):  # noqa: ANN001, ANN202
    return _wit.call(model_error, fn, *args)


def config() -> dict[str, ConfigValue]:
    """Every option that has a value (set, or a non-null default), typed as
    config.yaml declares it (ops' ``self.config``).

    >>> # in a handler: model.config().get("kind", "")
    """
    return {o.name: o.value.value for o in _call(_wit.model.config)}


def is_leader() -> bool:
    """Whether this unit is its application's leader (``is-leader``)."""
    return _call(_wit.model.is_leader)


def unit_name() -> str:
    """This unit's name (``gateway/0``)."""
    return _wit.model.unit_name()


def app_name() -> str:
    """This unit's application."""
    return _wit.model.app_name()


def name() -> str:
    """The model's name."""
    return _wit.model.model_name()


def set_workload_version(version: str) -> None:
    """The version ``juju status`` shows (``application-version-set``)."""
    _call(_wit.model.application_version_set, version)


class Relation:
    """One relation of this unit: ops' ``Relation``, its data read and written
    through the host (reads cached for the event; writes kept only if the
    handler returns, sent when the event ends)."""

    __slots__ = ("name", "id")

    def __init__(self, name: str, id: int) -> None:  # noqa: A002 - ops' name
        self.name = name
        """The endpoint (``istio-pilot``)."""
        self.id = id
        """Juju's id (``1`` in ``istio-pilot:1``)."""

    def __repr__(self) -> str:
        return f"Relation({self.name!r}, {self.id})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Relation) and (self.name, self.id) == (other.name, other.id)

    def __hash__(self) -> int:
        return hash((self.name, self.id))

    def _ref(self):  # noqa: ANN202
        return _wit.types.RelationRef(self.name, self.id)

    @property
    def app(self) -> Optional[str]:
        """The remote application, when Juju knows it."""
        return _call(_wit.relations.relation_app, self._ref())

    @property
    def units(self) -> list[str]:
        """The remote units in the relation, sorted."""
        return _call(_wit.relations.relation_units, self._ref())

    def _bag(self, bag: object) -> dict[str, str]:
        return dict(_call(_wit.relations.relation_get, self._ref(), bag))

    def app_data(self) -> dict[str, str]:
        """The remote application's bag."""
        return self._bag(_wit.relations.Databag_RemoteApp())

    def unit_data(self, unit: str) -> dict[str, str]:
        """The bag of the remote unit ``unit`` (``db/0``)."""
        return self._bag(_wit.relations.Databag_RemoteUnit(unit))

    def local_unit_data(self) -> dict[str, str]:
        """This unit's bag, with this event's writes so far."""
        return self._bag(_wit.relations.Databag_LocalUnit())

    def local_app_data(self) -> dict[str, str]:
        """This application's bag (the leader's to read and write)."""
        return self._bag(_wit.relations.Databag_LocalApp())

    def set_local_unit_data(self, changes: dict[str, str]) -> None:
        """Change keys of this unit's bag; an empty value deletes the key."""
        _call(
            _wit.relations.relation_set,
            self._ref(),
            _wit.relations.LocalBag.UNIT,
            [(k, v) for k, v in changes.items()],
        )

    def set_local_app_data(self, changes: dict[str, str]) -> None:
        """Change keys of this application's bag (leader only)."""
        _call(
            _wit.relations.relation_set,
            self._ref(),
            _wit.relations.LocalBag.APP,
            [(k, v) for k, v in changes.items()],
        )

    def read(self, cls: type, unit: Optional[str] = None, local: bool = False) -> Any:
        """A bag as ``cls``, one of :mod:`wasm_charm.interfaces`' classes:
        the remote application's (or ``unit``'s, for a unit bag class), or
        with ``local`` this unit's or application's. ``None`` while the bag
        is empty (nothing written yet); ``DataError`` naming the relation,
        the bag and the field when it holds something else."""
        if local:
            data = self.local_app_data() if cls.BAG == "app" else self.local_unit_data()
            which = "this application's bag" if cls.BAG == "app" else "this unit's bag"
        elif cls.BAG == "app":
            data, which = self.app_data(), "the remote application's bag"
        else:
            if unit is None:
                raise ValueError(f"{cls.__name__} is a unit's bag: name the unit to read")
            data, which = self.unit_data(unit), f"{unit}'s bag"
        if not data:
            return None
        try:
            return cls.from_bag(data)
        except DataError as e:
            where = f"{self.name}:{self.id}, {which} ({cls.INTERFACE} v{cls.VERSION})"
            raise DataError(where, e.field, e.problem) from None

    def write(self, value: Any) -> None:
        """``value`` (an instance of one of :mod:`wasm_charm.interfaces`'
        classes) into this unit's or this application's bag, as its class
        says: every field encoded, every field it leaves out deleted."""
        changes = value.to_bag()
        if value.BAG == "app":
            self.set_local_app_data(changes)
        else:
            self.set_local_unit_data(changes)

    def write_if_changed(self, value: Any) -> bool:
        """:meth:`write` ``value`` unless the bag holds it already; whether
        it wrote. An unchanged bag queues no relation-changed on the other
        side."""
        if self.read(type(value), local=True) == value:
            return False
        self.write(value)
        return True


def relations(endpoint: str) -> list[Relation]:
    """The live relations of ``endpoint``, by id (ops' ``model.relations[…]``).
    A relation whose relation-broken event is running is no longer listed."""
    return [Relation(r.endpoint, r.id) for r in _call(_wit.relations.relation_ids, endpoint)]


def get_relation(endpoint: str, relation_id: Optional[int] = None) -> Optional[Relation]:
    """The one relation of ``endpoint`` (or the one with ``relation_id``);
    ``None`` without one. Raises :class:`~wasm_charm.errors.TooManyRelations`
    when there are several and no id is given (ops' ``get_relation``)."""
    found = relations(endpoint)
    if relation_id is not None:
        return next((r for r in found if r.id == relation_id), None)
    if len(found) > 1:
        raise TooManyRelations(f"{endpoint} has {len(found)} relations")
    return found[0] if found else None


class _SecretOwner:
    """What the application and the unit share: secrets they own."""

    __slots__ = ()
    _OWNER: _secrets.SecretOwner

    def add_secret(
        self,
        content: dict[str, str],
        *,
        label: Optional[str] = None,
        description: Optional[str] = None,
        expire: Optional[_secrets.Expire] = None,
        rotate: Optional[SecretRotate] = None,
    ) -> Secret:
        """Create a secret this owns (ops' ``add_secret``; an application's
        is the leader's to create): see :func:`wasm_charm.secrets.add_secret`."""
        return _secrets.add_secret(
            content,
            label=label,
            description=description,
            expire=expire,
            rotate=rotate,
            owner=self._OWNER,
        )


class Application(_SecretOwner):
    """This unit's application (ops' ``self.app``): its name and its
    secrets."""

    __slots__ = ()
    _OWNER = _secrets.SecretOwner.APPLICATION

    @property
    def name(self) -> str:
        """The application's name."""
        return app_name()

    def __repr__(self) -> str:
        return "Application()"



class Unit(_SecretOwner):
    """This unit (ops' ``self.unit``): its name, leadership, secrets, ports
    and containers."""

    __slots__ = ()
    _OWNER = _secrets.SecretOwner.UNIT

    @property
    def name(self) -> str:
        """The unit's name (``gateway/0``)."""
        return unit_name()

    def __repr__(self) -> str:
        return "Unit()"

    def is_leader(self) -> bool:
        """Whether this unit is the leader."""
        return is_leader()


    open_port = staticmethod(_ports.open_port)
    close_port = staticmethod(_ports.close_port)
    opened_ports = staticmethod(_ports.opened_ports)
    set_ports = staticmethod(_ports.set_ports)

    def get_container(self, name: str) -> Container:
        """The container ``name`` of metadata.yaml (ops' ``Unit.get_container``)."""
        return get_container(name)


#: This unit's application (ops' ``self.app``).
app = Application()
#: This unit (ops' ``self.unit``).
unit = Unit()
