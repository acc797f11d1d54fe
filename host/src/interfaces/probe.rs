//! The `probe` interface as one unit: a handler's gating choices and grace
//! restarts ([`Choices`]) reach the store's probe states only when it
//! returned; its warnings (an undeclared probe) are logged either way.

use super::HandlerState;
use super::{Declaring, Interface, Keep, Setup, Start};
use crate::probe::{Choices, Probes, gates};
use crate::status::store::ScopeStore;
use std::sync::Arc;
use wasmtime::component::Linker;

pub struct ProbeInterface;

impl Interface for ProbeInterface {
    type Event = Probes;
    type Instance = Probes;
    type Writes = Choices;

    fn link(linker: &mut Linker<HandlerState>) -> wasmtime::Result<()> {
        crate::probe::add_to_linker(linker, |s| s.states.get_mut::<Self>())
    }

    fn event(setup: &Setup<'_>) -> Probes {
        let specs = Arc::new(setup.ctx.charm.manifest.probes.clone());
        Probes::new(specs, setup.prober.clone())
    }

    fn declaring(declaring: &Declaring<'_>) -> Probes {
        let specs = declaring
            .charm
            .map(|c| c.manifest.probes.clone())
            .unwrap_or_default();
        Probes::new(Arc::new(specs), declaring.prober.clone())
    }

    /// The gating the store holds.
    fn begin(probes: &mut Probes, store: &ScopeStore) {
        let kept = gates(probes.specs(), &store.probes);
        probes.begin(kept);
    }

    fn instance(mut probes: Probes, start: &Start<'_>) -> Probes {
        probes.set_deadline(start.deadline);
        probes
    }

    fn finish(mut probes: Probes, warnings: &mut Vec<String>) -> (Probes, Choices) {
        let (choices, warned) = probes.take();
        warnings.extend(warned);
        (probes, choices)
    }

    fn keep(probes: &mut Probes, choices: Choices, to: &mut Keep<'_>) {
        let now = probes.now();
        choices.apply(probes.specs(), to.store.probes_mut(), now);
    }
}
