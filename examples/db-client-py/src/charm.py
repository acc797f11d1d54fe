"""A requirer of the ``postgresql_client`` interface, in Python: the twin of
``examples/db-client``. The SDK's ``DatabaseRequirer`` does the exchange as
``data_interfaces`` does; the charm says what to do with the credentials."""

from __future__ import annotations

from typing import Optional

from wasm_charm import Charm, Status, export_charm, log
from wasm_charm.database import DatabaseEvent, DatabaseRequirer, Kind

WHAT = {
    Kind.CREATED: "database created",
    Kind.ENDPOINTS_CHANGED: "endpoints changed",
    Kind.READ_ONLY_ENDPOINTS_CHANGED: "read-only endpoints changed",
    Kind.UNCHANGED: "credentials read",
}


def connected(event: DatabaseEvent) -> Optional[Status]:
    c = event.credentials
    # Logged so a test sees the event; the password never is, only
    # whether the user's secret held one.
    held = "password read" if c.password else "no password"
    log.info(f"{WHAT[event.kind]}: credentials {c.username} ({held}), CA {c.tls_ca or 'none'}")
    return Status.active(f"connected to {c.endpoints} as {c.username}")


charm = DatabaseRequirer.from_config("database", "database-name").observe(
    Charm(), "connection", connected
)
export_charm(charm)
