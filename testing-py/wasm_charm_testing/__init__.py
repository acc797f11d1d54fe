"""Test a wasm-charm charm's events from pytest (or any Python test runner).

The Python harness speaks the harness protocol (docs/harness-protocol.md)
with ``wasm-charm serve``, as the Rust harness (``wasm-charm-testing``)
does, with its vocabulary: a :class:`State` before the event, an
:class:`Event`, an :class:`Outcome` after it. Each run is one ``wasm-charm
run``: the host's own sandbox, merge and store, on the simulated Juju.

>>> from wasm_charm_testing import Event, Relation, State, Status
>>> state = State().config("kind", "ingress").relation(Relation("istio-pilot:0", "pilot"))
>>> state.doc["relations"]["istio-pilot:0"]["app"]
'pilot'
>>> Event.relation_changed("istio-pilot").remote_app_data("service-port", "15010").name
'istio-pilot-relation-changed'
>>> Status.blocked("no kind")
Status('blocked', 'no kind')

A test::

    from wasm_charm_testing import Charm, Event, State, Status

    charm = Charm.build("examples/gateway-py")   # packed once per process

    def test_blocked_without_kind():
        out = charm.run(State(), Event.install())
        out.assert_ok()
        assert out.scope("handler/config") == Status.blocked("Config item `kind` must be set")

``wasm-charm`` is ``$WASM_CHARM``, else ``wasm-charm`` on ``PATH``.
"""

from __future__ import annotations

from .charm import Charm, Error
from .event import Event
from .model import Answer, Model, ModelState
from .outcome import Handler, Outcome
from .state import Relation, State
from .status import Status

__all__ = [
    "Answer",
    "Charm",
    "Error",
    "Event",
    "Handler",
    "Model",
    "ModelState",
    "Outcome",
    "Relation",
    "State",
    "Status",
]
