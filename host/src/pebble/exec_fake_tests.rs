//! Exec against a scripted Pebble that speaks the websockets: stdin reaches
//! the stdio websocket, stderr is joined or apart as asked.

use super::*;
use crate::bindings::pebble::Ownership;
use crate::pebble::fake_tests::{Seen, read_request};
use crate::pebble::websocket::{Frame, Opcode, accept_for, decode, encode};
use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::mpsc;

fn answer(stream: &mut UnixStream, status: u16, body: &str) {
    let text = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(text.as_bytes()).unwrap();
}

/// Accept a websocket upgrade: the stream and the websocket's id.
fn upgrade(listener: &UnixListener) -> (UnixStream, String) {
    let (mut stream, _) = listener.accept().unwrap();
    let seen = read_request(&mut stream).unwrap();
    let key = seen
        .head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("sec-websocket-key")
                .then(|| v.trim().to_string())
        })
        .unwrap();
    let reply = format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\
         Connection: Upgrade\r\nSec-WebSocket-Accept: {}\r\n\r\n",
        accept_for(&key)
    );
    stream.write_all(reply.as_bytes()).unwrap();
    let id = seen.target.rsplit('/').next().unwrap().to_string();
    (stream, id)
}

fn send(stream: &mut UnixStream, opcode: Opcode, payload: &[u8]) {
    let frame = Frame {
        fin: true,
        opcode,
        payload: payload.to_vec(),
    };
    stream.write_all(&encode(&frame, None)).unwrap();
}

/// What the client sends on stdio up to its end message.
fn read_stdin(stream: &mut UnixStream) -> Vec<u8> {
    let (mut buf, mut got) = (Vec::new(), Vec::new());
    let mut chunk = [0u8; 65536];
    loop {
        while let Some((frame, used)) = decode(&buf).unwrap() {
            buf.drain(..used);
            match frame.opcode {
                Opcode::Binary => got.extend_from_slice(&frame.payload),
                Opcode::Text if frame.payload == END.as_bytes() => return got,
                _ => {}
            }
        }
        let n = stream.read(&mut chunk).unwrap();
        assert!(n > 0, "stdio closed before its end message");
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Serve one exec: the request, the websockets, the change.
fn serve_exec(listener: UnixListener, split: bool, seen: mpsc::Sender<(Seen, Vec<u8>)>) {
    let (mut stream, _) = listener.accept().unwrap();
    let request = read_request(&mut stream).unwrap();
    answer(
        &mut stream,
        202,
        r#"{"type":"async","status-code":202,"change":"5","result":{"task-id":"T1"}}"#,
    );
    let (_control, control_id) = upgrade(&listener);
    let (mut stdio, stdio_id) = upgrade(&listener);
    assert_eq!(
        (control_id.as_str(), stdio_id.as_str()),
        ("control", "stdio")
    );
    let mut stderr = split.then(|| upgrade(&listener).0);
    let stdin = read_stdin(&mut stdio);
    send(&mut stdio, Opcode::Binary, b"out:");
    send(&mut stdio, Opcode::Binary, &stdin[..stdin.len().min(16)]);
    match stderr.as_mut() {
        Some(err) => {
            send(err, Opcode::Binary, b"warn");
            send(err, Opcode::Text, END.as_bytes());
        }
        None => send(&mut stdio, Opcode::Binary, b"|warn"),
    }
    send(&mut stdio, Opcode::Text, END.as_bytes());
    let (mut wait, _) = listener.accept().unwrap();
    let _ = read_request(&mut wait);
    answer(
        &mut wait,
        200,
        r#"{"type":"sync","status-code":200,"result":{"id":"5","status":"Done","tasks":[{"data":{"exit-code":0}}]}}"#,
    );
    seen.send((request, stdin)).unwrap();
}

fn run_once(options: &ExecOptions) -> (CommandOutput, Seen, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("pebble.socket");
    let listener = UnixListener::bind(&socket).unwrap();
    let (tx, rx) = mpsc::channel();
    let split = !options.combine_stderr;
    std::thread::spawn(move || serve_exec(listener, split, tx));
    let deadline = Instant::now() + Duration::from_secs(10);
    let client = Client::new(socket, deadline);
    let until = Instant::now() + Duration::from_secs(5);
    let out = run(&client, &["cat".into()], options, until).unwrap();
    let (request, stdin) = rx.recv_timeout(Duration::from_secs(5)).unwrap();
    (out, request, stdin)
}

fn options(stdin: Vec<u8>, combine_stderr: bool) -> ExecOptions {
    ExecOptions {
        environment: vec![("LANG".into(), "C".into())],
        working_dir: Some("/srv".into()),
        run_as: Ownership {
            user: Some("web".into()),
            user_id: None,
            group: None,
            group_id: None,
        },
        stdin,
        combine_stderr,
    }
}

#[test]
fn stdin_reaches_the_command_and_stderr_stays_apart() {
    // Larger than one stdin message: sent in several.
    let input: Vec<u8> = (0..150_000u32).map(|i| (i % 251) as u8).collect();
    let (out, request, stdin) = run_once(&options(input.clone(), false));
    assert_eq!(stdin, input);
    assert_eq!(out.exit, Exit::Code(0));
    assert_eq!(out.stdout, [b"out:".as_slice(), &input[..16]].concat());
    assert_eq!(out.stderr, b"warn");
    let body = request.json();
    assert_eq!(body["split-stderr"], json!(true));
    assert_eq!(body["environment"], json!({"LANG": "C"}));
    assert_eq!(body["working-dir"], json!("/srv"));
    assert_eq!(body["user"], json!("web"));
}

#[test]
fn combined_stderr_comes_on_stdout() {
    let (out, request, stdin) = run_once(&options(b"hi".to_vec(), true));
    assert_eq!(stdin, b"hi");
    assert_eq!(out.stdout, b"out:hi|warn");
    assert!(out.stderr.is_empty());
    assert_eq!(request.json()["split-stderr"], json!(false));
}
