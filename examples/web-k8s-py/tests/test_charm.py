"""The web-k8s charm in Python on the host's simulated Juju and simulated
Pebble, through the Python harness (``wasm-charm serve``): the host's own
Pebble client talks to a Pebble answered from the state (its plan,
services, checks and files), and the probes on Pebble's check and service
run against it too, so readiness is decided as on a unit. The same tests,
one for one, as the Rust charm's (``examples/web-k8s/tests/charm.rs``);
the last ones call the charm's pure logic on this Python."""

from __future__ import annotations

from pathlib import Path

import pytest

from charm import Unusable, Wanted, check, port_of
from wasm_charm_testing import Charm, Event, Outcome, Relation, State, Status

PROJECT = Path(__file__).resolve().parent.parent

CONF = "/etc/web/web.conf"
# How the server runs and the charm runs its commands: the image's
# `_daemon_` user and group, a UTF-8 locale, in `/`.
AS_THE_SERVER = "[env LANG=C.UTF-8, dir /, user-id 584792, group-id 584792]"
RELOAD = "example.com/web-server/reload"


@pytest.fixture(scope="module")
def charm() -> Charm:
    return Charm.build(PROJECT)


def at(seconds: int) -> int:
    """A fixed time, so that grace periods are decided by the test, not by
    the machine's clock."""
    return 1_800_000_000 + seconds


def conf(port: int, greeting: str) -> str:
    return (
        "# web-server configuration, written by the web-k8s charm from its\n"
        "# config: changes made here are overwritten.\n"
        f"port = {port}\n"
        f"greeting = {greeting}\n"
    )


def calls_with(out: Outcome, text: str) -> list[str]:
    """The Pebble calls of the event that contain ``text``."""
    return [c for c in out.pebble_calls("web") if text in c]


def ready(charm: Charm) -> State:
    """The unit once its container's Pebble answered ``pebble-ready``."""
    out = charm.run(State(), Event.pebble_ready("web").at(at(0)))
    out.assert_ok()
    return out.state()


def test_waits_while_pebble_does_not_answer(charm: Charm) -> None:
    out = charm.run(State().can_connect("web", False), Event.install())
    out.assert_ok()
    # The probes wait for Pebble: the charm has nothing to say.
    assert out.unit_status == Status.waiting("waiting for Pebble in web (+1 more)"), out
    assert out.scope("probe/web-alive") == Status.waiting("waiting for Pebble in web"), out
    assert out.scope("handler/web") is None, out
    assert out.pebble_calls("web") == [], out
    assert out.pebble_file("web", CONF) is None, out


def test_pebble_ready_pushes_the_file_adds_the_layer_and_serves(charm: Charm) -> None:
    out = charm.run(State(), Event.pebble_ready("web"))
    out.assert_ok()
    assert out.unit_status == Status.active("Serving"), out
    # The handler reads the file back first (it is pushed only when its
    # bytes differ), has the server check the new one, makes its directory
    # and pushes it, and asks about the service (a running one is restarted
    # or reloaded); after it, the host's probes read Pebble's check and
    # service, concurrently, in either order.
    validate = f"exec web-server --check - {AS_THE_SERVER}"
    # The new file itself on the command's stdin (recorded when the
    # simulated Pebble has read it, which may be after the exec's answer).
    stdin = f"exec stdin {len(conf(8080, 'Hello from web-k8s').encode())} bytes (task 2)"
    assert calls_with(out, "exec stdin") == [stdin], out
    calls = [c for c in out.pebble_calls("web") if not c.startswith("exec stdin")]
    assert calls[:8] == [
        "system-info",
        "pull /etc/web/web.conf",
        validate,
        "make-dir /etc/web",
        "push /etc/web/web.conf",
        "get-services web",
        "add-layer web combine",
        "replan",
    ], out
    assert sorted(calls[8:]) == ["get-checks alive", "get-services web"], out
    assert out.pebble_layers("web") == ["web"], out
    assert out.pebble_service("web", "web") == "active", out
    assert out.pebble_file("web", CONF) == conf(8080, "Hello from web-k8s"), out
    # Both probes gate once the layer is in, and found the server up.
    assert out.gating == ["web-alive", "web-service"], out
    probe = out.probe("web-service")
    assert probe is not None and probe[0], out


def test_a_new_port_restarts_the_server_and_the_same_file_changes_nothing(charm: Charm) -> None:
    changed = charm.run(ready(charm).config("port", 9000), Event.config_changed())
    changed.assert_ok()
    assert changed.logged("restarting web: its port changed"), changed
    assert calls_with(changed, "push") == ["push /etc/web/web.conf"], changed
    assert calls_with(changed, "restart") == ["restart web"], changed
    assert calls_with(changed, "send-signal") == [], changed
    assert changed.pebble_file("web", CONF) == conf(9000, "Hello from web-k8s"), changed
    assert changed.unit_status == Status.active("Serving"), changed

    # The same config again: the file's bytes are the same, so nothing is
    # checked, pushed, restarted or signalled.
    again = charm.run(changed.state(), Event.config_changed())
    again.assert_ok()
    for call in ["exec", "make-dir", "push", "restart", "send-signal"]:
        assert calls_with(again, call) == [], f"{call}: {again}"
    assert again.pebble_file("web", CONF) == conf(9000, "Hello from web-k8s"), again


def test_a_new_greeting_is_a_reload_by_sighup_not_a_restart(charm: Charm) -> None:
    out = charm.run(ready(charm).config("greeting", "Grüß dich"), Event.config_changed())
    out.assert_ok()
    assert calls_with(out, "push") == ["push /etc/web/web.conf"], out
    assert calls_with(out, "send-signal") == ["send-signal SIGHUP web"], out
    assert calls_with(out, "restart") == [], out
    assert out.logged("reloading web (SIGHUP): /etc/web/web.conf changed"), out
    assert out.pebble_file("web", CONF) == conf(8080, "Grüß dich"), out
    assert out.pebble_service("web", "web") == "active", out
    assert out.unit_status == Status.active("Serving"), out

    # A server that is not running reads its file when it starts: neither
    # signal nor restart, the replan starts it.
    stopped = ready(charm).pebble_service("web", "web", "inactive")
    out = charm.run(stopped.config("greeting", "Hi"), Event.config_changed())
    out.assert_ok()
    assert calls_with(out, "send-signal") == [], out
    assert calls_with(out, "restart") == [], out
    assert out.pebble_service("web", "web") == "active", out


def test_the_directory_and_file_belong_to_the_servers_user(charm: Charm) -> None:
    out = charm.run(State(), Event.pebble_ready("web"))
    out.assert_ok()
    assert calls_with(out, "make-dir") == ["make-dir /etc/web"], out
    # The file: the server's user and group, readable by them only.
    containers = out.state().get("containers")
    assert containers["web"]["files"][CONF] == {
        "content": conf(8080, "Hello from web-k8s"),
        "permissions": "640",
        "owner": {"user-id": 584792, "group-id": 584792},
    }, out
    # The service runs as that user, in the same environment.
    service = containers["web"]["layers"][0]["services"]["web"]
    assert service["user-id"] == 584792, service
    assert service["group-id"] == 584792, service
    assert service["environment"] == {"LANG": "C.UTF-8"}, service
    assert service["working-dir"] == "/", service


def test_a_configuration_the_server_refuses_is_not_pushed_and_blocks_with_its_words(
    charm: Charm,
) -> None:
    # The server's complaint comes on stderr: combined into the output the
    # charm reads, it names what is wrong.
    refusal = "web-server: <stdin>: port 80: only root may listen below 1024 (uid 584792)\n"
    state = ready(charm).config("port", 80).pebble_exec("web", "validate-config", 1, "", refusal)
    out = charm.run(state, Event.config_changed())
    out.assert_ok()
    blocked = Status.blocked(f"web-server refuses the configuration: {refusal.strip()}")
    assert out.scope("handler/web") == blocked, out
    assert out.unit_status == blocked, out
    assert out.logged(
        "web-server refuses the new /etc/web/web.conf (exit 1); the old one stays"
    ), out
    # Checked with the new file on stdin, as the server runs; then nothing
    # else: the old file stays, and the server serves on with it.
    assert calls_with(out, "exec web-server") == [
        f"exec web-server --check - {AS_THE_SERVER}"
    ], out
    stdin = f"exec stdin {len(conf(80, 'Hello from web-k8s').encode())} bytes"
    assert len(calls_with(out, stdin)) == 1, out
    for call in ["make-dir", "push", "restart", "send-signal", "add-layer"]:
        assert calls_with(out, call) == [], f"{call}: {out}"
    assert out.pebble_file("web", CONF) == conf(8080, "Hello from web-k8s"), out
    assert out.pebble_service("web", "web") == "active", out

    # The server accepts the next one: pushed, and the unit is active.
    fixed = out.state().config("port", 8081)
    fixed = fixed.pebble_exec("web", "validate-config", 0, "port = 8081\n", "")
    out = charm.run(fixed, Event.config_changed())
    out.assert_ok()
    assert out.scope("handler/web") is None, out
    assert out.unit_status == Status.active("Serving"), out
    assert calls_with(out, "restart") == ["restart web"], out


def test_the_workloads_reload_notice_is_read_and_answered_with_sighup(charm: Charm) -> None:
    state = ready(charm).pebble_notice("web", RELOAD, {"reason": "certificates renewed"})
    out = charm.run(state, Event.pebble_custom_notice("web").notice("1", RELOAD))
    out.assert_ok()
    assert calls_with(out, "notice") == ["get-notice 1"], out
    assert out.logged(
        "the workload asks for a reload (certificates renewed; notice 1, 1 times)"
    ), out
    assert calls_with(out, "send-signal") == ["send-signal SIGHUP web"], out
    assert out.logged("reloading web (SIGHUP): the workload asked"), out
    # The file was the charm's: nothing pushed, nothing restarted.
    for call in ["push", "restart"]:
        assert calls_with(out, call) == [], f"{call}: {out}"
    assert out.unit_status == Status.active("Serving"), out

    # Someone edited the file in the container meanwhile: the charm's is
    # checked and pushed back, then the server reloads once.
    edited = state.pebble_file("web", CONF, "port = 8080\ngreeting = edited\n")
    out = charm.run(edited, Event.pebble_custom_notice("web").notice("1", RELOAD))
    out.assert_ok()
    assert calls_with(out, "push") == ["push /etc/web/web.conf"], out
    assert calls_with(out, "send-signal") == ["send-signal SIGHUP web"], out
    assert out.pebble_file("web", CONF) == conf(8080, "Hello from web-k8s"), out


def test_another_notice_is_not_the_charms_and_signals_nothing(charm: Charm) -> None:
    state = ready(charm).pebble_notice("web", "example.com/other/thing", {"a": "b"})
    out = charm.run(
        state, Event.pebble_custom_notice("web").notice("1", "example.com/other/thing")
    )
    out.assert_ok()
    assert calls_with(out, "notice") == [], out
    assert calls_with(out, "send-signal") == [], out
    assert out.logged("notice example.com/other/thing of web: not the charm's"), out
    assert out.unit_status == Status.active("Serving"), out


def test_unusable_config_blocks_and_leaves_the_container_alone(charm: Charm) -> None:
    out = charm.run(ready(charm).config("port", 70000), Event.config_changed())
    out.assert_ok()
    status = out.unit_status
    assert status is not None and status.kind == "blocked", out
    assert "port" in status.message, out
    assert out.pebble_file("web", CONF) == conf(8080, "Hello from web-k8s"), out


def test_a_failing_check_is_maintenance_within_its_grace_then_blocked_then_heals(
    charm: Charm,
) -> None:
    down = ready(charm).pebble_check("web", "alive", False)
    failed = charm.run(down, Event.pebble_check_failed("web").check("alive").at(at(10)))
    failed.assert_ok()
    assert failed.logged("Pebble check web/alive failed"), failed
    assert failed.unit_status == Status.maintenance(
        "check web/alive down (3 of 3 failures)"
    ), failed
    # Past the probe's 30 s grace period, still down: blocked, with no
    # handler deciding it.
    later = charm.run(failed.state(), Event.update_status().at(at(50)))
    later.assert_ok()
    assert later.unit_status == Status.blocked("check web/alive down (3 of 3 failures)"), later
    # The check comes back: active again.
    up = later.state().pebble_check("web", "alive", True)
    recovered = charm.run(up, Event.pebble_check_recovered("web").check("alive").at(at(60)))
    recovered.assert_ok()
    assert recovered.logged("Pebble check web/alive recovered"), recovered
    assert recovered.unit_status == Status.active("Serving"), recovered


def test_check_config_runs_the_declared_command_through_pebble_exec(charm: Charm) -> None:
    state = ready(charm).pebble_exec("web", "check-config", 0, "port 8080\n", "")
    out = charm.run(state, Event.action("check-config"))
    out.assert_ok()
    assert out.action_results.get("output") == "port 8080\n", out
    assert out.action_failed is None, out
    assert (
        f"exec web-server --check /etc/web/web.conf {AS_THE_SERVER}" in out.pebble_calls("web")
    ), out

    state = ready(charm).pebble_exec("web", "check-config", 1, "", "greeting: too long\n")
    out = charm.run(state, Event.action("check-config"))
    assert out.action_failed == (
        "web-server finds /etc/web/web.conf unusable: greeting: too long"
    ), out


def test_related_units_are_told_the_port(charm: Charm) -> None:
    state = (
        ready(charm)
        .config("port", 9000)
        .relation(Relation("website:3", "proxy").unit("proxy/0"))
    )
    out = charm.run(state, Event.relation_joined("website").remote_unit("proxy/0"))
    out.assert_ok()
    relation = out.relation("website:3")
    assert relation is not None, out
    assert relation.get("local-unit-data", {}).get("port") == "9000", out


# The charm's pure logic, on this Python: no harness, no component.


def test_the_file_and_the_layer_follow_the_config() -> None:
    wanted = check({"port": 9000, "greeting": " Hi there "})
    assert wanted == Wanted(9000, "Hi there")
    assert "\nport = 9000\ngreeting = Hi there\n" in wanted.render()
    layer = wanted.layer()
    server = layer["services"]["web"]
    assert server["override"] == "replace"
    assert server["command"] == "web-server --config /etc/web/web.conf"
    assert server["startup"] == "enabled"
    assert server["on-check-failure"] == {"alive": "restart"}
    assert (server["user-id"], server["group-id"]) == (584792, 584792)
    assert server["environment"] == {"LANG": "C.UTF-8"}
    assert server["working-dir"] == "/"
    alive = layer["checks"]["alive"]
    assert alive["override"] == "replace"
    assert alive["level"] == "alive"
    assert alive["http"]["url"] == "http://localhost:9000/healthz"


def test_the_port_is_read_back_from_a_file_the_charm_wrote() -> None:
    wanted = check({"port": 9000, "greeting": "Hi"})
    assert port_of(wanted.render().encode()) == 9000
    assert port_of(b"greeting = port = 1\n") is None
    assert port_of(b"port = many\n") is None
    assert port_of(b"port = 70000\n") is None
    assert port_of(b"") is None


@pytest.mark.parametrize(
    ("port", "greeting", "why"),
    [
        (0, "hi", "Config item `port`: 0 is not a port (1 to 65535)"),
        (70000, "hi", "Config item `port`: 70000 is not a port (1 to 65535)"),
        (80, "  ", "Config item `greeting` must be set"),
        (80, "two\nlines", "Config item `greeting` must be one line of text"),
        # A control character Python's own strip() would take, Rust's trim not.
        (80, "hi\x1f", "Config item `greeting` must be one line of text"),
    ],
)
def test_an_unusable_config_is_named(port: int, greeting: str, why: str) -> None:
    with pytest.raises(Unusable) as refused:
        check({"port": port, "greeting": greeting})
    assert str(refused.value) == why
