//! The `status` WIT interface (scoped statuses, DESIGN §4), the merge and the
//! scope store.
//!
//! A handler's writes collect in [`ScopeWrites`] and reach the store only when
//! the handler returned; a trap drops them.

pub mod merge;
pub mod store;
pub mod store_file;

use crate::bindings::status::Host;
use crate::bindings::{Priority, Status, StatusKind, Target as WitTarget};
use merge::{Band, Kind};
use std::collections::BTreeSet;
use store::{Target, Write};

/// Longest scope name.
pub const MAX_SCOPE_NAME: usize = 128;
/// Longest message kept in a scope (the merged one is cut to 120 characters;
/// the whole message stays available in `wasm-charm status`).
pub const MAX_MESSAGE: usize = 4096;
/// Writes one handler may make; a handler looping over `status.set` is a bug
/// that must not grow the store without bound.
pub const MAX_WRITES: usize = 256;

impl From<StatusKind> for Kind {
    fn from(k: StatusKind) -> Kind {
        match k {
            StatusKind::Active => Kind::Active,
            StatusKind::Maintenance => Kind::Maintenance,
            StatusKind::Waiting => Kind::Waiting,
            StatusKind::Blocked => Kind::Blocked,
        }
    }
}

impl From<Priority> for Band {
    fn from(p: Priority) -> Band {
        match p {
            Priority::Critical => Band::Critical,
            Priority::Normal => Band::Normal,
            Priority::Low => Band::Low,
        }
    }
}

impl From<WitTarget> for Target {
    fn from(t: WitTarget) -> Target {
        match t {
            WitTarget::Unit => Target::Unit,
            WitTarget::App => Target::App,
        }
    }
}

/// The scope a handler's return value sets.
pub fn handler_scope(handler: &str) -> String {
    format!("handler/{handler}")
}

/// The scope of one relation.
pub fn relation_scope(endpoint: &str, id: u32) -> String {
    format!("relation/{endpoint}:{id}")
}

/// The scope of one remote unit.
pub fn unit_scope(unit: &str) -> String {
    format!("unit/{unit}")
}

/// Check a scope name a guest asked for. `endpoints` are the charm's relation
/// endpoints, so `relation/<endpoint>:<id>` can only name a real endpoint.
pub fn validate_scope(name: &str, endpoints: &BTreeSet<String>) -> Result<(), String> {
    if name.is_empty() || name.len() > MAX_SCOPE_NAME {
        return Err(format!(
            "scope name must be 1 to {MAX_SCOPE_NAME} bytes, got {}",
            name.len()
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !matches!(c, 'a'..='z' | '0'..='9' | '-' | '_' | '.' | ':' | '/'))
    {
        return Err(format!(
            "scope name `{name}` has `{c}`; use a-z 0-9 - _ . : /"
        ));
    }
    for reserved in ["handler/", "probe/"] {
        if name.starts_with(reserved) {
            return Err(format!(
                "scope name `{name}`: the prefix `{reserved}` belongs to the host"
            ));
        }
    }
    if let Some(rel) = name.strip_prefix("relation/") {
        let ok =
            crate::event::parse_relation_id(rel).is_some_and(|r| endpoints.contains(&r.endpoint));
        if !ok {
            return Err(format!(
                "scope name `{name}`: expected `relation/<endpoint>:<id>` with an endpoint of metadata.yaml"
            ));
        }
    }
    if let Some(unit) = name.strip_prefix("unit/") {
        let ok = unit
            .split_once('/')
            .is_some_and(|(app, n)| !app.is_empty() && n.parse::<u32>().is_ok());
        if !ok {
            return Err(format!(
                "scope name `{name}`: expected `unit/<app>/<number>`"
            ));
        }
    }
    Ok(())
}

/// The writes of one handler, not yet applied to the store.
#[derive(Debug, Default)]
pub struct ScopeWrites {
    endpoints: BTreeSet<String>,
    writes: Vec<Write>,
}

impl ScopeWrites {
    pub fn new(endpoints: BTreeSet<String>) -> Self {
        ScopeWrites {
            endpoints,
            writes: Vec::new(),
        }
    }

    /// Take the writes, leaving none.
    pub fn take(&mut self) -> Vec<Write> {
        std::mem::take(&mut self.writes)
    }

    fn push(&mut self, write: Write) -> Result<(), String> {
        if self.writes.len() >= MAX_WRITES {
            return Err(format!(
                "a handler may make at most {MAX_WRITES} status writes"
            ));
        }
        self.writes.push(write);
        Ok(())
    }
}

impl Host for ScopeWrites {
    fn set(
        &mut self,
        target: WitTarget,
        scope: String,
        status: Status,
        priority: Priority,
    ) -> Result<(), String> {
        validate_scope(&scope, &self.endpoints)?;
        if status.message.len() > MAX_MESSAGE {
            return Err(format!(
                "status message of scope `{scope}` is {} bytes; the limit is {MAX_MESSAGE}",
                status.message.len()
            ));
        }
        self.push(Write::Set {
            target: target.into(),
            scope,
            status: status.kind.into(),
            message: status.message,
            priority: priority.into(),
        })
    }

    fn clear(&mut self, target: WitTarget, scope: String) -> Result<(), String> {
        validate_scope(&scope, &self.endpoints)?;
        self.push(Write::Clear {
            target: target.into(),
            scope,
        })
    }
}

/// Register the `status` interface: an instance's writes collect in the
/// [`ScopeWrites`] that `get` finds in its state.
pub fn add_to_linker<T: 'static>(
    linker: &mut wasmtime::component::Linker<T>,
    get: fn(&mut T) -> &mut ScopeWrites,
) -> wasmtime::Result<()> {
    crate::bindings::status::add_to_linker::<T, wasmtime::component::HasSelf<ScopeWrites>>(
        linker, get,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_names() {
        let eps: BTreeSet<String> = ["db".to_string()].into();
        for ok in ["tls", "relation/db:3", "unit/pilot/0", "a.b_c-d:e/f"] {
            assert_eq!(validate_scope(ok, &eps), Ok(()), "{ok}");
        }
        for (bad, why) in [
            ("", "1 to 128"),
            ("Caps", "has `C`"),
            ("handler/x", "belongs to the host"),
            ("probe/x", "belongs to the host"),
            ("relation/nope:1", "endpoint of metadata.yaml"),
            ("relation/db", "endpoint of metadata.yaml"),
            ("unit/pilot", "unit/<app>/<number>"),
        ] {
            let e = validate_scope(bad, &eps).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
        assert!(validate_scope(&"a".repeat(129), &eps).is_err());
    }

    #[test]
    fn writes_are_bounded() {
        let mut w = ScopeWrites::new(BTreeSet::new());
        for i in 0..MAX_WRITES {
            w.clear(WitTarget::Unit, format!("s{i}")).unwrap();
        }
        assert!(w.clear(WitTarget::Unit, "one-more".into()).is_err());
        assert_eq!(w.take().len(), MAX_WRITES);
    }
}
