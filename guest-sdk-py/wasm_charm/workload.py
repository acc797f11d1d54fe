"""The workload on the machine: the systemd units, programs and apt
packages that the charm's manifest, ``wasm-charm.yaml``, declares
(``workload:``). A handler touches only what the manifest names; anything
else is :class:`~wasm_charm.errors.WorkloadUndeclared`. These calls act at
once (a started service stays started even if the handler fails
afterwards), and finish by the handler's deadline.

>>> from wasm_charm import Status, workload
>>> def install(event):
...     workload.install(["api-service"])
...     sync = workload.run("db-sync")
...     if not sync.success:
...         return Status.blocked(f"db sync failed: {sync.stderr_text().strip()}")
...     workload.enable("api-service")
...     workload.restart("api-service")
...     return None
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Iterable, Optional

from . import _wit
from .errors import ExecError, workload_error


def _call(fn, *args):  # noqa: ANN001, ANN202
    return _wit.call(workload_error, fn, *args)


def _names(values: Iterable[str], what: str) -> list[str]:
    # A lone string would be split into its letters.
    if isinstance(values, (str, bytes)):
        raise TypeError(f"wasm_charm: {what} is a list of strings, not {values!r}")
    return [str(v) for v in values]


@dataclasses.dataclass(frozen=True)
class CommandOutput:
    """What a command did (``workload.run``, ``Container.exec``): how it
    ended, and its output, each stream cut to its first 64 KiB.

    >>> out = CommandOutput(0, None, False, b"3 migrations\\n", b"", False)
    >>> out.success, out.stdout_text()
    (True, '3 migrations\\n')
    >>> CommandOutput(None, None, True, b"", b"", False).success
    False
    """

    exit_code: Optional[int]
    """Its exit code; ``None`` when a signal ended it or it timed out."""
    signal: Optional[int]
    """The signal that ended it, if one did."""
    timed_out: bool
    """It outlived its declared timeout (or the handler's deadline) and was
    killed, with every process it started."""
    stdout: bytes
    stderr: bytes
    truncated: bool
    """Some output was cut."""
    command: tuple[str, ...] = ()
    """The command's declared name, then the arguments given."""

    @property
    def success(self) -> bool:
        """Whether it exited with code 0."""
        return self.exit_code == 0

    def stdout_text(self) -> str:
        """Its standard output as text (invalid UTF-8 replaced by ``�``)."""
        return self.stdout.decode("utf-8", "replace")

    def stderr_text(self) -> str:
        """Its standard error as text (invalid UTF-8 replaced by ``�``)."""
        return self.stderr.decode("utf-8", "replace")

    def wait_output(self, encoding: Optional[str] = "utf-8") -> tuple:
        """``(stdout, stderr)``, text (bytes when ``encoding`` is ``None``),
        raising :class:`~wasm_charm.errors.ExecError` unless it exited 0:
        ops' ``ExecProcess.wait_output``.

        >>> CommandOutput(2, None, False, b"", b"no config", False, ("reload",)).wait_output()
        Traceback (most recent call last):
        ...
        wasm_charm.errors.ExecError: non-zero exit code 2 executing ['reload'], stdout='', stderr='no config'
        """
        out, err = (
            (self.stdout, self.stderr)
            if encoding is None
            else (self.stdout.decode(encoding, "replace"), self.stderr.decode(encoding, "replace"))
        )
        if not self.success:
            code = -1 if self.exit_code is None else self.exit_code
            raise ExecError(list(self.command), code, out, err)
        return out, err


def output_of_wit(value, command: tuple[str, ...] = ()) -> CommandOutput:  # noqa: ANN001
    """The SDK's :class:`CommandOutput` of the bindings' ``command-output``."""
    kind = type(value.exit).__name__
    code = value.exit.value if kind.endswith("_Code") else None
    signal = value.exit.value if kind.endswith("_Signal") else None
    return CommandOutput(
        code,
        signal,
        kind.endswith("_TimedOut"),
        bytes(value.stdout),
        bytes(value.stderr),
        value.truncated,
        command,
    )


class ServiceAction(enum.Enum):
    """What :func:`service` does to a declared systemd unit."""

    START = "start"
    STOP = "stop"
    RESTART = "restart"
    """Also starts again the grace period of the probes that watch the unit."""
    RELOAD = "reload"
    ENABLE = "enable"
    DISABLE = "disable"


@dataclasses.dataclass(frozen=True)
class ServiceStatus:
    """A declared unit's state, as ``systemctl is-active`` and ``is-enabled``
    print it."""

    active: str
    """``active``, ``inactive``, ``failed``, ``activating`` …"""
    enabled: str
    """``enabled``, ``disabled``, ``static``, ``masked``, … or ``unknown``."""


def service(name: str, action: ServiceAction) -> None:
    """Apply ``action`` to the declared unit ``name`` (``systemctl <action>``),
    at once. A non-zero exit is :class:`~wasm_charm.errors.WorkloadFailed`."""
    _call(_wit.workload.service, name, getattr(_wit.workload.ServiceAction, action.name))


def start(name: str) -> None:
    """Start the declared unit ``name``."""
    service(name, ServiceAction.START)


def stop(name: str) -> None:
    """Stop the declared unit ``name``."""
    service(name, ServiceAction.STOP)


def restart(name: str) -> None:
    """Restart the declared unit ``name``, and start again the grace period
    of the probes that watch it when the handler returns."""
    service(name, ServiceAction.RESTART)


def reload(name: str) -> None:
    """Make the declared unit ``name`` re-read its configuration."""
    service(name, ServiceAction.RELOAD)


def enable(name: str) -> None:
    """Start the declared unit ``name`` at boot."""
    service(name, ServiceAction.ENABLE)


def disable(name: str) -> None:
    """Do not start the declared unit ``name`` at boot."""
    service(name, ServiceAction.DISABLE)


def service_status(name: str) -> ServiceStatus:
    """The state of the declared unit ``name``."""
    s = _call(_wit.workload.service_state, name)
    return ServiceStatus(s.active, s.enabled)


def run(name: str, args: Iterable[str] = ()) -> CommandOutput:
    """Run the declared command ``name``: its argv from the manifest, then
    ``args`` (refused as :class:`~wasm_charm.errors.WorkloadUndeclared`
    unless the manifest says ``args: true``). No shell, an empty environment
    but ``PATH``. A non-zero exit is an output, not an error: look at
    :attr:`CommandOutput.success` (or call ``wait_output()``).

    >>> run("db-sync", "--to head")
    Traceback (most recent call last):
    ...
    TypeError: wasm_charm: args is a list of strings, not '--to head'
    """
    argv = _names(args, "args")
    return output_of_wit(_call(_wit.workload.run_command, name, argv), (name, *argv))


def install(packages: Iterable[str]) -> None:
    """Install the declared apt packages ``packages`` (those not installed
    yet), waiting while another process holds the dpkg lock, within the
    handler's deadline."""
    _call(_wit.workload.install_packages, _names(packages, "packages"))
