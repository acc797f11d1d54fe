"""The Python database requirer through the Python harness: the waiting
scope, the provider's answer in one line, and the library's events."""

from __future__ import annotations

from pathlib import Path

import pytest

from wasm_charm_testing import Charm, Event, Relation, State, Status

PROJECT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def charm() -> Charm:
    return Charm.build(PROJECT)


def test_without_a_relation_it_is_blocked_and_without_an_answer_it_waits(charm: Charm) -> None:
    out = charm.run(State(), Event.install())
    assert out.scope("handler/connection") == Status.blocked("needs a database relation"), out
    state = State().relation(Relation("database:1", "db").unit("db/0"))
    out = charm.run(state, Event.relation_created("database"))
    out.assert_ok()
    assert out.relation("database:1")["local-app-data"]["database"] == "app", out
    assert out.scope("handler/connection") == Status.waiting(
        "waiting for database app on database:1"
    ), out


def test_the_librarys_events_come_once_each(charm: Charm) -> None:
    answered = State().database_provider("database:1", "pg", "app", "10.0.0.1:5432", "u1", "p1")
    first = charm.run(answered, Event.relation_changed("database"))
    first.assert_ok()
    assert first.logged("database created: credentials u1 (password read)"), first.logs
    assert first.scope("handler/connection") == Status.active("connected to 10.0.0.1:5432 as u1")
    kept = first.stored("wasm-charm.database.database.1")
    moved = (
        State()
        .stored("wasm-charm.database.database.1", kept)
        .database_provider("database:1", "pg", "app", "10.0.0.2:5432", "u1", "p1")
    )
    changed = charm.run(moved, Event.relation_changed("database"))
    assert changed.logged("endpoints changed: credentials u1 (password read)"), changed.logs
    assert changed.scope("handler/connection") == Status.active(
        "connected to 10.0.0.2:5432 as u1"
    )


def test_a_rotated_ca_is_read_at_its_newest_revision(charm: Charm) -> None:
    ca = "secret:d0000000000000000ca0"
    base = State().database_provider("database:1", "pg", "app", "10.0.0.1:5432", "u1", "p1")
    secrets = dict(base.get("secrets"))
    secrets[ca] = {
        "owner": "pg",
        "tracking": 1,
        "revisions": [
            {"revision": 1, "content": {"tls-ca": "old-ca"}},
            {"revision": 2, "content": {"tls-ca": "new-ca"}},
        ],
    }
    relations = dict(base.get("relations"))
    relations["database:1"]["app-data"].update({"tls": "true", "secret-tls": ca})
    state = base.section("secrets", secrets).section("relations", relations)
    read = charm.run(state, Event.relation_changed("database"))
    assert read.logged("CA old-ca"), read.logs
    rotated = charm.run(state, Event.secret_changed().secret(ca))
    rotated.assert_ok()
    assert rotated.logged("CA new-ca"), rotated.logs
