"""Pebble in the workload containers of a Kubernetes (sidecar) charm, named
as in ops: a :class:`Container` (:func:`get_container`, or
``model.unit.get_container``) for each container metadata.yaml declares,
with its layers and plan, services, checks, files, commands and notices.

Calls act at once, as Pebble does (a started service stays started even if
the handler fails afterwards), each bounded by the handler's deadline. A
container whose Pebble is not up yet answers :meth:`Container.can_connect`
with ``False`` and its other calls with :class:`ConnectionError`. Commands
run with :meth:`Container.exec` are those wasm-charm.yaml declares for the
container, by name.

>>> from wasm_charm import Status, pebble
>>> LAYER = {
...     "summary": "web",
...     "services": {
...         "web": {"override": "replace", "command": "/usr/bin/web --port 8080", "startup": "enabled"},
...     },
... }
>>> def web(event):
...     container = pebble.get_container("web")
...     if not container.can_connect():
...         return Status.waiting("Waiting for Pebble in web")
...     container.push("/etc/web/web.conf", "port = 8080\\n", make_dirs=True)
...     container.add_layer("web", LAYER, combine=True)
...     container.replan()
...     return None
>>> pebble.Layer(LAYER).to_yaml().splitlines()[0]
'{"services": {"web": {"command": "/usr/bin/web --port 8080", "override": "replace", "startup": "enabled"}}, "summary": "web"}'

ops' exceptions, by their names here: :class:`Error`, :class:`APIError`,
:class:`PathError`, :class:`ConnectionError`, :class:`ChangeError`,
:class:`TimeoutError`, :class:`ProtocolError`, :class:`ExecError`.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import io
import json
from typing import Iterable, Optional, Union

from . import _wit
from .errors import (
    APIError,
    ChangeError,
    ConnectionError,
    ExecError,
    InvalidRequest,
    NotFound,
    PathError,
    PebbleError,
    PebbleTimeoutError,
    PebbleUndeclared,
    ProtocolError,
    pebble_error,
)
from . import _yaml
from .workload import CommandOutput, output_of_wit

#: ops' ``pebble.Error``: every Pebble error.
Error = PebbleError
#: ops' ``pebble.TimeoutError``.
TimeoutError = PebbleTimeoutError  # noqa: A001 - ops' name

__all__ = [
    "APIError",
    "ChangeError",
    "CheckInfo",
    "CheckLevel",
    "CommandOutput",
    "ConnectionError",
    "Container",
    "Error",
    "ExecError",
    "FileInfo",
    "InvalidRequest",
    "Layer",
    "Notice",
    "PathError",
    "Plan",
    "ProtocolError",
    "ServiceInfo",
    "TimeoutError",
    "Undeclared",
    "get_container",
]

#: The container, or the command of ``exec``, is not declared.
Undeclared = PebbleUndeclared

# Signal numbers as Linux has them, for ops' `send_signal(signal.SIGHUP, …)`
# written with numbers: the component has no `signal` module to ask.
_SIGNALS = {
    1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 6: "SIGABRT", 9: "SIGKILL", 10: "SIGUSR1",
    12: "SIGUSR2", 14: "SIGALRM", 15: "SIGTERM", 18: "SIGCONT", 19: "SIGSTOP", 28: "SIGWINCH",
}


def _call(fn, *args, path: bool = False):  # noqa: ANN001, ANN202
    return _wit.call(lambda value: pebble_error(value, path), fn, *args)


def _names(values: tuple, what: str) -> list[str]:
    # ops takes names as *args; a list given as the one argument is taken too.
    if len(values) == 1 and isinstance(values[0], (list, tuple, set, frozenset)):
        values = tuple(values[0])
    for v in values:
        if not isinstance(v, str):
            raise TypeError(f"wasm_charm: {what} are strings, not {v!r}")
    return list(values)


class Layer:
    """A Pebble layer (ops' ``pebble.Layer``): from a dict or YAML text.
    A dict is sent as JSON, which is YAML; text is sent as it is.

    >>> Layer({"services": {"web": {"command": "web"}}}).to_dict()
    {'services': {'web': {'command': 'web'}}}
    >>> Layer("services:\\n  web:\\n    command: web\\n").to_dict()["services"]["web"]["command"]
    'web'
    """

    __slots__ = ("_raw",)

    def __init__(self, raw: Union[str, dict, Layer, None] = None) -> None:
        if isinstance(raw, Layer):
            raw = raw._raw
        if raw is not None and not isinstance(raw, (str, dict)):
            raise TypeError(f"wasm_charm: a layer is a dict or YAML text, not {raw!r}")
        self._raw: Union[str, dict] = {} if raw is None else raw

    def to_dict(self) -> dict:
        """The layer as a dict (YAML text is read with the SDK's reader)."""
        if isinstance(self._raw, dict):
            return self._raw
        value = _yaml.load(self._raw)
        return value if isinstance(value, dict) else {}

    def to_yaml(self) -> str:
        """The layer as Pebble is sent it: the text given, or JSON (keys
        sorted) for a dict."""
        if isinstance(self._raw, str):
            return self._raw
        return json.dumps(self._raw, sort_keys=True) + "\n"

    @property
    def services(self) -> dict:
        """The layer's services, by name, as dicts."""
        return dict(self.to_dict().get("services") or {})

    @property
    def checks(self) -> dict:
        """The layer's checks, by name, as dicts."""
        return dict(self.to_dict().get("checks") or {})

    @property
    def log_targets(self) -> dict:
        """The layer's log targets, by name, as dicts."""
        return dict(self.to_dict().get("log-targets") or {})

    def __repr__(self) -> str:
        return f"Layer({self._raw!r})"


class Plan(Layer):
    """The combined plan of a container (ops' ``pebble.Plan``), as Pebble
    gives it (YAML): :meth:`to_yaml` is its text, :attr:`services`,
    :attr:`checks` and :attr:`log_targets` its entries, as dicts.

    >>> plan = Plan("services:\\n    web:\\n        override: replace\\n        command: /usr/bin/web\\n")
    >>> plan.services["web"]["command"]
    '/usr/bin/web'
    """

    __slots__ = ()


@dataclasses.dataclass(frozen=True)
class ServiceInfo:
    """A service of the plan and its state (ops' ``pebble.ServiceInfo``)."""

    name: str
    startup: str
    """``enabled`` or ``disabled``."""
    current: str
    """``active``, ``inactive``, ``backoff`` or ``error``."""

    def is_running(self) -> bool:
        """Whether it runs (``current`` is ``active``; ops' ``is_running``).

        >>> ServiceInfo("web", "enabled", "active").is_running()
        True
        """
        return self.current == "active"


class CheckLevel(enum.Enum):
    """A check's level (ops' ``pebble.CheckLevel``)."""

    ALIVE = "alive"
    READY = "ready"


@dataclasses.dataclass(frozen=True)
class CheckInfo:
    """A health check and its state (ops' ``pebble.CheckInfo``)."""

    name: str
    level: str
    """``alive``, ``ready``, or empty when the check has none."""
    status: str
    """``up``, ``down`` or ``inactive``."""
    failures: int
    """Failures in a row."""
    threshold: int
    """Failures in a row after which the check is down."""

    def is_up(self) -> bool:
        """Whether it passes (``status`` is ``up``).

        >>> CheckInfo("alive", "alive", "down", 3, 3).is_up()
        False
        """
        return self.status == "up"


@dataclasses.dataclass(frozen=True)
class FileInfo:
    """An entry of a directory listing (ops' ``pebble.FileInfo``)."""

    path: str
    name: str
    type: str
    """``file``, ``directory``, ``symlink``, ``socket``, ``named-pipe``,
    ``device`` or ``unknown``."""
    size: Optional[int]
    permissions: int
    last_modified: str
    """RFC 3339."""
    user_id: Optional[int]
    user: Optional[str]
    group_id: Optional[int]
    group: Optional[str]


@dataclasses.dataclass(frozen=True)
class Notice:
    """A Pebble notice (ops' ``pebble.Notice``); times as RFC 3339 text.

    >>> n = Notice("4", None, "custom", "example.com/db", "", "", "", 1, {"ready": "yes"}, 1500, None)
    >>> n.last_data["ready"], n.repeat_after, n.expire_after
    ('yes', datetime.timedelta(seconds=1, microseconds=500000), None)
    """

    id: str
    user_id: Optional[int]
    type: str
    """``custom``, ``change-update``, ``warning``…"""
    key: str
    """``example.com/db-ready``."""
    first_occurred: str
    last_occurred: str
    last_repeated: str
    occurrences: int
    last_data: dict[str, str]
    """The data of its last occurrence."""
    repeat_after_ms: Optional[int]
    expire_after_ms: Optional[int]

    @property
    def repeat_after(self) -> Optional[datetime.timedelta]:
        """How long after its last repeat before it repeats again, if set."""
        return _ms(self.repeat_after_ms)

    @property
    def expire_after(self) -> Optional[datetime.timedelta]:
        """How long after its last occurrence before Pebble drops it, if set."""
        return _ms(self.expire_after_ms)


def _ms(value: Optional[int]) -> Optional[datetime.timedelta]:
    return None if value is None else datetime.timedelta(milliseconds=value)


def _notice(n) -> Notice:  # noqa: ANN001
    return Notice(
        n.id,
        n.user_id,
        n.type,
        n.key,
        n.first_occurred,
        n.last_occurred,
        n.last_repeated,
        n.occurrences,
        dict(n.last_data),
        n.repeat_after_ms,
        n.expire_after_ms,
    )


def _ownership(user_id, user, group_id, group):  # noqa: ANN001, ANN202 - a bindings type
    return _wit.pebble.Ownership(user, user_id, group, group_id)


class _PullStream(io.RawIOBase):
    """A file read from a container a piece at a time (at most 1 MiB a read)."""

    def __init__(self, reader) -> None:  # noqa: ANN001
        super().__init__()
        self._reader = reader
        self._ended = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # noqa: ANN001
        if self._ended or len(buffer) == 0:
            return 0
        piece = _call(self._reader.read, min(len(buffer), 1 << 20), path=True)
        if not piece:
            self._ended = True
        buffer[: len(piece)] = piece
        return len(piece)

    def close(self) -> None:
        if not self.closed:
            # Dropping the resource ends the read on the host's side.
            exit_ = getattr(self._reader, "__exit__", None)
            if exit_ is not None:
                exit_(None, None, None)
        super().close()


class Container:
    """A workload container declared in metadata.yaml (ops' ``Container``).
    Nothing is checked until a call: one to an undeclared container raises
    :class:`Undeclared`.

    >>> get_container("web")
    Container('web')
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name
        """The container's name in metadata.yaml."""

    def __repr__(self) -> str:
        return f"Container({self.name!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Container) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    # Services, layers, the plan.

    def can_connect(self) -> bool:
        """Whether its Pebble answers now: ``False`` on any failure to reach
        it (ops' ``Container.can_connect``). An undeclared container raises
        :class:`Undeclared`: a charm's bug."""
        return _call(_wit.pebble.can_connect, self.name)

    def add_layer(self, label: str, layer: Union[str, dict, Layer], *, combine: bool = False) -> None:
        """Add a layer labelled ``label``: a dict, YAML text or a
        :class:`Layer` (ops' ``Container.add_layer``). ``combine``: merge it
        into the layer of that label (its entries' ``override`` apply);
        without it, a label that exists is an :class:`APIError`."""
        _call(_wit.pebble.add_layer, self.name, label, Layer(layer).to_yaml(), combine)

    def get_plan(self) -> Plan:
        """The combined plan (ops' ``Container.get_plan``)."""
        return Plan(_call(_wit.pebble.get_plan, self.name))

    def replan(self) -> None:
        """Start the services the plan starts by default and restart those
        whose definition changed, waiting for it (ops' ``Container.replan``)."""
        _call(_wit.pebble.replan, self.name)

    def autostart(self) -> None:
        """Start the services the plan starts by default, leaving running
        ones alone (ops' ``Container.autostart``)."""
        _call(_wit.pebble.autostart, self.name)

    def start(self, *service_names: str) -> None:
        """Start services, waiting for them (ops' ``Container.start``)."""
        _call(_wit.pebble.start, self.name, _names(service_names, "service names"))

    def stop(self, *service_names: str) -> None:
        """Stop services, waiting for them (ops' ``Container.stop``)."""
        _call(_wit.pebble.stop, self.name, _names(service_names, "service names"))

    def restart(self, *service_names: str) -> None:
        """Restart services, starting those stopped (ops' ``Container.restart``)."""
        _call(_wit.pebble.restart, self.name, _names(service_names, "service names"))

    def send_signal(self, sig: Union[int, str], *service_names: str) -> None:
        """Send ``sig`` (``"SIGHUP"``, or its number) to the named running
        services (ops' ``Container.send_signal``)."""
        name = _SIGNALS.get(sig) if isinstance(sig, int) else sig
        if name is None:
            raise InvalidRequest(f"signal {sig!r}: give its name (`SIGHUP`)")
        _call(_wit.pebble.send_signal, self.name, name, _names(service_names, "service names"))

    def get_services(self, *service_names: str) -> dict[str, ServiceInfo]:
        """The plan's services and their state, by name; all when no name is
        given (ops' ``Container.get_services``)."""
        found = _call(_wit.pebble.get_services, self.name, _names(service_names, "service names"))
        return {s.name: ServiceInfo(s.name, s.startup, s.current) for s in found}

    def get_service(self, service_name: str) -> ServiceInfo:
        """One service of the plan (ops' ``Container.get_service``); a
        ``ModelError`` when the plan has none of that name."""
        services = self.get_services(service_name)
        if service_name not in services:
            raise NotFound(f"container {self.name}: service {service_name!r} is not in the plan")
        return services[service_name]

    def get_checks(
        self, *check_names: str, level: Optional[CheckLevel] = None
    ) -> dict[str, CheckInfo]:
        """The plan's checks and their state, by name; all when no name is
        given, only those of ``level`` when given (ops' ``Container.get_checks``)."""
        wit_level = None if level is None else getattr(_wit.pebble.CheckLevel, CheckLevel(level).name)
        found = _call(
            _wit.pebble.get_checks, self.name, _names(check_names, "check names"), wit_level
        )
        return {
            c.name: CheckInfo(c.name, c.level, c.status, c.failures, c.threshold) for c in found
        }

    def get_check(self, check_name: str) -> CheckInfo:
        """One check of the plan (ops' ``Container.get_check``)."""
        checks = self.get_checks(check_name)
        if check_name not in checks:
            raise NotFound(f"container {self.name}: check {check_name!r} is not in the plan")
        return checks[check_name]

    def start_checks(self, *check_names: str) -> list[str]:
        """Start the named checks: those that were stopped and now run (ops'
        ``Container.start_checks``)."""
        return list(_call(_wit.pebble.start_checks, self.name, _names(check_names, "check names")))

    def stop_checks(self, *check_names: str) -> list[str]:
        """Stop the named checks: those that ran and now are stopped (ops'
        ``Container.stop_checks``)."""
        return list(_call(_wit.pebble.stop_checks, self.name, _names(check_names, "check names")))

    # Files.

    def push(
        self,
        path: str,
        source: Union[str, bytes],
        *,
        encoding: str = "utf-8",
        make_dirs: bool = False,
        permissions: Optional[int] = None,
        user_id: Optional[int] = None,
        user: Optional[str] = None,
        group_id: Optional[int] = None,
        group: Optional[str] = None,
    ) -> None:
        """Write ``source`` (text, encoded with ``encoding``, or bytes; at
        most 64 MiB) to the absolute ``path`` (ops' ``Container.push``).
        Pebble's refusals are :class:`PathError`."""
        data = source.encode(encoding) if isinstance(source, str) else bytes(source)
        options = _wit.pebble.PushOptions(
            make_dirs, permissions, _ownership(user_id, user, group_id, group)
        )
        _call(_wit.pebble.push, self.name, path, data, options, path=True)

    def pull(self, path: str, *, encoding: Optional[str] = "utf-8") -> Union[io.StringIO, io.BytesIO]:
        """The file at the absolute ``path`` (at most 8 MiB), as a file object:
        text, or bytes when ``encoding`` is ``None`` (ops' ``Container.pull``).
        :meth:`pull_stream` reads a file of any size."""
        data = bytes(_call(_wit.pebble.pull, self.name, path, path=True))
        return io.BytesIO(data) if encoding is None else io.StringIO(data.decode(encoding))

    def pull_stream(self, path: str, *, encoding: Optional[str] = None):  # noqa: ANN201
        """The file at the absolute ``path``, of any size, read a piece at a
        time: a binary file object (text with ``encoding``). Close it when
        done (``with``): at most 4 are open at once in a handler."""
        raw = _PullStream(_call(_wit.pebble.pull_stream, self.name, path, path=True))
        buffered = io.BufferedReader(raw, 1 << 20)
        return buffered if encoding is None else io.TextIOWrapper(buffered, encoding)

    def list_files(
        self, path: str, *, pattern: Optional[str] = None, itself: bool = False
    ) -> list[FileInfo]:
        """The entries of the directory at ``path`` (or the file itself),
        those whose base name matches the glob ``pattern`` when given;
        ``itself``: the directory, not its entries (ops' ``Container.list_files``)."""
        found = _call(_wit.pebble.list_files, self.name, path, pattern, itself, path=True)
        return [
            FileInfo(
                f.path, f.name, f.kind, f.size, f.permissions, f.last_modified,
                f.user_id, f.user, f.group_id, f.group,
            )
            for f in found
        ]

    def _stat(self, path: str) -> Optional[FileInfo]:
        try:
            found = self.list_files(path, itself=True)
        except APIError as e:
            if e.code == 404 or e.kind == "not-found":
                return None
            raise
        return found[0] if found else None

    def exists(self, path: str) -> bool:
        """Whether anything is at ``path`` (ops' ``Container.exists``)."""
        return self._stat(path) is not None

    def isdir(self, path: str) -> bool:
        """Whether a directory is at ``path`` (ops' ``Container.isdir``)."""
        info = self._stat(path)
        return info is not None and info.type == "directory"

    def make_dir(
        self,
        path: str,
        *,
        make_parents: bool = False,
        permissions: Optional[int] = None,
        user_id: Optional[int] = None,
        user: Optional[str] = None,
        group_id: Optional[int] = None,
        group: Optional[str] = None,
    ) -> None:
        """Create a directory; ``make_parents``: its missing parents too, and
        no error if it exists (ops' ``Container.make_dir``)."""
        options = _wit.pebble.MakeDirOptions(
            make_parents, permissions, _ownership(user_id, user, group_id, group)
        )
        _call(_wit.pebble.make_dir, self.name, path, options, path=True)

    def remove_path(self, path: str, *, recursive: bool = False) -> None:
        """Remove a file or an empty directory; ``recursive``: a directory and
        all in it, and no error if nothing is there (ops' ``Container.remove_path``)."""
        _call(_wit.pebble.remove_path, self.name, path, recursive, path=True)

    # Commands and notices.

    def exec(
        self,
        name: str,
        args: Iterable[str] = (),
        *,
        environment: Optional[dict[str, str]] = None,
        working_dir: Optional[str] = None,
        user_id: Optional[int] = None,
        user: Optional[str] = None,
        group_id: Optional[int] = None,
        group: Optional[str] = None,
        stdin: Union[str, bytes, None] = None,
        encoding: str = "utf-8",
        combine_stderr: bool = False,
    ) -> CommandOutput:
        """Run the command ``name`` that wasm-charm.yaml declares for this
        container (``workload.containers.<container>.commands.<name>``)
        through Pebble's exec: its declared argv, then ``args`` (refused as
        :class:`Undeclared` unless the manifest says ``args: true``), with
        ops' keyword arguments. A non-zero exit is an output, not an error:
        ``exec(…).wait_output()`` raises :class:`ExecError` for it, as ops'
        ``exec(…).wait_output()`` does.

        >>> get_container("web").exec("reload", "--now")
        Traceback (most recent call last):
        ...
        TypeError: wasm_charm: args is a list of strings, not '--now'
        """
        if isinstance(args, (str, bytes)):
            raise TypeError(f"wasm_charm: args is a list of strings, not {args!r}")
        argv = [str(a) for a in args]
        data = stdin.encode(encoding) if isinstance(stdin, str) else bytes(stdin or b"")
        options = _wit.pebble.ExecOptions(
            sorted((environment or {}).items()),
            working_dir,
            _ownership(user_id, user, group_id, group),
            data,
            combine_stderr,
        )
        out = _call(_wit.pebble.exec, self.name, name, argv, options)
        return output_of_wit(out, (name, *argv))

    def get_notices(
        self, *, types: Iterable[str] = (), keys: Iterable[str] = ()
    ) -> list[Notice]:
        """The notices of any of ``types`` and any of ``keys`` (all when
        empty), as Pebble lists them (ops' ``Container.get_notices``)."""
        wanted = _wit.pebble.NoticeFilter(
            _names((types,) if isinstance(types, str) else tuple(types), "notice types"),
            _names((keys,) if isinstance(keys, str) else tuple(keys), "notice keys"),
        )
        return [_notice(n) for n in _call(_wit.pebble.get_notices, self.name, wanted)]

    def get_notice(self, id: str) -> Notice:  # noqa: A002
        """The notice of Pebble's id ``id`` (ops' ``Container.get_notice``);
        an :class:`APIError` 404 when there is none."""
        return _notice(_call(_wit.pebble.get_notice, self.name, id))


def get_container(name: str) -> Container:
    """The container ``name`` of metadata.yaml ``containers:`` (ops'
    ``Unit.get_container``)."""
    return Container(name)
