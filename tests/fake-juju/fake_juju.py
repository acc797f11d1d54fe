#!/usr/bin/env -S python3 -I -S
"""Fake Juju hook tools for driving `wasm-charm` as Juju does, without Juju.

One script, symlinked under each tool's name into a directory that comes
first on PATH; it dispatches on the name it was called by. It fakes the
hook-tool *clients* (status-set, relation-get, ...) that a charm runs as
subprocesses: same argv syntax, same stdout, same `ERROR <message>` on stderr,
same exit codes (2 for flag and argument errors, 1 for run-time errors).

Sources: Juju's hook-tool commands (juju/juju
internal/worker/uniter/runner/jujuc/*.go) and hook context
(internal/worker/uniter/runner/context/context.go), as the sections of the
team's protocol notes cited below summarise them:
  * §2.0   flag parsing (juju/gnuflag: interspersed flags, `--` ends flags,
           `--long=value`, short flags take the rest of the argument or the
           next one, so `-r1` works but `-r=1` means the value "=1"), output
           formats (juju/cmd output.go: json = compact Go json.Marshal; smart =
           strings raw, []string one per line, bools True/False, else YAML).
  * §2.1-§2.5, §2.8-§2.13  each tool, cross-checked against
           juju/juju internal/worker/uniter/runner/jujuc/*.go.
  * §2.7    state-get / state-set / state-delete, their limits.
  * §1.6   what Juju commits: relation-set and state-set/state-delete are
           held in the hook context and committed only when the hook exits 0;
           status-set, juju-log, application-version-set and action-log act
           at once.
  * §5     the call log is ops' FakeScript format: tool name, then each
           argument preceded by RS (0x1E), then FS (0x1C).

Commit like Juju: relation-set, state-set and state-delete write to the
state's "pending" area, tagged with the hook's JUJU_CONTEXT_ID. The hook's own
reads see them where Juju shows them (relation-get of the local unit, or of
the local application by the leader; state-get); every other read, and every
other context, sees only what was committed. Whoever ran the hook ends it:

  fake_juju.py commit <context-id>    the hook exited 0: apply the pending
                                      writes (exit 1, keeping nothing, when the
                                      charm state then exceeds its total quota)
  fake_juju.py discard <context-id>   the hook failed: drop them

Both act only on pending writes of that context (pending writes of another
context are left alone) and then remove the "pending" key; FAKE_JUJU_STATE
names the state, as for the tools.

Environment:
  FAKE_JUJU_STATE      JSON state file (below); read on every call, rewritten
                       atomically (temp file + os.replace, under a lock) on writes.
  FAKE_JUJU_LOG        call log, appended to first thing on every call.
  FAKE_JUJU_DEBUG_LOG  juju-log writes one line `LEVEL message` here.
  JUJU_CONTEXT_ID, JUJU_UNIT_NAME, JUJU_RELATION, JUJU_RELATION_ID,
  JUJU_REMOTE_UNIT, JUJU_REMOTE_APP  as Juju sets them for the hook (§1.4).
  JUJU_ACTION_NAME     set (non-empty) while an action runs; without it the
                       action-* tools answer `not running an action` (exit 1).

State (missing keys mean empty/false/null):
  {"leader": bool, "config": {option: value},
   "relations": {"<endpoint>:<id>": {"app": remote app, "units": [remote units],
       "app-data": {}, "unit-data": {unit: {}}, "local-unit-data": {},
       "local-app-data": {}, "model-uuid": str (a cross-model relation's)}},
   "status": {"unit": {"status", "message"} | null, "app": ... | null},
   "application-version": str | null,
   "charm-state": {key: value},          committed state-set data
   "max-charm-state-size": int,          bytes, default 2 MiB, 0: unlimited
   "pending": {"context": JUJU_CONTEXT_ID,  uncommitted writes of that hook:
       "relations": {"<endpoint>:<id>": {"local-unit-data": {k: v},
           "local-app-data": {k: v}}},   "" deletes the key at commit
       "charm-state": {key: value | null},  null deletes the key at commit
       "reboot": "now" | "after-hook"},     juju-reboot's request
   "action-params": {param: value},      read by action-get
   "action-results": {"<dotted.key>": str},  written by action-set
   "action-failed": str | null,          the message action-fail left
   "reboot": "now" | "after-hook",      the last ended hook's juju-reboot
   "opened-ports": {"80/tcp": ["*"] | [endpoints]},  committed ports
   "storage": {"data/0": {"kind": "filesystem", "location": "/srv/data"}},
   "networks": {binding: network-get's JSON},
   "goal-state": {"units": {}, "relations": {}},
   "trusted": bool, "credential": credential-get's JSON,
   "resources": {name: path},
   "fail": {tool: {"code": int, "stderr": str, "stdout": str (optional)}}}
Pending "ports" (open-port/close-port) are [op, spec, endpoints] lists,
applied in order at commit.
A relation whose "app" is the local application is a peer relation: its
application bag is "local-app-data" for reading and writing.
"fail" injects a failure: the call is logged, then answered with that
output and exit code.
"""

import base64
import fcntl
import json
import os
import re
import sys

RS, FS = "\x1e", "\x1c"
STATUSES = ["maintenance", "blocked", "waiting", "active"]
LEVELS = {"TRACE": "TRACE", "DEBUG": "DEBUG", "INFO": "INFO", "WARN": "WARNING",
          "WARNING": "WARNING", "ERROR": "ERROR", "CRITICAL": "CRITICAL"}
APP_RE = r"[a-z][a-z0-9]*(?:-[a-z0-9]*[a-z][a-z0-9]*)*"  # juju/names
UNIT_RE = APP_RE + r"/(?:0|[1-9][0-9]*)"

# Flags per tool: flag name -> (canonical key, kind). Aliases share a key.
OUT = {"format": ("format", "format"), "o": ("output", "str"), "output": ("output", "str")}
REL = {"r": ("relation", "rel"), "relation": ("relation", "rel")}
APP = {"app": ("app", "bool")}
FLAGS = {
    "status-set": {"application": ("application", "bool")},
    "status-get": {**OUT, "include-data": ("include-data", "bool"),
                   "application": ("application", "bool")},
    "juju-log": {"debug": ("debug", "bool"), "l": ("level", "str"),
                 "log-level": ("level", "str"), "format": ("format", "str")},
    "config-get": {**OUT, "a": ("all", "bool"), "all": ("all", "bool")},
    "is-leader": OUT,
    "relation-ids": OUT,
    "relation-list": {**OUT, **REL, **APP},
    "relation-get": {**OUT, **REL, **APP},
    "relation-set": {**REL, **APP, "file": ("file", "str"), "format": ("format", "str")},
    "state-get": {**OUT, "strict": ("strict", "bool")},
    "state-set": {"file": ("file", "str")},
    "state-delete": {},
    "application-version-set": {},
    "action-get": OUT,
    "action-set": {},
    "action-fail": {},
    "action-log": {},
    # The rest of the model (§2.14-§2.19).
    "open-port": {"endpoints": ("endpoints", "str"), "format": ("format", "str")},
    "close-port": {"endpoints": ("endpoints", "str"), "format": ("format", "str")},
    "opened-ports": {**OUT, "endpoints": ("endpoints", "bool")},
    "storage-list": OUT,
    "storage-get": {**OUT, "s": ("storage", "str")},
    "relation-model-get": {**OUT, **REL},
    "juju-reboot": {"now": ("now", "bool")},
    "network-get": {**OUT, **REL, "bind-address": ("bind-address", "bool"),
                    "ingress-address": ("ingress-address", "bool"),
                    "egress-subnets": ("egress-subnets", "bool"),
                    "primary-address": ("primary-address", "bool")},
    "goal-state": OUT,
    "credential-get": OUT,
    "resource-get": {},
    "secret-add": {"label": ("label", "str"), "description": ("description", "str"),
                   "expire": ("expire", "str"), "rotate": ("rotate", "str"),
                   "owner": ("owner", "str"), "file": ("file", "str")},
    "secret-set": {"label": ("label", "str"), "description": ("description", "str"),
                   "expire": ("expire", "str"), "rotate": ("rotate", "str"),
                   "owner": ("owner", "str"), "file": ("file", "str")},
    "secret-get": {**OUT, "label": ("label", "str"), "peek": ("peek", "bool"),
                   "refresh": ("refresh", "bool")},
    "secret-info-get": {**OUT, "label": ("label", "str")},
    "secret-ids": OUT,
    "secret-grant": {**REL, "unit": ("unit", "str")},
    "secret-revoke": {**REL, "app": ("app", "str"), "unit": ("unit", "str")},
    "secret-remove": {"revision": ("revision", "str")},
}


class ToolError(Exception):
    """An `ERROR <message>` exit: code 2 for flag/Init errors, 1 for Run errors."""

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code


def usage_error(message):
    return ToolError(message, 2)


def go_quote(s):  # Go's %q, near enough
    return json.dumps(s, ensure_ascii=False)


def check_empty(args):  # juju/cmd CheckEmpty
    if args:
        raise usage_error("unrecognized args: [%s]" % " ".join(go_quote(a) for a in args))


# ---------------------------------------------------------------- state

def state_path():
    path = os.environ.get("FAKE_JUJU_STATE")
    if not path:
        raise ToolError("fake-juju: FAKE_JUJU_STATE not set")
    return path


def load_state():
    try:
        with open(state_path(), encoding="utf-8") as f:
            return json.load(f) or {}
    except FileNotFoundError:
        return {}
    except ValueError as e:
        raise ToolError("fake-juju: bad state file %s: %s" % (state_path(), e))


class StateWrite:
    """Read-modify-write of the state file under a lock; atomic replace on exit."""

    def __enter__(self):
        self.lock = open(state_path() + ".lock", "w")
        fcntl.flock(self.lock, fcntl.LOCK_EX)
        self.state = load_state()
        return self.state

    def __exit__(self, exc_type, *_):
        if exc_type is None:
            path = state_path()
            tmp = "%s.tmp.%d" % (path, os.getpid())
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(self.state, f, indent=2)
                f.write("\n")
            os.replace(tmp, path)
        self.lock.close()


# What a relation within the model answers to relation-model-get where the
# hook's environment names no JUJU_MODEL_UUID (the Rust simulator's too).
SIM_MODEL_UUID = "00000000-0000-4000-8000-000000000000"

# ---------------------------------------------------------------- pending writes (§1.6)

MAX_STATE_KEY = 256              # core/quota MaxCharmStateKeySize
MAX_STATE_VALUE = 64 * 1024      # core/quota MaxCharmStateValueSize
MAX_STATE_TOTAL = 2 * 1024 * 1024  # controller config max-charm-state-size


def context_id():
    return os.environ.get("JUJU_CONTEXT_ID", "")


def pending_of(state):
    """This hook's uncommitted writes, read-only ({} when there are none)."""
    pending = state.get("pending") or {}
    return pending if pending.get("context") == context_id() else {}


def pending_for_write(st):
    """This hook's pending area in a state being written. Writes a previous
    context left (a hook nobody committed or discarded, e.g. killed) are
    dropped: each hook starts from what was committed, as in Juju."""
    if (st.get("pending") or {}).get("context") != context_id():
        st["pending"] = {"context": context_id()}
    return st["pending"]


def overlay(committed, changes, deleted):
    """`committed` with `changes` applied; keys whose value is `deleted` go."""
    out = dict(committed or {})
    for k, v in (changes or {}).items():
        if v == deleted:
            out.pop(k, None)
        else:
            out[k] = v
    return out


def charm_state_view(state):
    """The charm state as this hook sees it: committed plus its own writes."""
    return overlay(state.get("charm-state"), pending_of(state).get("charm-state"), None)


def end_hook(action, ctx):
    """`commit` or `discard` the pending writes of context `ctx`."""
    with StateWrite() as st:
        if (st.get("pending") or {}).get("context") != ctx:
            return 0  # not this hook's: another context's, or none
        pending = st.pop("pending")
        reboot = pending.get("reboot")
        if reboot == "now":
            # juju-reboot --now: Juju killed the hook and keeps nothing it
            # held, yet the hook is no failure: it runs again after the reboot.
            st["reboot"] = "now"
            return 0
        st.pop("reboot", None)
        if action == "discard":
            return 0  # and no reboot after a hook that failed
        charm_state = overlay(st.get("charm-state"), pending.get("charm-state"), None)
        limit = st.get("max-charm-state-size", MAX_STATE_TOTAL)
        size = sum(len(k.encode("utf-8", "surrogateescape"))
                   + len(v.encode("utf-8", "surrogateescape")) for k, v in charm_state.items())
        if limit and size > limit:
            # Juju checks the total at commit; the hook then fails although it
            # exited 0, and nothing it buffered is kept.
            sys.stderr.write("ERROR committing requested changes failed: "
                             "max allowed charm state size (%d) exceeded\n" % limit)
            return 1
        if "charm-state" in pending:
            st["charm-state"] = charm_state
        for op, spec, endpoints in pending.get("ports") or []:
            apply_port(st, op, spec, endpoints)
        for op, uri, change in pending.get("secrets") or []:
            apply_secret(st, op, uri, change)
        for key, bags in (pending.get("relations") or {}).items():
            rel = (st.get("relations") or {}).get(key)
            if rel is None:  # the relation is gone: nothing to write to
                continue
            for bag, changes in bags.items():
                rel[bag] = overlay(rel.get(bag), changes, "")
        if reboot:
            st["reboot"] = reboot
    return 0


# ---------------------------------------------------------------- argv

def parse_bool(value):  # Go strconv.ParseBool
    if value in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if value in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    raise ValueError('strconv.ParseBool: parsing %s: invalid syntax' % go_quote(value))


def parse_args(tool, argv, state):
    """juju/gnuflag with interspersed flags. Returns (flags, positionals)."""
    spec = FLAGS[tool]
    flags, pos, i = {}, [], 0

    def set_flag(name, value):  # value None: bool flag given without a value
        key, kind = spec[name]
        dashed = ("--" if len(name) > 1 else "-") + name
        try:
            if kind == "bool":
                flags[key] = True if value is None else parse_bool(value)
            elif kind == "format":
                if value not in ("smart", "json", "yaml"):
                    raise ValueError("unknown format %s" % go_quote(value))
                flags[key] = value
            elif kind == "rel":
                flags[key] = relation_by_flag(state, value)
            else:
                flags[key] = value
        except ValueError as e:
            raise usage_error("invalid value %s for option %s: %s" % (go_quote(value), dashed, e))

    def check_known(name):
        if name not in spec:
            raise usage_error("option provided but not defined: %s"
                              % (("--" if len(name) > 1 else "-") + name))

    while i < len(argv):
        a = argv[i]
        i += 1
        if a == "--":
            pos += argv[i:]
            break
        if a in ("-", "") or a[0] != "-":
            pos.append(a)
        elif a[1] == "-":  # --name, --name=value
            name, eq, value = a[2:].partition("=")
            if eq and not name:
                raise usage_error("empty flag in argument %s" % go_quote(a))
            check_known(name)
            if not eq and spec[name][1] != "bool":
                if i == len(argv):
                    raise usage_error("option needs an argument: --" + name)
                value, i = argv[i], i + 1
            set_flag(name, value if (eq or spec[name][1] != "bool") else None)
        else:  # -abc: single-rune flags; a non-bool one takes the rest or the next arg
            rest = a[1:]
            while rest:
                name, rest = rest[0], rest[1:]
                check_known(name)
                if spec[name][1] == "bool" and not rest.startswith("="):
                    set_flag(name, None)
                    continue
                if not rest:
                    if i == len(argv):
                        raise usage_error("option needs an argument: -" + name)
                    rest, i = argv[i], i + 1
                set_flag(name, rest)
                rest = ""
    return flags, pos


# ---------------------------------------------------------------- output

def go_json(value):
    """encoding/json.Marshal: compact, sorted keys, HTML-safe escapes."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text


PLAIN = re.compile(r"^[A-Za-z_./][A-Za-z0-9_./ -]*$")
YAML_SPECIAL = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"}
# A UUID starts with a digit as often as not, yet reads as no number, bool
# or time: YAML writers leave it plain.
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def yaml_scalar(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, dict):
        return "{}"
    if isinstance(v, list):
        return "[]"
    if PLAIN.match(v) and v.lower() not in YAML_SPECIAL and not v.endswith(" "):
        return v
    if UUID.match(v):
        return v
    return json.dumps(v, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def yaml_text(v):
    """YAML for smart/yaml output: a map as sorted `key: value` lines (nested
    values in flow style), anything else as one scalar."""
    if isinstance(v, dict) and v:
        return "".join("%s: %s\n" % (yaml_scalar(str(k)), yaml_flow(v[k])) for k in sorted(v))
    return yaml_flow(v) + "\n"


def yaml_flow(v):
    if isinstance(v, dict) and v:
        return "{%s}" % ", ".join("%s: %s" % (yaml_scalar(str(k)), yaml_flow(v[k])) for k in sorted(v))
    if isinstance(v, list) and v:
        return "[%s]" % ", ".join(yaml_flow(x) for x in v)
    return yaml_scalar(v)


def write_output(flags, value):
    """juju/cmd Output.Write with the smart/json/yaml formatters."""
    fmt = flags.get("format", "smart")
    if fmt == "json":
        text = go_json(value) + "\n"
    elif value is None:
        text = ""
    elif fmt == "smart" and isinstance(value, str):
        text = value + "\n" if value else ""
    elif fmt == "smart" and isinstance(value, list) and all(isinstance(x, str) for x in value):
        text = "\n".join(value) + "\n" if value else ""
    elif fmt == "smart" and isinstance(value, bool):
        text = "True\n" if value else "False\n"
    else:
        text = yaml_text(value)
    if flags.get("output"):
        with open(flags["output"], "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


# ---------------------------------------------------------------- relations

def relation_key(state, rel_id):
    for key in state.get("relations") or {}:
        if key.rpartition(":")[2] == str(rel_id):
            return key
    return None


def relation_by_flag(state, value):
    """relationIdValue.Set: only the integer after the last ':' counts."""
    digits = value.rpartition(":")[2]
    if not re.fullmatch(r"[+-]?[0-9]+", digits):  # strconv.Atoi
        raise ValueError("invalid relation id")
    key = relation_key(state, int(digits))
    if key is None:
        raise ValueError("relation not found")
    return key


def current_relation(flags, state):
    """-r if given, else the hook's relation (JUJU_RELATION_ID), else an Init error."""
    if "relation" in flags:
        return flags["relation"]
    env = os.environ.get("JUJU_RELATION_ID", "")
    if not env:
        raise usage_error("no relation id specified")
    key = relation_key(state, env.rpartition(":")[2])
    if key is None:
        raise ToolError("fake-juju: JUJU_RELATION_ID %s is not in the fake state's relations"
                        % go_quote(env))
    return key


def local_unit():
    return os.environ.get("JUJU_UNIT_NAME", "")


def local_app():
    return local_unit().partition("/")[0]


# ---------------------------------------------------------------- tools

def status_set(flags, args, state):
    if not args:
        raise usage_error("invalid args, require <status> [message]")
    if args[0] not in STATUSES:
        raise usage_error("invalid status %s, expected one of [%s]"
                          % (go_quote(args[0]), " ".join(STATUSES)))
    check_empty(args[2:])
    which = "app" if flags.get("application") else "unit"
    with StateWrite() as st:
        if which == "app" and not st.get("leader"):
            raise ToolError("this unit is not the leader")
        st.setdefault("status", {})[which] = {
            "status": args[0], "message": args[1] if len(args) > 1 else ""}


def status_get(flags, args, state):
    check_empty(args)
    data = flags.get("include-data", False)

    def details(which):
        s = (state.get("status") or {}).get(which) or {}
        d = {"status": s.get("status", "unknown")}
        if data:
            d.update({"message": s.get("message", ""), "status-data": {}})
        return d

    if not flags.get("application"):
        unit = details("unit")
        write_output(flags, unit["status"] if not data and flags.get("format", "smart") == "smart" else unit)
        return
    if not state.get("leader"):
        raise ToolError("finding application status: this unit is not the leader")
    app = details("app")
    if not data and flags.get("format", "smart") == "smart":
        write_output(flags, app["status"])
        return
    app["units"] = {local_unit(): details("unit")}
    write_output(flags, {"application-status": app})


def juju_log(flags, args, state):
    if not args:
        raise usage_error("no message specified")
    if "format" in flags:
        sys.stderr.write('--format flag deprecated for command "juju-log"')
    level = "DEBUG" if flags.get("debug") else LEVELS.get(flags.get("level", "INFO").strip().upper(), "INFO")
    path = os.environ.get("FAKE_JUJU_DEBUG_LOG")
    if path:
        with open(path, "a", encoding="utf-8", errors="surrogateescape") as f:
            # Juju starts a relation hook's records with the relation's id.
            relation = os.environ.get("JUJU_RELATION_ID")
            prefix = relation + ": " if relation else ""
            f.write("%s %s%s\n" % (level, prefix, " ".join(args)))


def config_get(flags, args, state):
    config = state.get("config") or {}
    if not flags.get("all"):  # without --all, options whose value is null are left out
        config = {k: v for k, v in config.items() if v is not None}
    if not args:
        write_output(flags, config)
        return
    if args[0] and flags.get("all"):
        raise usage_error("cannot use argument --all together with key %s" % go_quote(args[0]))
    check_empty(args[1:])
    write_output(flags, config.get(args[0]) if args[0] else config)


def is_leader(flags, args, state):
    check_empty(args)
    write_output(flags, bool(state.get("leader")))


def relation_ids(flags, args, state):
    endpoint = args[0] if args else os.environ.get("JUJU_RELATION", "")
    if not endpoint:
        raise usage_error("no endpoint name specified")
    check_empty(args[1:])
    # Juju sorts the "<endpoint>:<id>" strings with sort.Strings (so "db:10" < "db:2").
    write_output(flags, sorted(k for k in state.get("relations") or {}
                               if k.rpartition(":")[0] == endpoint))


def relation_list(flags, args, state):
    key = current_relation(flags, state)
    check_empty(args)
    rel = state["relations"][key]
    if flags.get("app"):
        write_output(flags, rel.get("app", ""))
    else:
        write_output(flags, sorted(rel.get("units") or []))


def relation_model_get(flags, args, state):
    """The remote application's model (Juju 3.6.2+): the relation's
    "model-uuid" for a cross-model one, else this model's own."""
    key = current_relation(flags, state)
    check_empty(args)
    rel = state["relations"][key]
    own = os.environ.get("JUJU_MODEL_UUID") or SIM_MODEL_UUID
    write_output(flags, {"uuid": rel.get("model-uuid") or own})


def relation_get(flags, args, state):
    key = current_relation(flags, state)
    attr = args[0] if args else ""
    attr = "" if attr == "-" else attr
    args = args[1:]
    is_app = flags.get("app", False)
    # determineUnitOrAppName in relation-get.go
    if args:
        name, args = args[0], args[1:]
        if is_app:
            if re.fullmatch(UNIT_RE, name):
                name = name.partition("/")[0]
            elif not re.fullmatch(APP_RE, name):
                raise usage_error("invalid application name %s" % go_quote(name))
        elif not re.fullmatch(UNIT_RE, name):
            if re.fullmatch(APP_RE, name):
                raise usage_error("expected unit name, got application name %s" % go_quote(name))
            raise usage_error("invalid unit name %s" % go_quote(name))
    elif is_app:
        name = os.environ.get("JUJU_REMOTE_APP", "")
    elif os.environ.get("JUJU_REMOTE_UNIT"):
        name = os.environ["JUJU_REMOTE_UNIT"]
    else:
        name, is_app = os.environ.get("JUJU_REMOTE_APP", ""), True
    if not name:
        raise usage_error("no unit or application specified")
    check_empty(args)

    rel = state["relations"][key]
    remote_app = rel.get("app", "")
    # Own unit, and own app as leader: the local context, which holds this
    # hook's uncommitted relation-set changes (§2.10).
    mine = ((pending_of(state).get("relations") or {}).get(key) or {})
    if not is_app and name == local_unit():
        settings = overlay(rel.get("local-unit-data"), mine.get("local-unit-data"), "")
    elif is_app and name == local_app():
        # Own app bag: the leader reads its local context; a non-leader asks the
        # controller (committed data only), which allows it only for a peer relation.
        if state.get("leader"):
            settings = overlay(rel.get("local-app-data"), mine.get("local-app-data"), "")
        elif remote_app != local_app():
            raise ToolError("permission denied")
        else:
            settings = rel.get("local-app-data")
    elif is_app and name == remote_app:
        settings = rel.get("app-data")
    elif not is_app and name.partition("/")[0] == remote_app:
        settings = (rel.get("unit-data") or {}).get(name)
    else:
        raise ToolError("permission denied")
    settings = settings or {}
    write_output(flags, settings.get(attr) if attr else dict(settings))


def parse_settings_file(text):
    """A YAML map of strings; the host sends JSON. Also accepts flat `key: value` lines."""
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError:
        data = {}
        for line in text.splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                k, sep, v = line.partition(":")
                if not sep:
                    raise ToolError("yaml: cannot parse %s" % go_quote(line))
                v = v.strip()
                data[k.strip()] = json.loads(v) if v.startswith('"') else v
    if not isinstance(data, dict):
        raise ToolError("yaml: unmarshal errors: cannot unmarshal into map[string]string")
    out = {}
    for k, v in data.items():
        if isinstance(v, (dict, list)):
            raise ToolError("yaml: unmarshal errors: cannot unmarshal %s into string" % go_quote(k))
        out[str(k)] = "" if v is None else (json.dumps(v) if isinstance(v, bool) else str(v))
    return out


def parse_key_values(args):
    """juju/utils keyvalues.Parse(args, allowEmptyValues=true): an Init error."""
    overrides = {}
    for kv in args:
        k, sep, v = kv.partition("=")
        if not sep or not k:
            raise usage_error("expected \"key=value\", got %s" % go_quote(kv))
        if k in overrides:
            raise usage_error("key %s specified more than once" % go_quote(k))
        overrides[k] = v
    return overrides


def read_settings_flag(flags):
    """The YAML map `--file <path>|-` names ({} without --file)."""
    settings = {}
    if flags.get("file"):
        if flags["file"] == "-":
            text = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
        else:
            try:
                with open(flags["file"], encoding="utf-8", errors="surrogateescape") as f:
                    text = f.read()
            except OSError as e:
                raise ToolError("open %s: %s" % (flags["file"], e.strerror.lower()))
        settings = parse_settings_file(text)
    return settings


def relation_set(flags, args, state):
    key = current_relation(flags, state)
    overrides = parse_key_values(args)
    if "format" in flags:
        sys.stderr.write('--format flag deprecated for command "relation-set"')
    settings = read_settings_flag(flags)
    settings.update(overrides)
    bag = "local-app-data" if flags.get("app") else "local-unit-data"
    # Held in the hook context, committed only if the hook succeeds (§2.11);
    # an empty value deletes the key then.
    with StateWrite() as st:
        if flags.get("app") and not st.get("leader"):
            raise ToolError("cannot write relation settings")
        pending = pending_for_write(st)
        pending.setdefault("relations", {}).setdefault(key, {}).setdefault(bag, {}).update(settings)


# ---------------------------------------------------------------- charm state (§2.7)

def state_get(flags, args, state):
    key = args[0] if args else ""
    key = "" if key == "-" else key
    check_empty(args[1:])
    view = charm_state_view(state)
    if not key:
        write_output(flags, view or None)  # an empty state is a nil map: json `null`
    elif key in view:
        write_output(flags, view[key])
    elif flags.get("strict"):
        raise ToolError("%s not found" % go_quote(key))
    else:
        write_output(flags, "")


def state_set(flags, args, state):
    overrides = parse_key_values(args)
    settings = read_settings_flag(flags)
    settings.update(overrides)
    # Checked at the call (core/quota CheckTupleSize), every pair before any
    # is kept (Juju goes through a Go map, so which pairs a refused call kept
    # is unspecified there).
    for k in sorted(settings):
        if len(k.encode("utf-8", "surrogateescape")) > MAX_STATE_KEY:
            raise ToolError("max allowed key length (%d) exceeded" % MAX_STATE_KEY)
        if len(settings[k].encode("utf-8", "surrogateescape")) > MAX_STATE_VALUE:
            raise ToolError("max allowed value length (%d) exceeded" % MAX_STATE_VALUE)
    if settings:
        with StateWrite() as st:
            pending_for_write(st).setdefault("charm-state", {}).update(settings)


def state_delete(flags, args, state):
    if not args or not args[0]:
        return  # Juju: no key, nothing to do
    check_empty(args[1:])
    with StateWrite() as st:
        pending_for_write(st).setdefault("charm-state", {})[args[0]] = None


def application_version_set(flags, args, state):
    if not args:
        raise usage_error("no version specified")
    check_empty(args[1:])
    with StateWrite() as st:
        st["application-version"] = args[0]


# ---------------------------------------------------------------- actions (§2.12)

ACTION_KEY = re.compile(r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?")  # each dotted segment, whole
RESERVED_ACTION_KEYS = ("stdout", "stdout-encoding", "stderr", "stderr-encoding")
DEFAULT_FAIL = "action failed without reason given, check action for errors"


def juju_reboot(flags, args, state):
    """Held with the hook's writes: `now` wins over a reboot after the hook."""
    check_empty(args)
    if os.environ.get("JUJU_ACTION_NAME"):
        raise ToolError("juju-reboot is not supported when running an action.")
    with StateWrite() as st:
        pending = pending_for_write(st)
        if pending.get("reboot") != "now":
            pending["reboot"] = "now" if flags.get("now") else "after-hook"


def require_action():
    """The action tools' run-time check (after their arguments were checked)."""
    if not os.environ.get("JUJU_ACTION_NAME"):
        raise ToolError("not running an action")


def action_get(flags, args, state):
    check_empty(args[1:])
    require_action()
    value = state.get("action-params") or {}
    if args:  # a dotted path into nested params; missing anywhere is null
        for key in args[0].split("."):
            value = value.get(key) if isinstance(value, dict) else None
    write_output(flags, value)


def action_set(flags, args, state):
    pairs = []
    for arg in args:  # Init checks every argument before anything is set
        key, sep, value = arg.partition("=")
        if not sep:
            raise usage_error("argument %s must be of the form key...=value" % go_quote(arg))
        for segment in key.split("."):
            if not ACTION_KEY.fullmatch(segment):
                raise usage_error("key %s must start and end with lowercase alphanumeric, "
                                  "and contain only lowercase alphanumeric, hyphens and periods"
                                  % go_quote(segment))
            if segment in RESERVED_ACTION_KEYS:
                raise usage_error("cannot set reserved action key %s" % go_quote(segment))
        pairs.append((key, value))
    if not pairs:
        return
    require_action()
    with StateWrite() as st:
        results = st.setdefault("action-results", {})
        for key, value in pairs:
            # Juju nests dotted keys: a value replaces what was under its key,
            # a nested key replaces a value at any of its parents.
            for old in list(results):
                if old.startswith(key + ".") or key.startswith(old + "."):
                    del results[old]
            results[key] = value


def action_fail(flags, args, state):
    check_empty(args[1:])
    require_action()
    with StateWrite() as st:
        st["action-failed"] = args[0] if args else DEFAULT_FAIL


def action_log(flags, args, state):
    if not args:
        raise usage_error("no message specified")
    require_action()
    path = os.environ.get("FAKE_JUJU_DEBUG_LOG")
    if path:
        with open(path, "a", encoding="utf-8", errors="surrogateescape") as f:
            f.write("ACTION %s\n" % " ".join(args))


# ---------------------------------------------------------------- the rest of the model (§2.14-§2.19)

PORT_RE = re.compile(r"([0-9]+)(?:-([0-9]+))?(?:/(tcp|udp))?")


def parse_port_range(arg):
    """core/network ParsePortRange on the lower-cased argument: the
    canonical `80/tcp`, `8000-8100/udp`, `icmp`; an Init error otherwise."""
    arg = arg.lower()
    if arg == "icmp":
        return "icmp"
    m = PORT_RE.fullmatch(arg)
    if not m:
        raise usage_error("invalid port range %s" % go_quote(arg))
    lo = int(m.group(1))
    hi = int(m.group(2)) if m.group(2) else lo
    proto = m.group(3) or "tcp"
    if not (1 <= lo <= hi <= 65535):
        raise usage_error("invalid port range %s" % go_quote(arg))
    return "%d/%s" % (lo, proto) if lo == hi else "%d-%d/%s" % (lo, hi, proto)


def apply_port(st, op, spec, endpoints):
    """Commit one port request: `opened-ports` maps spec -> endpoints
    (["*"]: every endpoint)."""
    opened = st.setdefault("opened-ports", {})
    names = endpoints or ["*"]
    if op == "open":
        have = opened.get(spec, [])
        opened[spec] = ["*"] if "*" in names or "*" in have else sorted(set(have) | set(names))
    elif "*" in names:
        opened.pop(spec, None)
    else:
        left = [e for e in opened.get(spec, []) if e not in names]
        if left:
            opened[spec] = left
        else:
            opened.pop(spec, None)


def port_command(op):
    def run(flags, args, state):
        if not args:
            raise usage_error("no port or range specified")
        spec = parse_port_range(args[0])
        check_empty(args[1:])
        if "format" in flags:
            sys.stderr.write('--format flag deprecated for command "%s-port"' % op)
        endpoints = None
        if flags.get("endpoints"):
            endpoints = [e.strip() for e in flags["endpoints"].split(",")]
        # Transactional (§2.14): held until the hook ends, applied at commit.
        with StateWrite() as st:
            pending_for_write(st).setdefault("ports", []).append([op, spec, endpoints])
    return run


def opened_ports(flags, args, state):
    check_empty(args)
    # Committed ports only: this hook's requests are not shown (§2.14).
    out = []
    for spec, endpoints in sorted((state.get("opened-ports") or {}).items()):
        if flags.get("endpoints"):
            spec += " (%s)" % ("*" if "*" in endpoints else ", ".join(endpoints))
        out.append(spec)
    write_output(flags, out)


def storage_list(flags, args, state):
    name = args[0] if args else ""
    check_empty(args[1:])
    ids = sorted(k for k in state.get("storage") or {}
                 if not name or k.partition("/")[0] == name)
    write_output(flags, ids)


def storage_get(flags, args, state):
    sid = flags.get("storage") or os.environ.get("JUJU_STORAGE_ID", "")
    if not sid:
        raise usage_error("no storage instance specified")
    instance = (state.get("storage") or {}).get(sid)
    if instance is None:
        # storageIdValue.Set fails while the flags are parsed: an Init error.
        raise usage_error("invalid value %s for option -s: storage instance %s not found"
                          % (go_quote(sid), go_quote(sid)))
    if len(args) > 1:
        check_empty(args[1:])
    values = {"kind": instance.get("kind", "filesystem"), "location": instance.get("location", "")}
    if not args:
        write_output(flags, values)
    elif args[0] in values:
        write_output(flags, values[args[0]])
    else:
        raise ToolError("invalid storage attribute %s" % go_quote(args[0]))


def network_get(flags, args, state):
    if not args:
        raise usage_error("no arguments specified")
    binding = args[0]
    check_empty(args[1:])
    network = (state.get("networks") or {}).get(binding)
    if network is None:
        raise ToolError("no network config found for binding %s" % go_quote(binding))
    # Juju leaves empty keys out (omitempty).
    network = {k: v for k, v in network.items() if v}
    keys = [k for k in ("bind-address", "ingress-address", "egress-subnets", "primary-address")
            if flags.get(k)]
    if not keys:
        write_output(flags, network)
        return
    first = lambda key: (network.get(key) or [None])[0]
    values = {
        "bind-address": ((first("bind-addresses") or {}).get("addresses") or [{}])[0].get("value"),
        "ingress-address": first("ingress-addresses"),
        "egress-subnets": network.get("egress-subnets") or [],
        "primary-address": ((first("bind-addresses") or {}).get("addresses") or [{}])[0].get("value"),
    }
    write_output(flags, values[keys[0]] if len(keys) == 1 else {k: values[k] for k in keys})


def goal_state(flags, args, state):
    check_empty(args)
    if flags.get("format", "yaml") == "smart":
        raise usage_error("invalid value \"smart\" for option --format: unknown format \"smart\"")
    goal = state.get("goal-state") or {}
    write_output(dict(flags, format=flags.get("format", "yaml")),
                 {"units": goal.get("units") or {}, "relations": goal.get("relations") or {}})


def credential_get(flags, args, state):
    check_empty(args)
    if not state.get("trusted"):
        # The API refuses an untrusted application (§2.17).
        raise ToolError("cannot access cloud credentials: permission denied")
    write_output(flags, state.get("credential") or {})


def resource_get(flags, args, state):
    if not args:
        raise usage_error("missing required resource name")
    check_empty(args[1:])
    path = (state.get("resources") or {}).get(args[0])
    if path is None:
        raise ToolError("could not download resource: resource %s not found" % go_quote(args[0]))
    sys.stdout.write(path)  # Juju prints the path with no newline


# ---------------------------------------------------------------- secrets
# State: "secrets": {uri: {"content": {k: v}, "label", "description",
# "owner", "revision"}}. secret-add answers its URI at once; the secret,
# like every other secret change, exists for the model only once the hook
# commits (reference §1.6): reads in the same hook see this hook's own adds.

SECRET_KEY = re.compile(r"^[a-z](?:-?[a-z0-9]){2,}$")


def secret_content(args):
    """key=value, key#base64=…, key#file=<path> (jujuc/secret-add.go)."""
    content = {}
    for arg in args:
        key, eq, value = arg.partition("=")
        if not eq:
            raise usage_error("expected key=value format, got %s" % go_quote(arg))
        key, _, kind = key.partition("#")
        if not SECRET_KEY.match(key):
            raise usage_error("invalid key %s" % go_quote(key))
        if kind == "file":
            try:
                with open(value, encoding="utf-8", errors="surrogateescape") as f:
                    value = f.read()
            except OSError as e:
                raise usage_error("cannot read %s: %s" % (value, e.strerror))
        elif kind == "base64":
            value = base64.b64decode(value).decode("utf-8", "surrogateescape")
        elif kind:
            raise usage_error("invalid key %s" % go_quote(key + "#" + kind))
        content[key] = value
    return content


def secrets_view(state):
    """Committed secrets with this hook's own adds and sets."""
    view = {k: dict(v) for k, v in (state.get("secrets") or {}).items()}
    for op in pending_of(state).get("secrets") or []:
        if op[0] == "add":
            view[op[1]] = dict(op[2])
    return view


def find_secret(state, ident, label):
    view = secrets_view(state)
    if ident:
        uri = ident if ident.startswith("secret:") else "secret:" + ident
        if uri in view:
            return uri, view[uri]
        raise ToolError("secret %s not found" % go_quote(ident))
    for uri, sec in sorted(view.items()):
        if label is not None and sec.get("label") == label:
            return uri, sec
    raise ToolError("secret with label %s not found" % go_quote(label or ""))


def secret_metadata(flags, sec):
    for key in ("label", "description", "expire", "rotate"):
        if key in flags:
            sec[key] = flags[key]


def secret_add(flags, args, state):
    content = secret_content(args)
    if not content:
        raise usage_error("missing secret value or filename")
    owner = flags.get("owner", "application")
    if owner not in ("application", "unit"):
        raise usage_error("secret owner %s not valid" % go_quote(owner))
    if owner == "application" and not state.get("leader", False):
        raise ToolError("this unit is not the leader")
    with StateWrite() as st:
        n = st.get("next-secret", 0)
        st["next-secret"] = n + 1
        uri = "secret:fake%016d" % n
        sec = {"content": content, "owner": owner, "revision": 1}
        secret_metadata(flags, sec)
        pending_for_write(st).setdefault("secrets", []).append(["add", uri, sec])
    sys.stdout.write(uri + "\n")


def secret_get(flags, args, state):
    ident = args[0] if args else ""
    check_empty(args[2:])
    if not ident and "label" not in flags:
        raise usage_error("require either a secret URI or label")
    _, sec = find_secret(state, ident, flags.get("label"))
    content = sec.get("content") or {}
    if len(args) > 1:
        write_output(flags, content.get(args[1]))
    else:
        write_output(flags, content)


def secret_info_get(flags, args, state):
    ident = args[0] if args else ""
    check_empty(args[1:])
    if not ident and "label" not in flags:
        raise usage_error("require either a secret URI or label")
    uri, sec = find_secret(state, ident, flags.get("label"))
    info = {"revision": sec.get("revision", 1), "owner": sec.get("owner", "application")}
    for key, out in (("label", "label"), ("description", "description"),
                     ("expire", "expiry"), ("rotate", "rotation")):
        if sec.get(key):
            info[out] = sec[key]
    write_output(flags, {uri.removeprefix("secret:"): info})


def secret_ids(flags, args, state):
    """Juju 3 prints the bare ids (its SecretMetadata keys), not URIs."""
    check_empty(args)
    write_output(flags, sorted(u.removeprefix("secret:") for u in secrets_view(state)))


def secret_change(op):
    """secret-set, -grant, -revoke, -remove: checked now, held until commit."""
    def run(flags, args, state):
        if not args:
            raise usage_error("missing secret URI")
        ident = args[0]
        extra = args[1:]
        if op == "set":
            content = secret_content(extra)
            change = {"content": content} if content else {}
            secret_metadata(flags, change)
            if not change:
                raise usage_error("nothing to set")
        else:
            check_empty(extra)
            change = {k: flags[k] for k in ("relation", "unit", "app", "revision") if k in flags}
            if op in ("grant", "revoke") and not (change.get("relation") or change.get("app")
                                                   or change.get("unit")):
                raise usage_error("missing relation or application or unit")
        uri, _ = find_secret(state, ident, None)
        with StateWrite() as st:
            pending_for_write(st).setdefault("secrets", []).append([op, uri, change])
    return run


def apply_secret(st, op, uri, change):
    secrets = st.setdefault("secrets", {})
    if op == "add":
        secrets[uri] = change
    elif op == "set" and uri in secrets:
        sec = secrets[uri]
        if "content" in change:
            sec["content"] = change["content"]
            sec["revision"] = sec.get("revision", 1) + 1
        sec.update({k: v for k, v in change.items() if k != "content"})
    elif op == "remove":
        secrets.pop(uri, None)
    elif op in ("grant", "revoke"):
        grants = st.setdefault("secret-grants", [])
        grants.append([op, uri, change])


TOOLS = {
    "status-set": status_set, "status-get": status_get, "juju-log": juju_log,
    "config-get": config_get, "is-leader": is_leader, "relation-ids": relation_ids,
    "relation-list": relation_list, "relation-get": relation_get,
    "relation-set": relation_set, "relation-model-get": relation_model_get,
    "juju-reboot": juju_reboot, "application-version-set": application_version_set,
    "state-get": state_get, "state-set": state_set, "state-delete": state_delete,
    "action-get": action_get, "action-set": action_set, "action-fail": action_fail,
    "action-log": action_log,
    "open-port": port_command("open"), "close-port": port_command("close"),
    "opened-ports": opened_ports, "storage-list": storage_list, "storage-get": storage_get,
    "network-get": network_get, "goal-state": goal_state, "credential-get": credential_get,
    "resource-get": resource_get,
    "secret-add": secret_add, "secret-get": secret_get, "secret-info-get": secret_info_get,
    "secret-ids": secret_ids, "secret-set": secret_change("set"),
    "secret-grant": secret_change("grant"), "secret-revoke": secret_change("revoke"),
    "secret-remove": secret_change("remove"),
}


def log_call(tool, argv):
    path = os.environ.get("FAKE_JUJU_LOG")
    if path:
        record = (tool + "".join(RS + a for a in argv) + FS).encode("utf-8", "surrogateescape")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, record)
        finally:
            os.close(fd)


def main():
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(encoding="utf-8", errors="surrogateescape")
    tool, argv = os.path.basename(sys.argv[0]), sys.argv[1:]
    if tool.endswith(".py"):  # run by its own name: end a hook
        try:
            if len(argv) != 2 or argv[0] not in ("commit", "discard"):
                raise usage_error("usage: fake_juju.py commit|discard <context-id>")
            state_path()
            return end_hook(argv[0], argv[1])
        except ToolError as e:
            sys.stderr.write("ERROR %s\n" % e)
            return e.code
    log_call(tool, argv)
    try:
        if not os.environ.get("JUJU_CONTEXT_ID"):
            raise ToolError("JUJU_CONTEXT_ID not set")
        state = load_state()
        fail = (state.get("fail") or {}).get(tool)
        if fail:
            sys.stdout.write(fail.get("stdout", ""))
            stderr = fail.get("stderr", "")
            sys.stderr.write(stderr if stderr.endswith("\n") or not stderr else stderr + "\n")
            return int(fail.get("code", 1))
        if tool not in TOOLS:
            raise ToolError("fake-juju does not implement " + tool)
        flags, args = parse_args(tool, argv, state)
        TOOLS[tool](flags, args, state)
        return 0
    except ToolError as e:
        sys.stdout.flush()
        sys.stderr.write("ERROR %s\n" % e)
        return e.code


if __name__ == "__main__":
    sys.exit(main())
