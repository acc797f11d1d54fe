#!/usr/bin/env -S python3 -I -S
"""A stand-in for Pebble's HTTP API on a unix socket, for wasm-charm's tests.

Python standard library only. It answers the parts of Pebble's API a charm
uses (see README.md) with Pebble's JSON envelope and status codes, keeps a
plan made of layers, runs the services it is told to start as real
processes, runs the checks of the plan, serves files from a directory, and
runs exec'd commands with their stdio over websockets.

    fake_pebble.py --socket PATH --root DIR [--state DIR]

--root: the container's file system (a container path /etc/x is DIR/etc/x).
--state: where each running service's pid is written (<service>.pid).
SIGTERM or SIGINT stops the server and every process it started (services
and exec'd commands).
"""

import argparse
import base64
import hashlib
import json
import os
import shlex
import signal
import socket
import socketserver
import stat
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler

LOCK = threading.RLock()

# --- a YAML subset: block mappings, block sequences of scalars, flow lists,
# quoted and plain scalars (what Pebble layers are written in). ---


class YamlError(Exception):
    pass


def _scalar(text):
    text = text.strip()
    if text == "" or text == "~" or text == "null":
        return None
    if text[0] in "'\"":
        if len(text) < 2 or text[-1] != text[0]:
            raise YamlError("unterminated quoted scalar: %s" % text)
        if text[0] == '"':
            return json.loads(text)
        return text[1:-1].replace("''", "'")
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [_scalar(x) for x in inner.split(",")] if inner else []
    if text in ("true", "True"):
        return True
    if text in ("false", "False"):
        return False
    try:
        return int(text)
    except ValueError:
        return text


def _strip_comment(line):
    out, quote = [], None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            break
        out.append(c)
    return "".join(out).rstrip()


def parse_yaml(text):
    lines = []
    for raw in text.splitlines():
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise YamlError("tabs are not allowed in indentation")
        line = _strip_comment(raw)
        if line.strip():
            lines.append((len(line) - len(line.lstrip()), line.strip()))
    if not lines:
        return {}
    value, rest = _block(lines, 0, lines[0][0])
    if rest != len(lines):
        raise YamlError("bad indentation at %r" % lines[rest][1])
    return value


def _block(lines, i, indent):
    if lines[i][1].startswith("- ") or lines[i][1] == "-":
        seq = []
        while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("-"):
            seq.append(_scalar(lines[i][1][1:]))
            i += 1
        return seq, i
    mapping = {}
    while i < len(lines) and lines[i][0] == indent:
        text = lines[i][1]
        if ":" not in text:
            raise YamlError("expected `key: value`, found %r" % text)
        key, _, rest = text.partition(":")
        if rest and not rest.startswith(" "):
            raise YamlError("expected `key: value`, found %r" % text)
        key = _scalar(key)
        i += 1
        if rest.strip():
            mapping[key] = _scalar(rest)
        elif i < len(lines) and lines[i][0] > indent:
            mapping[key], i = _block(lines, i, lines[i][0])
        elif i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- "):
            mapping[key], i = _block(lines, i, indent)
        else:
            mapping[key] = None
    return mapping, i


def dump_yaml(value, indent=0):
    pad = " " * indent
    out = []
    for key, v in value.items():
        if isinstance(v, dict):
            if v:
                out.append("%s%s:\n%s" % (pad, key, dump_yaml(v, indent + 4)))
            else:
                out.append("%s%s: {}\n" % (pad, key))
        elif isinstance(v, list):
            out.append("%s%s:\n" % (pad, key))
            out.extend("%s    - %s\n" % (pad, _dump_scalar(x)) for x in v)
        else:
            out.append("%s%s: %s\n" % (pad, key, _dump_scalar(v)))
    return "".join(out)


def _dump_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    s = str(v)
    if s == "" or s[0] in "'\"[{&*!|>%@`#-?:" or ": " in s or " #" in s or s != s.strip():
        return json.dumps(s)
    return s


# --- the plan ---


class ApiError(Exception):
    def __init__(self, status, message, kind=None):
        super().__init__(message)
        self.status, self.message, self.kind = status, message, kind


LAYERS = []  # [(label, layer dict)], in order
SERVICE_FIELDS = ("summary", "description", "startup", "override", "command",
                  "environment", "after", "before", "requires", "user", "group",
                  "working-dir", "on-success", "on-failure")


def parse_layer(label, text):
    try:
        layer = parse_yaml(text)
    except YamlError as e:
        raise ApiError(400, "cannot parse layer YAML: %s" % e)
    if not isinstance(layer, dict):
        raise ApiError(400, "cannot parse layer YAML: not a mapping")
    for section in ("services", "checks"):
        for name, entry in (layer.get(section) or {}).items():
            if not isinstance(entry, dict):
                raise ApiError(400, 'layer "%s" %s "%s" is not a mapping' % (label, section[:-1], name))
            if entry.get("override") not in ("merge", "replace"):
                raise ApiError(400, 'layer "%s" must define "override" for %s "%s"'
                               % (label, "service" if section == "services" else "check", name))
            if section == "services" and entry.get("startup", "disabled") not in ("enabled", "disabled"):
                raise ApiError(400, 'invalid "startup" value %r' % entry.get("startup"))
    return layer


def combine_into(base, layer):
    """Combine `layer` over `base` (both layer dicts): per service and check,
    `override: replace` replaces, `merge` merges field by field (lists
    appended, maps merged)."""
    for key in ("summary", "description"):
        if layer.get(key):
            base[key] = layer[key]
    for section in ("services", "checks"):
        for name, entry in (layer.get(section) or {}).items():
            have = base.setdefault(section, {})
            if entry["override"] == "replace" or name not in have:
                have[name] = json.loads(json.dumps(entry))
                continue
            old = have[name]
            for k, v in entry.items():
                if isinstance(v, list) and isinstance(old.get(k), list):
                    old[k] = old[k] + [x for x in v if x not in old[k]]
                elif isinstance(v, dict) and isinstance(old.get(k), dict):
                    old[k].update(v)
                else:
                    old[k] = v
    return base


def plan():
    combined = {}
    for _, layer in LAYERS:
        combine_into(combined, layer)
    return combined


def add_layer(payload):
    if payload.get("action") != "add":
        raise ApiError(400, "invalid action %r" % payload.get("action"))
    label = payload.get("label") or ""
    if not label:
        raise ApiError(400, "label must be set")
    if payload.get("format") != "yaml":
        raise ApiError(400, "invalid format %r" % payload.get("format"))
    layer = parse_layer(label, payload.get("layer") or "")
    for i, (have, old) in enumerate(LAYERS):
        if have == label:
            if not payload.get("combine"):
                raise ApiError(400, 'layer "%s" already exists' % label)
            LAYERS[i] = (label, combine_into(old, layer))
            break
    else:
        LAYERS.append((label, combine_into({}, layer)))
    CHECKS.sync(plan())


# --- services ---


class Service:
    def __init__(self):
        self.proc = None
        self.change_id = None
        self.stopping = False
        self.since = None
        self.config = None  # the definition it was started with


SERVICES = {}
STATE_DIR = None


def now_text():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def service_current(name):
    s = SERVICES.get(name)
    if s is None or s.proc is None:
        return "inactive"
    if s.proc.poll() is None:
        return "active"
    return "inactive" if s.stopping else "error"


def start_service(name, config):
    s = SERVICES.setdefault(name, Service())
    if s.proc is not None and s.proc.poll() is None:
        return
    argv = shlex.split(config.get("command") or "")
    if not argv:
        raise RuntimeError('service "%s" has no command' % name)
    env = dict(os.environ)
    env.update({str(k): str(v) for k, v in (config.get("environment") or {}).items()})
    try:
        s.proc = subprocess.Popen(argv, env=env, cwd=config.get("working-dir") or None,
                                  stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError as e:
        raise RuntimeError("cannot start service: %s" % e)
    s.stopping, s.since, s.config = False, now_text(), json.loads(json.dumps(config))
    if STATE_DIR:
        with open(os.path.join(STATE_DIR, name + ".pid"), "w") as f:
            f.write(str(s.proc.pid))
    # Pebble's "okay delay", short: a service that exits at once failed to start.
    deadline = time.monotonic() + 0.3
    while time.monotonic() < deadline:
        code = s.proc.poll()
        if code is not None:
            raise RuntimeError("cannot start service: exited quickly with code %d" % code)
        time.sleep(0.02)


def stop_service(name):
    s = SERVICES.get(name)
    if s is None or s.proc is None:
        return
    s.stopping, s.since = True, now_text()
    if s.proc.poll() is None:
        try:
            os.killpg(s.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            s.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(s.proc.pid, signal.SIGKILL)
            s.proc.wait()
    if STATE_DIR:
        try:
            os.unlink(os.path.join(STATE_DIR, name + ".pid"))
        except FileNotFoundError:
            pass


CHANGES = {}


def services_action(payload):
    action = payload.get("action")
    names = payload.get("services") or []
    services = plan().get("services", {})
    if action in ("replan", "autostart"):
        if names:
            raise ApiError(400, '%s accepts no service names' % action)
        enabled = [n for n, c in sorted(services.items()) if c.get("startup") == "enabled"]
        if action == "autostart" and not enabled:
            raise ApiError(400, "no default services", "no-default-services")
        names = enabled
    elif action in ("start", "stop", "restart"):
        if not names:
            raise ApiError(400, "must specify at least one service")
        for n in names:
            if n not in services:
                raise ApiError(400, 'service "%s" does not exist' % n)
    else:
        raise ApiError(400, "invalid action %r" % action)
    errors = []
    for n in names:
        try:
            changed = SERVICES.get(n) is not None and SERVICES[n].config != services[n]
            if action in ("stop", "restart") or (
                    action == "replan" and service_current(n) == "active" and changed):
                stop_service(n)
            if action != "stop":
                start_service(n, services[n])
        except RuntimeError as e:
            errors.append('- %s service "%s" (%s)' % ("Start" if action != "stop" else "Stop", n, e))
    change_id = str(len(CHANGES) + 1)
    change = {"id": change_id, "kind": action, "summary": "%s service %s" % (action, names),
              "status": "Done", "ready": True, "spawn-time": now_text(), "ready-time": now_text()}
    if errors:
        change["status"] = "Error"
        change["err"] = "cannot perform the following tasks:\n" + "\n".join(errors)
    CHANGES[change_id] = change
    return change_id


# --- checks ---


def duration(text, default):
    if text is None:
        return default
    text = str(text)
    for unit, scale in (("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)):
        if text.endswith(unit):
            try:
                return float(text[: -len(unit)]) * scale
            except ValueError:
                break
    raise ApiError(400, "invalid duration %r" % text)


class Checks:
    """One thread per check of the plan, each running it every `period`."""

    def __init__(self):
        self.state = {}  # name -> dict(config, failures, status, generation)
        self.generation = 0

    def sync(self, current):
        with LOCK:
            self.generation += 1
            for name, config in (current.get("checks") or {}).items():
                old = self.state.get(name)
                self.state[name] = {"config": config, "failures": old["failures"] if old else 0,
                                    "gen": self.generation}
                threading.Thread(target=self.run, args=(name, self.generation), daemon=True).start()

    def run(self, name, generation):
        while True:
            with LOCK:
                entry = self.state.get(name)
                if entry is None or entry["gen"] != generation:
                    return
                config = entry["config"]
            ok = run_check(config)
            with LOCK:
                if entry["gen"] != generation:
                    return
                entry["failures"] = 0 if ok else entry["failures"] + 1
            time.sleep(duration(config.get("period"), 10))

    def list(self, names, level):
        out = []
        with LOCK:
            for name, entry in sorted(self.state.items()):
                config = entry["config"]
                if names and name not in names:
                    continue
                have = config.get("level")
                if level == "alive" and have != "alive":
                    continue
                if level == "ready" and have not in ("alive", "ready"):
                    continue
                threshold = int(config.get("threshold") or 3)
                info = {"name": name, "startup": "enabled",
                        "status": "down" if entry["failures"] >= threshold else "up",
                        "threshold": threshold}
                if have:
                    info["level"] = have
                if entry["failures"]:
                    info["failures"] = entry["failures"]
                out.append(info)
        return out


CHECKS = Checks()


def run_check(config):
    timeout = duration(config.get("timeout"), 3)
    try:
        if "exec" in config:
            argv = shlex.split(config["exec"].get("command") or "")
            return subprocess.run(argv, timeout=timeout, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
        if "tcp" in config:
            tcp = config["tcp"]
            with socket.create_connection((tcp.get("host") or "localhost", int(tcp["port"])), timeout=timeout):
                return True
        if "http" in config:
            with urllib.request.urlopen(config["http"]["url"], timeout=timeout) as r:
                return 200 <= r.status < 300
    except Exception:
        return False
    return False


# --- files ---

ROOT = None


def host_path(path):
    if not path.startswith("/"):
        raise ApiError(400, 'paths must be absolute, got "%s"' % path)
    parts = [p for p in path.split("/") if p]
    if any(p == ".." for p in parts):
        raise ApiError(400, "path %r leaves the container" % path)
    return os.path.join(ROOT, *parts)


def file_error(e):
    if isinstance(e, ApiError):
        return {"message": e.message, "kind": "generic-file-error"}
    if isinstance(e, FileNotFoundError):
        kind = "not-found"
    elif isinstance(e, PermissionError):
        kind = "permission-denied"
    else:
        kind = "generic-file-error"
    return {"message": "%s: %s" % (getattr(e, "filename", "") or "", e.strerror or e), "kind": kind}


def file_info(path, host):
    st = os.lstat(host)
    mode = st.st_mode
    kind = ("directory" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode)
            else "symlink" if stat.S_ISLNK(mode) else "socket" if stat.S_ISSOCK(mode)
            else "named-pipe" if stat.S_ISFIFO(mode) else "device" if stat.S_ISBLK(mode) or stat.S_ISCHR(mode)
            else "unknown")
    info = {"path": path, "name": os.path.basename(path) or "/", "type": kind,
            "permissions": "%03o" % stat.S_IMODE(mode),
            "last-modified": datetime.fromtimestamp(st.st_mtime, timezone.utc).isoformat(),
            "user-id": st.st_uid, "group-id": st.st_gid}
    if kind == "file":
        info["size"] = st.st_size
    return info


def list_files(path, itself):
    host = host_path(path)
    try:
        if os.path.isdir(host) and not itself:
            return [file_info(path.rstrip("/") + "/" + n, os.path.join(host, n))
                    for n in sorted(os.listdir(host))]
        return [file_info(path, host)]
    except FileNotFoundError:
        raise ApiError(404, "stat %s: no such file or directory" % path, "not-found")
    except PermissionError:
        raise ApiError(403, "stat %s: permission denied" % path, "permission-denied")


def make_dirs(dirs):
    result = []
    for d in dirs:
        entry = {"path": d.get("path", "")}
        try:
            host = host_path(entry["path"])
            mode = int(d.get("permissions") or "755", 8)
            if d.get("make-parents"):
                os.makedirs(host, mode=mode, exist_ok=True)
            else:
                os.mkdir(host, mode)
        except (OSError, ApiError) as e:
            entry["error"] = file_error(e)
        result.append(entry)
    return result


def remove_paths(paths):
    result = []
    for p in paths:
        entry = {"path": p.get("path", "")}
        try:
            host = host_path(entry["path"])
            if p.get("recursive"):
                if os.path.isdir(host) and not os.path.islink(host):
                    for top, dirs, files in os.walk(host, topdown=False):
                        for f in files:
                            os.unlink(os.path.join(top, f))
                        for d in dirs:
                            os.rmdir(os.path.join(top, d))
                    os.rmdir(host)
                elif os.path.lexists(host):
                    os.unlink(host)
            elif os.path.isdir(host) and not os.path.islink(host):
                os.rmdir(host)
            else:
                os.unlink(host)
        except (OSError, ApiError) as e:
            entry["error"] = file_error(e)
        result.append(entry)
    return result


def parse_multipart(body, boundary):
    delim = b"--" + boundary.encode()
    parts = []
    for chunk in body.split(delim)[1:]:
        if chunk.startswith(b"--"):
            break
        head, _, content = chunk[2:].partition(b"\r\n\r\n")
        if content.endswith(b"\r\n"):
            content = content[:-2]
        headers = {}
        for line in head.decode("utf-8", "replace").split("\r\n"):
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        params = {}
        for item in headers.get("content-disposition", "").split(";")[1:]:
            k, _, v = item.strip().partition("=")
            if v.startswith('"'):
                v = json.loads(v)
            params[k] = v
        parts.append((params.get("name"), params.get("filename"), content))
    return parts


def write_files(body, boundary):
    if len(boundary) < 32:
        raise ApiError(400, "invalid boundary %r" % boundary)
    parts = parse_multipart(body, boundary)
    if not parts or parts[0][0] != "request":
        raise ApiError(400, 'metadata field name must be "request", got %r' % (parts[0][0] if parts else ""))
    try:
        meta = json.loads(parts[0][2])
    except ValueError as e:
        raise ApiError(400, "cannot decode request metadata: %s" % e)
    if meta.get("action") != "write":
        raise ApiError(400, 'multipart action must be "write", got %r' % meta.get("action"))
    infos = {f["path"]: f for f in meta.get("files") or []}
    if not infos:
        raise ApiError(400, "must specify one or more files")
    written = {}
    for name, filename, content in parts[1:]:
        if name != "files":
            raise ApiError(400, 'field name must be "files", got %r' % name)
        info = infos.get(filename)
        if info is None:
            raise ApiError(400, 'no metadata for path "%s"' % filename)
        try:
            host = host_path(filename)
            if info.get("make-dirs"):
                os.makedirs(os.path.dirname(host), exist_ok=True)
            mode = int(info.get("permissions") or "644", 8)
            fd = os.open(host, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
            with os.fdopen(fd, "wb") as f:
                f.write(content)
            os.chmod(host, mode)
            written[filename] = None
        except (OSError, ApiError) as e:
            written[filename] = file_error(e)
    result = []
    for path in infos:
        entry = {"path": path}
        if path not in written:
            entry["error"] = {"message": 'no file content for path "%s"' % path, "kind": "generic-file-error"}
        elif written[path]:
            entry["error"] = written[path]
        result.append(entry)
    return result


# --- HTTP ---

STATUS_TEXT = {200: "OK", 202: "Accepted", 400: "Bad Request", 403: "Forbidden",
               404: "Not Found", 405: "Method Not Allowed", 500: "Internal Server Error",
               504: "Gateway Timeout"}


# --- exec: a real process, its stdio over websockets, its exit in a change ---

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
CHANGES_CHANGED = threading.Condition(LOCK)


def ws_read_frame(rfile):
    """One frame from a client: (fin, opcode, payload), unmasked; None at EOF."""
    head = rfile.read(2)
    if len(head) < 2:
        return None
    fin, opcode = head[0] & 0x80, head[0] & 0x0F
    masked, length = head[1] & 0x80, head[1] & 0x7F
    if length == 126:
        length = int.from_bytes(rfile.read(2), "big")
    elif length == 127:
        length = int.from_bytes(rfile.read(8), "big")
    if not masked:
        raise ValueError("a client frame that is not masked")
    key = rfile.read(4)
    data = rfile.read(length)
    return bool(fin), opcode, bytes(b ^ key[i % 4] for i, b in enumerate(data))


def ws_frame(opcode, payload):
    """A server frame (unmasked)."""
    n = len(payload)
    if n < 126:
        head = bytes([0x80 | opcode, n])
    elif n < 65536:
        head = bytes([0x80 | opcode, 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([0x80 | opcode, 127]) + n.to_bytes(8, "big")
    return head + payload


class Websocket:
    def __init__(self, handler):
        self.rfile, self.wfile = handler.rfile, handler.wfile
        self.lock = threading.Lock()
        self.closed = threading.Event()

    def send(self, opcode, payload):
        with self.lock:
            try:
                self.wfile.write(ws_frame(opcode, payload))
                self.wfile.flush()
            except OSError:
                pass

    def messages(self):
        """(opcode, payload) of each whole message, fragments joined, until close."""
        partial, kind = b"", None
        while True:
            frame = ws_read_frame(self.rfile)
            if frame is None:
                return
            fin, opcode, data = frame
            if opcode == 0x8:
                self.send(0x8, data[:2])
                return
            if opcode == 0x9:
                self.send(0xA, data)
                continue
            if opcode in (0x1, 0x2):
                partial, kind = data, opcode
            elif opcode == 0x0:
                partial += data
            if fin and kind is not None:
                yield kind, partial
                partial, kind = b"", None


class Execution:
    def __init__(self, argv, environment, cwd, timeout, split_stderr):
        self.argv, self.environment, self.cwd = argv, environment, cwd
        self.timeout, self.split_stderr = timeout, split_stderr
        self.sockets = {}
        self.ready = threading.Condition(LOCK)
        self.proc = None
        self.change_id = None


EXECUTIONS = {}


def start_exec(payload):
    argv = payload.get("command") or []
    if not argv:
        raise ApiError(400, "must specify command")
    timeout = duration(payload.get("timeout") or None, 0)
    exe = argv[0] if "/" in argv[0] else shutil_which(argv[0])
    if not exe or not os.access(exe, os.X_OK):
        raise ApiError(400, 'cannot find executable "%s"' % argv[0])
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    env.update({str(k): str(v) for k, v in (payload.get("environment") or {}).items()})
    change_id = str(len(CHANGES) + 1)
    task_id = "T" + change_id
    CHANGES[change_id] = {"id": change_id, "kind": "exec", "summary": "Execute command %r" % argv[0],
                          "status": "Doing", "ready": False, "spawn-time": now_text(),
                          "tasks": [{"id": task_id, "kind": "exec", "status": "Doing"}]}
    e = Execution(argv, env, payload.get("working-dir") or ROOT, timeout,
                  bool(payload.get("split-stderr")))
    e.change_id = change_id
    EXECUTIONS[task_id] = e
    threading.Thread(target=run_exec, args=(change_id, task_id, e), daemon=True).start()
    return change_id, {"task-id": task_id, "environment": env, "working-dir": e.cwd}


def shutil_which(name):
    for d in os.environ.get("PATH", "/usr/bin:/bin").split(":"):
        path = os.path.join(d, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def finish_change(change_id, exit_code, err=None):
    with LOCK:
        change = CHANGES[change_id]
        change["tasks"][0]["data"] = {"exit-code": exit_code}
        change["tasks"][0]["status"] = "Error" if err else "Done"
        change["status"] = "Error" if err else "Done"
        change["ready"], change["ready-time"] = True, now_text()
        if err:
            change["err"] = "cannot perform the following tasks:\n- %s (%s)" % (change["summary"], err)
        CHANGES_CHANGED.notify_all()


def run_exec(change_id, task_id, e):
    # As Pebble: the process starts once the I/O websockets are open (5 s).
    wanted = ["stdio"] + (["stderr"] if e.split_stderr else [])
    with LOCK:
        if not e.ready.wait_for(lambda: all(w in e.sockets for w in wanted), timeout=5):
            return finish_change(change_id, -1, "timeout waiting for websocket connections")
    stdio = e.sockets["stdio"]
    try:
        e.proc = subprocess.Popen(e.argv, env=e.environment, cwd=e.cwd, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE if e.split_stderr else subprocess.STDOUT,
                                  start_new_session=True)
    except OSError as err:
        return finish_change(change_id, -1, "cannot start: %s" % err)

    def feed_stdin():
        try:
            for kind, data in stdio.messages():
                if kind == 0x2:
                    e.proc.stdin.write(data)
                    e.proc.stdin.flush()
                elif json.loads(data or b"{}").get("command") == "end":
                    break
        except (OSError, ValueError):
            pass
        try:
            e.proc.stdin.close()
        except OSError:
            pass

    def pump(pipe, socket):
        while True:
            chunk = pipe.read1(128 << 10)
            if not chunk:
                break
            socket.send(0x2, chunk)
        socket.send(0x1, b'{"command":"end"}')

    threads = [threading.Thread(target=feed_stdin, daemon=True),
               threading.Thread(target=pump, args=(e.proc.stdout, stdio), daemon=True)]
    if e.split_stderr:
        threads.append(threading.Thread(target=pump, args=(e.proc.stderr, e.sockets["stderr"]),
                                        daemon=True))
    for t in threads:
        t.start()
    timed_out = False
    try:
        code = e.proc.wait(timeout=e.timeout or None)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(e.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        code = e.proc.wait()
    for t in threads[1:]:
        t.join(timeout=2)
    if timed_out:
        return finish_change(change_id, -1, "timed out after %gs: context deadline exceeded" % e.timeout)
    finish_change(change_id, code if code >= 0 else -1)


def control_loop(e, socket):
    """Pebble's control websocket: a `signal` command goes to the process."""
    for kind, data in socket.messages():
        try:
            command = json.loads(data)
        except ValueError:
            continue
        if command.get("command") == "signal" and e.proc is not None:
            name = (command.get("signal") or {}).get("name", "")
            number = getattr(signal, name, None)
            if isinstance(number, signal.Signals):
                try:
                    os.kill(e.proc.pid, number)
                except ProcessLookupError:
                    pass


def wait_change(change_id, timeout):
    end = time.monotonic() + timeout
    while not CHANGES[change_id].get("ready", True):
        left = end - time.monotonic()
        if left <= 0:
            raise ApiError(504, "timeout waiting for change %s" % change_id)
        CHANGES_CHANGED.wait(left)
    return CHANGES[change_id]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        if os.environ.get("FAKE_PEBBLE_LOG"):
            sys.stderr.write("fake-pebble: %s\n" % (fmt % args))

    def address_string(self):
        return "unix"

    def send(self, status, body, content_type="application/json"):
        self.send_response(status, STATUS_TEXT.get(status))
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def envelope(self, kind, status, result=None, change=None):
        doc = {"type": kind, "status-code": status, "status": STATUS_TEXT.get(status, "")}
        if result is not None:
            doc["result"] = result
        if change is not None:
            doc["change"] = change
        self.send(status, json.dumps(doc).encode())

    def error(self, e):
        result = {"message": e.message}
        if e.kind:
            result["kind"] = e.kind
        self.envelope("error", e.status, result)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def json_body(self):
        try:
            return json.loads(self.body() or b"null") or {}
        except ValueError as e:
            raise ApiError(400, "cannot decode request body: %s" % e)

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def route(self, method):
        url = urllib.parse.urlsplit(self.path)
        parts = url.path.split("/")
        if method == "GET" and len(parts) == 6 and parts[1:3] == ["v1", "tasks"] and parts[4] == "websocket":
            return self.websocket(parts[3], parts[5])
        query = urllib.parse.parse_qs(url.query)
        q = lambda k: (query.get(k) or [""])[0]
        names = [n for v in query.get("names", []) for n in v.split(",") if n]
        try:
            with LOCK:
                if (method, url.path) == ("GET", "/v1/system-info"):
                    return self.envelope("sync", 200, {"version": "fake-pebble", "boot-id": str(os.getpid())})
                if (method, url.path) == ("GET", "/v1/plan"):
                    if q("format") != "yaml":
                        raise ApiError(400, "invalid format %r" % q("format"))
                    return self.envelope("sync", 200, dump_yaml(plan()))
                if (method, url.path) == ("POST", "/v1/layers"):
                    add_layer(self.json_body())
                    return self.envelope("sync", 200, True)
                if (method, url.path) == ("GET", "/v1/services"):
                    services = plan().get("services", {})
                    out = []
                    for n in sorted(services):
                        if names and n not in names:
                            continue
                        info = {"name": n, "startup": services[n].get("startup") or "disabled",
                                "current": service_current(n)}
                        if SERVICES.get(n) and SERVICES[n].since:
                            info["current-since"] = SERVICES[n].since
                        out.append(info)
                    return self.envelope("sync", 200, out)
                if (method, url.path) == ("POST", "/v1/services"):
                    return self.envelope("async", 202, None, services_action(self.json_body()))
                if method == "GET" and url.path.startswith("/v1/changes/"):
                    rest = url.path[len("/v1/changes/"):]
                    change_id = rest[: -len("/wait")] if rest.endswith("/wait") else rest
                    if change_id not in CHANGES:
                        raise ApiError(404, 'cannot find change with id "%s"' % change_id, "not-found")
                    if rest.endswith("/wait"):
                        change = wait_change(change_id, duration(q("timeout") or None, 3600))
                        return self.envelope("sync", 200, change)
                    return self.envelope("sync", 200, CHANGES[change_id])
                if (method, url.path) == ("POST", "/v1/exec"):
                    change_id, result = start_exec(self.json_body())
                    return self.envelope("async", 202, result, change_id)
                if (method, url.path) == ("GET", "/v1/checks"):
                    level = q("level")
                    if level not in ("", "alive", "ready"):
                        raise ApiError(400, 'level must be "alive" or "ready"')
                    return self.envelope("sync", 200, CHECKS.list(names, level))
                if (method, url.path) == ("GET", "/v1/files"):
                    return self.get_files(q, query)
                if (method, url.path) == ("POST", "/v1/files"):
                    return self.post_files()
            raise ApiError(404, "not found")
        except ApiError as e:
            self.error(e)

    def websocket(self, task_id, ws_id):
        with LOCK:
            e = EXECUTIONS.get(task_id)
            if e is None or ws_id not in ("control", "stdio", "stderr") or ws_id in e.sockets:
                return self.error(ApiError(404, "websocket %s of task %s not found" % (ws_id, task_id)))
        key = self.headers.get("Sec-WebSocket-Key") or ""
        if (self.headers.get("Upgrade") or "").lower() != "websocket" or not key:
            return self.error(ApiError(400, "not a websocket upgrade"))
        accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
        self.send_response(101, "Switching Protocols")
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept)
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        socket = Websocket(self)
        with LOCK:
            e.sockets[ws_id] = socket
            e.ready.notify_all()
        if ws_id == "control":
            control_loop(e, socket)
        else:
            # The exec thread reads stdio; this thread keeps the connection
            # open until the command is over.
            with LOCK:
                CHANGES_CHANGED.wait_for(lambda: CHANGES[e.change_id].get("ready"), timeout=3600)

    def get_files(self, q, query):
        action = q("action")
        if action == "list":
            if not q("path"):
                raise ApiError(400, "must specify path")
            return self.envelope("sync", 200, list_files(q("path"), q("itself") == "true"))
        if action != "read":
            raise ApiError(400, "invalid action %r" % action)
        paths = query.get("path") or []
        if not paths:
            raise ApiError(400, "must specify one or more paths")
        if self.headers.get("Accept") != "multipart/form-data":
            raise ApiError(400, "must accept multipart/form-data")
        boundary = "fake-pebble-%032x" % int(time.time() * 1e9)
        out, result = [], []
        for path in paths:
            entry = {"path": path}
            try:
                host = host_path(path)
                if not os.path.isfile(host):
                    if os.path.exists(host):
                        raise ApiError(400, 'can only read a regular file: "%s"' % path)
                    raise FileNotFoundError(2, "no such file or directory", "stat " + path)
                with open(host, "rb") as f:
                    content = f.read()
                out.append(b"--%s\r\nContent-Disposition: form-data; name=\"files\"; filename=%s\r\n"
                           b"Content-Type: application/octet-stream\r\n\r\n%s\r\n"
                           % (boundary.encode(), json.dumps(path).encode(), content))
            except (OSError, ApiError) as e:
                entry["error"] = file_error(e)
            result.append(entry)
        meta = json.dumps({"type": "sync", "status-code": 200, "status": "OK", "result": result})
        out.append(b"--%s\r\nContent-Type: application/json\r\nContent-Disposition: form-data; "
                   b"name=\"response\"\r\n\r\n%s\n\r\n--%s--\r\n" % (boundary.encode(), meta.encode(), boundary.encode()))
        self.send(200, b"".join(out), "multipart/form-data; boundary=" + boundary)

    def post_files(self):
        ctype = self.headers.get("Content-Type") or ""
        media, _, params = ctype.partition(";")
        media = media.strip()
        if media == "multipart/form-data":
            boundary = params.strip().partition("=")[2].strip('"') if "boundary" in params else ""
            return self.envelope("sync", 200, write_files(self.body(), boundary))
        if media == "application/json":
            payload = self.json_body()
            action = payload.get("action")
            if action == "make-dirs":
                return self.envelope("sync", 200, make_dirs(payload.get("dirs") or []))
            if action == "remove":
                return self.envelope("sync", 200, remove_paths(payload.get("paths") or []))
            if action == "write":
                raise ApiError(400, 'must use multipart with "write" action')
            raise ApiError(400, "invalid action %r" % action)
        raise ApiError(400, "invalid media type %r" % media)


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def main():
    global ROOT, STATE_DIR
    parser = argparse.ArgumentParser(description="A stand-in for Pebble's HTTP API")
    parser.add_argument("--socket", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--state")
    args = parser.parse_args()
    ROOT, STATE_DIR = os.path.abspath(args.root), args.state
    os.makedirs(ROOT, exist_ok=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.socket)), exist_ok=True)
    if os.path.exists(args.socket):
        os.unlink(args.socket)
    server = Server(args.socket, Handler)

    def stop(_signum, _frame):
        with LOCK:
            for name in list(SERVICES):
                stop_service(name)
            for e in EXECUTIONS.values():
                if e.proc is not None and e.proc.poll() is None:
                    try:
                        os.killpg(e.proc.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
        try:
            os.unlink(args.socket)
        except FileNotFoundError:
            pass
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    server.serve_forever()


if __name__ == "__main__":
    main()
