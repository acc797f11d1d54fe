//! The `relations` interface as one unit: the unit's relations and their
//! databags, answered by the event's
//! model (`crate::model::host_relations`), whose read cache, per-handler
//! transaction and tool-call budget the calls share. So the unit holds no
//! state of its own: its WIT functions reach the model interface's instance
//! state, and the model keeps, drops and sends what they buffer with its own
//! writes.

use super::{Declaring, HandlerState, Interface, ModelInterface, Setup, Start};
use wasmtime::component::Linker;

pub struct RelationsInterface;

impl Interface for RelationsInterface {
    type Event = ();
    type Instance = ();
    type Writes = ();

    fn link(linker: &mut Linker<HandlerState>) -> wasmtime::Result<()> {
        crate::model::host_relations::add_to_linker(linker, |s| {
            s.states.get_mut::<ModelInterface>()
        })
    }

    fn event(_setup: &Setup<'_>) {}

    fn declaring(_declaring: &Declaring<'_>) {}

    fn instance((): (), _start: &Start<'_>) {}

    fn finish((): (), _warnings: &mut Vec<String>) -> ((), ()) {
        ((), ())
    }
}
