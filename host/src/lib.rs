//! wasm-charm: a Juju `dispatch` host for charms compiled to WebAssembly components.
//!
//! The modules follow one event's path (DESIGN §3): [`juju_env`] and [`event`]
//! turn Juju's environment into an event, [`charm_dir`] reads the charm,
//! [`runtime`] loads and runs the component, the WIT host interfaces live in
//! [`status`], [`model`], [`probe`], [`stored`], [`action`], [`pebble`] and
//! [`workload`], each one unit registered in [`interfaces`] ([`hook_tools`]
//! runs Juju's hook tools for them), [`dispatch`] runs them through the
//! event's steps, and [`actions`] answers the built-in actions; [`text`] makes
//! guest text something argv and Juju's YAML can carry, and [`workload_root`]
//! says where the charm's declared directories are; [`duration`], [`http`] (the client
//! the probes and Pebble share), [`event_time`] (the event's clock) and
//! [`status_kind`] are leaves below them.
//! [`pack`], [`inspect`] and [`init`] are the tools around a charm: build
//! and zip it, read what it is made of, start a new one; [`record`] keeps a
//! unit's events and [`replay`] runs them again; [`serve`] answers test
//! harnesses with the simulator, over JSON lines. Those tools (and the
//! compiler) are the `cli` feature's: without it the crate is the runtime
//! alone, what the `dispatch` binary ships.

pub mod action;
pub mod actions;
pub mod atomic_file;
pub mod bindings;
pub mod charm_dir;
pub mod context;
pub mod deadline;
pub mod dispatch;
pub mod duration;
pub mod event;
pub mod event_time;
#[doc(hidden)]
pub mod fuzzing;
pub mod hook_tools;
pub mod http;
#[cfg(feature = "cli")]
pub mod init;
#[cfg(feature = "cli")]
pub mod inspect;
pub mod interfaces;
pub mod juju;
#[cfg(feature = "cli")]
pub mod juju_cli;
pub mod juju_env;
pub mod merge_patch;
pub mod model;
#[cfg(feature = "cli")]
pub mod offline;
#[cfg(feature = "cli")]
pub mod pack;
pub mod pebble;
pub mod probe;
pub mod record;
#[cfg(feature = "cli")]
pub mod replay;
pub mod runtime;
pub mod sandbox;
#[cfg(feature = "cli")]
pub mod scenario;
pub mod schemas;
#[cfg(feature = "cli")]
pub mod serve;
pub mod show;
pub mod status;
pub mod status_kind;
pub mod stored;
pub mod text;
#[cfg(feature = "cli")]
pub mod verify;
pub mod workload;
pub mod workload_root;
#[cfg(feature = "cli")]
pub mod world;
