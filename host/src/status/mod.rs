//! The `status` WIT interface (scoped statuses, DESIGN §4), the merge and the
//! scope store.
//!
//! A handler's writes collect in [`ScopeWrites`] and reach the store only when
//! the handler returned; a trap drops them.

pub mod backend;
pub mod merge;
pub mod store;
pub mod store_choice;
pub mod store_chunks;
pub mod store_edit;
pub mod store_file;
pub mod store_journal;
pub mod store_juju;
pub mod store_release;

use crate::bindings::status::Host;
use crate::bindings::{Priority, Status, StatusKind, Target as WitTarget};
pub use crate::text::MAX_MESSAGE;
use merge::{Band, Kind};
use std::collections::{BTreeMap, BTreeSet};
use store::{Target, Write};

/// Longest scope name.
pub const MAX_SCOPE_NAME: usize = 128;
/// Writes one handler may make; a handler looping over `status.set` is a bug
/// that must not grow the store without bound.
pub const MAX_WRITES: usize = 256;
/// Scopes holding a status per target: each is kept in the store (with its
/// history) and shown by `show-status`, so a handler inventing a new scope
/// name per event must not grow them without bound.
pub const MAX_SCOPES: usize = 256;

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
        let ok = crate::bindings::parse_relation_id(rel)
            .is_some_and(|r| endpoints.contains(&r.endpoint));
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
    /// Per target, the scopes that would hold a status if the handler
    /// returned now: the store's current ones, plus those this handler set,
    /// minus those it cleared. Bounded by [`MAX_SCOPES`].
    live: BTreeMap<Target, BTreeSet<String>>,
}

impl ScopeWrites {
    pub fn new(endpoints: BTreeSet<String>) -> Self {
        ScopeWrites {
            endpoints,
            ..ScopeWrites::default()
        }
    }

    /// Tell the writes which scopes of `target` hold a status in the store
    /// now; called before each handler, so the bound on scopes counts what
    /// the store will hold.
    pub fn set_current(&mut self, target: Target, names: BTreeSet<String>) {
        self.live.insert(target, names);
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
        // status-set passes the message as one argv element, which cannot
        // hold NUL: stored, it would fail every later hook.
        if status.message.contains('\0') {
            return Err(format!(
                "status message of scope `{scope}` contains a NUL character, which Juju cannot carry; remove it"
            ));
        }
        let target: Target = target.into();
        let live = self.live.entry(target).or_default();
        if !live.contains(&scope) && live.len() >= MAX_SCOPES {
            return Err(format!(
                "scope `{scope}` not set: the {} status already has {MAX_SCOPES} scopes, the limit (MAX_SCOPES); clear scopes that are no longer needed, or reuse a name",
                target.as_str()
            ));
        }
        self.push(Write::Set {
            target,
            scope: scope.clone(),
            status: status.kind.into(),
            message: status.message,
            priority: priority.into(),
        })?;
        self.live.entry(target).or_default().insert(scope);
        Ok(())
    }

    fn clear(&mut self, target: WitTarget, scope: String) -> Result<(), String> {
        validate_scope(&scope, &self.endpoints)?;
        let target: Target = target.into();
        self.push(Write::Clear {
            target,
            scope: scope.clone(),
        })?;
        self.live.entry(target).or_default().remove(&scope);
        Ok(())
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

    fn blocked(message: &str) -> Status {
        Status {
            kind: StatusKind::Blocked,
            message: message.into(),
        }
    }

    #[test]
    fn a_message_with_nul_is_refused_naming_the_scope() {
        let mut w = ScopeWrites::new(BTreeSet::new());
        let e = w
            .set(
                WitTarget::Unit,
                "tls".into(),
                blocked("bad\0message"),
                Priority::Normal,
            )
            .unwrap_err();
        assert!(e.contains("scope `tls`") && e.contains("NUL"), "{e}");
        assert!(w.take().is_empty());
    }

    #[test]
    fn a_message_past_the_bound_is_refused_naming_the_scope() {
        let mut w = ScopeWrites::new(BTreeSet::new());
        let long = "m".repeat(MAX_MESSAGE + 1);
        let e = w
            .set(
                WitTarget::Unit,
                "tls".into(),
                blocked(&long),
                Priority::Normal,
            )
            .unwrap_err();
        assert!(e.contains("scope `tls`") && e.contains("4096"), "{e}");
        let exact = "m".repeat(MAX_MESSAGE);
        w.set(
            WitTarget::Unit,
            "tls".into(),
            blocked(&exact),
            Priority::Normal,
        )
        .unwrap();
    }

    #[test]
    fn scopes_per_target_are_bounded_counting_the_store() {
        let mut w = ScopeWrites::new(BTreeSet::new());
        let full: BTreeSet<String> = (0..MAX_SCOPES).map(|i| format!("s{i}")).collect();
        w.set_current(Target::Unit, full);
        let set = |w: &mut ScopeWrites, target, scope: &str| {
            w.set(target, scope.into(), blocked("x"), Priority::Normal)
        };
        // Full: a new scope is refused, naming the limit…
        let e = set(&mut w, WitTarget::Unit, "new").unwrap_err();
        assert!(e.contains("256 scopes") && e.contains("MAX_SCOPES"), "{e}");
        // …a current one may change, the other target is not full…
        set(&mut w, WitTarget::Unit, "s3").unwrap();
        set(&mut w, WitTarget::App, "new").unwrap();
        // …and a clear makes room, once.
        w.clear(WitTarget::Unit, "s0".into()).unwrap();
        set(&mut w, WitTarget::Unit, "new").unwrap();
        set(&mut w, WitTarget::Unit, "new").unwrap();
        assert!(set(&mut w, WitTarget::Unit, "newer").is_err());
        // A scope cleared then set again by the handler is still counted once.
        w.clear(WitTarget::Unit, "s3".into()).unwrap();
        set(&mut w, WitTarget::Unit, "s3").unwrap();
        assert!(set(&mut w, WitTarget::Unit, "newer").is_err());
        // The next handler starts from what the store holds then.
        w.take();
        w.set_current(Target::Unit, BTreeSet::new());
        set(&mut w, WitTarget::Unit, "newer").unwrap();
    }
}
