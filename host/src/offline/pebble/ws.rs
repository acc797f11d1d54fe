//! The server side of an exec task's websockets (framed by the host's own
//! `pebble::websocket`; a server's frames are not masked, RFC 6455 §5.1):
//! output sent as binary messages and ended as Pebble ends a stream, the
//! client's messages read until it closes. A scripted task sends its
//! output at once; a running one hands its [`Writer`] to the process.

use crate::pebble::exec::END;
use crate::pebble::websocket::{Assembler, Frame, Message, Opcode, decode, encode};
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex};

/// Output goes out in frames of this size.
const CHUNK: usize = 64 << 10;

/// What takes a running task's websockets.
pub trait Sink: Send + Sync {
    /// Websocket `id` is open: `writer` sends on it.
    fn attach(&self, id: &str, writer: Writer);
    /// A text or binary message the client sent on `id`.
    fn message(&self, id: &str, message: Message);
}

/// Sends frames on one websocket; shared by the threads that write on it
/// (output, and the reader answering pings and the close), one frame at a
/// time.
#[derive(Clone)]
pub struct Writer(Arc<Mutex<UnixStream>>);

impl Writer {
    pub fn new(stream: UnixStream) -> Writer {
        Writer(Arc::new(Mutex::new(stream)))
    }

    pub fn send(&self, opcode: Opcode, payload: Vec<u8>) -> std::io::Result<()> {
        let frame = Frame {
            fin: true,
            opcode,
            payload,
        };
        let mut stream = self.0.lock().unwrap_or_else(|p| p.into_inner());
        stream.write_all(&encode(&frame, None))
    }

    /// Output, in frames of at most [`CHUNK`] bytes.
    pub fn output(&self, bytes: &[u8]) -> std::io::Result<()> {
        bytes
            .chunks(CHUNK)
            .try_for_each(|c| self.send(Opcode::Binary, c.to_vec()))
    }

    /// The stream is over, in Pebble's words.
    pub fn end(&self) -> std::io::Result<()> {
        self.send(Opcode::Text, END.as_bytes().to_vec())
    }
}

/// Read the client's messages from `stream` (`read`: bytes already read
/// past the upgrade) until it closes: pings answered, the close echoed,
/// text and binary messages given to `on`.
pub fn read_loop(
    stream: &mut UnixStream,
    mut read: Vec<u8>,
    writer: &Writer,
    mut on: impl FnMut(Message),
) {
    let mut assembler = Assembler::default();
    let mut chunk = [0u8; 16 << 10];
    loop {
        loop {
            let frame = match decode(&read) {
                Ok(Some((frame, used))) => {
                    read.drain(..used);
                    frame
                }
                Ok(None) => break,
                // Bad framing: close, as on a close.
                Err(_) => {
                    let _ = writer.send(Opcode::Close, 1002u16.to_be_bytes().to_vec());
                    return;
                }
            };
            match assembler.push(frame) {
                Ok(Some(Message::Close(_))) | Err(_) => {
                    let _ = writer.send(Opcode::Close, 1000u16.to_be_bytes().to_vec());
                    return;
                }
                Ok(Some(Message::Ping(data))) => {
                    let _ = writer.send(Opcode::Pong, data);
                }
                Ok(Some(m @ (Message::Text(_) | Message::Binary(_)))) => on(m),
                Ok(_) => {}
            }
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => read.extend_from_slice(&chunk[..n]),
        }
    }
}
