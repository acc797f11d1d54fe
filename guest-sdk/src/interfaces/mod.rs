//! Relation data as typed values: one module per interface version
//! (`ingress_v2`, `postgresql_client_v0`, …), a struct per side's bag,
//! generated from the interface descriptions that the host also checks
//! writes against, so a field's name and encoding are written once.
//!
//! ```no_run
//! use wasm_charm::interfaces::ingress_v2::{ProviderApp, RequirerApp};
//! use wasm_charm::model::{self, Databag};
//!
//! if let Some(ingress) = model::get_relation("ingress")? {
//!     if model::is_leader()? {
//!         ingress.write(&RequirerApp {
//!             strip_prefix: Some(true),
//!             ..RequirerApp::new("dev".into(), "web".into(), 8080)
//!         })?;
//!     }
//!     // `None`: the provider has written nothing yet.
//!     let url = ingress
//!         .read::<ProviderApp>(&Databag::RemoteApp)?
//!         .and_then(|p| p.ingress)
//!         .map(|i| i.url);
//! }
//! # Ok::<(), wasm_charm::Error>(())
//! ```

pub mod codec;
pub mod database;
pub mod database_provider;
#[cfg(feature = "tls-certificates")]
pub mod tls;

pub use codec::{BagKind, FieldError, Role, TypedBag};

/// A relation's bag that did not hold its interface's value: which
/// relation and bag, which field, and what was wrong.
///
/// ```
/// use wasm_charm::interfaces::DataError;
///
/// let e = DataError {
///     relation: "ingress:3".into(),
///     bag: "the remote application's bag".into(),
///     interface: "ingress v2".into(),
///     field: "ingress".into(),
///     problem: "expected value at line 1 column 1".into(),
/// };
/// assert_eq!(
///     e.to_string(),
///     "ingress:3, the remote application's bag (ingress v2): field `ingress`: expected value at line 1 column 1"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataError {
    /// `endpoint:id`.
    pub relation: String,
    /// Which bag was read or written.
    pub bag: String,
    /// `ingress v2`.
    pub interface: String,
    /// The bag's key.
    pub field: String,
    /// What was wrong.
    pub problem: String,
}

impl std::fmt::Display for DataError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}, {} ({}): field `{}`: {}",
            self.relation, self.bag, self.interface, self.field, self.problem
        )
    }
}

impl std::error::Error for DataError {}

include!(concat!(env!("OUT_DIR"), "/interfaces.rs"));

#[cfg(test)]
mod tests;
