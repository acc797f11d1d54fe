//! The `wasm-charm serve` processes this test process talks to
//! (docs/harness-protocol.md): the installed `wasm-charm`, found as
//! `$WASM_CHARM`, else on `PATH`. A pool, so that parallel tests each take
//! an idle server or start one; a server ends when this process does (its
//! stdin closes).

use crate::error::Error;
use serde_json::{Value, json};
use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;

/// The protocol this harness speaks, and its version.
const PROTOCOL: &str = "wasm-charm-harness";
const VERSION: u64 = 1;
/// The variable naming the binary.
const BINARY_VAR: &str = "WASM_CHARM";

/// One `wasm-charm serve`.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// How it was named, for messages.
    binary: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        // Only a server that failed its exchange is dropped: stop it.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

static IDLE: Mutex<Vec<Server>> = Mutex::new(Vec::new());

/// Send `request` (without its `version`, added here) to an idle server,
/// and return its `result`; a failure it answers is the [`Error`] of its
/// kind.
pub(crate) fn call(mut request: Value) -> Result<Value, Error> {
    if let Value::Object(map) = &mut request {
        map.insert("version".into(), json!(VERSION));
    }
    let idle = IDLE.lock().unwrap_or_else(|p| p.into_inner()).pop();
    let mut server = match idle {
        Some(server) => server,
        None => Server::start()?,
    };
    let response = server.exchange(&request)?;
    // Answered: ready for the next request.
    IDLE.lock().unwrap_or_else(|p| p.into_inner()).push(server);
    if let Some(error) = response.get("error") {
        let message = error["message"].as_str().unwrap_or_default().to_string();
        return Err(match error["kind"].as_str() {
            Some("usage") => Error::Usage(message),
            Some("build") => Error::Build(message),
            Some("state") => Error::State(message),
            _ => Error::Io(format!("wasm-charm serve: {message}")),
        });
    }
    match response {
        Value::Object(mut map) if map.contains_key("result") => {
            Ok(map.remove("result").unwrap_or_default())
        }
        other => Err(Error::Io(format!(
            "wasm-charm serve answered neither a result nor an error: {other}"
        ))),
    }
}

impl Server {
    /// Start `wasm-charm serve`: `$WASM_CHARM`, else `wasm-charm` on `PATH`.
    fn start() -> Result<Server, Error> {
        let binary = std::env::var(BINARY_VAR)
            .ok()
            .filter(|b| !b.is_empty())
            .unwrap_or_else(|| "wasm-charm".to_string());
        Server::start_binary(binary)
    }

    /// Start `binary serve` and read its hello.
    fn start_binary(binary: String) -> Result<Server, Error> {
        let mut child = Command::new(&binary)
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| {
                Error::Io(format!(
                    "cannot start `{binary} serve`: {e}. The harness runs events through the \
                     wasm-charm CLI: install it with `cargo install --path host` from the \
                     wasm-charm repository (release {}), or set {BINARY_VAR} to its path",
                    env!("CARGO_PKG_VERSION")
                ))
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(Error::Io(format!("`{binary} serve`: no pipes")));
        };
        let mut server = Server {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            binary,
        };
        let hello = server.read().map_err(|e| {
            Error::Io(format!(
                "{e}; a wasm-charm older than this harness (release {}) has no `serve`",
                env!("CARGO_PKG_VERSION")
            ))
        })?;
        check_hello(&server.binary, &hello)?;
        Ok(server)
    }

    fn exchange(&mut self, request: &Value) -> Result<Value, Error> {
        let line = format!("{request}\n");
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.flush())
            .map_err(|e| {
                Error::Io(format!(
                    "`{} serve`: cannot send a request: {e}",
                    self.binary
                ))
            })?;
        self.read()
    }

    /// One line of the server's, as JSON.
    fn read(&mut self) -> Result<Value, Error> {
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) => Err(Error::Io(format!(
                "`{} serve` ended without answering (its stderr is above)",
                self.binary
            ))),
            Ok(_) => serde_json::from_str(&line).map_err(|e| {
                Error::Io(format!(
                    "`{} serve` answered no JSON ({e}): {line}",
                    self.binary
                ))
            }),
            Err(e) => Err(Error::Io(format!(
                "`{} serve`: cannot read: {e}",
                self.binary
            ))),
        }
    }
}

/// The server speaks this protocol, at this version.
fn check_hello(binary: &str, hello: &Value) -> Result<(), Error> {
    if hello["protocol"] == PROTOCOL && hello["version"] == VERSION {
        return Ok(());
    }
    Err(Error::Io(format!(
        "`{binary} serve` (wasm-charm {}) speaks {} version {}; this harness (wasm-charm-testing {}) \
         speaks {PROTOCOL} version {VERSION}: install the wasm-charm of the harness's release",
        hello["wasm-charm"].as_str().unwrap_or("?"),
        hello["protocol"].as_str().unwrap_or("an unknown protocol"),
        hello["version"],
        env!("CARGO_PKG_VERSION"),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_protocol_version_is_named_with_ours() {
        let ours = json!({"protocol": PROTOCOL, "version": 1, "wasm-charm": "0.1.0"});
        assert_eq!(check_hello("wasm-charm", &ours), Ok(()));
        let theirs = json!({"protocol": PROTOCOL, "version": 2, "wasm-charm": "0.3.0"});
        let e = check_hello("wasm-charm", &theirs).unwrap_err().to_string();
        assert!(e.contains("version 2") && e.contains("version 1"), "{e}");
        assert!(e.contains("wasm-charm 0.3.0"), "{e}");
    }

    #[test]
    fn a_missing_binary_says_how_to_install_it() {
        let Err(e) = Server::start_binary("/nonexistent/wasm-charm".into()) else {
            panic!("started");
        };
        let e = e.to_string();
        assert!(
            e.contains("cannot start `/nonexistent/wasm-charm serve`"),
            "{e}"
        );
        assert!(
            e.contains("cargo install --path host") && e.contains("WASM_CHARM"),
            "{e}"
        );
    }
}
