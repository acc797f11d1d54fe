use super::*;
use crate::bindings::pebble::{Host as _, HostFileReader as _};
use crate::pebble::Pebble;
use crate::pebble::fake_tests::read_request;
use crate::workload_root::WorkloadRoot;
use std::io::Write;
use std::os::unix::net::UnixListener;
use std::time::Duration;
use wasmtime::component::Resource;

const BOUNDARY: &str = "0123456789abcdef0123456789abcdef";

/// Serve each answer (content type, body) in writes of odd sizes, one per
/// connection, on `web`'s socket under a new workload root.
fn serve(answers: Vec<(&'static str, Vec<u8>)>) -> (Pebble, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let socket_dir = dir.path().join("charm/containers/web");
    std::fs::create_dir_all(&socket_dir).unwrap();
    let listener = UnixListener::bind(socket_dir.join("pebble.socket")).unwrap();
    std::thread::spawn(move || {
        for (content_type, body) in answers {
            let Ok((mut stream, _)) = listener.accept() else {
                return;
            };
            let _ = read_request(&mut stream);
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            for piece in body.chunks(7777) {
                if stream.write_all(piece).is_err() {
                    break;
                }
            }
        }
    });
    let root = WorkloadRoot::new(dir.path().to_path_buf()).unwrap();
    let mut pebble = Pebble::new(vec!["web".into()], root);
    pebble.set_deadline(Instant::now() + Duration::from_secs(10));
    (pebble, dir)
}

fn multipart() -> &'static str {
    "multipart/form-data; boundary=0123456789abcdef0123456789abcdef"
}

/// Pebble's answer to a read: the content part (if any), then the response.
fn answer(content: Option<&[u8]>, error: Option<(&str, &str)>) -> Vec<u8> {
    let mut out = Vec::new();
    if let Some(content) = content {
        out.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"files\"; \
                 filename=\"/big\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        out.extend_from_slice(content);
        out.extend_from_slice(b"\r\n");
    }
    let result = match error {
        None => serde_json::json!([{"path": "/big"}]),
        Some((kind, message)) => {
            serde_json::json!([{"path": "/big", "error": {"kind": kind, "message": message}}])
        }
    };
    let envelope = serde_json::json!({"type": "sync", "status-code": 200, "result": result});
    out.extend_from_slice(
        format!(
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"response\"\r\n\
             Content-Type: application/json\r\n\r\n{envelope}\n\r\n--{BOUNDARY}--\r\n"
        )
        .as_bytes(),
    );
    out
}

/// An answer that ends in the middle of the content.
fn cut_after_content() -> Vec<u8> {
    let whole = answer(Some(b"cut here"), None);
    let at = find(&whole, b"cut here").unwrap() + 3;
    whole[..at].to_vec()
}

fn read_all(pebble: &mut Pebble, reader: u32, max: u32) -> Result<Vec<u8>, PebbleError> {
    let mut out = Vec::new();
    loop {
        let piece = pebble.read(Resource::new_own(reader), max)?;
        if piece.is_empty() {
            return Ok(out);
        }
        assert!(piece.len() <= max as usize);
        out.extend_from_slice(&piece);
    }
}

#[test]
fn a_large_file_comes_in_pieces_whole() {
    // Content that holds near-boundaries, and is larger than pull's bound.
    let mut content: Vec<u8> = (0..(9 << 20)).map(|i: u32| (i % 253) as u8).collect();
    content.extend_from_slice(b"\r\n--0123456789abcdef0123456789abcdeX tail\r\n--");
    let (mut pebble, _dir) = serve(vec![(multipart(), answer(Some(&content), None))]);
    let reader = pebble.pull_stream("web".into(), "/big".into()).unwrap();
    let got = read_all(&mut pebble, reader.rep(), 100_000).unwrap();
    assert_eq!(got.len(), content.len());
    assert!(got == content);
    // At the end it stays at the end.
    assert_eq!(pebble.read(Resource::new_own(reader.rep()), 10), Ok(vec![]));
    pebble.drop(reader).unwrap();
}

#[test]
fn pebble_errors_come_at_the_open_or_the_end() {
    let (mut pebble, _dir) = serve(vec![
        (
            multipart(),
            answer(None, Some(("not-found", "stat /big: no such file"))),
        ),
        (multipart(), answer(Some(b"half"), Some(("generic-file-error", "EIO")))),
        (
            "application/json",
            br#"{"type":"error","status-code":400,"result":{"message":"must accept multipart/form-data"}}"#
                .to_vec(),
        ),
        (multipart(), cut_after_content()),
    ]);
    match pebble.pull_stream("web".into(), "/big".into()) {
        Err(PebbleError::Api(e)) => assert_eq!(e.kind, "not-found"),
        other => panic!("{other:?}"),
    }
    let reader = pebble.pull_stream("web".into(), "/big".into()).unwrap();
    assert_eq!(
        pebble.read(Resource::new_own(reader.rep()), 100),
        Ok(b"half".to_vec())
    );
    assert!(matches!(
        pebble.read(Resource::new_own(reader.rep()), 100),
        Err(PebbleError::Api(e)) if e.kind == "generic-file-error"
    ));
    assert!(matches!(
        pebble.pull_stream("web".into(), "/big".into()),
        Err(PebbleError::Api(e)) if e.status_code == 400
    ));
    let cut = pebble.pull_stream("web".into(), "/big".into()).unwrap();
    assert!(matches!(
        read_all(&mut pebble, cut.rep(), 100),
        Err(PebbleError::Protocol(m)) if m.contains("closing boundary")
    ));
}

#[test]
fn at_most_a_few_files_are_open_at_once() {
    let answers = (0..=MAX_OPEN)
        .map(|_| (multipart(), answer(Some(b"x"), None)))
        .collect();
    let (mut pebble, _dir) = serve(answers);
    let open: Vec<_> = (0..MAX_OPEN)
        .map(|_| pebble.pull_stream("web".into(), "/big".into()).unwrap())
        .collect();
    assert!(matches!(
        pebble.pull_stream("web".into(), "/big".into()),
        Err(PebbleError::Invalid(m)) if m.contains("open already")
    ));
    let first = open[0].rep();
    for reader in open {
        pebble.drop(reader).unwrap();
    }
    assert!(matches!(
        pebble.read(Resource::new_own(first), 1),
        Err(PebbleError::Protocol(m)) if m.contains("not open")
    ));
    assert!(matches!(
        pebble.pull_stream("web".into(), "x".repeat(MAX_PATH + 1)),
        Err(PebbleError::Invalid(_))
    ));
}
