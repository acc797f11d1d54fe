"""The Python SDK's test charm: one action per part of the SDK, each
reporting in its results what the calls answered."""

from __future__ import annotations

import gc
from typing import Optional

from wasm_charm import (
    Charm,
    Event,
    On,
    Port,
    SecretRotate,
    Status,
    action,
    errors,
    export_charm,
    interfaces,
    model,
    pebble,
    ports,
    probe,
    secrets,
    storage,
    workload,
)


def do_ports(event: Event) -> Optional[Status]:
    model.unit.set_ports(8080, Port("udp", 53))
    opened = sorted(f"{p.port}/{p.protocol}" for p in ports.opened_ports())
    try:
        ports.open_port("tcp", 0)
        refused = ""
    except errors.InvalidArgument as e:
        refused = str(e)
    action.set_results({"opened": " ".join(opened), "refused": refused})
    return None


def do_secrets(event: Event) -> Optional[Status]:
    token = secrets.get_secret(label="vault-token").get_content()["token"]
    mine = model.app.add_secret(
        {"password": "hunter2"}, label="db-password", rotate=SecretRotate.MONTHLY
    )
    mine.set_content({"password": "correct-horse"})
    try:
        secrets.get_secret(id="secret:d1ulvkcavc0s73ak2mc0")
        missing = "found"
    except errors.SecretNotFoundError:
        missing = "not-found"
    action.set_results(
        {
            "token": token,
            "added": str(mine.id is not None and mine.id.startswith("secret:")),
            "missing": missing,
        }
    )
    return None


LAYER = {
    "summary": "web",
    "services": {
        "web": {"override": "replace", "command": "web-server", "startup": "enabled"},
    },
}


def do_pebble(event: Event) -> Optional[Status]:
    web = model.unit.get_container("web")
    if not web.can_connect():
        action.fail("Pebble in web is not up")
        return None
    web.push("/etc/web/web.conf", "port = 8080\n", make_dirs=True, permissions=0o600)
    conf = web.pull("/etc/web/web.conf").read()
    with web.pull_stream("/etc/web/web.conf") as f:
        streamed = f.read()
    web.add_layer("web", LAYER, combine=True)
    web.replan()
    plan = web.get_plan()
    echo = web.exec("echo", ["hi"])
    try:
        web.exec("fail").wait_output()
        exec_error = ""
    except pebble.ExecError as e:
        exec_error = f"{e.exit_code} {e.stderr.strip()}"
    try:
        web.pull("/etc/web/nope")
        path_error = ""
    except pebble.PathError as e:
        path_error = e.kind
    notices = web.get_notices(keys=["example.com/db"])
    action.set_results(
        {
            "conf": conf,
            "streamed": streamed.decode(),
            "files": " ".join(f"{f.name}:{f.permissions:o}" for f in web.list_files("/etc/web")),
            "plan-command": plan.services["web"]["command"],
            "running": str(web.get_service("web").is_running()),
            "echo": echo.stdout_text(),
            "exec-error": exec_error,
            "path-error": path_error,
            "notice": notices[0].last_data.get("ready", "") if notices else "none",
        }
    )
    return None


def do_machine(event: Event) -> Optional[Status]:
    data = storage.storages("data")
    storage.request_storage("data", 1)
    address = model.get_binding("website").network.bind_address
    sync = workload.run("db-sync")
    state = workload.service_status("api-service")
    workload.start("api-service")
    try:
        workload.start("sshd")
        undeclared = ""
    except errors.WorkloadUndeclared:
        undeclared = "refused"
    try:
        probe.run("nope")
        no_probe = ""
    except errors.ProbeUndeclared:
        no_probe = "refused"
    result = probe.run("api")
    probe.gate_only(["api"])
    action.set_results(
        {
            "storage": " ".join(f"{s.id}:{s.location}" for s in data),
            "address": address or "",
            "sync": f"{sync.exit_code} {sync.stderr_text()}",
            "service": state.active,
            "undeclared": undeclared,
            "no-probe": no_probe,
            "probe": f"{result.healthy} {result.detail}",
            "gates": " ".join(g.name for g in probe.gates() if g.gate),
        }
    )
    return None


def do_relations(event: Event) -> Optional[Status]:
    ingress = model.get_relation("ingress")
    assert ingress is not None
    ingress.write(interfaces.ingress_v2.RequirerApp(model="dev", name="sdk-py", port=8080))
    answer = ingress.read(interfaces.ingress_v2.ProviderApp)
    try:
        ingress.set_local_app_data({"port": "eighty"})
        refused = ""
    except errors.InvalidArgument as e:
        refused = str(e)
    try:
        ingress.read(interfaces.ingress_v2.RequirerUnit, unit="traefik/0")
        unreadable = ""
    except interfaces.DataError as e:
        unreadable = str(e)
    action.set_results(
        {"url": answer.ingress["url"] if answer else "", "refused": refused, "unreadable": unreadable}
    )
    return None


def do_snapshot(event: Event) -> Optional[Status]:
    # What the instance starts from: the build's snapshot, its objects frozen
    # out of the collector's reach, the collector itself still on.
    action.set_results({"frozen": str(gc.get_freeze_count()), "collecting": str(gc.isenabled())})
    return None


charm = (
    Charm()
    .observe("ports", On.action("ports"), do_ports)
    .observe("secrets", On.action("secrets"), do_secrets)
    .observe("pebble", On.action("pebble"), do_pebble)
    .observe("machine", On.action("machine"), do_machine)
    .observe("snapshot", On.action("snapshot"), do_snapshot)
    .observe("relations", On.action("relations"), do_relations)
)
export_charm(charm)
