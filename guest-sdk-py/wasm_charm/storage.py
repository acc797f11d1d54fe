"""Storage attached to this unit (``storage-list``, ``storage-get``) and
requests for more (``storage-add``): ops' ``Model.storages[name]`` and
``Model.storages.request(name, count)``.

>>> from wasm_charm.storage import Storage
>>> data = Storage("data/1", "filesystem", "/srv/data")
>>> data.name, data.index
('data', 1)
"""

from __future__ import annotations

import dataclasses

from . import _wit
from .errors import model_error


def _call(fn, *args):  # noqa: ANN001, ANN202
    return _wit.call(model_error, fn, *args)


@dataclasses.dataclass(frozen=True)
class Storage:
    """One storage instance attached to this unit (ops' ``Storage``)."""

    id: str
    """The instance (``data/0``; ops' ``full_id``)."""
    kind: str
    """``filesystem`` or ``block``."""
    location: str
    """Mount point or device path."""

    @property
    def full_id(self) -> str:
        """ops' name for :attr:`id`."""
        return self.id

    @property
    def name(self) -> str:
        """The storage name from metadata.yaml (``data``)."""
        return self.id.rsplit("/", 1)[0]

    @property
    def index(self) -> int:
        """The instance's number (``0`` of ``data/0``)."""
        return int(self.id.rsplit("/", 1)[1])


def storage_list(name: str | None = None) -> list[str]:
    """The ids of the instances of storage ``name`` (of all when ``None``)
    attached to this unit, sorted (``data/0``, ``data/1``)."""
    return list(_call(_wit.storage.storage_list, name))


def storage_get(id: str) -> Storage:  # noqa: A002
    """One storage instance by id (``data/0``): its kind and location."""
    s = _call(_wit.storage.storage_get, id)
    return Storage(s.id, s.kind, s.location)


def storages(name: str) -> list[Storage]:
    """Every instance of storage ``name`` attached to this unit (ops'
    ``Model.storages[name]``)."""
    return [storage_get(i) for i in storage_list(name)]


def request_storage(name: str, count: int = 1) -> None:
    """Ask Juju for ``count`` more instances of storage ``name`` (ops'
    ``Model.storages.request``). Kept only if the handler returns, sent at
    the end of the event; each instance comes later, in its own
    ``<name>-storage-attached`` event. A name metadata.yaml does not
    declare, a count of 0 or over 64: :class:`~wasm_charm.errors.InvalidArgument`."""
    _call(_wit.storage.storage_add, name, count)
