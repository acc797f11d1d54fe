"""The SDK's exceptions: each a subclass of :class:`Error`.

A handler that lets one escape returns it as its error: the host sets its
scope ``handler/<name>`` blocked with the message (``on-error: block``) or
fails the hook (``on-error: fail``), and the traceback goes to the unit's
log. Catch the ones a handler can answer:

>>> from wasm_charm.errors import ModelError, RelationNotFound
>>> issubclass(RelationNotFound, ModelError)
True
>>> str(RelationNotFound("db:3"))
'relation not found: db:3'

Pebble's errors carry ops' names and fields:

>>> from wasm_charm.errors import APIError, PathError, PebbleError
>>> e = PathError(404, "not-found", "stat /etc/web.conf: no such file or directory")
>>> isinstance(e, APIError) and isinstance(e, PebbleError), e.code, e.kind
(True, 404, 'not-found')
>>> str(e)
'Pebble answered 404: stat /etc/web.conf: no such file or directory (not-found)'
"""

from __future__ import annotations


class Error(Exception):
    """Every error of the SDK."""


class StatusError(Error):
    """The host refused a scope write (its name, a bound); the message says which."""


class ModelError(Error):
    """A model call failed; the subclass says how (ops' ``ModelError``)."""

    prefix = "model error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return f"{self.prefix}: {self.message}"


class RelationNotFound(ModelError):
    """The relation does not exist, or is being broken."""

    prefix = "relation not found"


class NotLeader(ModelError):
    """The call needs leadership and this unit is not the leader."""

    prefix = "not the leader"


class InvalidArgument(ModelError):
    """The host refused the arguments before asking Juju."""

    prefix = "invalid argument"


class NotFound(ModelError):
    """What the call names does not exist (ops' ``SecretNotFoundError``…)."""

    prefix = "not found"


class PermissionDenied(ModelError):
    """Juju refused the call (no ``juju trust``, access denied)."""

    prefix = "permission denied"


class TooManyRelations(ModelError):
    """The one relation of an endpoint that has several was asked for
    (ops' ``TooManyRelatedAppsError``)."""

    prefix = "too many relations"


class ToolFailed(ModelError):
    """A hook tool exited non-zero or answered something unreadable."""

    def __init__(self, tool: str, exit_code: int, message: str) -> None:
        super().__init__(message)
        self.tool = tool
        self.exit_code = exit_code

    def __str__(self) -> str:
        return f"{self.tool} failed (exit {self.exit_code}): {self.message}"


class SecretNotFoundError(NotFound):
    """The secret does not exist, or this unit may not read it (ops'
    ``SecretNotFoundError``); a :class:`NotFound`, so either may be caught."""

    prefix = "secret not found"


class ActionError(Error):
    """An action call failed (ops' ``ModelError`` of the action tools)."""

    prefix = "action error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return f"{self.prefix}: {self.message}"


class NotInAction(ActionError):
    """The event is not an action: only an action has parameters and results."""

    prefix = "not in an action"


class InvalidParams(ActionError):
    """Juju's parameters do not fit the action's schema in actions.yaml."""

    prefix = "invalid action parameters"


class StoredError(Error):
    """The host refused a stored write, or a value is not the JSON asked for."""


class ProbeError(Error):
    """A probe call failed; the subclass says how."""

    prefix = "probe error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return f"{self.prefix}: {self.message}"


class ProbeUndeclared(ProbeError):
    """No probe of that name is declared in wasm-charm.yaml.

    >>> str(ProbeUndeclared("api"))
    'undeclared probe: api'
    """

    prefix = "undeclared probe"


class ProbeFailed(ProbeError):
    """The probe could not be run at all (a failed check is a result with
    ``healthy`` false, not this)."""

    prefix = "probe could not run"


class WorkloadError(Error):
    """A workload call (services, commands, packages) did not do what was
    asked; the subclass says how."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class WorkloadUndeclared(WorkloadError):
    """wasm-charm.yaml does not declare that service, command or package (or
    lets no arguments be appended to that command): the message says which,
    and the field to change."""


class WorkloadFailed(WorkloadError):
    """The tool ran and refused (``systemctl``, ``apt-get``, ``dpkg-query``).

    >>> str(WorkloadFailed("systemctl", 5, "Unit x.service not found."))
    'systemctl failed (exit 5): Unit x.service not found.'
    >>> str(WorkloadFailed("apt-get", None, ""))
    'apt-get failed (killed by a signal): '
    """

    def __init__(self, tool: str, code: int | None, message: str) -> None:
        super().__init__(message)
        self.tool = tool
        """The program that failed."""
        self.code = code
        """Its exit code; ``None`` when a signal ended it."""

    def __str__(self) -> str:
        how = "killed by a signal" if self.code is None else f"exit {self.code}"
        return f"{self.tool} failed ({how}): {self.message}"


class WorkloadUnavailable(WorkloadError):
    """The tool could not be run at all, did not finish in time, or waited in
    vain for a lock another process held (dpkg's): worth trying again later."""


class PebbleError(Error):
    """A Pebble call did not do what was asked (ops' ``pebble.Error``); the
    subclass says how."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class PebbleUndeclared(PebbleError):
    """The container is not declared in metadata.yaml, or (for ``exec``) the
    command is not declared for it in wasm-charm.yaml, or takes no arguments.

    >>> str(PebbleUndeclared("command `x` of container web"))
    'undeclared: command `x` of container web'
    """

    def __str__(self) -> str:
        return f"undeclared: {self.message}"


class ConnectionError(PebbleError):  # noqa: A001 - ops' name, in its pebble module
    """The container's Pebble socket is not there or nothing answers on it:
    the container is not up yet (ops' ``pebble.ConnectionError``)."""


class APIError(PebbleError):
    """Pebble refused the request (ops' ``pebble.APIError``): ``code`` is the
    HTTP status, ``kind`` Pebble's error kind (``not-found``,
    ``permission-denied``…; empty when it gives none).

    >>> str(APIError(400, "", "cannot add layer"))
    'Pebble answered 400: cannot add layer'
    """

    def __init__(self, code: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        """The HTTP status Pebble answered with (404, 400…)."""
        self.kind = kind
        """Pebble's error kind; empty when it gives none."""

    @property
    def status_code(self) -> int:
        """The HTTP status, the WIT's name for :attr:`code`."""
        return self.code

    def __str__(self) -> str:
        kind = f" ({self.kind})" if self.kind else ""
        return f"Pebble answered {self.code}: {self.message}{kind}"


class PathError(APIError):
    """Pebble refused a file call (push, pull, list_files, make_dir,
    remove_path): ops' ``pebble.PathError``, with its ``kind``
    (``not-found``, ``permission-denied``, ``generic-file-error``)."""


class ChangeError(PebbleError):
    """A change (start, stop, restart, replan) ended in error: Pebble's words
    for it (ops' ``pebble.ChangeError``; ``err`` is the message).

    >>> str(ChangeError("exit 1"))
    'Pebble change failed: exit 1'
    """

    @property
    def err(self) -> str:
        """Pebble's error for the change."""
        return self.message

    def __str__(self) -> str:
        return f"Pebble change failed: {self.message}"


class PebbleTimeoutError(PebbleError, TimeoutError):
    """The handler's deadline came before Pebble's answer (ops'
    ``pebble.TimeoutError``, which is also the built-in ``TimeoutError``)."""


class ProtocolError(PebbleError):
    """An answer that is not what Pebble's API documents (ops'
    ``pebble.ProtocolError``)."""


class InvalidRequest(PebbleError, ValueError):
    """What the charm asked for was refused before Pebble was asked: too long,
    too many, a NUL byte, a signal name that is not one (ops raises
    ``ValueError``, which this also is). The message says which field."""

    def __str__(self) -> str:
        return f"invalid: {self.message}"


class ExecError(PebbleError):
    """A command run with ``exec`` exited non-zero, raised by
    ``CommandOutput.wait_output()`` (ops' ``pebble.ExecError``: ``command``,
    ``exit_code``, ``stdout``, ``stderr``).

    >>> str(ExecError(["reload"], 2, "", "no config"))
    "non-zero exit code 2 executing ['reload'], stdout='', stderr='no config'"
    """

    def __init__(
        self, command: list[str], exit_code: int, stdout: str | bytes, stderr: str | bytes
    ) -> None:
        super().__init__(f"{command!r} exited {exit_code}")
        self.command = command
        """The command: its declared name, then the arguments given."""
        self.exit_code = exit_code
        """Its exit code; -1 when a signal ended it or it timed out."""
        self.stdout = stdout
        self.stderr = stderr

    def __str__(self) -> str:
        return (
            f"non-zero exit code {self.exit_code} executing {self.command!r}, "
            f"stdout={self.stdout!r}, stderr={self.stderr!r}"
        )


_MODEL_CASES = {
    "ModelError_RelationNotFound": RelationNotFound,
    "ModelError_NotLeader": NotLeader,
    "ModelError_InvalidArgument": InvalidArgument,
    "ModelError_NotFound": NotFound,
    "ModelError_PermissionDenied": PermissionDenied,
    "ModelError_TooManyRelations": TooManyRelations,
}

_ACTION_CASES = {
    "ActionError_NotInAction": NotInAction,
    "ActionError_InvalidArgument": ActionError,
    "ActionError_InvalidParams": InvalidParams,
}


def model_error(value: object) -> ModelError:
    """The SDK's exception for a ``model-error`` value of the bindings."""
    name = type(value).__name__
    payload = getattr(value, "value", value)
    if name.endswith("_ToolFailed"):
        return ToolFailed(payload.tool, payload.exit_code, payload.message)
    return _MODEL_CASES.get(name, ModelError)(str(payload))


def secret_error(value: object) -> ModelError:
    """The SDK's exception for a ``model-error`` of a secrets call: ``not-found``
    is :class:`SecretNotFoundError`."""
    if type(value).__name__ == "ModelError_NotFound":
        return SecretNotFoundError(str(getattr(value, "value", value)))
    return model_error(value)


def probe_error(value: object) -> ProbeError:
    """The SDK's exception for a ``probe-error`` value of the bindings."""
    name = type(value).__name__
    payload = str(getattr(value, "value", value))
    return (ProbeUndeclared if name.endswith("_Undeclared") else ProbeFailed)(payload)


def workload_error(value: object) -> WorkloadError:
    """The SDK's exception for a ``workload-error`` value of the bindings."""
    name = type(value).__name__
    payload = getattr(value, "value", value)
    if name.endswith("_Failed"):
        return WorkloadFailed(payload.tool, payload.code, payload.message)
    if name.endswith("_Undeclared"):
        return WorkloadUndeclared(str(payload))
    return WorkloadUnavailable(str(payload))


_PEBBLE_CASES: dict[str, type[PebbleError]] = {
    "PebbleError_Undeclared": PebbleUndeclared,
    "PebbleError_CannotConnect": ConnectionError,
    "PebbleError_ChangeFailed": ChangeError,
    "PebbleError_Timeout": PebbleTimeoutError,
    "PebbleError_Protocol": ProtocolError,
    "PebbleError_Invalid": InvalidRequest,
}


def pebble_error(value: object, path: bool = False) -> PebbleError:
    """The SDK's exception for a ``pebble-error`` value of the bindings;
    ``path``: a file call, whose refusals are :class:`PathError`."""
    name = type(value).__name__
    payload = getattr(value, "value", value)
    if name.endswith("_Api"):
        cls = PathError if path else APIError
        return cls(payload.status_code, payload.kind, payload.message)
    return _PEBBLE_CASES.get(name, PebbleError)(str(payload))


def action_error(value: object) -> ActionError:
    """The SDK's exception for an ``action-error`` value of the bindings."""
    name = type(value).__name__
    payload = getattr(value, "value", value)
    if name.endswith("_ToolFailed"):
        return ActionError(f"{payload.tool} failed (exit {payload.exit_code}): {payload.message}")
    return _ACTION_CASES.get(name, ActionError)(str(payload))
