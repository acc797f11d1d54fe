"""Write Juju charm handlers in Python and run them on the wasm-charm host.

A charm is a list of handlers. Each observes some Juju events and returns
the status of its own scope: a :class:`Status` while it has something to
report, ``None`` when all is well. The host runs every handler that
observes an event, each in a fresh sandboxed instance, and merges every
scope into the unit's status, so one handler's success never hides another
handler's problem. An exception a handler lets escape is its error: its
scope becomes blocked with the message (``on-error: block``), and the
traceback goes to the unit's log.

A charm project's ``src/charm.py``:

>>> from wasm_charm import Charm, On, Status, export_charm, model
>>> def config(event):
...     if model.config().get("kind") not in ("ingress", "egress"):
...         return Status.blocked("Config item `kind` must be set")
...     return None
>>> charm = Charm().observe("config", On.install() | On.config_changed(), config)
>>> export_charm(charm)

``wasm-charm pack`` builds it into a component with componentize-py.

Modules: :mod:`~wasm_charm.status` (statuses and scopes),
:mod:`~wasm_charm.model` (config, leadership, relations, ``app``, ``unit``),
:mod:`~wasm_charm.stored` (data kept between events),
:mod:`~wasm_charm.action` (parameters and results),
:mod:`~wasm_charm.secrets`, :mod:`~wasm_charm.ports`,
:mod:`~wasm_charm.storage`, :mod:`~wasm_charm.network`,
:mod:`~wasm_charm.probe` (the manifest's probes),
:mod:`~wasm_charm.workload` (the manifest's services, commands, packages),
:mod:`~wasm_charm.pebble` (workload containers), :mod:`~wasm_charm.log`,
:mod:`~wasm_charm.errors`.
"""

from . import (
    action,
    errors,
    log,
    model,
    network,
    pebble,
    ports,
    probe,
    secrets,
    status,
    storage,
    stored,
    workload,
)
from .charm import Charm, Handler, Observation, On, export_charm
from .event import (
    ActionEvent,
    CheckEvent,
    Event,
    EventKind,
    NoticeEvent,
    RelationEvent,
    SecretEvent,
    StorageEvent,
)
from .pebble import Container
from .ports import Port
from .secrets import Secret, SecretRotate
from .status import (
    ActiveStatus,
    BlockedStatus,
    MaintenanceStatus,
    Priority,
    Status,
    StatusKind,
    Target,
    WaitingStatus,
)

#: This SDK's version (semver: docs/versions.md).
__version__ = "0.2.0"
#: The version of the WIT package ``wasm-charm:charm`` this SDK's components
#: speak: a host runs them if it implements it (``wasm-charm inspect``).
WIT_VERSION = "0.3.0"

__all__ = [
    "WIT_VERSION",
    "__version__",
    "ActionEvent",
    "ActiveStatus",
    "BlockedStatus",
    "Charm",
    "CheckEvent",
    "Container",
    "Event",
    "EventKind",
    "Handler",
    "MaintenanceStatus",
    "NoticeEvent",
    "Observation",
    "On",
    "Port",
    "Priority",
    "RelationEvent",
    "Secret",
    "SecretEvent",
    "SecretRotate",
    "Status",
    "StatusKind",
    "StorageEvent",
    "Target",
    "WaitingStatus",
    "action",
    "errors",
    "export_charm",
    "log",
    "model",
    "network",
    "pebble",
    "ports",
    "probe",
    "secrets",
    "status",
    "storage",
    "stored",
    "workload",
]
