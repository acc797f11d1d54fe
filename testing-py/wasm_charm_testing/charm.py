"""A charm to run events on, and the ``wasm-charm serve`` it runs them in."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any, Optional

from .event import Event
from .outcome import Outcome
from .state import State

PROTOCOL = "wasm-charm-harness"
VERSION = 1


class Error(Exception):
    """What ``wasm-charm serve`` refused: ``kind`` is the protocol's
    (``usage``, ``build``, ``state``, ``io``, ``protocol``)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message


class _Server:
    """One ``wasm-charm serve`` for the process, one request at a time."""

    def __init__(self) -> None:
        exe = os.environ.get("WASM_CHARM") or shutil.which("wasm-charm")
        if not exe:
            raise Error(
                "io",
                "wasm-charm not found: set WASM_CHARM or put wasm-charm on PATH "
                "(`cargo install --path host` in the wasm-charm repository)",
            )
        try:
            self.process = subprocess.Popen(
                [exe, "serve"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                bufsize=1,
            )
        except OSError as e:
            raise Error("io", f"{exe}: cannot run it: {e}") from None
        hello = self._line()
        if hello.get("protocol") != PROTOCOL or hello.get("version") != VERSION:
            self.close()
            raise Error(
                "protocol",
                f"{exe} speaks {hello.get('protocol')} version {hello.get('version')}; "
                f"this harness speaks {PROTOCOL} version {VERSION}: install the wasm-charm "
                "of the harness's release",
            )
        self.lock = threading.Lock()

    def _line(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise Error("io", f"wasm-charm serve ended (exit {self.process.poll()})")
        return json.loads(line)

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            assert self.process.stdin is not None
            self.process.stdin.write(json.dumps({"version": VERSION, **request}) + "\n")
            self.process.stdin.flush()
            reply = self._line()
        if "error" in reply:
            raise Error(reply["error"]["kind"], reply["error"]["message"])
        return reply["result"]

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


_server: Optional[_Server] = None


def _serve() -> _Server:
    global _server
    if _server is None:
        _server = _Server()
        atexit.register(_server.close)
    return _server


class Charm:
    """A packed charm directory to run events on."""

    def __init__(self, dir: str, name: str) -> None:  # noqa: A002
        self.dir = dir
        self.name = name

    @classmethod
    def build(cls, project: str | os.PathLike[str]) -> Charm:
        """Pack the project (Rust or Python) as ``wasm-charm run <project>``
        does: into ``<project>/target/wasm-charm/<name>``, only when it changed."""
        result = _serve().call({"op": "pack", "project": str(Path(project).resolve())})
        return cls(result["charm"], result["name"])

    @classmethod
    def load(cls, dir: str | os.PathLike[str]) -> Charm:  # noqa: A002
        """A charm directory packed already."""
        result = _serve().call({"op": "load", "charm": str(Path(dir).resolve())})
        return cls(result["charm"], result["name"])

    def run(self, state: State, event: Event) -> Outcome:
        """Run ``event`` from ``state`` in a fresh workload root; a failed
        hook is an outcome too, a refusal an :class:`Error`."""
        with tempfile.TemporaryDirectory(prefix="wasm-charm-testing-") as tmp:
            root = Path(tmp) / "root"
            root.mkdir()
            request: dict[str, Any] = {
                "op": "run",
                "charm": self.dir,
                "state": state.doc,
                "event": event.to_json(state.config_values),
                "root": str(root),
                "state-file": str(Path(tmp) / "state.yaml"),
            }
            seed = state._seed()
            if seed is not None:
                request["seed"] = seed
            try:
                reply = _serve().call(request)
            except Error as e:
                raise Error(e.kind, f"charm {self.name}, event {event.name}: {e.message}") from None
        return Outcome(self.name, event.name, reply)
