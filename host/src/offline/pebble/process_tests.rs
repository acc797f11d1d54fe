//! The process mode on a real socket, asked over raw HTTP and websockets
//! as a client would: services, exec and checks as real processes of this
//! test, in its own temp directory, all stopped when the server goes.
#![allow(clippy::too_many_lines)] // a test reads as one scenario

use super::api::Sim;
use super::server::Server;
use crate::pebble::exec::{END, KILL};
use crate::pebble::websocket::{Frame, Opcode, accept_for, decode, encode};
use serde_json::{Value, json};
use std::io::{Read as _, Write as _};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A server of the process mode over `<dir>/root`, pids in `<dir>`;
/// stopped (its services and execs with it) on drop.
struct Pod {
    server: Option<Server>,
    socket: PathBuf,
    dir: tempfile::TempDir,
}

impl Pod {
    fn start() -> Pod {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(&root).unwrap();
        let socket = dir.path().join("pebble.socket");
        let sim = Sim::process(root, Some(dir.path().to_path_buf()));
        let server = Server::start(socket.clone(), sim).unwrap();
        Pod {
            server: Some(server),
            socket,
            dir,
        }
    }

    fn ask(&self, method: &str, target: &str, body: &Value) -> (u16, Value) {
        let body = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        let mut s = UnixStream::connect(&self.socket).unwrap();
        write!(
            s,
            "{method} {target} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        (status, serde_json::from_str(body).unwrap())
    }

    fn layer(&self, layer: &str) {
        let (status, answer) = self.ask(
            "POST",
            "/v1/layers",
            &json!({"action": "add", "label": "l", "format": "yaml", "layer": layer,
                "combine": true}),
        );
        assert_eq!(status, 200, "{answer}");
    }

    /// A services action, then its change.
    fn services(&self, action: &str, names: &[&str]) -> Value {
        let (status, answer) = self.ask(
            "POST",
            "/v1/services",
            &json!({"action": action, "services": names}),
        );
        assert_eq!(status, 202, "{answer}");
        let id = answer["change"].as_str().unwrap().to_string();
        self.ask("GET", &format!("/v1/changes/{id}/wait"), &Value::Null)
            .1["result"]
            .clone()
    }

    fn current(&self, service: &str) -> String {
        let (_, answer) = self.ask(
            "GET",
            &format!("/v1/services?names={service}"),
            &Value::Null,
        );
        answer["result"][0]["current"].as_str().unwrap().to_string()
    }

    fn pid(&self, service: &str) -> u32 {
        std::fs::read_to_string(self.dir.path().join(format!("{service}.pid")))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    }

    /// Exec `body`: the change and task ids.
    fn exec(&self, body: &Value) -> (String, String) {
        let (status, answer) = self.ask("POST", "/v1/exec", body);
        assert_eq!(status, 202, "{answer}");
        (
            answer["change"].as_str().unwrap().to_string(),
            answer["result"]["task-id"].as_str().unwrap().to_string(),
        )
    }

    fn wait(&self, change: &str) -> Value {
        self.ask("GET", &format!("/v1/changes/{change}/wait"), &Value::Null)
            .1["result"]
            .clone()
    }

    fn until(&self, what: &str, mut done: impl FnMut() -> bool) {
        let until = Instant::now() + Duration::from_secs(20);
        while !done() {
            assert!(Instant::now() < until, "never {what}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Pod {
    fn drop(&mut self) {
        if let Some(server) = self.server.take() {
            server.stop().shutdown();
        }
    }
}

/// A client's websocket on a task.
struct Ws {
    stream: UnixStream,
    read: Vec<u8>,
}

impl Ws {
    fn open(socket: &Path, task: &str, id: &str) -> Ws {
        let mut stream = UnixStream::connect(socket).unwrap();
        let key = "dGhlIHNhbXBsZSBub25jZQ==";
        write!(
            stream,
            "GET /v1/tasks/{task}/websocket/{id} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        .unwrap();
        let mut read = Vec::new();
        let mut chunk = [0u8; 4096];
        let end = loop {
            if let Some(i) = read.windows(4).position(|w| w == b"\r\n\r\n") {
                break i;
            }
            let n = stream.read(&mut chunk).unwrap();
            assert!(n > 0, "no answer to the upgrade");
            read.extend_from_slice(&chunk[..n]);
        };
        let head = String::from_utf8_lossy(&read[..end]).into_owned();
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        assert!(head.contains(&accept_for(key)), "{head}");
        let read = read.split_off(end + 4);
        Ws { stream, read }
    }

    fn send(&mut self, opcode: Opcode, payload: &[u8]) {
        let frame = Frame {
            fin: true,
            opcode,
            payload: payload.to_vec(),
        };
        // A client's frames are masked.
        self.stream
            .write_all(&encode(&frame, Some([1, 2, 3, 4])))
            .unwrap();
    }

    /// The output until Pebble's end of the stream.
    fn output(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut chunk = [0u8; 16 << 10];
        loop {
            while let Some((frame, used)) = decode(&self.read).unwrap() {
                self.read.drain(..used);
                match frame.opcode {
                    Opcode::Binary => out.extend_from_slice(&frame.payload),
                    Opcode::Text if frame.payload == END.as_bytes() => return out,
                    _ => {}
                }
            }
            let n = self.stream.read(&mut chunk).unwrap();
            assert!(n > 0, "the stream ended without its end");
            self.read.extend_from_slice(&chunk[..n]);
        }
    }
}

#[test]
fn services_are_processes_with_pebbles_okay_delay_and_states() {
    let pod = Pod::start();
    pod.layer(
        "services:\n  web:\n    override: replace\n    command: sleep 300\n    \
         startup: enabled\n  quick:\n    override: replace\n    command: sh -c 'exit 3'\n",
    );
    assert_eq!(pod.current("web"), "inactive");
    let replan = pod.services("replan", &[]);
    assert_eq!(replan["status"], "Done", "{replan}");
    assert_eq!(pod.current("web"), "active");
    let pid = pod.pid("web");
    let quick = pod.services("start", &["quick"]);
    assert_eq!(quick["status"], "Error");
    assert_eq!(
        quick["err"],
        "cannot perform the following tasks:\n- Start service \"quick\" (service start \
         attempt: exited quickly with code 3, will restart)"
    );
    // Killed as a crash would: error, not inactive; a start runs it again.
    crate::offline::pebble::process::signal_group(pid, libc::SIGKILL);
    pod.until("web in error", || pod.current("web") == "error");
    pod.services("start", &["web"]);
    assert_eq!(pod.current("web"), "active");
    let pid = pod.pid("web");
    // A replan with a changed command restarts it; stopped, it is inactive.
    pod.layer("services:\n  web:\n    override: merge\n    command: sleep 301\n");
    pod.services("replan", &[]);
    assert_ne!(pod.pid("web"), pid);
    pod.services("stop", &["web"]);
    assert_eq!(pod.current("web"), "inactive");
    assert!(!pod.dir.path().join("web.pid").exists());
}

#[test]
fn exec_takes_stdin_signals_and_its_timeout_over_the_websockets() {
    let pod = Pod::start();
    // stdin in, stdout and stderr together on stdio.
    let (change, task) = pod.exec(&json!({"command": ["sh", "-c", "cat; echo err >&2"]}));
    let mut control = Ws::open(&pod.socket, &task, "control");
    let mut stdio = Ws::open(&pod.socket, &task, "stdio");
    stdio.send(Opcode::Binary, b"hello ");
    stdio.send(Opcode::Binary, b"world\n");
    stdio.send(Opcode::Text, END.as_bytes());
    assert_eq!(stdio.output(), b"hello world\nerr\n");
    let done = pod.wait(&change);
    assert_eq!(done["status"], "Done", "{done}");
    assert_eq!(done["tasks"][0]["data"]["exit-code"], 0);
    control.send(Opcode::Close, &1000u16.to_be_bytes());

    // A signal on control ends it: exit code -1.
    let (change, task) = pod.exec(&json!({"command": ["sleep", "300"], "split-stderr": true,
        "working-dir": "/"}));
    let mut control = Ws::open(&pod.socket, &task, "control");
    let mut stdio = Ws::open(&pod.socket, &task, "stdio");
    let mut stderr = Ws::open(&pod.socket, &task, "stderr");
    control.send(Opcode::Text, KILL.as_bytes());
    assert!(stdio.output().is_empty() && stderr.output().is_empty());
    let done = pod.wait(&change);
    assert_eq!(done["tasks"][0]["data"]["exit-code"], -1, "{done}");

    // Past its timeout: killed, the change failed in Pebble's words.
    let (change, task) = pod.exec(&json!({"command": ["sleep", "300"], "timeout": "200ms"}));
    let mut stdio = Ws::open(&pod.socket, &task, "stdio");
    assert!(stdio.output().is_empty());
    let done = pod.wait(&change);
    assert_eq!(done["status"], "Error");
    assert_eq!(
        done["err"],
        "cannot perform the following tasks:\n- Execute command \"sleep\" (timed out after \
         200ms: context deadline exceeded)"
    );
    let (status, answer) = pod.ask("POST", "/v1/exec", &json!({"command": ["no-such-program"]}));
    assert_eq!(status, 400, "{answer}");
}

#[test]
fn checks_run_on_their_period_and_go_down_at_their_threshold() {
    let pod = Pod::start();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    pod.layer(&format!(
        "checks:\n  port:\n    override: replace\n    period: 50ms\n    threshold: 2\n    \
         tcp: {{port: {port}, host: 127.0.0.1}}\n"
    ));
    let check = || pod.ask("GET", "/v1/checks", &Value::Null).1["result"][0].clone();
    pod.until("the port check up", || check()["status"] == "up");
    drop(listener);
    pod.until("the port check down", || check()["status"] == "down");
    let down = check();
    assert!(down["failures"].as_u64() >= Some(2), "{down}");
    assert_eq!(down["threshold"], 2);
}

#[test]
fn signals_reach_the_services_process_group_and_checks_stop_and_start() {
    let pod = Pod::start();
    let root = pod.dir.path().join("root");
    pod.layer(&format!(
        "services:\n  web:\n    override: replace\n    working-dir: {}\n    \
         command: sh -c 'trap \"echo hup > hup\" HUP; touch trapped; while true; do sleep 0.05; done'\n\
         checks:\n  port:\n    override: replace\n    period: 50ms\n    \
         tcp: {{port: 1, host: 127.0.0.1}}\n",
        root.display()
    ));
    let signal = |names: &[&str]| {
        pod.ask(
            "POST",
            "/v1/signals",
            &json!({"signal": "SIGHUP", "services": names}),
        )
    };
    let (status, answer) = signal(&["web"]);
    assert_eq!(status, 500, "{answer}");
    assert_eq!(
        answer["result"]["message"],
        "cannot send signal to \"web\": service is not running"
    );
    pod.services("start", &["web"]);
    // A HUP that reaches the shell before its `trap` ends it instead.
    pod.until("the trap set", || root.join("trapped").exists());
    let (status, answer) = signal(&["web"]);
    assert_eq!((status, &answer["result"]), (200, &json!(true)), "{answer}");
    pod.until("the trap ran", || root.join("hup").exists());
    assert_eq!(pod.current("web"), "active");
    assert_eq!(signal(&[]).0, 400);

    let checks = |action: &str| {
        pod.ask(
            "POST",
            "/v1/checks",
            &json!({"action": action, "checks": ["port"]}),
        )
    };
    let status_of = || pod.ask("GET", "/v1/checks", &Value::Null).1["result"][0].clone();
    pod.until("the port check failing", || {
        status_of()["failures"].as_u64() > Some(0)
    });
    assert_eq!(checks("stop").1["result"], json!({"changed": ["port"]}));
    let stopped = status_of();
    assert_eq!(stopped["status"], "inactive", "{stopped}");
    // As Pebble: a stopped check keeps its failures until started again.
    assert!(stopped["failures"].as_u64() > Some(0), "{stopped}");
    assert_eq!(checks("stop").1["result"], json!({"changed": []}));
    assert_eq!(checks("start").1["result"], json!({"changed": ["port"]}));
    assert_ne!(status_of()["status"], "inactive");
}

#[test]
fn exec_runs_as_the_user_it_names_only_when_the_server_is_root() {
    let pod = Pod::start();
    let (change, task) = pod.exec(&json!({"command": ["id", "-u"], "user-id": 65534,
        "group-id": 65534, "working-dir": "/"}));
    let mut control = Ws::open(&pod.socket, &task, "control");
    let mut stdio = Ws::open(&pod.socket, &task, "stdio");
    stdio.send(Opcode::Text, END.as_bytes());
    let out = String::from_utf8(stdio.output()).unwrap();
    assert_eq!(pod.wait(&change)["status"], "Done");
    control.send(Opcode::Close, &1000u16.to_be_bytes());
    // SAFETY: geteuid(2) reads this process's id and cannot fail.
    let me = unsafe { libc::geteuid() };
    let expected = if me == 0 { 65534 } else { me };
    assert_eq!(out.trim(), expected.to_string());
    let (status, answer) = pod.ask(
        "POST",
        "/v1/exec",
        &json!({"command": ["true"], "user": "no-such-user-here"}),
    );
    if me == 0 {
        assert_eq!(status, 400, "{answer}");
    }
}

#[test]
fn disabled_checks_are_inactive_until_started_and_a_missing_program_fails_its_start() {
    let pod = Pod::start();
    pod.layer(
        "services:\n  ghost:\n    override: replace\n    command: no-such-program-here\n\
         checks:\n  later:\n    override: replace\n    startup: disabled\n    \
         period: 1s\n    exec: {command: 'false'}\n",
    );
    let later = || pod.ask("GET", "/v1/checks", &Value::Null).1["result"][0].clone();
    assert_eq!(later()["status"], "inactive", "{}", later());
    assert_eq!(later()["startup"], "disabled");
    let start = json!({"action": "start", "checks": ["later"]});
    assert_eq!(
        pod.ask("POST", "/v1/checks", &start).1["result"],
        json!({"changed": ["later"]})
    );
    pod.until("the started check failing", || {
        later()["failures"].as_u64() > Some(0)
    });
    let ghost = pod.services("start", &["ghost"]);
    assert_eq!(
        ghost["err"],
        "cannot perform the following tasks:\n- Start service \"ghost\" (cannot start \
         service: exec: \"no-such-program-here\": executable file not found in $PATH)"
    );
    assert_eq!(pod.current("ghost"), "inactive");
}

#[test]
fn custom_notices_are_served_in_the_process_mode() {
    let pod = Pod::start();
    let add = json!({"action": "add", "type": "custom", "key": "example.com/deployed",
        "data": {"rev": "7"}});
    let (status, added) = pod.ask("POST", "/v1/notices", &add);
    assert_eq!(
        (status, &added["result"]),
        (200, &json!({"id": "1"})),
        "{added}"
    );
    pod.ask("POST", "/v1/notices", &add);
    let (_, listed) = pod.ask("GET", "/v1/notices?types=custom", &Value::Null);
    let notice = &listed["result"][0];
    assert_eq!(notice["key"], "example.com/deployed", "{listed}");
    assert_eq!(notice["occurrences"], 2);
    assert_eq!(notice["last-data"], json!({"rev": "7"}));
    let (_, one) = pod.ask("GET", "/v1/notices/1", &Value::Null);
    assert_eq!(one["result"]["expire-after"], "168h0m0s");
    let (status, _) = pod.ask(
        "POST",
        "/v1/notices",
        &json!({"action": "add", "type": "custom", "key": "nope"}),
    );
    assert_eq!(status, 400);
}
