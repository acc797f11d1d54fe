"""The first-party interfaces through the Python SDK's typed bags, each in
a handler with a scope of its own, as tests/guests/contracts does in Rust:

* certificate_transfer v1, both sides: the leader sends ``count``
  certificates on every ``send-ca`` relation; ``receive-ca`` shows how many
  certificates came, and the leader says which version it speaks when such
  a relation is made;
* tracing v2, the requirer: the leader asks for ``otlp_http`` and
  ``otlp_grpc``; ``tracing`` shows the OTLP/HTTP receiver once the provider
  published it.
"""

from __future__ import annotations

from typing import Optional

from wasm_charm import Charm, Event, EventKind, On, Status, export_charm, interfaces, model

transfer = interfaces.certificate_transfer_v1
tracing_v2 = interfaces.tracing_v2


def ours() -> list[str]:
    """The certificates this charm sends: ``count`` of them, named by the app."""
    count = int(model.config().get("count", 0) or 0)
    app = model.app_name()
    return sorted(
        f"-----BEGIN CERTIFICATE-----\n{app}-{n}\n-----END CERTIFICATE-----"
        for n in range(1, max(count, 0) + 1)
    )


def send(event: Event) -> Optional[Status]:
    if not model.is_leader():
        return None
    wanted = transfer.ProviderApp(certificates=ours(), version=1)
    for relation in model.relations("send-ca"):
        # Only when it changed: the other side sees no event otherwise.
        relation.write_if_changed(wanted)
    return None


def receive(event: Event) -> Optional[Status]:
    relations = model.relations("receive-ca")
    if not relations:
        return Status.blocked("needs a receive-ca relation")
    received: set[str] = set()
    for relation in relations:
        here = event.relation
        created = (
            here is not None and here.id == relation.id and event.kind == EventKind.RELATION_CREATED
        )
        if created and model.is_leader():
            relation.write(transfer.RequirerApp(version=1))
        sent = relation.read(transfer.ProviderApp)
        if sent is not None:
            received.update(sent.certificates)
    if not received:
        return Status.waiting("waiting for certificates")
    return Status.active(f"received {len(received)} certificates")


def trace(event: Event) -> Optional[Status]:
    relation = model.get_relation("tracing")
    if relation is None:
        return None
    if model.is_leader():
        relation.write_if_changed(tracing_v2.RequirerApp(receivers=["otlp_grpc", "otlp_http"]))
    published = relation.read(tracing_v2.ProviderApp)
    receivers = published.receivers if published is not None else []
    http = next((r for r in receivers if r["protocol"]["name"] == "otlp_http"), None)
    if http is None:
        return Status.waiting("waiting for a tracing receiver")
    return Status.active(f"tracing to {http['url']}")


charm = (
    Charm()
    .observe("send", On.relation("send-ca") | On.config_changed() | On.leader_elected(), send)
    .observe("receive", On.install() | On.relation("receive-ca"), receive)
    .observe("tracing", On.install() | On.relation("tracing") | On.leader_elected(), trace)
)
export_charm(charm)
