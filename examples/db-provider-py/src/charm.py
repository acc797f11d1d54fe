"""A database provider of the ``postgresql_client`` interface, in Python:
the twin of ``examples/db-provider``. The SDK's ``DatabaseProvider``
answers v0's ``database`` and v1's ``requests`` as the data platform's
libraries do; the charm says where its units are and makes each
relation's user (its passwords are derived from the relation, not drawn
at random: it is the other side of tests and examples)."""

from __future__ import annotations

from typing import Optional

from wasm_charm import Charm, Event, On, Status, export_charm, model
from wasm_charm.database import DatabaseProvider, Request, User
from wasm_charm.network import get_binding

PORT = 5432


def address(binding: str) -> str:
    return get_binding(binding).network.bind_address or "127.0.0.1"


def cluster(event: Event) -> Optional[Status]:
    """Publish this unit's address to its peers."""
    peers = model.get_relation("cluster")
    if peers is None:
        return None
    mine = address("cluster")
    if peers.local_unit_data().get("address") != mine:
        peers.set_local_unit_data({"address": mine})
    return None


def endpoints() -> str:
    """Every unit's ``host:port``, sorted and joined by commas."""
    hosts = {address("database")}
    peers = model.get_relation("cluster")
    if peers is not None:
        for unit in peers.units:
            theirs = peers.unit_data(unit).get("address")
            if theirs:
                hosts.add(theirs)
    return ",".join(f"{h}:{PORT}" for h in sorted(hosts))


def new_user(request: Request) -> User:
    rid = request.relation.id
    return User(username=f"relation_{rid}", password=f"pw-{model.app_name()}-{rid}-0")


def database(event: Event) -> Optional[Status]:
    """The leader answers every request; the others are replicas."""
    if not model.is_leader():
        return Status.active("replica")
    served = DatabaseProvider("database").answer(endpoints(), new_user)
    return Status.active(f"serving {served} database{'' if served == 1 else 's'}")


charm = (
    Charm()
    .observe("cluster", On.install() | On.relation("cluster"), cluster)
    .observe(
        "database",
        On.relation("database") | On.relation("cluster") | On.leader_elected() | On.config_changed(),
        database,
    )
)
export_charm(charm)
