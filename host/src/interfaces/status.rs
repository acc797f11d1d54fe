//! The `status` interface as one unit: a handler's scope writes collect in
//! [`ScopeWrites`] and reach the store only when it returned.

use super::HandlerState;
use super::{Declaring, Interface, Keep, Setup, Start};
use crate::status::ScopeWrites;
use crate::status::store::{ScopeStore, Target, Write};
use wasmtime::component::Linker;

pub struct StatusInterface;

impl Interface for StatusInterface {
    type Event = ScopeWrites;
    type Instance = ScopeWrites;
    type Writes = Vec<Write>;

    fn link(linker: &mut Linker<HandlerState>) -> wasmtime::Result<()> {
        crate::status::add_to_linker(linker, |s| s.states.get_mut::<Self>())
    }

    fn event(setup: &Setup<'_>) -> ScopeWrites {
        ScopeWrites::new(setup.ctx.endpoints.clone())
    }

    fn declaring(declaring: &Declaring<'_>) -> ScopeWrites {
        let endpoints = declaring
            .charm
            .map(|c| c.metadata.endpoints.keys().cloned().collect())
            .unwrap_or_default();
        ScopeWrites::new(endpoints)
    }

    /// The bound on scopes counts what the store holds now.
    fn begin(writes: &mut ScopeWrites, store: &ScopeStore) {
        for target in [Target::Unit, Target::App] {
            let names = store.current_names(target, |_| true).into_iter().collect();
            writes.set_current(target, names);
        }
    }

    fn instance(writes: ScopeWrites, _start: &Start<'_>) -> ScopeWrites {
        writes
    }

    fn finish(mut writes: ScopeWrites, _warnings: &mut Vec<String>) -> (ScopeWrites, Vec<Write>) {
        let taken = writes.take();
        (writes, taken)
    }

    fn keep(_writes: &mut ScopeWrites, taken: Vec<Write>, to: &mut Keep<'_>) {
        for w in taken {
            to.store.apply(w, to.described, to.now);
        }
    }
}
