"""The Python SDK's calls answered by the simulated Juju, Pebble and machine
of ``wasm-charm serve``: each action of the test charm reports what it got,
and the state after it shows what it changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from wasm_charm_testing import Charm, Event, Relation, State

PROJECT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def charm() -> Charm:
    return Charm.build(PROJECT)


def run_ok(charm: Charm, state: State, action: str):
    out = charm.run(state, Event.action(action))
    out.assert_ok()
    assert out.action_failed is None, out
    return out


def test_ports_are_set_as_ops_sets_them(charm: Charm) -> None:
    out = run_ok(charm, State().section("opened-ports", {"80/tcp": ["*"]}), "ports")
    assert out.action_results["opened"] == "53/udp 8080/tcp", out
    assert out.action_results["refused"] == (
        "invalid argument: a tcp port needs a number (1-65535)"
    ), out
    assert out.state().doc["opened-ports"] == {"8080/tcp": ["*"], "53/udp": ["*"]}, out


def test_secrets_are_read_added_and_changed(charm: Charm) -> None:
    shared = {
        "secret:d1ulvkcavc0s73ak2mcg": {
            "owner": "vault",
            "revisions": [{"revision": 1, "content": {"token": "s3cret"}}],
            "label": "vault-token",
        }
    }
    out = run_ok(charm, State().section("secrets", shared), "secrets")
    assert out.action_results == {"token": "s3cret", "added": "True", "missing": "not-found"}, out
    added = [s for s in out.state().doc["secrets"].values() if s.get("label") == "db-password"]
    assert len(added) == 1, out.state().doc["secrets"]
    assert added[0]["owner"] == "application", added
    latest = max(added[0]["revisions"], key=lambda r: r["revision"])
    assert latest["content"] == {"password": "correct-horse"}, added


def test_pebble_files_layers_services_exec_and_notices(charm: Charm) -> None:
    web = {
        "can-connect": True,
        "exec": {"echo": {"exit": 0, "stdout": "hi\n"}, "fail": {"exit": 3, "stderr": "err\n"}},
        "notices": [{"key": "example.com/db", "last-data": {"ready": "yes"}}],
    }
    out = run_ok(charm, State().section("containers", {"web": web}), "pebble")
    results = {k: v.strip() for k, v in out.action_results.items()}
    assert results == {
        "conf": "port = 8080",
        "streamed": "port = 8080",
        "files": "web.conf:600",
        "plan-command": "web-server",
        "running": "True",
        "echo": "hi",
        "exec-error": "3 err",
        "path-error": "not-found",
        "notice": "yes",
    }, out
    pushed = out.state().doc["containers"]["web"]["files"]["/etc/web/web.conf"]
    assert pushed == {"content": "port = 8080\n", "permissions": "600"}, pushed


def test_pebble_not_up_cannot_connect(charm: Charm) -> None:
    state = State().section("containers", {"web": {"can-connect": False}})
    out = charm.run(state, Event.action("pebble"))
    out.assert_ok()
    assert out.action_failed == "Pebble in web is not up", out


def test_storage_network_probes_and_workload(charm: Charm) -> None:
    state = (
        State()
        .section("storage", {"data/0": {"kind": "filesystem", "location": "/srv/data"}})
        .section("probes", {"api": {"healthy": False, "detail": "no api-service process"}})
        .section(
            "machine",
            {
                "services": {"api-service": {"active": "inactive", "enabled": "enabled"}},
                "commands": {"db-sync": {"exit": 1, "stderr": "database locked"}},
            },
        )
    )
    out = run_ok(charm, state, "machine")
    assert out.action_results == {
        "storage": "data/0:/srv/data",
        "address": "10.0.0.10",
        "sync": "1 database locked",
        "service": "inactive",
        "undeclared": "refused",
        "no-probe": "refused",
        "probe": "False no api-service process",
        "gates": "api",
    }, out
    after = out.state().doc
    assert "data/1" in after["storage"], after["storage"]
    assert after["machine"]["services"]["api-service"]["active"] == "active", after["machine"]


def test_the_snapshots_objects_are_frozen_out_of_the_collector(charm: Charm) -> None:
    # Every object imported at build time is in the permanent generation, so
    # no collection in an event walks them; the collector still runs on what
    # the event allocates.
    out = run_ok(charm, State(), "snapshot")
    assert int(out.action_results["frozen"]) > 10_000, out
    assert out.action_results["collecting"] == "True", out


def test_typed_bags_are_written_read_and_checked(charm: Charm) -> None:
    traefik = (
        Relation("ingress:4", "traefik")
        .unit("traefik/0")
        .app_data("ingress", '{"url": "http://gw/dev-sdk-py"}')
        .unit_data("traefik/0", "host", "gw")
    )
    out = run_ok(charm, State().leader(True).relation(traefik), "relations")
    assert out.action_results["url"] == "http://gw/dev-sdk-py", out
    assert out.action_results["refused"].startswith(
        "invalid argument: relation-set on ingress:4: does not fit ingress v2 (the requirer's "
        "application bag): port: is not JSON text"
    ), out
    assert out.action_results["unreadable"] == (
        "ingress:4, traefik/0's bag (ingress v2): field `host`: not JSON text "
        "(Expecting value: line 1 column 1 (char 0)): 'gw'"
    ), out
    bag = out.state().doc["relations"]["ingress:4"]["local-app-data"]
    assert bag == {"model": '"dev"', "name": '"sdk-py"', "port": "8080"}, bag
