//! Probe tests: the declarations as wasm-charm.yaml writes them.

mod spec;
