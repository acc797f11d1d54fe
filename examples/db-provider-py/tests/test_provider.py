"""The Python database provider through the Python harness: the leader
answers with endpoints and a user secret made once per relation, a
request that does not fit is skipped and logged, a replica writes
nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from wasm_charm_testing import Charm, Event, Relation, State, Status

PROJECT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def charm() -> Charm:
    return Charm.build(PROJECT)


def requested() -> State:
    return State().relation(Relation("database:1", "app").unit("app/0").app_data("database", "orders"))


def test_the_leader_answers_with_endpoints_and_a_user_made_once(charm: Charm) -> None:
    event = Event.relation_changed("database").remote_unit("app/0")
    first = charm.run(requested(), event)
    first.assert_ok()
    bag = first.relation("database:1")["local-app-data"]
    assert bag["database"] == "orders", bag
    assert bag["endpoints"] == "10.0.0.10:5432", bag
    assert bag["secret-user"].startswith("secret:"), bag
    assert first.scope("handler/database") == Status.active("serving 1 database"), first
    added = [c for c in first.tool_calls if c.startswith("secret-add")]
    assert len(added) == 1 and "--label wasm-charm.database.database.1" in added[0], first.tool_calls
    again = charm.run(first.state(), event)
    again.assert_ok()
    # Nothing new: no user made, and the bag, unchanged, not written.
    assert not [
        c for c in again.tool_calls if c.startswith(("secret-add", "relation-set"))
    ], again.tool_calls
    assert again.relation("database:1")["local-app-data"]["secret-user"] == bag["secret-user"]


def test_a_request_that_does_not_fit_is_skipped_and_logged(charm: Charm) -> None:
    state = requested().relation(
        Relation("database:2", "shop")
        .unit("shop/0")
        .app_data("database", "shop")
        .app_data("requested-secrets", "username,password")
    )
    out = charm.run(state, Event.relation_changed("database").relation("database:1").remote_unit("app/0"))
    out.assert_ok()
    assert out.logged("skipped: database:2, the remote application's bag"), out.logs
    assert not out.relation("database:2").get("local-app-data"), out
    assert out.scope("handler/database") == Status.active("serving 1 database"), out


def test_a_replica_writes_nothing(charm: Charm) -> None:
    out = charm.run(requested().leader(False), Event.relation_changed("database").remote_unit("app/0"))
    out.assert_ok()
    assert not out.relation("database:1").get("local-app-data"), out
    assert out.scope("handler/database") == Status.active("replica"), out
