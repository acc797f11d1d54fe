//! The `stored` interface as one unit: a handler reads the charm's data as
//! the earlier handlers left it, and its [`Changes`] reach the store only
//! when it returned.

use super::HandlerState;
use super::{Declaring, Interface, Keep, Setup, Start};
use crate::status::store::ScopeStore;
use crate::stored::{Changes, Stored};
use wasmtime::component::Linker;

pub struct StoredInterface;

impl Interface for StoredInterface {
    type Event = Stored;
    type Instance = Stored;
    type Writes = Changes;

    fn link(linker: &mut Linker<HandlerState>) -> wasmtime::Result<()> {
        crate::stored::add_to_linker(linker, |s| s.states.get_mut::<Self>())
    }

    fn event(_setup: &Setup<'_>) -> Stored {
        Stored::default()
    }

    /// No data: `declare` reads none.
    fn declaring(_declaring: &Declaring<'_>) -> Stored {
        Stored::default()
    }

    fn begin(stored: &mut Stored, store: &ScopeStore) {
        stored.begin(&store.data);
    }

    fn instance(stored: Stored, _start: &Start<'_>) -> Stored {
        stored
    }

    fn finish(mut stored: Stored, _warnings: &mut Vec<String>) -> (Stored, Changes) {
        let changes = stored.take();
        (stored, changes)
    }

    fn keep(_stored: &mut Stored, changes: Changes, to: &mut Keep<'_>) {
        to.store.data_mut().apply(changes);
    }
}
