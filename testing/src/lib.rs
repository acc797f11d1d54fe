//! Test a wasm-charm charm from its own `cargo test`.
//!
//! Each event runs in the installed `wasm-charm` (`$WASM_CHARM`, else
//! `wasm-charm` on `PATH`), which this crate talks to as `wasm-charm
//! serve` over a versioned JSON protocol (docs/harness-protocol.md): the
//! component in the host's sandbox with its limits, the host's status
//! merge and scope store, and the hook tools and workload calls answered
//! by the simulated Juju and machine from a state document. The harness
//! only builds that state, asks for the event, and reads what it did, so
//! a test sees exactly what `wasm-charm run` and a unit would, and a
//! charm's `cargo test` compiles no wasm runtime.
//!
//! * [`Charm::build`] packs the charm project once per test process;
//!   [`Charm::load`] takes a charm directory packed already.
//! * [`State`] is the state before the event: config, leadership,
//!   relations and their data, stored data and scopes, secrets, scripted
//!   probes, the simulated machine, files under the workload root, and
//!   any other section of the state file.
//! * [`Event`] is the event and its context (relation, remote unit and
//!   data, action parameters, …) and the time it runs at, built as the
//!   SDK observes it (`Event::config_changed()`, `Event::relation_joined("db")`).
//! * [`Status`] and [`StatusKind`] are the SDK's own, so a test compares
//!   what a handler returns with the same type.
//! * [`Charm::run`] gives an [`Outcome`]: statuses, scopes with their
//!   history, relation data, stored data, action results, the handlers'
//!   results, logs, hook-tool and machine calls, files, and
//!   [`Outcome::state`] to run the next event from.
//!
//! In the charm project's `Cargo.toml`:
//!
//! ```toml
//! [dev-dependencies]
//! wasm-charm-testing = { path = "../wasm-charm/testing" }
//! ```
//!
//! and in `tests/charm.rs`:
//!
//! ```no_run
//! use wasm_charm_testing::{Charm, Event, Relation, State, Status};
//!
//! fn charm() -> Charm {
//!     Charm::build(env!("CARGO_MANIFEST_DIR"))
//! }
//!
//! #[test]
//! fn waits_for_the_pilots_data() {
//!     let state = State::new()
//!         .config("kind", "ingress")
//!         .relation(Relation::new("istio-pilot:0", "pilot").unit("pilot/0"));
//!     let out = charm().run(&state, Event::relation_changed("istio-pilot"));
//!     out.assert_ok();
//!     assert_eq!(
//!         out.unit_status(),
//!         Some(Status::waiting("Waiting for istio-pilot relation data")),
//!         "{out}"
//!     );
//!     // The next event starts where this one left off.
//!     let next = Event::relation_changed("istio-pilot")
//!         .remote_app_data("service-name", "pilot")
//!         .remote_app_data("service-port", "15010");
//!     let out = charm().run(&out.state(), next);
//!     assert_eq!(out.scope("handler/pilot"), None, "{out}");
//! }
//! ```
//!
//! The component is built by cargo for wasm32-wasip2 where `wasm-charm
//! pack` builds it, and packed into `<project>/target/wasm-charm/<name>`
//! as `wasm-charm run <project>` packs it, only when something changed:
//! the first test of a process waits for that build.

mod charm;
mod error;
mod event;
mod files;
mod handler;
mod model;
mod outcome;
mod reply;
mod saved;
mod server;
mod state;
mod status;

pub use charm::Charm;
pub use error::Error;
pub use event::Event;
pub use model::{Answer, Model, ModelState};
pub use outcome::{Handler, Outcome, RelationData, ScopeChange, Secret};
pub use state::{Relation, State};
pub use status::{Status, StatusKind};

/// A status's kind: 0.1.0's name, when the harness had a type of its own.
///
/// ```
/// use wasm_charm_testing::{Status, StatusKind};
///
/// assert_eq!(Status::blocked("no").kind, StatusKind::Blocked);
/// ```
#[deprecated(since = "0.2.0", note = "use `StatusKind`, the SDK's own")]
pub type Kind = StatusKind;
