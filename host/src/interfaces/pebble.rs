//! The `pebble` interface as one unit: the declared containers' Pebble,
//! reached at the call; nothing to keep or drop.

use super::HandlerState;
use super::{Declaring, Interface, Setup, Start};
use crate::pebble::Pebble;
use wasmtime::component::Linker;

pub struct PebbleInterface;

impl Interface for PebbleInterface {
    type Event = Pebble;
    type Instance = Pebble;
    type Writes = ();

    fn link(linker: &mut Linker<HandlerState>) -> wasmtime::Result<()> {
        crate::pebble::add_to_linker(linker, |s| s.states.get_mut::<Self>())
    }

    fn event(setup: &Setup<'_>) -> Pebble {
        let charm = setup.ctx.charm;
        Pebble::new(
            charm.metadata.containers.clone(),
            setup.ctx.workload_root.clone(),
        )
        .with_commands(charm.manifest.workload.containers.clone())
    }

    /// No container: every call is refused as undeclared.
    fn declaring(_declaring: &Declaring<'_>) -> Pebble {
        Pebble::none()
    }

    fn instance(mut pebble: Pebble, start: &Start<'_>) -> Pebble {
        pebble.set_deadline(start.deadline);
        pebble
    }

    fn finish(pebble: Pebble, _warnings: &mut Vec<String>) -> (Pebble, ()) {
        (pebble, ())
    }
}
