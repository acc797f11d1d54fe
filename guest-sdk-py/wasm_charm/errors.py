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


def action_error(value: object) -> ActionError:
    """The SDK's exception for an ``action-error`` value of the bindings."""
    name = type(value).__name__
    payload = getattr(value, "value", value)
    if name.endswith("_ToolFailed"):
        return ActionError(f"{payload.tool} failed (exit {payload.exit_code}): {payload.message}")
    return _ACTION_CASES.get(name, ActionError)(str(payload))
