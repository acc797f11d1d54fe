//! Where a guest's stdout and stderr go: a sink that keeps the last
//! [`KEPT`] bytes for `juju-log` and counts the rest. Never full, never
//! closed: a chatty guest loses old output, not its life (wasmtime's
//! `MemoryOutputPipe` fails writes past its capacity, which makes Rust's
//! `println!` panic).

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamResult};

/// Bytes kept per stream and handler: what `juju-log` gets.
pub const KEPT: usize = 16 << 10;
/// What one `check-write` permits; any size works since nothing is refused.
const PERMIT: usize = 64 << 10;

#[derive(Debug, Default)]
struct Tail {
    buf: Vec<u8>,
    dropped: u64,
}

impl Tail {
    fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        // Trim only past twice the bound, so trimming is amortised O(1).
        if self.buf.len() > 2 * KEPT {
            let excess = self.buf.len() - KEPT;
            self.buf.drain(..excess);
            self.dropped += excess as u64;
        }
    }
}

/// A guest output stream; clones share the same buffer.
#[derive(Debug, Clone, Default)]
pub struct OutputTail(Arc<Mutex<Tail>>);

impl OutputTail {
    /// The last [`KEPT`] bytes as text, with a note of what came before.
    pub fn text(&self) -> String {
        let tail = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let start = tail.buf.len().saturating_sub(KEPT);
        let dropped = tail.dropped + start as u64;
        let text = String::from_utf8_lossy(&tail.buf[start..]);
        if dropped > 0 {
            format!("[{dropped} earlier bytes not kept] {text}")
        } else {
            text.into_owned()
        }
    }

    fn push(&self, bytes: &[u8]) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).push(bytes);
    }
}

#[async_trait::async_trait]
impl Pollable for OutputTail {
    async fn ready(&mut self) {}
}

impl OutputStream for OutputTail {
    fn write(&mut self, bytes: bytes::Bytes) -> StreamResult<()> {
        self.push(&bytes);
        Ok(())
    }
    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }
    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(PERMIT)
    }
}

impl tokio::io::AsyncWrite for OutputTail {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.push(buf);
        Poll::Ready(Ok(buf.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl IsTerminal for OutputTail {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for OutputTail {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }
    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_tail_and_counts_the_rest() {
        let out = OutputTail::default();
        out.push(b"hello ");
        out.push(b"world");
        assert_eq!(out.text(), "hello world");
        for i in 0..10_000 {
            out.push(format!("line {i}\n").as_bytes());
        }
        let text = out.text();
        assert!(
            text.ends_with("line 9999\n"),
            "{}",
            &text[text.len() - 20..]
        );
        assert!(text.starts_with('['), "{}", &text[..40]);
        let (note, kept) = text.split_once("] ").unwrap();
        let dropped: u64 = note
            .trim_start_matches('[')
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let total: u64 = 11
            + (0..10_000)
                .map(|i: u64| format!("line {i}\n").len() as u64)
                .sum::<u64>();
        assert_eq!(dropped + kept.len() as u64, total);
        assert_eq!(kept.len(), KEPT);
    }
}
