//! The `workload` interface as one unit: the event's [`Access`] to the
//! machine (its bound on calls shared by every handler), and per handler the
//! [`Calls`] it makes. A service restart restarts the grace period of the
//! probes watching it, through the `probe` interface's state, and warnings
//! go to the unit log at the call, through the model's.

use super::HandlerState;
use super::probe::ProbeInterface;
use super::{Declaring, Interface, ModelInterface, Setup, Start};
use crate::workload::{Access, Calls, Handle};
use wasmtime::component::Linker;

pub struct WorkloadInterface;

/// One handler's instance: its calls, and the event's access to hand back.
pub struct HandlerCalls {
    access: Access,
    calls: Calls,
}

impl Interface for WorkloadInterface {
    type Event = Access;
    type Instance = HandlerCalls;
    type Writes = ();

    fn link(linker: &mut Linker<HandlerState>) -> wasmtime::Result<()> {
        crate::workload::add_to_linker(linker, |s| {
            let mut states = s.states.split();
            Handle {
                calls: &mut states.take::<Self>().calls,
                probes: states.take::<ProbeInterface>(),
                model: states.take::<ModelInterface>(),
            }
        })
    }

    fn event(setup: &Setup<'_>) -> Access {
        let manifest = &setup.ctx.charm.manifest;
        Access::new(&manifest.workload, &manifest.probes, setup.machine.clone())
    }

    fn declaring(_declaring: &Declaring<'_>) -> Access {
        Access::refused("no workload call runs while the component declares its handlers")
    }

    fn instance(access: Access, start: &Start<'_>) -> HandlerCalls {
        let mut calls = Calls::new(access.clone(), start.handler);
        calls.set_deadline(start.deadline);
        HandlerCalls { access, calls }
    }

    fn finish(instance: HandlerCalls, _warnings: &mut Vec<String>) -> (Access, ()) {
        (instance.access, ())
    }
}
