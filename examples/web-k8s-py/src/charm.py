"""A Kubernetes sidecar charm for a web server, in Python on wasm-charm: the
charm runs in its own container of the pod and drives the workload
container ``web`` through Pebble, as ops charms do.

The same charm as ``examples/web-k8s`` (Rust), with the same messages, and
tested by the same scenario file (``tests/scenarios/web-k8s.yaml``) and
dispatch tests (``tests/web_k8s.rs``).

The workload is a ``web-server`` executable of the ``web-image`` resource:
it reads ``/etc/web/web.conf`` (the port and a greeting), answers the
greeting on ``/`` and ``ok`` on ``/healthz``, and reads its file again on
SIGHUP.

* ``web`` (install, start, upgrade-charm, config-changed,
  ``web-pebble-ready``, ``web-pebble-custom-notice``): renders the
  configuration file from the config; when its bytes differ from what the
  container has, has the server check it first (the declared command
  ``validate-config``, the text on its stdin, run as the server runs), then
  pushes it into a directory made for it, both owned by the server's user.
  Adds the layer (service ``web`` running the server, check ``alive`` on
  ``/healthz``) and replans. Under a running server, a new port restarts
  it; a new greeting only needs a SIGHUP, as does the workload's notice
  ``example.com/web-server/reload``. While Pebble does not answer (the
  container is not up yet) there is nothing to do: the probes say the unit
  waits for it.
* ``checks`` (``web-pebble-check-failed``, ``-recovered``): logs. Readiness
  is the host's probes' (``web-alive``, ``web-service`` in wasm-charm.yaml),
  which run at every event, these included: nothing to decide here.
* ``website`` (the ``website`` relation, config-changed): tells related
  units the server's port.
* ``check-config`` (action): asks the server, through Pebble's exec of the
  declared command, what it reads in its file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import re
from typing import Any, Iterator, Optional, Union

from wasm_charm import (
    CheckEvent,
    Charm,
    Event,
    EventKind,
    NoticeEvent,
    On,
    Status,
    action,
    errors,
    export_charm,
    log,
    model,
    pebble,
)

# The workload container (metadata.yaml ``containers:``).
CONTAINER = "web"
# The Pebble service that runs the server, and the label of the charm's layer.
SERVICE = "web"
# The Pebble check on the server's health endpoint.
ALIVE = "alive"
# The server's configuration directory and file, in the container.
CONFIG_DIR = "/etc/web"
CONFIG_FILE = "/etc/web/web.conf"
# The relation on which the server is offered.
WEBSITE = "website"
# The declared commands (wasm-charm.yaml ``workload.containers.web.commands``):
# the server reads its file back, or checks a configuration given on stdin.
CHECK_CONFIG = "check-config"
VALIDATE_CONFIG = "validate-config"
# The custom notice with which the workload asks for a reload (``pebble
# notify example.com/web-server/reload reason=…`` in the container, after a
# job there renewed something the server reads).
RELOAD_NOTICE = "example.com/web-server/reload"
# The signal on which the server reads its file again.
RELOAD_SIGNAL = "SIGHUP"
# The user and group the server runs as: ``_daemon_`` (584792), the one
# rocks run their services as. By id, as the image may not name it.
SERVER_ID = 584_792
# The server's working directory: ``/`` (an exec would otherwise start in
# the user's home directory, which ``_daemon_`` need not have).
SERVER_DIR = "/"

# Unicode's White_Space, which the Rust charm trims: Python's own strip()
# also takes the control characters U+001C to U+001F, which a greeting
# must be refused for, not quietly lose.
_WHITE_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# A port as the Rust charm parses one (a u16: digits, an optional `+`).
_PORT = re.compile(r"\+?[0-9]+")


def server_environment() -> dict[str, str]:
    """The server's environment, the same for the service and for the
    commands that read its configuration: a UTF-8 locale, since a greeting
    may be any line of text and the server reads its file in its locale's
    encoding."""
    return {"LANG": "C.UTF-8"}


def as_the_server(stdin: str, combine_stderr: bool) -> dict[str, Any]:
    """``exec``'s options to run a declared command as the server runs (its
    user, group, environment and working directory), so that it reads what
    the server would read."""
    return {
        "environment": server_environment(),
        "working_dir": SERVER_DIR,
        "user_id": SERVER_ID,
        "group_id": SERVER_ID,
        "stdin": stdin,
        "combine_stderr": combine_stderr,
    }


class Unusable(ValueError):
    """The config cannot be used; the message says why, as the unit's
    blocked status shows it."""


class PebbleFailed(errors.Error):
    """A Pebble call failed: what the charm was doing, then Pebble's words
    (the handler's error, as the scope shows it)."""


@contextlib.contextmanager
def doing(what: str) -> Iterator[None]:
    """Name what the charm was doing when a Pebble call in the block fails."""
    try:
        yield
    except pebble.Error as e:
        raise PebbleFailed(f"{what}: {e}") from e


@dataclasses.dataclass(frozen=True)
class Wanted:
    """What the config asks of the server, checked."""

    port: int
    greeting: str

    def render(self) -> str:
        """The server's configuration file."""
        return (
            "# web-server configuration, written by the web-k8s charm from its\n"
            "# config: changes made here are overwritten.\n"
            f"port = {self.port}\n"
            f"greeting = {self.greeting}\n"
        )

    def layer(self) -> dict[str, Any]:
        """The charm's Pebble layer: the server as service ``web``, run as
        its user in its environment, started with the pod and restarted by
        Pebble when its check fails; check ``alive`` asks ``/healthz`` on
        the configured port."""
        server = {
            "override": "replace",
            "summary": "the web server",
            "command": f"web-server --config {CONFIG_FILE}",
            "startup": "enabled",
            "environment": server_environment(),
            "user-id": SERVER_ID,
            "group-id": SERVER_ID,
            "working-dir": SERVER_DIR,
            "on-check-failure": {ALIVE: "restart"},
        }
        alive = {
            "override": "replace",
            "level": "alive",
            "http": {"url": f"http://localhost:{self.port}/healthz"},
        }
        return {
            "summary": "web-k8s layer",
            "services": {SERVICE: server},
            "checks": {ALIVE: alive},
        }


def check(config: dict[str, Any]) -> Wanted:
    """What the config asks; :class:`Unusable` saying why it cannot be used."""
    port = config.get("port", 0)
    if not isinstance(port, int) or isinstance(port, bool) or not 1 <= port <= 65535:
        raise Unusable(f"Config item `port`: {port} is not a port (1 to 65535)")
    greeting = str(config.get("greeting", "")).strip(_WHITE_SPACE)
    if not greeting:
        raise Unusable("Config item `greeting` must be set")
    # Unicode's control characters (category Cc) are these two ranges.
    if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in greeting):
        raise Unusable("Config item `greeting` must be one line of text")
    return Wanted(port, greeting)


def port_of(file: bytes) -> Optional[int]:
    """The port a configuration file the charm wrote names, if it names one."""
    for line in file.decode("utf-8", "replace").split("\n"):
        key, sep, value = line.removesuffix("\r").partition("=")
        if not sep or key.strip(_WHITE_SPACE) != "port":
            continue
        value = value.strip(_WHITE_SPACE)
        if _PORT.fullmatch(value) and int(value) <= 65535:
            return int(value)
    return None


def configured() -> Union[Wanted, Status]:
    """The checked config, or the blocked status saying what is wrong with it."""
    try:
        return check(model.config())
    except Unusable as e:
        return Status.blocked(str(e))


class Change(enum.Enum):
    """What a running server needs once its file is what the config asks."""

    NONE = "none"
    """The file is as it was."""
    RELOAD = "reload"
    """Only what the server reads again on SIGHUP changed (the greeting)."""
    RESTART = "restart"
    """It must listen elsewhere, or its old file was not the charm's."""


# ---------------------------------------------------------------------------
# The handlers.


def configure(event: Event) -> Optional[Status]:
    """Bring the container to what the config asks: file, layer, running server."""
    reload_is_asked = reload_asked(event)
    wanted = configured()
    if isinstance(wanted, Status):
        # What runs keeps running with the file it has.
        return wanted
    web = pebble.get_container(CONTAINER)
    if not web.can_connect():
        # `web-pebble-ready` comes; meanwhile the probes wait for Pebble.
        return None
    change = push_config(web, wanted)
    if isinstance(change, Status):
        # The server keeps the file it has, and runs on with it.
        return change
    with doing("cannot read the services of web"):
        was_running = any(s.is_running() for s in web.get_services(SERVICE).values())
    with doing("cannot add the web layer"):
        web.add_layer(SERVICE, wanted.layer(), combine=True)
    # Starts the server if it is not running (it reads the new file then);
    # restarts it if its service's definition changed (a new charm
    # revision's layer).
    with doing("cannot replan web"):
        web.replan()
    if not was_running:
        return None
    if change is Change.RESTART:
        log.info(f"restarting {SERVICE}: its port changed")
        with doing("cannot restart web"):
            web.restart(SERVICE)
    elif change is Change.RELOAD:
        reload(web, f"{CONFIG_FILE} changed")
    elif reload_is_asked:
        reload(web, "the workload asked")
    return None


def reload_asked(event: Event) -> bool:
    """Whether ``event`` is the workload's notice asking for a reload; its
    reason (the notice's data) is logged. Other notices are not the
    charm's: the handler only makes sure the container is as the config
    asks."""
    n = event.context
    if event.kind is not EventKind.PEBBLE_CUSTOM_NOTICE or not isinstance(n, NoticeEvent):
        return False
    if n.key != RELOAD_NOTICE:
        log.debug(f"notice {n.key} of {n.container}: not the charm's")
        return False
    with doing(f"cannot read notice {n.id} of web"):
        notice = n.notice()
    reason = notice.last_data.get("reason", "no reason given")
    log.info(
        f"the workload asks for a reload ({reason}; notice {notice.id}, "
        f"{notice.occurrences} times)"
    )
    return True


def reload(web: pebble.Container, why: str) -> None:
    """Have the running server read its file again."""
    log.info(f"reloading {SERVICE} ({RELOAD_SIGNAL}): {why}")
    with doing(f"cannot send {RELOAD_SIGNAL} to web"):
        web.send_signal(RELOAD_SIGNAL, SERVICE)


def push_config(web: pebble.Container, wanted: Wanted) -> Union[Change, Status]:
    """Push the configuration file for ``wanted`` unless the container has
    exactly it already, once the server accepts it: what a running server
    needs, or the blocked status saying why the server refuses it."""
    text = wanted.render()
    try:
        old: Optional[bytes] = web.pull(CONFIG_FILE, encoding=None).read()
    except pebble.PathError as e:
        if e.kind != "not-found":
            raise PebbleFailed(f"cannot read {CONFIG_FILE}: {e}") from e
        old = None
    except pebble.Error as e:
        raise PebbleFailed(f"cannot read {CONFIG_FILE}: {e}") from e
    if old == text.encode():
        return Change.NONE
    change = Change.RELOAD if old is not None and port_of(old) == wanted.port else Change.RESTART
    refused = validate(web, text)
    if refused is not None:
        return refused
    # The server's own directory and file: it may read them, others not.
    with doing(f"cannot make {CONFIG_DIR}"):
        web.make_dir(
            CONFIG_DIR,
            make_parents=True,
            permissions=0o750,
            user_id=SERVER_ID,
            group_id=SERVER_ID,
        )
    with doing(f"cannot write {CONFIG_FILE}"):
        web.push(CONFIG_FILE, text, permissions=0o640, user_id=SERVER_ID, group_id=SERVER_ID)
    log.info(f"pushed {CONFIG_FILE} (port {wanted.port})")
    return change


def validate(web: pebble.Container, text: str) -> Optional[Status]:
    """Have the server check ``text`` before it replaces its file: the
    declared command ``validate-config`` reads it on stdin, as the server
    would run, with its complaints (stderr) in its output. Refused: blocked,
    with the server's first words; the whole output in the log."""
    with doing(f"cannot run {VALIDATE_CONFIG} in web"):
        output = web.exec(VALIDATE_CONFIG, **as_the_server(text, True))
    if output.success:
        return None
    said = output.stdout_text().strip(_WHITE_SPACE)
    if output.exit_code is not None:
        how = f"exit {output.exit_code}"
    elif output.signal is not None:
        how = f"killed by signal {output.signal}"
    else:
        how = "timed out"
    log.warning(f"web-server refuses the new {CONFIG_FILE} ({how}); the old one stays: {said}")
    first = said.split("\n")[0].removesuffix("\r") if said else "no reason given"
    return Status.blocked(f"web-server refuses the configuration: {first}")


def checks(event: Event) -> Optional[Status]:
    """A check of the container failed or recovered: the probes judge it at
    this very event; the log says which."""
    c = event.context
    if not isinstance(c, CheckEvent):
        return None
    if event.kind is EventKind.PEBBLE_CHECK_FAILED:
        log.warning(f"Pebble check {c.container}/{c.check} failed")
    elif event.kind is EventKind.PEBBLE_CHECK_RECOVERED:
        log.info(f"Pebble check {c.container}/{c.check} recovered")
    return None


def website(event: Event) -> Optional[Status]:
    """Tell every related unit on ``website`` the port the server listens on."""
    wanted = configured()
    if isinstance(wanted, Status):
        # The `web` handler says what is wrong with the config.
        return None
    for relation in model.relations(WEBSITE):
        relation.set_local_unit_data({"port": str(wanted.port)})
    return None


def check_config(event: Event) -> Optional[Status]:
    """The ``check-config`` action: the server reads its file back, as it runs."""
    web = pebble.get_container(CONTAINER)
    with doing(f"cannot run {CHECK_CONFIG} in web"):
        output = web.exec(CHECK_CONFIG, **as_the_server("", False))
    action.set_results({"output": output.stdout_text()})
    if not output.success:
        said = output.stderr_text().strip(_WHITE_SPACE)
        action.fail(f"web-server finds {CONFIG_FILE} unusable: {said}")
    return None


charm = (
    Charm()
    .observe(
        "web",
        On.install()
        | On.start()
        | On.upgrade_charm()
        | On.config_changed()
        | On.pebble_ready(CONTAINER)
        | On.pebble_custom_notice(CONTAINER),
        configure,
    )
    .observe(
        "checks",
        On.pebble_check_failed(CONTAINER) | On.pebble_check_recovered(CONTAINER),
        checks,
    )
    .observe(
        "website",
        On.relation_joined(WEBSITE) | On.relation_changed(WEBSITE) | On.config_changed(),
        website,
    )
    .observe("check-config", On.action("check-config"), check_config)
)

export_charm(charm)
