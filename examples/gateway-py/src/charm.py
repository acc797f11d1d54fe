"""The gateway charm of the scoped-status problem, in Python on wasm-charm.

The same charm as ``examples/gateway`` (Rust), with the same messages, and
tested by the same scenario file (``tests/scenarios/gateway.yaml``). Three
independent concerns, each a handler with a scope of its own, so that one
concern going well never hides another's problem:

* ``config``: blocked until config ``kind`` is ``ingress`` or ``egress``;
* ``pilot``: blocked without the istio-pilot relation, waiting without its
  data;
* ``leader``: waiting until this unit is the leader.
"""

from __future__ import annotations

from typing import Optional

from wasm_charm import Charm, Event, On, Status, export_charm, model


def config(event: Event) -> Optional[Status]:
    """Blocked until ``kind`` says which gateway this is."""
    if model.config().get("kind", "") in ("ingress", "egress"):
        return None
    return Status.blocked("Config item `kind` must be set")


def pilot(event: Event) -> Optional[Status]:
    """Blocked without the istio-pilot relation, waiting until the pilot
    application has published its service."""
    # A relation being broken is no longer listed by the host.
    relation = model.get_relation("istio-pilot")
    if relation is None or relation.app is None:
        return Status.blocked("Waiting for istio-pilot relation")
    data = relation.app_data()
    if not data.get("service-name") or not data.get("service-port"):
        return Status.waiting("Waiting for istio-pilot relation data")
    return None


def leader(event: Event) -> Optional[Status]:
    """Waiting until this unit leads the application."""
    if model.is_leader():
        return None
    return Status.waiting("Waiting for leadership")


charm = (
    Charm()
    .observe("config", On.install() | On.config_changed(), config)
    .observe("pilot", On.install() | On.relation("istio-pilot"), pilot)
    .observe("leader", On.install() | On.leader_elected() | On.config_changed(), leader)
)

export_charm(charm)
