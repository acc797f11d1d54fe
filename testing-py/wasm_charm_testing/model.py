"""A model of many applications and units, run by the installed
``wasm-charm`` over the harness protocol's ``juju`` and ``model`` requests:
every event of every unit a real ``dispatch`` process, in Juju's order.

    model = Model()
    model.deploy(Charm.load("build/db"), "db", 1)
    model.deploy(Charm.build("."), "app", 3)
    model.juju("integrate", "app", "db")
    now = model.read()
    assert now.unit_status("app/2") == Status.active("connected")
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from typing import Any, Optional

from .charm import Charm, Error, _serve
from .status import Status


@dataclass
class Answer:
    """A ``juju`` command's exit code and output."""

    code: int
    stdout: str
    stderr: str


class Model:
    """An offline model of the test's own (a models directory that goes
    with the object), named ``test``; units run in turn, or in an order
    drawn from ``seed``."""

    def __init__(self, seed: Optional[int] = None) -> None:
        self._home = tempfile.TemporaryDirectory(prefix="wasm-charm-model-")
        self.home = self._home.name
        self.seed = seed
        self.juju("add-model", "test")

    def run(self, *args: str) -> Answer:
        """Run a ``juju`` command on the model, whatever its exit code."""
        r = _serve().call({"op": "juju", "home": self.home, "args": list(args), "seed": self.seed})
        return Answer(r["code"], r["stdout"], r["stderr"])

    def juju(self, *args: str) -> str:
        """Run a ``juju`` command that must succeed; its stdout."""
        a = self.run(*args)
        if a.code != 0:
            raise Error("usage" if a.code == 2 else "io", f"juju {' '.join(args)}: {a.stderr.strip()}")
        return a.stdout

    def deploy(self, charm: Charm, app: str, units: int = 1) -> None:
        self.juju("deploy", charm.dir, app, "-n", str(units))

    def advance(self, by: str) -> None:
        """Let ``by`` pass on the model's clock (a Go duration: ``5m``,
        ``1h30m``): the update-status ticks, secret rotations and expiries
        due on the way run at their time, and the model settles."""
        self.juju("advance", by)

    def read(self) -> ModelState:
        """The model as it stands."""
        return ModelState(_serve().call({"op": "model", "home": self.home, "model": "test"}))


def _status(v: Any) -> Optional[Status]:
    if not isinstance(v, dict) or v.get("status") not in ("active", "waiting", "maintenance", "blocked"):
        return None
    return Status(v["status"], v.get("message") or "")


def _label(e: dict[str, Any]) -> str:
    hook = e["hook"]
    if e.get("remote-unit") and not hook.endswith(("-relation-created", "-relation-broken")):
        return f"{hook} ({e['remote-unit']})"
    if e.get("remote-app") and not e.get("remote-unit") and hook.endswith("-relation-changed"):
        return f"{hook} ({e['remote-app']})"
    return hook


class ModelState:
    """A model read at one moment."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc

    def _unit(self, unit: str) -> dict[str, Any]:
        app, n = unit.rsplit("/", 1)
        return self.doc["apps"][app]["units"][n]

    def units(self, app: str) -> list[str]:
        return [u["name"] for u in self.doc["apps"][app]["units"].values()]

    def leader(self, app: str) -> Optional[str]:
        return self.doc["apps"][app].get("leader")

    def unit_status(self, unit: str) -> Optional[Status]:
        return _status(self._unit(unit)["state"].get("status", {}).get("unit"))

    def app_status(self, app: str) -> Optional[Status]:
        return _status(self.doc["apps"][app].get("status"))

    def error(self, unit: str) -> Optional[str]:
        e = self._unit(unit).get("error")
        return e["message"] if e else None

    def scope(self, unit: str, name: str) -> Optional[Status]:
        s = self.doc.get("stores", {}).get(unit, {}).get("unit", {}).get(name)
        return _status(s.get("current")) if s else None

    def events(self, unit: str) -> list[str]:
        return [_label(r["event"]) for r in self.doc["history"] if r["unit"] == unit]

    def _relation(self, app: str, endpoint: str) -> Optional[dict[str, Any]]:
        for r in self.doc["relations"].values():
            if any(e["app"] == app and e["endpoint"] == endpoint for e in r["ends"]):
                return r
        return None

    def app_data(self, app: str, endpoint: str) -> dict[str, str]:
        r = self._relation(app, endpoint)
        return dict(r["app-data"].get(app, {})) if r else {}

    def unit_data(self, unit: str, endpoint: str) -> dict[str, str]:
        r = self._relation(unit.split("/")[0], endpoint)
        return dict(r["unit-data"].get(unit, {})) if r else {}

    def log(self, unit: str) -> list[str]:
        return [line["line"] for line in self.doc["log"] if line["unit"] == unit]

    def secret(self, uri: str) -> Optional[dict[str, str]]:
        s = self.doc["secrets"].get(uri)
        if not s:
            return None
        return dict(max(s["revisions"], key=lambda r: r["revision"])["content"])
