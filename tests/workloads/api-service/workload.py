"""The fake workload of the api-service example charm: what the package
`api-service` installs on the simulated machine (see README.md).

One script, three programs, chosen by the first argument:

  api    --knobs K --root R    the API (unit `api-service`): reads
                                 R/etc/api-service/api-service.conf, listens
                                 on 127.0.0.1:<[api] port> and answers
                                 `GET /healthcheck` 200 `OK`, anything else 404
  idle   --knobs K --name N    a worker or scheduler (units `api-worker`,
                                 `api-scheduler`): runs until stopped
  manage --knobs K --root R db sync
                                 the migration (`api-service-manage`): appends
                                 `db sync release=<release of the config file>`
                                 to K/db-sync.log (with ` failed` when it
                                 fails, below)

Knobs the tests turn, as files under the test's own directory K:

  K/hold/api-service    while it exists, the API runs but does not listen
                        yet (a service that takes a while to come up); it
                        listens once the file is removed
  K/fail/db-sync        the migration fails: exit 1, the file's content on
                        stderr

Each program names itself (`/proc/self/comm`) after its unit, as the real
one would be named, for the host's process probes; the unit scripts also set
argv[0]. A program whose knobs directory is gone exits: a test that died
without cleaning up leaves no process behind for long.

Standard library only; Python 3.11.
"""

import argparse
import configparser
import http.server
import os
import signal
import sys
import threading
import time

CONFIG = "etc/api-service/api-service.conf"
POLL = 0.05


def name_self(name):
    """Set this process's comm (at most 15 bytes kept by the kernel)."""
    try:
        with open("/proc/self/comm", "w") as f:
            f.write(name)
    except OSError:
        pass


def watch_knobs(knobs):
    """Exit the whole process once the test's directory is gone."""

    def watch():
        while os.path.isdir(knobs):
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def stop_on_term():
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))


def read_config(root):
    path = os.path.join(root, CONFIG)
    config = configparser.ConfigParser()
    with open(path) as f:
        config.read_file(f)
    return config


class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/healthcheck":
            body = b"OK"
            self.send_response(200)
        else:
            body = b""
            self.send_response(404)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    # Take the port back past TIME_WAIT, and share it with the test's
    # reservation of it (bound with SO_REUSEADDR, never listening).
    allow_reuse_address = True
    daemon_threads = True


def api(args):
    name_self("api-service")
    stop_on_term()
    watch_knobs(args.knobs)
    try:
        port = read_config(args.root).getint("api", "port")
    except (OSError, configparser.Error, ValueError) as e:
        print(f"api-service: cannot read {CONFIG}: {e}", file=sys.stderr)
        return 1
    hold = os.path.join(args.knobs, "hold", "api-service")
    while os.path.exists(hold):
        time.sleep(POLL)
    Server(("127.0.0.1", port), Health).serve_forever(poll_interval=POLL)
    return 0


def idle(args):
    name_self(args.name)
    stop_on_term()
    watch_knobs(args.knobs)
    while True:
        time.sleep(3600)


def manage(args):
    if args.command != ["db", "sync"]:
        print(f"api-service-manage: unknown command {' '.join(args.command)}", file=sys.stderr)
        return 2
    try:
        release = read_config(args.root).get("DEFAULT", "release")
    except (OSError, configparser.Error) as e:
        print(f"api-service-manage: cannot read {CONFIG}: {e}", file=sys.stderr)
        return 1
    fail = os.path.join(args.knobs, "fail", "db-sync")
    failed = os.path.exists(fail)
    with open(os.path.join(args.knobs, "db-sync.log"), "a") as f:
        f.write(f"db sync release={release}{' failed' if failed else ''}\n")
    if failed:
        with open(fail) as f:
            sys.stderr.write(f.read())
        return 1
    print(f"database migrated to {release}")
    return 0


def main():
    parser = argparse.ArgumentParser(prog="workload.py")
    sub = parser.add_subparsers(dest="program", required=True)
    p = sub.add_parser("api")
    p.add_argument("--knobs", required=True)
    p.add_argument("--root", required=True)
    p = sub.add_parser("idle")
    p.add_argument("--knobs", required=True)
    p.add_argument("--name", required=True)
    p = sub.add_parser("manage")
    p.add_argument("--knobs", required=True)
    p.add_argument("--root", required=True)
    p.add_argument("command", nargs="*")
    args = parser.parse_args()
    return {"api": api, "idle": idle, "manage": manage}[args.program](args)


if __name__ == "__main__":
    sys.exit(main())
