"""The conformance suite's test charm in Python (docs/conformance.md).

The same charm as ``tests/guests/conformance`` (Rust): three handlers
(``alpha``, ``beta``, and ``urgent`` in the critical band) observe the same
events, and each does what the plan in its config option says, with the
same plan language (the table in that charm's ``src/lib.rs``), so the
suite's files run unchanged on a Python charm.

Where Python does not trap on its own, the charm makes the trap the Rust
charm gets:

* ``panic <message…>``: an uncaught exception is the handler's error, not
  a trap, so the message goes to stderr (as Rust's panic message does) and
  ``os.abort()`` reaches wasm's ``unreachable``;
* ``oom``: past the manifest's memory limit the host refuses to grow the
  memory and CPython raises ``MemoryError``; the charm then aborts, and the
  host names the limit;
* ``stack``: CPython stops deep recursion with ``RecursionError`` well
  before the wasm stack ends; the charm raises the limit and recurses
  through C calls, which use the wasm stack.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Optional

from wasm_charm import (
    Charm,
    Event,
    On,
    Priority,
    Status,
    StatusKind,
    Target,
    export_charm,
    log,
    model,
    probe,
    status,
    stored,
    workload,
)
from wasm_charm.errors import Error

KINDS = {k.value: k for k in StatusKind}
BANDS = {"set": Priority.NORMAL, "set-critical": Priority.CRITICAL, "set-low": Priority.LOW}
TRIES = ("try-read", "try-write", "try-service", "try-command", "try-probe")


def run_plan(handler: str, event: Event) -> Optional[Status]:
    """Run handler ``handler``'s plan for ``event``."""
    text = model.config().get(handler, "")
    if not isinstance(text, str):
        text = ""
    for command in (c.strip() for c in text.split(";")):
        if command:
            done, result = step(handler, event, command)
            if done:
                return result
    return None


def step(handler: str, event: Event, command: str) -> tuple[bool, Optional[Status]]:
    """One command: ``(True, status)`` when it ends the plan."""
    words = command.split()
    verb, args = words[0], words[1:]

    def bad() -> Error:
        return Error(f"plan of {handler}: cannot read `{command}`")

    def arg(i: int) -> str:
        if i >= len(args):
            raise bad()
        return args[i]

    def rest(start: int) -> str:
        if start > len(args):
            raise bad()
        return " ".join(args[start:])

    def status_at(start: int) -> Status:
        kind = KINDS.get(arg(start))
        if kind is None:
            raise bad()
        return Status(kind, rest(start + 1))

    if verb == "return":
        return True, None if arg(0) == "none" else status_at(0)
    if verb in BANDS:
        status.set(Target.UNIT, arg(0), status_at(1), BANDS[verb])
    elif verb == "clear":
        status.clear(Target.UNIT, arg(0))
    elif verb == "app-set":
        status.set(Target.APP, arg(0), status_at(1))
    elif verb == "app-clear":
        status.clear(Target.APP, arg(0))
    elif verb == "relation-set":
        status.set_relation(relation(event), status_at(0))
    elif verb == "relation-clear":
        status.clear_relation(relation(event))
    elif verb == "unit-set":
        status.set_remote_unit(remote_unit(event), status_at(0))
    elif verb == "unit-clear":
        status.clear_remote_unit(remote_unit(event))
    elif verb == "relation-data":
        for r in model.relations("db"):
            r.set_local_unit_data({arg(0): rest(1)})
    elif verb == "store":
        stored.set_raw(arg(0), rest(1))
    elif verb == "gate":
        (probe.gate if arg(1) == "on" else probe.ungate)(arg(0))
    elif verb == "restart-grace":
        probe.restart_grace(arg(0))
    elif verb in ("start", "stop", "restart"):
        getattr(workload, verb)(arg(0))
    elif verb in TRIES:
        target = arg(0)
        log.info(f"tried {verb} {target}: {attempt(verb, target)}")
    elif verb == "log":
        log.info(rest(0))
    elif verb == "err":
        raise Error(rest(0))
    elif verb == "panic":
        trap(rest(0))
    elif verb == "loop":
        spin()
    elif verb == "oom":
        exhaust_memory()
    elif verb == "stack":
        log.info(f"depth {recurse()}")
    elif verb == "sleep":
        # A WASI poll that blocks inside the host, far past the deadline.
        time.sleep(3600)
    else:
        raise bad()
    return False, None


def attempt(verb: str, target: str) -> str:
    """One ``try-*`` command: ``ok``, or ``refused: <why>``."""
    try:
        if verb == "try-read":
            with open(target, "rb") as f:
                f.read()
        elif verb == "try-write":
            with open(target, "w") as f:
                f.write("written by the conformance charm")
        elif verb == "try-service":
            workload.restart(target)
        elif verb == "try-command":
            workload.run(target, [])
        else:
            probe.run(target)
    except (Error, OSError) as e:
        return f"refused: {e}"
    return "ok"


def relation(event: Event) -> model.Relation:
    r = event.relation
    if r is None:
        raise Error(f"{event.kind.value} is not a relation event")
    return model.Relation(r.endpoint, r.id)


def remote_unit(event: Event) -> str:
    r = event.relation
    unit = None if r is None else (r.departing_unit or r.remote_unit)
    if unit is None:
        raise Error(f"{event.kind.value} has no remote unit")
    return unit


def trap(message: str) -> None:
    """A trap, as a Rust panic is: the message on stderr, then wasm's
    ``unreachable`` (WASI's ``abort``)."""
    print(message, file=sys.stderr, flush=True)
    os.abort()


def spin() -> None:
    """Spins until the host's deadline stops it."""
    counter = 0
    while True:
        counter += 1


def exhaust_memory() -> None:
    """Allocates and fills 1 MiB blocks until the host refuses more memory."""
    blocks = []
    try:
        while True:
            blocks.append(b"\x01" * (1 << 20))
    except MemoryError:
        # CPython survives a failed allocation; the limit is a trap, as for
        # any charm. The host sees the refused growth and names the limit.
        blocks.clear()
        trap("out of memory")


def recurse() -> int:
    """Recurses until the wasm stack overflows (a trap)."""
    sys.setrecursionlimit(1 << 30)

    def down(depth: int) -> int:
        # Through a C call (`map`), so each level is a new interpreter frame
        # on the wasm stack, not only a Python frame on the heap.
        return sum(map(down, (depth + 1,)))

    try:
        return down(0)
    except RecursionError:
        trap("recursion stopped before the stack overflowed")
    return 0


def handler(name: str):  # noqa: ANN201
    return lambda event: run_plan(name, event)


def on() -> On:
    return (
        On.install()
        | On.start()
        | On.config_changed()
        | On.update_status()
        | On.upgrade_charm()
        | On.leader_elected()
        | On.leader_settings_changed()
        | On.relation("db")
        | On.action("act")
    )


charm = (
    Charm()
    .observe("alpha", on(), handler("alpha"))
    .observe("beta", on(), handler("beta"))
    .observe("urgent", on(), handler("urgent"), priority=Priority.CRITICAL)
)
export_charm(charm)
