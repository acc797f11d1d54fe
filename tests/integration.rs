//! The integration tests: a module per file of `tests/`, one test binary.
//!
//! Each drives the built host as Juju would (see `support`). One binary
//! rather than one per file: the runtime is linked into a test binary once,
//! each charm is packed once per run, and the files' tests share the cores
//! instead of waiting for the slowest test of the file before them. Run one
//! file's tests with its module name as the filter:
//! `cargo test -p wasm-charm --test integration gateway::`.
//! The soak (`tests/soak.rs`) is a binary of its own.

mod support;

mod action_api;
mod actions;
mod api_service;
mod conformance;
mod contracts;
mod errors;
mod fakes;
mod faults;
mod file_walls;
mod fuzz_regressions;
mod gateway;
mod hardening;
mod hostile;
mod init;
mod input;
mod inspect;
mod juju_store;
mod model_calls;
mod model_events;
mod module_cycles;
mod offline;
mod offline_model;
mod offline_pebble;
mod ops_peer;
mod pack;
mod pebble;
mod probes;
mod project_run;
mod python;
mod refusals;
mod replay;
mod scenario;
mod sdk_compat;
mod sim_differential;
mod sim_dispatch;
mod stored;
mod thin_harness;
mod trust;
mod tutorial;
mod upgrade;
mod web_k8s;
mod workload;
mod world;
