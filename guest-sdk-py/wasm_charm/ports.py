"""The ports Juju opens for this unit: ops' ``Unit.open_port``,
``close_port``, ``opened_ports`` and ``set_ports`` (``open-port``,
``close-port``, ``opened-ports``), also as ``model.unit.open_port`` ….

Requests are checked at the call by Juju's rules, then kept only if the
handler returns and sent at the end of the event, as Juju applies them when
the hook succeeds.

>>> from wasm_charm.ports import Port
>>> Port("tcp", 8080)
Port(protocol='tcp', port=8080, to=None)
>>> Port("udp", 9000, to=9010).to
9010
"""

from __future__ import annotations

import dataclasses
from typing import Iterable, Optional, Union

from . import _wit
from .errors import InvalidArgument, model_error

_PROTOCOLS = ("tcp", "udp", "icmp")


def _call(fn, *args):  # noqa: ANN001, ANN202
    return _wit.call(model_error, fn, *args)


@dataclasses.dataclass(frozen=True)
class Port:
    """A port, or a range of ports (``to``, machine charms only), of one
    protocol (ops' ``Port``); ICMP has none.

    >>> Port("icmp")
    Port(protocol='icmp', port=None, to=None)
    >>> Port("tcp")
    Traceback (most recent call last):
    ...
    wasm_charm.errors.InvalidArgument: invalid argument: a tcp port needs a number (1-65535)
    """

    protocol: str = "tcp"
    """``tcp``, ``udp`` or ``icmp``."""
    port: Optional[int] = None
    """The port (the first of a range); ``None`` for ICMP."""
    to: Optional[int] = None
    """The last port of a range; ``None`` for one port."""

    def __post_init__(self) -> None:
        if self.protocol not in _PROTOCOLS:
            raise InvalidArgument(f"protocol {self.protocol!r}: use tcp, udp or icmp")
        if self.protocol == "icmp":
            if self.port is not None or self.to is not None:
                raise InvalidArgument("icmp has no port")
            return
        if not isinstance(self.port, int) or not 1 <= self.port <= 65535:
            raise InvalidArgument(f"a {self.protocol} port needs a number (1-65535)")
        if self.to is not None and (not isinstance(self.to, int) or not self.port <= self.to <= 65535):
            raise InvalidArgument(f"range {self.port}-{self.to}: its end is {self.port} to 65535")

    def _to_wit(self):  # noqa: ANN202 - a bindings type
        wit = _wit.ports
        first = self.port or 0
        return wit.PortRange(getattr(wit.Protocol, self.protocol.upper()), first, self.to or first)


@dataclasses.dataclass(frozen=True)
class OpenedPort:
    """One line of ``opened-ports``: the port, and the endpoints it is open
    for (``None``: every endpoint)."""

    port: Port
    endpoints: Optional[tuple[str, ...]]


def _endpoints(endpoints: Optional[Iterable[str]]) -> Optional[list[str]]:
    if endpoints is None:
        return None
    if isinstance(endpoints, str):
        return [endpoints]
    return list(endpoints) or None


def open_port(
    protocol: str = "tcp",
    port: Optional[int] = None,
    *,
    to: Optional[int] = None,
    endpoints: Optional[Iterable[str]] = None,
) -> None:
    """Ask Juju to open ``port`` (or the range ``port``-``to``) of
    ``protocol``, for every endpoint or for ``endpoints`` (ops'
    ``Unit.open_port``). Refused at the call, in Juju's words, when it
    overlaps another range of this unit's."""
    _call(_wit.ports.open_port, Port(protocol, port, to)._to_wit(), _endpoints(endpoints))


def close_port(
    protocol: str = "tcp",
    port: Optional[int] = None,
    *,
    to: Optional[int] = None,
    endpoints: Optional[Iterable[str]] = None,
) -> None:
    """Ask Juju to close a port or range (ops' ``Unit.close_port``); applied
    as :func:`open_port` is."""
    _call(_wit.ports.close_port, Port(protocol, port, to)._to_wit(), _endpoints(endpoints))


def _port_of_wit(value) -> Port:  # noqa: ANN001
    protocol = value.protocol.name.lower()
    if protocol == "icmp":
        return Port("icmp")
    return Port(protocol, value.from_, None if value.to == value.from_ else value.to)


def opened_port_lines() -> list[OpenedPort]:
    """The ports open for this unit, with the endpoints each is open for,
    this event's own requests merged in (Juju's ``opened-ports
    --endpoints``)."""
    return [
        OpenedPort(
            _port_of_wit(p.port), None if p.endpoints is None else tuple(p.endpoints)
        )
        for p in _call(_wit.ports.opened_ports)
    ]


def opened_ports() -> set[Port]:
    """The ports open for this unit, for any endpoint, with this event's own
    requests merged in (ops' ``Unit.opened_ports``)."""
    return {line.port for line in opened_port_lines()}


def _as_port(port: Union[int, Port]) -> Port:
    return Port("tcp", port) if isinstance(port, int) else port


def set_ports(*ports: Union[int, Port]) -> None:
    """Make exactly ``ports`` open (a number is a TCP port): close the others,
    open those missing (ops' ``Unit.set_ports``).

    >>> # in a handler: ports.set_ports(8080, Port("udp", 53))
    """
    wanted = {_as_port(p) for p in ports}
    current = opened_ports()
    for port in sorted(current - wanted, key=repr):
        close_port(port.protocol, port.port, to=port.to)
    for port in sorted(wanted - current, key=repr):
        open_port(port.protocol, port.port, to=port.to)
