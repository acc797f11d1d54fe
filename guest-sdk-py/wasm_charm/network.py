"""The network of this unit's bindings (``network-get``): ops'
``Model.get_binding(…).network``.

>>> from wasm_charm.network import get_binding, Network
>>> get_binding("website")
Binding('website')
>>> Network([], ["192.0.2.1"], []).ingress_address
'192.0.2.1'
"""

from __future__ import annotations

import dataclasses
from typing import Optional

from . import _wit
from .errors import model_error


def _call(fn, *args):  # noqa: ANN001, ANN202
    return _wit.call(model_error, fn, *args)


@dataclasses.dataclass(frozen=True)
class InterfaceAddress:
    """One address of a network interface."""

    hostname: str
    """The address's host name, often empty."""
    value: str
    """The address (``10.0.0.5``)."""
    cidr: str
    """Its subnet (``10.0.0.0/24``)."""


@dataclasses.dataclass(frozen=True)
class BindAddress:
    """One network interface a binding is bound to (ops' ``NetworkInterface``)."""

    mac_address: str
    interface_name: str
    """``eth0``."""
    addresses: list[InterfaceAddress]


@dataclasses.dataclass(frozen=True)
class Network:
    """What ``network-get`` says of a binding (ops' ``Network``).

    >>> eth0 = BindAddress("", "eth0", [InterfaceAddress("", "10.0.0.5", "10.0.0.0/24")])
    >>> Network([BindAddress("", "lo", []), eth0], [], []).bind_address
    '10.0.0.5'
    """

    bind_addresses: list[BindAddress]
    """The interfaces the binding is bound to."""
    ingress_addresses: list[str]
    """The addresses other units should reach this one at."""
    egress_subnets: list[str]
    """The subnets this unit's traffic comes from."""

    @property
    def interfaces(self) -> list[BindAddress]:
        """ops' name for :attr:`bind_addresses`."""
        return self.bind_addresses

    @property
    def bind_address(self) -> Optional[str]:
        """The first address of the first interface that has one (ops'
        ``Network.bind_address``)."""
        return next((i.addresses[0].value for i in self.bind_addresses if i.addresses), None)

    @property
    def ingress_address(self) -> Optional[str]:
        """The first address other units should reach this one at (ops'
        ``Network.ingress_address``)."""
        return self.ingress_addresses[0] if self.ingress_addresses else None


class Binding:
    """A binding: an endpoint or extra-binding name, seen from one relation
    when made from one (ops' ``Binding``)."""

    __slots__ = ("name", "_relation")

    def __init__(self, name: str, relation: Optional[tuple[str, int]] = None) -> None:
        self.name = name
        """The endpoint or extra-binding."""
        self._relation = relation

    def __repr__(self) -> str:
        return f"Binding({self.name!r})" if self._relation is None else f"Binding({self.name!r}, {self._relation!r})"

    @property
    def network(self) -> Network:
        """The binding's network, as seen from its relation when it has one
        (``network-get -r``). A binding the charm does not declare is
        :class:`~wasm_charm.errors.InvalidArgument`; one Juju has no network
        for, :class:`~wasm_charm.errors.NotFound`."""
        relation = None if self._relation is None else _wit.types.RelationRef(*self._relation)
        n = _call(_wit.network.network_get, self.name, relation)
        return Network(
            [
                BindAddress(
                    b.mac_address,
                    b.interface_name,
                    [InterfaceAddress(a.hostname, a.value, a.cidr) for a in b.addresses],
                )
                for b in n.bind_addresses
            ],
            list(n.ingress_addresses),
            list(n.egress_subnets),
        )


def get_binding(key) -> Binding:  # noqa: ANN001
    """The binding called ``key`` (an endpoint or extra-binding name), or of
    a relation's endpoint seen from that relation (``key`` a
    :class:`~wasm_charm.model.Relation` or an event's
    :class:`~wasm_charm.RelationEvent`): ops' ``Model.get_binding``.

    >>> from wasm_charm.model import Relation
    >>> get_binding(Relation("db", 3))
    Binding('db', ('db', 3))
    """
    if isinstance(key, str):
        return Binding(key)
    endpoint = getattr(key, "endpoint", None) or getattr(key, "name", None)
    if not isinstance(endpoint, str) or not isinstance(getattr(key, "id", None), int):
        raise TypeError(f"wasm_charm: {key!r} is neither a binding's name nor a relation")
    return Binding(endpoint, (endpoint, key.id))
