//! Pebble's exec (DESIGN §12): a command the manifest declares for a
//! container, run through `POST /v1/exec` with its output read from the
//! task's websockets and its exit code from the change.
//!
//! The protocol, as Pebble's own client speaks it: the exec request answers
//! an async change and a task id; the client opens the task's `control`,
//! `stdio` and (with `split-stderr`) `stderr` websockets, at
//! `/v1/tasks/<task-id>/websocket/<id>` — Pebble starts the process once
//! the I/O ones are open. Output comes as binary messages, and ends with a
//! text message `{"command":"end"}`; the client ends stdin with that same
//! message. The change's task carries `exit-code` in its data; a timeout
//! makes the change fail.
//!
//! The host keeps the timeout as well as Pebble: at `until` it sends
//! SIGKILL on the control websocket and answers `timed-out`.

use super::client::{Body, Client, Error, MAX_ANSWER, parse_envelope, query_value};
use super::files::{MAX_NAME, MAX_PATH, add_ownership};
use super::websocket::{Message, Noise, Socket, WsError, check_upgrade, handshake_key};
use crate::bindings::pebble::ExecOptions;
use crate::bindings::workload::{CommandOutput, Exit};
use crate::charm_dir::{CommandSpec, MAX_ARGS, MAX_ARGS_BYTES, OUTPUT_LIMIT};
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// What a client sends on `stdio` when it has no more input, and what
/// Pebble sends when a stream's output is over.
pub const END: &str = r#"{"command":"end"}"#;
/// The control message that kills the process.
pub const KILL: &str = r#"{"command":"signal","signal":{"name":"SIGKILL"}}"#;

/// Why an exec was refused before Pebble was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Not declared, or arguments where the manifest allows none.
    Undeclared(String),
    /// Arguments Pebble's JSON or an argv cannot carry.
    Unusable(String),
}

/// The argv of command `name` of `container` (declared as `spec`) with the
/// guest's `args`.
pub fn argv(
    container: &str,
    name: &str,
    spec: &CommandSpec,
    args: &[String],
) -> Result<Vec<String>, Refused> {
    if !args.is_empty() && !spec.args {
        return Err(Refused::Undeclared(format!(
            "command `{name}` of container {container} takes no arguments from the charm \
             (wasm-charm.yaml workload.containers.{container}.commands.{name}.args is false)"
        )));
    }
    let bytes: usize = args.iter().map(String::len).sum();
    if args.len() > MAX_ARGS || bytes > MAX_ARGS_BYTES {
        return Err(Refused::Unusable(format!(
            "command `{name}` of container {container}: {} arguments of {bytes} bytes, \
             at most {MAX_ARGS} of {MAX_ARGS_BYTES}",
            args.len()
        )));
    }
    if let Some(i) = args.iter().position(|a| a.contains('\0')) {
        return Err(Refused::Unusable(format!(
            "command `{name}` of container {container}: argument {i} holds a NUL byte, \
             which no argv can carry"
        )));
    }
    Ok(spec.argv.iter().chain(args).cloned().collect())
}

/// When a command started at `now` must end: its declared timeout, cut to
/// the handler's deadline.
pub fn end(timeout: Duration, deadline: Instant, now: Instant) -> Instant {
    now.checked_add(timeout)
        .map_or(deadline, |t| t.min(deadline))
}

/// Most environment variables the charm may give a command.
pub const MAX_ENV: usize = 256;
/// Most bytes of names and values of those variables, in all.
pub const MAX_ENV_BYTES: usize = 64 << 10;
/// Most bytes the charm may give a command on stdin.
pub const MAX_STDIN: usize = 1 << 20;
/// Stdin is sent in messages of at most this size.
const STDIN_CHUNK: usize = 64 << 10;

/// Check the charm's options for command `name` of `container`: bounded,
/// and nothing a JSON string or an environment cannot carry.
pub fn check_options(container: &str, name: &str, options: &ExecOptions) -> Result<(), Refused> {
    let refuse = |why: String| {
        Refused::Unusable(format!("command `{name}` of container {container}: {why}"))
    };
    let env_bytes: usize = options
        .environment
        .iter()
        .map(|(k, v)| k.len() + v.len())
        .sum();
    if options.environment.len() > MAX_ENV || env_bytes > MAX_ENV_BYTES {
        return Err(refuse(format!(
            "options.environment holds {} variables of {env_bytes} bytes, at most \
             {MAX_ENV} of {MAX_ENV_BYTES}",
            options.environment.len()
        )));
    }
    if let Some((k, _)) = options
        .environment
        .iter()
        .find(|(k, v)| k.is_empty() || k.contains('=') || k.contains('\0') || v.contains('\0'))
    {
        return Err(refuse(format!(
            "options.environment variable {k:?}: a name is not empty and holds no `=`, \
             and neither name nor value a NUL byte"
        )));
    }
    let texts = [
        ("working-dir", options.working_dir.as_ref(), MAX_PATH),
        ("run-as.user", options.run_as.user.as_ref(), MAX_NAME),
        ("run-as.group", options.run_as.group.as_ref(), MAX_NAME),
    ];
    for (field, value, most) in texts {
        if let Some(value) = value
            && (value.len() > most || value.contains('\0'))
        {
            return Err(refuse(format!(
                "options.{field} is {} bytes or holds a NUL byte (at most {most})",
                value.len()
            )));
        }
    }
    if options.stdin.len() > MAX_STDIN {
        return Err(refuse(format!(
            "options.stdin is {} bytes, at most {MAX_STDIN}",
            options.stdin.len()
        )));
    }
    Ok(())
}

/// The `POST /v1/exec` body: no shell, Pebble's own timeout (a Go duration;
/// whole milliseconds, at least one), and the charm's options (those not
/// given are left to Pebble's defaults).
pub fn request_body(argv: &[String], timeout: Duration, options: &ExecOptions) -> Value {
    let mut body = json!({
        "command": argv,
        "timeout": format!("{}ms", timeout.as_millis().max(1)),
        "split-stderr": !options.combine_stderr,
    });
    if !options.environment.is_empty() {
        let env: serde_json::Map<String, Value> = options
            .environment
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        body["environment"] = Value::Object(env);
    }
    if let Some(dir) = &options.working_dir {
        body["working-dir"] = json!(dir);
    }
    add_ownership(&mut body, &options.run_as);
    body
}

/// The change id and the task id of the exec answer.
pub fn parse_started(status: u16, body: &[u8]) -> Result<(String, String), Error> {
    let change = match parse_envelope(status, body)? {
        super::client::Envelope::Async { change } => change,
        super::client::Envelope::Sync(_) => {
            return Err(Error::Protocol(
                "exec answered sync, not with a change".into(),
            ));
        }
    };
    let doc: Value =
        serde_json::from_slice(body).map_err(|e| Error::Protocol(format!("exec answer: {e}")))?;
    let task = doc
        .pointer("/result/task-id")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| Error::Protocol("an exec answer without its task-id".into()))?;
    Ok((change, task.to_string()))
}

/// How a finished exec change says the command ended.
pub fn parse_exit(change: &Value) -> Result<Exit, Error> {
    let err = change
        .get("err")
        .and_then(Value::as_str)
        .unwrap_or_default();
    // Pebble's words for its own timeout ("timed out after 1s: …").
    if err.contains("timed out") {
        return Ok(Exit::TimedOut);
    }
    if !err.is_empty() {
        return Err(Error::ChangeFailed {
            id: change
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            message: err.to_string(),
        });
    }
    let code = change
        .pointer("/tasks/0/data/exit-code")
        .and_then(Value::as_i64)
        .ok_or_else(|| Error::Protocol("an exec change without its exit-code".into()))?;
    i32::try_from(code)
        .map(Exit::Code)
        .map_err(|_| Error::Protocol(format!("exit code {code}")))
}

/// A stream's output: its first [`OUTPUT_LIMIT`] bytes.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Captured {
    pub data: Vec<u8>,
    pub truncated: bool,
}

impl Captured {
    pub fn push(&mut self, bytes: &[u8]) {
        let room = OUTPUT_LIMIT - self.data.len();
        if bytes.len() > room {
            self.truncated = true;
        }
        self.data.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }
}

fn ws_error(what: &str, e: WsError) -> Error {
    Error::Protocol(format!("{what}: {e}"))
}

/// Read a stream's output until Pebble's end message (or the socket ends).
async fn drain<S>(socket: &mut Socket<S>, into: &mut Captured, what: &str) -> Result<(), Error>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    loop {
        match socket.next().await.map_err(|e| ws_error(what, e))? {
            None => return Ok(()),
            Some(Message::Binary(data)) => into.push(&data),
            Some(Message::Text(text)) => {
                let command: Value = serde_json::from_str(&text).unwrap_or_default();
                if command.get("command").and_then(Value::as_str) == Some("end") {
                    return Ok(());
                }
            }
            Some(_) => {}
        }
    }
}

/// Both streams read at once (tokio's `join!` needs its macros feature).
async fn both<A, B>(a: A, b: B) -> Result<(), Error>
where
    A: Future<Output = Result<(), Error>>,
    B: Future<Output = Result<(), Error>>,
{
    let (mut a, mut b) = (std::pin::pin!(a), std::pin::pin!(b));
    let (mut ra, mut rb) = (None, None);
    std::future::poll_fn(|cx| {
        if ra.is_none()
            && let std::task::Poll::Ready(r) = a.as_mut().poll(cx)
        {
            ra = Some(r);
        }
        if rb.is_none()
            && let std::task::Poll::Ready(r) = b.as_mut().poll(cx)
        {
            rb = Some(r);
        }
        if ra.is_some() && rb.is_some() {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    ra.unwrap_or(Ok(())).and(rb.unwrap_or(Ok(())))
}

type Upgraded = Socket<TokioIo<hyper::upgrade::Upgraded>>;

/// Open the task's websocket `id` over a new connection to `socket`.
async fn connect(socket: &Path, task: &str, id: &str) -> Result<Upgraded, Error> {
    let what = format!("websocket {id}");
    let stream =
        tokio::net::UnixStream::connect(socket)
            .await
            .map_err(|e| Error::CannotConnect {
                socket: socket.display().to_string(),
                why: e.to_string(),
            })?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| Error::Protocol(format!("{what}: {e}")))?;
    // Driven beside the request, and kept for the upgraded stream.
    tokio::spawn(connection.with_upgrades());
    let mut noise = Noise::new();
    let key = handshake_key(&mut noise);
    let request = hyper::Request::builder()
        .method("GET")
        .uri(format!("/v1/tasks/{}/websocket/{id}", query_value(task)))
        .header(hyper::header::HOST, "localhost")
        .header(hyper::header::CONNECTION, "Upgrade")
        .header(hyper::header::UPGRADE, "websocket")
        .header(hyper::header::SEC_WEBSOCKET_VERSION, "13")
        .header(hyper::header::SEC_WEBSOCKET_KEY, &key)
        .body(Full::new(Bytes::new()))
        .map_err(|e| Error::Protocol(format!("{what}: {e}")))?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| Error::Protocol(format!("{what}: {e}")))?;
    check_upgrade(response.status().as_u16(), response.headers(), &key)
        .map_err(|e| ws_error(&what, e))?;
    let upgraded = hyper::upgrade::on(response)
        .await
        .map_err(|e| Error::Protocol(format!("{what}: {e}")))?;
    Ok(Socket::new(TokioIo::new(upgraded), noise))
}

/// Run `argv` through `client`'s Pebble, killing it at `until` (at or
/// before the client's deadline).
pub fn run(
    client: &Client,
    argv: &[String],
    options: &ExecOptions,
    until: Instant,
) -> Result<CommandOutput, Error> {
    let runtime = crate::http::client_runtime()
        .map_err(|e| Error::Protocol(format!("cannot start the HTTP client: {e}")))?;
    let left = client.deadline().saturating_duration_since(Instant::now());
    runtime
        .block_on(async {
            tokio::time::timeout(left, exchange(client, argv, options, until)).await
        })
        .unwrap_or_else(|_| {
            Err(Error::Timeout {
                what: "exec".into(),
            })
        })
}

/// Send `stdin` on the stdio websocket, then its end.
async fn feed<S>(stdio: &mut Socket<S>, stdin: &[u8]) -> Result<(), Error>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    for chunk in stdin.chunks(STDIN_CHUNK) {
        stdio
            .send_binary(chunk)
            .await
            .map_err(|e| ws_error("websocket stdio", e))?;
    }
    stdio
        .send_text(END)
        .await
        .map_err(|e| ws_error("websocket stdio", e))
}

async fn exchange(
    client: &Client,
    argv: &[String],
    options: &ExecOptions,
    until: Instant,
) -> Result<CommandOutput, Error> {
    let timeout = until.saturating_duration_since(Instant::now());
    let answer = client
        .send_async(
            "POST",
            "/v1/exec",
            Body::Json(request_body(argv, timeout, options)),
            None,
            MAX_ANSWER,
        )
        .await?;
    let (change, task) = parse_started(answer.status, &answer.body)?;
    let socket = client.socket();
    let mut control = connect(socket, &task, "control").await?;
    let mut stdio = connect(socket, &task, "stdio").await?;
    // Without split-stderr Pebble opens no stderr websocket: stderr comes
    // on stdio.
    let mut stderr = if options.combine_stderr {
        None
    } else {
        Some(connect(socket, &task, "stderr").await?)
    };
    let (mut out, mut err) = (Captured::default(), Captured::default());
    // The input goes first, within the command's time: a command that
    // never reads it ends at its timeout rather than stalling the host.
    let reading = async {
        feed(&mut stdio, &options.stdin).await?;
        let stdout = drain(&mut stdio, &mut out, "websocket stdio");
        match stderr.as_mut() {
            Some(stderr) => both(stdout, drain(stderr, &mut err, "websocket stderr")).await,
            None => stdout.await,
        }
    };
    let timed_out = match tokio::time::timeout_at(until.into(), reading).await {
        Ok(read) => {
            read?;
            false
        }
        Err(_) => {
            // Pebble's own timeout should have come first; make sure.
            let _ = control.send_text(KILL).await;
            true
        }
    };
    let _ = control.close().await;
    let _ = stdio.close().await;
    if let Some(stderr) = stderr.as_mut() {
        let _ = stderr.close().await;
    }
    let output = |exit| CommandOutput {
        exit,
        truncated: out.truncated || err.truncated,
        stdout: out.data.clone(),
        stderr: err.data.clone(),
    };
    if timed_out {
        return Ok(output(Exit::TimedOut));
    }
    let change = client.wait_change_value(&change).await?;
    let exit = if Instant::now() >= until {
        Exit::TimedOut
    } else {
        parse_exit(&change)?
    };
    Ok(output(exit))
}

#[cfg(test)]
#[path = "exec_fake_tests.rs"]
mod fake_tests;

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(args: bool) -> CommandSpec {
        CommandSpec {
            argv: vec!["nginx".into(), "-s".into()],
            args,
            timeout: Duration::from_secs(10),
        }
    }

    #[test]
    fn the_declared_argv_then_arguments_where_allowed() {
        assert_eq!(
            argv("web", "signal", &spec(true), &["reload".into()]),
            Ok(vec!["nginx".into(), "-s".into(), "reload".into()])
        );
        assert_eq!(
            argv("web", "signal", &spec(false), &[]),
            Ok(vec!["nginx".into(), "-s".into()])
        );
        match argv("web", "signal", &spec(false), &["x".into()]) {
            Err(Refused::Undeclared(m)) => assert!(
                m.contains("workload.containers.web.commands.signal.args is false"),
                "{m}"
            ),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            argv("web", "signal", &spec(true), &["a\0b".into()]),
            Err(Refused::Unusable(m)) if m.contains("NUL")
        ));
        let many = vec![String::new(); MAX_ARGS + 1];
        assert!(matches!(
            argv("web", "signal", &spec(true), &many),
            Err(Refused::Unusable(_))
        ));
    }

    use crate::pebble::test_values::no_exec_options as options;

    #[test]
    fn the_request_and_its_answers() {
        let argv = ["echo".into(), "hi".into()];
        let body = request_body(&argv, Duration::from_millis(1500), &options());
        assert_eq!(
            body,
            json!({"command": ["echo", "hi"], "timeout": "1500ms", "split-stderr": true})
        );
        assert_eq!(
            request_body(&[], Duration::ZERO, &options())["timeout"],
            "1ms"
        );
        let mut all = options();
        all.environment = vec![("A".into(), "1".into()), ("B".into(), "two".into())];
        all.working_dir = Some("/srv".into());
        all.run_as.user = Some("web".into());
        all.run_as.group_id = Some(33);
        all.stdin = b"input".to_vec();
        all.combine_stderr = true;
        assert_eq!(
            request_body(&argv, Duration::from_secs(2), &all),
            json!({"command": ["echo", "hi"], "timeout": "2000ms", "split-stderr": false,
                "environment": {"A": "1", "B": "two"}, "working-dir": "/srv",
                "user": "web", "group-id": 33})
        );
        let started = br#"{"type":"async","status-code":202,"status":"Accepted","change":"7",
            "result":{"task-id":"12","environment":{},"working-dir":"/root"}}"#;
        assert_eq!(parse_started(202, started), Ok(("7".into(), "12".into())));
        let no_task = br#"{"type":"async","status-code":202,"change":"7","result":{}}"#;
        assert!(parse_started(202, no_task).is_err());
        let refused = br#"{"type":"error","status-code":400,"result":{"message":"cannot find executable \"x\""}}"#;
        assert!(matches!(
            parse_started(400, refused),
            Err(Error::Api { status: 400, .. })
        ));
        let done = json!({"id": "7", "status": "Done", "tasks": [{"data": {"exit-code": 3}}]});
        assert_eq!(parse_exit(&done), Ok(Exit::Code(3)));
        let late = json!({"id": "7", "status": "Error",
            "err": "cannot perform the following tasks:\n- exec (timed out after 1s: context deadline exceeded)",
            "tasks": [{"data": {"exit-code": -1}}]});
        assert_eq!(parse_exit(&late), Ok(Exit::TimedOut));
        let failed = json!({"id": "7", "status": "Error", "err": "cannot start"});
        assert!(matches!(
            parse_exit(&failed),
            Err(Error::ChangeFailed { .. })
        ));
        assert!(parse_exit(&json!({"status": "Done", "tasks": []})).is_err());
    }

    #[test]
    fn options_are_bounded() {
        assert_eq!(check_options("web", "ok", &options()), Ok(()));
        let refused = |o: &ExecOptions| match check_options("web", "ok", o) {
            Err(Refused::Unusable(m)) => m,
            other => panic!("{other:?}"),
        };
        let mut o = options();
        o.environment = vec![(String::new(), "x".into())];
        assert!(refused(&o).contains("options.environment variable \"\""));
        o.environment = vec![("A".into(), "x\0".into())];
        assert!(refused(&o).contains("NUL"));
        o.environment = (0..=MAX_ENV)
            .map(|i| (format!("V{i}"), String::new()))
            .collect();
        assert!(refused(&o).contains("at most 256"));
        o.environment = vec![("A".into(), "x".repeat(MAX_ENV_BYTES))];
        assert!(refused(&o).contains("options.environment"));
        let mut o = options();
        o.run_as.group = Some("g".repeat(MAX_NAME + 1));
        assert!(refused(&o).contains("options.run-as.group"));
        let mut o = options();
        o.stdin = vec![0; MAX_STDIN];
        assert_eq!(check_options("web", "ok", &o), Ok(()));
    }

    #[test]
    fn output_is_cut_at_the_workload_limit() {
        let mut c = Captured::default();
        c.push(&vec![b'a'; OUTPUT_LIMIT - 1]);
        assert!(!c.truncated);
        c.push(b"bc");
        assert_eq!((c.data.len(), c.truncated), (OUTPUT_LIMIT, true));
        c.push(b"more");
        assert_eq!(c.data.len(), OUTPUT_LIMIT);
        let now = Instant::now();
        let deadline = now + Duration::from_secs(5);
        assert_eq!(
            end(Duration::from_secs(1), deadline, now),
            now + Duration::from_secs(1)
        );
        assert_eq!(end(Duration::from_secs(60), deadline, now), deadline);
    }
}
