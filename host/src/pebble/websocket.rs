//! A minimal RFC 6455 websocket client, for Pebble's exec streams: the
//! opening handshake's key and its check, a pure frame encoder and decoder,
//! the reassembly of fragmented messages, and [`Socket`], which sends and
//! receives messages over an upgraded connection.
//!
//! Only what a client of Pebble needs: text, binary, close, ping and pong;
//! no extensions, no subprotocol. Frames a client sends are masked (§5.3);
//! a server's are not, but a masked one is unmasked all the same.

use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};

/// The GUID a server appends to the client's key (§1.3).
const GUID: &str = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/// Largest frame payload accepted: Pebble sends output in pieces of at most
/// 128 KiB; anything far larger is refused rather than allocated.
pub const MAX_FRAME: usize = 4 << 20;
/// Largest reassembled message.
pub const MAX_MESSAGE: usize = 8 << 20;

/// Frame opcodes (§5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opcode {
    Continuation,
    Text,
    Binary,
    Close,
    Ping,
    Pong,
}

impl Opcode {
    fn bits(self) -> u8 {
        match self {
            Opcode::Continuation => 0x0,
            Opcode::Text => 0x1,
            Opcode::Binary => 0x2,
            Opcode::Close => 0x8,
            Opcode::Ping => 0x9,
            Opcode::Pong => 0xA,
        }
    }

    fn from_bits(bits: u8) -> Option<Opcode> {
        Some(match bits {
            0x0 => Opcode::Continuation,
            0x1 => Opcode::Text,
            0x2 => Opcode::Binary,
            0x8 => Opcode::Close,
            0x9 => Opcode::Ping,
            0xA => Opcode::Pong,
            _ => return None,
        })
    }

    fn is_control(self) -> bool {
        matches!(self, Opcode::Close | Opcode::Ping | Opcode::Pong)
    }
}

/// One frame, its payload unmasked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub fin: bool,
    pub opcode: Opcode,
    pub payload: Vec<u8>,
}

/// Why a websocket could not go on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WsError {
    #[error("websocket protocol error: {0}")]
    Protocol(String),
    #[error("websocket I/O error: {0}")]
    Io(String),
}

fn protocol(why: impl Into<String>) -> WsError {
    WsError::Protocol(why.into())
}

/// Encode a frame; `mask` is given for a client frame.
pub fn encode(frame: &Frame, mask: Option<[u8; 4]>) -> Vec<u8> {
    let len = frame.payload.len();
    let mut out = Vec::with_capacity(len + 14);
    out.push(u8::from(frame.fin) << 7 | frame.opcode.bits());
    let mask_bit = if mask.is_some() { 0x80 } else { 0 };
    if len < 126 {
        out.push(mask_bit | len as u8);
    } else if let Ok(len16) = u16::try_from(len) {
        out.push(mask_bit | 126);
        out.extend_from_slice(&len16.to_be_bytes());
    } else {
        out.push(mask_bit | 127);
        out.extend_from_slice(&(len as u64).to_be_bytes());
    }
    match mask {
        None => out.extend_from_slice(&frame.payload),
        Some(key) => {
            out.extend_from_slice(&key);
            out.extend(
                frame
                    .payload
                    .iter()
                    .enumerate()
                    .map(|(i, b)| b ^ key[i % 4]),
            );
        }
    }
    out
}

/// Decode the frame at the start of `buf`: the frame and the bytes it took,
/// or `None` when `buf` does not hold all of it yet.
pub fn decode(buf: &[u8]) -> Result<Option<(Frame, usize)>, WsError> {
    if buf.len() < 2 {
        return Ok(None);
    }
    let (b0, b1) = (buf[0], buf[1]);
    if b0 & 0x70 != 0 {
        return Err(protocol("reserved bits set (no extension was agreed)"));
    }
    let opcode = Opcode::from_bits(b0 & 0x0F)
        .ok_or_else(|| protocol(format!("unknown opcode {:#x}", b0 & 0x0F)))?;
    let fin = b0 & 0x80 != 0;
    let masked = b1 & 0x80 != 0;
    let mut at = 2;
    let len = match b1 & 0x7F {
        126 => {
            let Some(bytes) = buf.get(2..4) else {
                return Ok(None);
            };
            at = 4;
            u64::from(u16::from_be_bytes([bytes[0], bytes[1]]))
        }
        127 => {
            let Some(bytes) = buf.get(2..10) else {
                return Ok(None);
            };
            at = 10;
            let mut b = [0u8; 8];
            b.copy_from_slice(bytes);
            u64::from_be_bytes(b)
        }
        n => u64::from(n),
    };
    if opcode.is_control() && (len > 125 || !fin) {
        return Err(protocol(
            "a control frame longer than 125 bytes or fragmented",
        ));
    }
    let len = usize::try_from(len)
        .ok()
        .filter(|l| *l <= MAX_FRAME)
        .ok_or_else(|| protocol(format!("a frame of {len} bytes, more than {MAX_FRAME}")))?;
    let key = if masked {
        let Some(bytes) = buf.get(at..at + 4) else {
            return Ok(None);
        };
        at += 4;
        Some([bytes[0], bytes[1], bytes[2], bytes[3]])
    } else {
        None
    };
    let Some(payload) = buf.get(at..at + len) else {
        return Ok(None);
    };
    let payload = match key {
        None => payload.to_vec(),
        Some(key) => payload
            .iter()
            .enumerate()
            .map(|(i, b)| b ^ key[i % 4])
            .collect(),
    };
    Ok(Some((
        Frame {
            fin,
            opcode,
            payload,
        },
        at + len,
    )))
}

/// A whole message, or a control frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    Text(String),
    Binary(Vec<u8>),
    /// The peer closes: its status code, if it gave one.
    Close(Option<u16>),
    Ping(Vec<u8>),
    Pong(Vec<u8>),
}

/// Joins fragmented data frames into messages; control frames pass through
/// (they may come between fragments, §5.4).
#[derive(Debug, Default)]
pub struct Assembler {
    /// The opcode and the data so far of a message being fragmented.
    partial: Option<(Opcode, Vec<u8>)>,
}

impl Assembler {
    /// Take one frame: a message when one is complete.
    pub fn push(&mut self, frame: Frame) -> Result<Option<Message>, WsError> {
        match frame.opcode {
            Opcode::Close => {
                let code = (frame.payload.len() >= 2)
                    .then(|| u16::from_be_bytes([frame.payload[0], frame.payload[1]]));
                Ok(Some(Message::Close(code)))
            }
            Opcode::Ping => Ok(Some(Message::Ping(frame.payload))),
            Opcode::Pong => Ok(Some(Message::Pong(frame.payload))),
            Opcode::Text | Opcode::Binary => {
                if self.partial.is_some() {
                    return Err(protocol("a new message began before the last one ended"));
                }
                if frame.fin {
                    return finish(frame.opcode, frame.payload).map(Some);
                }
                self.partial = Some((frame.opcode, frame.payload));
                Ok(None)
            }
            Opcode::Continuation => {
                let Some((opcode, mut data)) = self.partial.take() else {
                    return Err(protocol("a continuation frame outside a message"));
                };
                if data.len() + frame.payload.len() > MAX_MESSAGE {
                    return Err(protocol(format!(
                        "a message longer than {MAX_MESSAGE} bytes"
                    )));
                }
                data.extend_from_slice(&frame.payload);
                if frame.fin {
                    finish(opcode, data).map(Some)
                } else {
                    self.partial = Some((opcode, data));
                    Ok(None)
                }
            }
        }
    }
}

fn finish(opcode: Opcode, data: Vec<u8>) -> Result<Message, WsError> {
    if opcode == Opcode::Text {
        String::from_utf8(data)
            .map(Message::Text)
            .map_err(|_| protocol("a text message that is not UTF-8"))
    } else {
        Ok(Message::Binary(data))
    }
}

/// Unpredictable enough bytes for a handshake key and frame masks: masking
/// guards proxies against a script's chosen bytes (§10.3), which a unix
/// socket to Pebble has none of; a time- and address-seeded xorshift does.
#[derive(Debug)]
pub struct Noise(u64);

impl Noise {
    pub fn new() -> Noise {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let local = 0u8;
        let addr = &local as *const u8 as u64;
        Noise((nanos ^ addr.rotate_left(32) ^ u64::from(std::process::id())) | 1)
    }

    pub fn draw(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    pub fn mask(&mut self) -> [u8; 4] {
        (self.draw() as u32).to_be_bytes()
    }
}

impl Default for Noise {
    fn default() -> Noise {
        Noise::new()
    }
}

/// A `Sec-WebSocket-Key`: 16 random bytes in base64.
pub fn handshake_key(noise: &mut Noise) -> String {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&noise.draw().to_be_bytes());
    bytes[8..].copy_from_slice(&noise.draw().to_be_bytes());
    base64(&bytes)
}

/// The `Sec-WebSocket-Accept` a server must answer to `key` (§4.2.2).
pub fn accept_for(key: &str) -> String {
    base64(&sha1(format!("{key}{GUID}").as_bytes()))
}

/// Check a server's answer to the opening handshake sent with `key`.
pub fn check_upgrade(status: u16, headers: &hyper::HeaderMap, key: &str) -> Result<(), WsError> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    };
    if status != 101 {
        return Err(protocol(format!("the upgrade was answered HTTP {status}")));
    }
    if !header("upgrade").eq_ignore_ascii_case("websocket") {
        return Err(protocol("the answer does not upgrade to websocket"));
    }
    if header("sec-websocket-accept") != accept_for(key) {
        return Err(protocol("Sec-WebSocket-Accept does not match the key sent"));
    }
    Ok(())
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// SHA-1 (FIPS 180-4), which the handshake needs and nothing else here:
/// not used for any security property.
fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0];
    let mut message = data.to_vec();
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in message.chunks(64) {
        let mut w = [0u32; 80];
        for (i, word) in block.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..20 => ((b & c) | (!b & d), 0x5A827999),
                20..40 => (b ^ c ^ d, 0x6ED9EBA1),
                40..60 => ((b & c) | (b & d) | (c & d), 0x8F1BBCDC),
                _ => (b ^ c ^ d, 0xCA62C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 20];
    for (i, x) in h.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&x.to_be_bytes());
    }
    out
}

/// A client websocket over an upgraded connection.
pub struct Socket<S> {
    io: S,
    read: Vec<u8>,
    assembler: Assembler,
    noise: Noise,
    closed: bool,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Socket<S> {
    pub fn new(io: S, noise: Noise) -> Socket<S> {
        Socket {
            io,
            read: Vec::new(),
            assembler: Assembler::default(),
            noise,
            closed: false,
        }
    }

    async fn send_frame(&mut self, opcode: Opcode, payload: Vec<u8>) -> Result<(), WsError> {
        let frame = Frame {
            fin: true,
            opcode,
            payload,
        };
        let bytes = encode(&frame, Some(self.noise.mask()));
        self.io
            .write_all(&bytes)
            .await
            .map_err(|e| WsError::Io(e.to_string()))?;
        self.io
            .flush()
            .await
            .map_err(|e| WsError::Io(e.to_string()))
    }

    /// Send a text message.
    pub async fn send_text(&mut self, text: &str) -> Result<(), WsError> {
        self.send_frame(Opcode::Text, text.as_bytes().to_vec())
            .await
    }

    /// Send a binary message.
    pub async fn send_binary(&mut self, data: &[u8]) -> Result<(), WsError> {
        self.send_frame(Opcode::Binary, data.to_vec()).await
    }

    /// Send a close frame (normal closure) once.
    pub async fn close(&mut self) -> Result<(), WsError> {
        if self.closed {
            return Ok(());
        }
        self.closed = true;
        self.send_frame(Opcode::Close, 1000u16.to_be_bytes().to_vec())
            .await
    }

    /// The next text or binary message, pings answered on the way; `None`
    /// when the peer closes or the connection ends.
    pub async fn next(&mut self) -> Result<Option<Message>, WsError> {
        loop {
            while let Some((frame, used)) = decode(&self.read)? {
                self.read.drain(..used);
                match self.assembler.push(frame)? {
                    None | Some(Message::Pong(_)) => {}
                    Some(Message::Ping(data)) => {
                        if !self.closed {
                            self.send_frame(Opcode::Pong, data).await?;
                        }
                    }
                    Some(Message::Close(_)) => {
                        // Answer the close, as §5.5.1 asks; the peer may be gone.
                        let _ = self.close().await;
                        return Ok(None);
                    }
                    Some(message) => return Ok(Some(message)),
                }
            }
            let mut chunk = [0u8; 16 << 10];
            let n = self
                .io
                .read(&mut chunk)
                .await
                .map_err(|e| WsError::Io(e.to_string()))?;
            if n == 0 {
                return Ok(None);
            }
            self.read.extend_from_slice(&chunk[..n]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_rfc_handshake_example() {
        // RFC 6455 §1.3.
        assert_eq!(
            accept_for("dGhlIHNhbXBsZSBub25jZQ=="),
            "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        let key = handshake_key(&mut Noise::new());
        assert_eq!(key.len(), 24);
        let mut headers = hyper::HeaderMap::new();
        headers.insert("upgrade", "WebSocket".parse().unwrap());
        headers.insert("sec-websocket-accept", accept_for(&key).parse().unwrap());
        assert_eq!(check_upgrade(101, &headers, &key), Ok(()));
        assert!(check_upgrade(200, &headers, &key).is_err());
        assert!(check_upgrade(101, &headers, "dGhlIHNhbXBsZSBub25jZQ==").is_err());
    }

    #[test]
    fn the_rfc_frame_examples() {
        // RFC 6455 §5.7: "Hello", unmasked then masked.
        let hello = [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f];
        let (frame, used) = decode(&hello).unwrap().unwrap();
        assert_eq!((frame.opcode, frame.fin, used), (Opcode::Text, true, 7));
        assert_eq!(frame.payload, b"Hello");
        let masked = [
            0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58,
        ];
        assert_eq!(encode(&frame, Some([0x37, 0xfa, 0x21, 0x3d])), masked);
        assert_eq!(decode(&masked).unwrap().unwrap().0, frame);
        // "Hel" + "lo" fragmented.
        let mut a = Assembler::default();
        let (first, _) = decode(&[0x01, 0x03, 0x48, 0x65, 0x6c]).unwrap().unwrap();
        let (last, _) = decode(&[0x80, 0x02, 0x6c, 0x6f]).unwrap().unwrap();
        assert_eq!(a.push(first), Ok(None));
        // A ping between fragments passes through.
        let ping = Frame {
            fin: true,
            opcode: Opcode::Ping,
            payload: b"x".to_vec(),
        };
        assert_eq!(a.push(ping), Ok(Some(Message::Ping(b"x".to_vec()))));
        assert_eq!(a.push(last), Ok(Some(Message::Text("Hello".into()))));
        // 256 bytes binary: a 16-bit length.
        let big = [0x82, 0x7E, 0x01, 0x00];
        assert_eq!(decode(&big), Ok(None));
    }

    #[test]
    fn bad_frames_are_refused() {
        assert!(decode(&[0xC1, 0x00]).is_err()); // RSV1
        assert!(decode(&[0x83, 0x00]).is_err()); // opcode 3
        assert!(decode(&[0x09, 0x00]).is_err()); // fragmented ping
        assert!(decode(&[0x89, 0x7E, 0x00, 0x80]).is_err()); // long ping
        let huge = [0x82, 0x7F, 0, 0, 0, 0, 0x10, 0, 0, 0];
        assert!(decode(&huge).is_err());
        let mut a = Assembler::default();
        let cont = Frame {
            fin: true,
            opcode: Opcode::Continuation,
            payload: vec![],
        };
        assert!(a.push(cont).is_err());
        let bad_text = Frame {
            fin: true,
            opcode: Opcode::Text,
            payload: vec![0xFF],
        };
        assert!(a.push(bad_text).is_err());
        let close = Frame {
            fin: true,
            opcode: Opcode::Close,
            payload: vec![0x03, 0xE8],
        };
        assert_eq!(a.push(close), Ok(Some(Message::Close(Some(1000)))));
    }

    #[test]
    fn sha1_known_answers() {
        let hex = |b: [u8; 20]| crate::text::hex(&b);
        assert_eq!(hex(sha1(b"")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(
            hex(sha1(b"abc")),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        let long = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        assert_eq!(hex(sha1(long)), "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    }

    fn opcode() -> impl Strategy<Value = Opcode> {
        prop_oneof![
            Just(Opcode::Text),
            Just(Opcode::Binary),
            Just(Opcode::Continuation)
        ]
    }

    proptest! {
        #[test]
        fn frames_round_trip(
            fin in any::<bool>(),
            op in opcode(),
            payload in prop::collection::vec(any::<u8>(), 0..70_000),
            mask in prop::option::of(any::<[u8; 4]>()),
            tail in prop::collection::vec(any::<u8>(), 0..8),
        ) {
            let frame = Frame { fin, opcode: op, payload };
            let mut bytes = encode(&frame, mask);
            let len = bytes.len();
            // Every strict prefix is incomplete, never an error.
            for cut in [0, 1, 2, len / 2, len - 1] {
                prop_assert_eq!(decode(&bytes[..cut]), Ok(None));
            }
            bytes.extend_from_slice(&tail);
            prop_assert_eq!(decode(&bytes), Ok(Some((frame, len))));
        }

        #[test]
        fn fragments_reassemble(
            data in prop::collection::vec(any::<u8>(), 0..4000),
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        ) {
            let mut points: Vec<usize> = cuts.iter().map(|i| i.index(data.len() + 1)).collect();
            points.sort_unstable();
            points.dedup();
            let mut pieces = Vec::new();
            let mut start = 0;
            for p in points.into_iter().chain([data.len()]) {
                if p >= start {
                    pieces.push(data[start..p].to_vec());
                    start = p;
                }
            }
            let mut a = Assembler::default();
            let last = pieces.len() - 1;
            for (i, piece) in pieces.into_iter().enumerate() {
                let frame = Frame {
                    fin: i == last,
                    opcode: if i == 0 { Opcode::Binary } else { Opcode::Continuation },
                    payload: piece,
                };
                let wire = encode(&frame, Some([1, 2, 3, 4]));
                let (decoded, _) = decode(&wire).unwrap().unwrap();
                let got = a.push(decoded).unwrap();
                if i == last {
                    prop_assert_eq!(got, Some(Message::Binary(data.clone())));
                } else {
                    prop_assert_eq!(got, None);
                }
            }
        }
    }
}
