//! The reworded gateway is the gateway example's own source with one message
//! changed, so it follows the example as it evolves and stays what a replay
//! test needs: the same charm, one visible difference.

use std::path::Path;

const FROM: &str = "\"Config item `kind` must be set\"";
const TO: &str = "\"Set config `kind` to ingress or egress\"";

fn main() {
    let source = Path::new("../../../examples/gateway/src/lib.rs");
    println!("cargo::rerun-if-changed={}", source.display());
    let text = std::fs::read_to_string(source)
        .unwrap_or_else(|e| panic!("{}: cannot read: {e}", source.display()));
    // Exactly one occurrence: anything else means the example changed and
    // this test charm no longer differs from it by one message.
    let found = text.matches(FROM).count();
    assert_eq!(
        found,
        1,
        "{}: expected the message {FROM} exactly once, found it {found} times",
        source.display()
    );
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    let target = Path::new(&out).join("gateway.rs");
    // The example's crate doc (`//!`) is an inner attribute, which an
    // included file cannot carry.
    let body: String = text
        .replace(FROM, TO)
        .lines()
        .filter(|line| !line.starts_with("//!"))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(&target, body)
        .unwrap_or_else(|e| panic!("{}: cannot write: {e}", target.display()));
}
