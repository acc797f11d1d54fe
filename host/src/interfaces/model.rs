//! The `model` interface as one unit: the Juju model over hook tools
//! ([`crate::model::Model`]), one for the whole event, handed from handler to
//! handler. The `relations`, `secrets`, `ports`, `storage` and `network`
//! interfaces share it: their units hold no state and their WIT functions
//! reach this unit's instance state. A handler's relation, port and secret
//! writes stay in the model apart from the kept ones until the handler
//! returned ([`Model::commit_handler`]); the kept ones are sent at the end of
//! an event that succeeded ([`Model::flush`]), which Juju commits with the
//! hook.

use super::HandlerState;
use super::{Declaring, Interface, Keep, Setup, Start};
use crate::context::EventContext;
use crate::hook_tools::{HookTools, Unavailable};
use crate::model::{EventFacts, Identity, Model, describe_error};
use std::sync::Arc;
use wasmtime::component::Linker;

pub struct ModelInterface;

impl Interface for ModelInterface {
    type Event = Model;
    type Instance = Model;
    /// Held in the model itself, apart from the kept writes.
    type Writes = ();

    fn link(linker: &mut Linker<HandlerState>) -> wasmtime::Result<()> {
        crate::model::add_to_linker(linker, |s| s.states.get_mut::<Self>())
    }

    fn event(setup: &Setup<'_>) -> Model {
        let mut model = for_event(setup.tools.clone(), setup.ctx);
        model.share_guest_lines(setup.guest_lines.clone());
        model
    }

    /// Every tool call fails; outside an event (`inspect`) the model knows
    /// the charm's endpoints and config only.
    fn declaring(declaring: &Declaring<'_>) -> Model {
        let tools = Arc::new(Unavailable(
            "the model cannot be read while the component declares its handlers",
        ));
        if let Some(ctx) = declaring.ctx {
            return for_event(tools, ctx);
        }
        let (endpoints, config) = match declaring.charm {
            Some(c) => (
                c.metadata.endpoints.keys().cloned().collect(),
                c.config.clone(),
            ),
            None => Default::default(),
        };
        let mut facts = EventFacts::new(config, Identity::default());
        facts.set_endpoints(endpoints);
        Model::for_event(tools, Arc::new(facts))
    }

    fn instance(mut model: Model, start: &Start<'_>) -> Model {
        model.set_deadline(start.deadline);
        model
    }

    fn finish(mut model: Model, _warnings: &mut Vec<String>) -> (Model, ()) {
        // The handler's lines reach the unit log before the next handler runs.
        model.flush_guest_logs();
        (model, ())
    }

    fn keep(model: &mut Model, _writes: (), _to: &mut Keep<'_>) {
        model.commit_handler();
    }

    fn commit(model: &mut Model) -> Result<(), String> {
        model.flush().map_err(|e| {
            format!(
                "Juju refused this event's writes at its end: {}",
                describe_error(&e)
            )
        })
    }
}

/// The model of the event `ctx`, answered by `tools`: the event's facts
/// are shared, not copied.
fn for_event(tools: Arc<dyn HookTools>, ctx: &EventContext<'_>) -> Model {
    Model::for_event(tools, ctx.model_facts.clone())
}
