"""Service probes declared in the charm's manifest, ``wasm-charm.yaml``.

A charm runs only the probes its manifest declares, by name: it names no
host, port or unit of its own. Probes that gate readiness are run by the
host at every event, after the handlers: while one fails, the unit is not
``active``. A handler can also :func:`run` a probe to look for itself,
choose which probes gate (:func:`gate`, :func:`ungate`, :func:`gate_only`)
and :func:`restart_grace` after restarting what a probe watches. Gating
choices and grace restarts take effect when the handler returns, and are
kept across events. Errors: :class:`~wasm_charm.errors.ProbeUndeclared`,
:class:`~wasm_charm.errors.ProbeFailed`.

>>> from wasm_charm import Status, probe
>>> def api(event):
...     result = probe.run("api")
...     if not result.healthy:
...         return Status.maintenance(f"api: {result.detail}")
...     return None
"""

from __future__ import annotations

import dataclasses
from typing import Iterable

from . import _wit
from .errors import ProbeUndeclared, probe_error


def _call(fn, *args):  # noqa: ANN001, ANN202
    return _wit.call(probe_error, fn, *args)


@dataclasses.dataclass(frozen=True)
class ProbeResult:
    """What one run of a probe found."""

    healthy: bool
    """The probe's expectation held (up, or down for ``expect: down``)."""
    detail: str
    """What was seen (``port 127.0.0.1:8774 not listening``)."""


@dataclasses.dataclass(frozen=True)
class Gating:
    """A declared probe and whether it gates readiness now."""

    name: str
    gate: bool


def run(name: str) -> ProbeResult:
    """Run probe ``name`` now, with its declared timeout, retries and
    back-off (cut to the handler's deadline). It changes no status."""
    r = _call(_wit.probe.run, name)
    return ProbeResult(r.healthy, r.detail)


def gates() -> list[Gating]:
    """Every declared probe, sorted by name, and whether it gates readiness
    now (the manifest's ``gate:`` until a handler chose otherwise)."""
    return [Gating(g.name, g.gate) for g in _wit.probe.gates()]


def gate(name: str) -> None:
    """Make probe ``name`` gate readiness from this event on; its grace
    period starts."""
    _call(_wit.probe.set_gate, name, True)


def ungate(name: str) -> None:
    """Make probe ``name`` stop gating readiness from this event on; its
    scope is cleared."""
    _call(_wit.probe.set_gate, name, False)


def gate_only(names: Iterable[str]) -> None:
    """Make exactly the probes ``names`` gate readiness, and no other
    declared probe (a release's process map, the ``expect: down`` probes
    of a paused unit). Changes nothing if a name is not declared."""
    wanted = [names] if isinstance(names, str) else list(names)
    declared = gates()
    unknown = [n for n in wanted if all(g.name != n for g in declared)]
    if unknown:
        raise ProbeUndeclared(f"no probe named `{unknown[0]}` is declared in wasm-charm.yaml")
    for g in declared:
        if g.gate != (g.name in wanted):
            _call(_wit.probe.set_gate, g.name, not g.gate)


def restart_grace(name: str) -> None:
    """Start probe ``name``'s grace period again, after restarting what it
    watches: for its grace period a failure shows as maintenance, not
    blocked."""
    _call(_wit.probe.restart_grace, name)
