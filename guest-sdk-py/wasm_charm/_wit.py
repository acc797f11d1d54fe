"""The WIT contract's bindings, as componentize-py generates them at pack time.

Outside a component (a charm's unit tests on CPython) the bindings do not
exist: every interface is then a stand-in whose calls raise
:class:`NotInComponent`, so the pure logic of a charm stays testable.
"""

from __future__ import annotations

from typing import Any, Callable


class NotInComponent(RuntimeError):
    """A host interface was called outside a charm component."""


class _Absent:
    """An interface the host answers, used outside a component."""

    def __init__(self, interface: str) -> None:
        self._interface = interface

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotInComponent(
            f"wasm_charm: `{self._interface}.{name}` is answered by the wasm-charm host; "
            "this code runs outside a charm component (pack the charm and run it with "
            "`wasm-charm run` or the harness)"
        )


try:
    # Imported at build time, so they are in the component's snapshot:
    # componentize-py cannot import modules at run time.
    from componentize_py_types import Err as WitErr
    from wit_world.imports import action as action
    from wit_world.imports import model as model
    from wit_world.imports import network as network
    from wit_world.imports import pebble as pebble
    from wit_world.imports import ports as ports
    from wit_world.imports import probe as probe
    from wit_world.imports import relations as relations
    from wit_world.imports import secrets as secrets
    from wit_world.imports import status as status
    from wit_world.imports import storage as storage
    from wit_world.imports import stored as stored
    from wit_world.imports import types as types
    from wit_world.imports import workload as workload

    IN_COMPONENT = True
except ImportError:
    IN_COMPONENT = False

    class WitErr(Exception):  # type: ignore[no-redef]
        """The bindings' error of a `result`, outside a component never raised."""

        def __init__(self, value: Any) -> None:
            super().__init__(value)
            self.value = value

    action = _Absent("action")  # type: ignore[assignment]
    model = _Absent("model")  # type: ignore[assignment]
    network = _Absent("network")  # type: ignore[assignment]
    pebble = _Absent("pebble")  # type: ignore[assignment]
    ports = _Absent("ports")  # type: ignore[assignment]
    probe = _Absent("probe")  # type: ignore[assignment]
    relations = _Absent("relations")  # type: ignore[assignment]
    secrets = _Absent("secrets")  # type: ignore[assignment]
    status = _Absent("status")  # type: ignore[assignment]
    storage = _Absent("storage")  # type: ignore[assignment]
    stored = _Absent("stored")  # type: ignore[assignment]
    types = _Absent("types")  # type: ignore[assignment]
    workload = _Absent("workload")  # type: ignore[assignment]


def call(error: Callable[[Any], Exception], fn: Callable[..., Any], *args: Any) -> Any:
    """Call the host's ``fn``; its WIT ``err`` raised as the SDK's exception
    ``error(value)`` (each module passes its own mapping).

    >>> call(ValueError, lambda x: x + 1, 1)
    2
    """
    try:
        return fn(*args)
    except WitErr as e:
        raise error(e.value) from None
