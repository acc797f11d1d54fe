"""The model's story driven by jubilant, unchanged, through `juju`.

`juju` on PATH is this workspace's wasm-charm, linked under that name; the
models live in the test's own WASM_CHARM_JUJU_HOME. Every call below is a
jubilant method a charm's integration tests make against a real controller.
"""

import json
import os

import jubilant
import pytest

DB = os.environ["WASM_CHARM_DB_PROVIDER"]
APP = os.environ["WASM_CHARM_DB_CLIENT"]


@pytest.fixture(scope="module")
def juju():
    # add-model --no-switch jubilant-<hex>, and destroy-model on the way out.
    with jubilant.temp_model() as juju:
        juju.wait_timeout = 30
        yield juju


def settled(juju, ready):
    # Each command settles the model before it returns: one poll is enough.
    return juju.wait(ready, error=jubilant.any_error, delay=0, successes=1)


def test_version_is_one_jubilant_parses():
    version = jubilant.Juju().version()
    assert (version.major, version.minor) >= (3, 6)


def test_deploy_integrate_and_see_both_sides(juju):
    juju.deploy(DB, "db")
    juju.deploy(APP, "app", num_units=2, config={"database-name": "shop"})
    status = settled(juju, lambda s: jubilant.all_blocked(s, "app") or jubilant.all_waiting(s, "app"))
    assert set(status.apps["app"].units) == {"app/0", "app/1"}
    assert status.apps["db"].units["db/0"].leader
    assert status.apps["app"].charm_name == "db-client"

    juju.integrate("app", "db")
    status = settled(juju, jubilant.all_active)
    for unit in ("app/0", "app/1"):
        message = status.apps["app"].units[unit].workload_status.message
        assert message.startswith("connected to ") and message.endswith(" as relation_1"), message
    assert jubilant.all_agents_idle(status)
    relations = status.apps["app"].relations["database"]
    assert [r.related_app for r in relations] == ["db"]
    assert relations[0].interface == "postgresql_client"
    assert juju.config("app")["database-name"] == "shop"

    # show-unit: the other side's bag and the units in scope, as the unit
    # sees them.
    shown = json.loads(juju.cli("show-unit", "app/0", "--format", "json"))["app/0"]
    (info,) = shown["relation-info"]
    assert info["endpoint"] == "database" and info["related-endpoint"] == "database"
    assert info["application-data"]["database"] == "shop"
    assert info["application-data"]["secret-user"].startswith("secret:")
    assert list(info["related-units"]) == ["db/0"]


def test_scale_run_an_action_and_read_the_log(juju):
    juju.add_unit("db", num_units=2)
    status = settled(juju, jubilant.all_active)
    assert set(status.apps["db"].units) == {"db/0", "db/1", "db/2"}
    endpoints = status.apps["app"].units["app/0"].workload_status.message
    assert endpoints.startswith("connected to "), endpoints

    task = juju.run("db/0", "rotate-password")
    assert task.status == "completed" and task.return_code == 0, task
    settled(juju, jubilant.all_active)

    with pytest.raises(jubilant.CLIError) as refused:
        juju.run("db/0", "no-such-action")
    assert "no-such-action" in refused.value.stderr

    # exec: the commands in the unit's hook context, its tools on PATH.
    task = juju.exec("is-leader", unit="db/leader")
    assert task.stdout == "True\n" and task.return_code == 0, task
    with pytest.raises(jubilant.TaskError) as failed:
        juju.exec("echo no >&2; exit 4", unit="db/1")
    assert (failed.value.task.return_code, failed.value.task.stderr) == (4, "no\n")

    log = juju.debug_log(limit=5)
    assert 0 < len(log.splitlines()) <= 5, log

    # Time passes when the model is told (`advance`, the model's own
    # command): an hour at a 60m interval is one update-status per unit.
    juju.model_config({"update-status-hook-interval": "60m"})
    assert juju.model_config()["update-status-hook-interval"] == "60m"
    juju.cli("advance", "1h")
    settled(juju, jubilant.all_active)
    with pytest.raises(jubilant.CLIError) as refused:
        juju.model_config({"update-status-hook-interval": "10s"})
    assert "cannot be less than 1m" in refused.value.stderr


def test_secrets_config_and_taking_it_apart(juju):
    uri = juju.add_secret("admin", {"password": "hunter2"}, info="for people")
    juju.grant_secret(uri, "app")
    shown = juju.show_secret(uri, reveal=True)
    assert shown.content == {"password": "hunter2"}
    assert any(s.uri == uri for s in juju.secrets())

    juju.remove_secret(uri)
    assert all(s.uri != uri for s in juju.secrets())

    # refresh: a new revision of the charm, upgrade-charm on every unit,
    # the store and the relation kept.
    before = juju.status().apps["db"].charm_rev
    juju.refresh("db", path=DB)
    juju.trust("db")
    status = settled(juju, jubilant.all_active)
    assert status.apps["db"].charm_rev == before + 1
    assert status.apps["app"].units["app/0"].workload_status.message.startswith("connected to ")

    juju.config("app", {"database-name": "stock"})
    assert juju.config("app")["database-name"] == "stock"
    juju.config("app", reset="database-name")
    assert juju.config("app")["database-name"] == "app"

    juju.remove_unit("app/1")
    juju.remove_relation("app", "db")
    status = settled(juju, lambda s: "app/1" not in s.apps["app"].units)
    assert "database" not in status.apps["app"].relations
    assert not jubilant.any_error(status)

    juju.remove_application("app")
    status = settled(juju, lambda s: "app" not in s.apps)
    assert set(status.apps) == {"db"}
