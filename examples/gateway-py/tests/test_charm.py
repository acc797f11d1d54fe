"""The gateway's events through the Python harness (``wasm-charm serve``):
the same story as tests/scenarios/gateway.yaml, from pytest."""

from __future__ import annotations

from pathlib import Path

import pytest

from wasm_charm_testing import Charm, Error, Event, Relation, State, Status

PROJECT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def charm() -> Charm:
    return Charm.build(PROJECT)


def test_install_reports_every_concern(charm: Charm) -> None:
    out = charm.run(State().leader(False), Event.install())
    out.assert_ok()
    assert out.scopes() == {
        "handler/config": Status.blocked("Config item `kind` must be set"),
        "handler/pilot": Status.blocked("Waiting for istio-pilot relation"),
        "handler/leader": Status.waiting("Waiting for leadership"),
    }, out
    assert out.unit_status == Status.blocked("Config item `kind` must be set (+2 more)"), out


def test_the_pilots_problem_survives_the_configs_success(charm: Charm) -> None:
    out = charm.run(State().leader(False), Event.install())
    out = charm.run(out.state().config("kind", "ingress"), Event.config_changed())
    out.assert_ok()
    assert out.scope("handler/config") is None, out
    assert out.unit_status == Status.blocked("Waiting for istio-pilot relation (+1 more)"), out


def test_waits_for_the_pilots_data_then_clears(charm: Charm) -> None:
    state = State().config("kind", "ingress").relation(Relation("istio-pilot:0", "pilot").unit("pilot/0"))
    out = charm.run(state, Event.relation_changed("istio-pilot"))
    out.assert_ok()
    assert out.scope("handler/pilot") == Status.waiting("Waiting for istio-pilot relation data"), out
    data = (
        Event.relation_changed("istio-pilot")
        .remote_app_data("service-name", "pilot")
        .remote_app_data("service-port", "15010")
    )
    out = charm.run(out.state(), data)
    assert out.scope("handler/pilot") is None, out
    assert out.relation("istio-pilot:0")["app-data"] == {
        "service-name": "pilot",
        "service-port": "15010",
    }, out
    assert [c for c, _ in out.scope_history("handler/pilot")] == [
        Status.waiting("Waiting for istio-pilot relation data"),
        None,
    ], out


def test_a_leader_with_everything_is_active(charm: Charm) -> None:
    relation = (
        Relation("istio-pilot:0", "pilot")
        .unit("pilot/0")
        .app_data("service-name", "pilot")
        .app_data("service-port", "15010")
    )
    state = State().leader(True).config("kind", "egress").relation(relation)
    out = charm.run(state, Event.leader_elected())
    out.assert_ok()
    assert out.scopes() == {}, out
    assert out.unit_status == Status.active(""), out
    assert out.unit_status_set, out


def test_a_seeded_scope_stays_until_its_handler_clears_it(charm: Charm) -> None:
    state = State().leader(True).scope("handler/leader", Status.waiting("Waiting for leadership"))
    out = charm.run(state, Event.update_status())
    out.assert_ok()
    assert out.scope("handler/leader") == Status.waiting("Waiting for leadership"), out
    assert out.handlers == [], "no handler observes update-status"
    out = charm.run(out.state(), Event.leader_elected())
    assert out.scope("handler/leader") is None, out


def test_a_config_option_the_charm_lacks_is_refused(charm: Charm) -> None:
    with pytest.raises(Error) as refused:
        charm.run(State().config("colour", "red"), Event.config_changed())
    assert refused.value.kind == "usage"
    assert "colour" in refused.value.message
