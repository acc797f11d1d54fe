//! The `action` interface as one unit: one [`Action`] for the whole event.
//! Results, failures and progress go to Juju at the call, so a handler
//! leaves no writes to keep or drop.

use super::HandlerState;
use super::{Declaring, Interface, Setup, Start};
use crate::action::Action;
use wasmtime::component::Linker;

pub struct ActionInterface;

impl Interface for ActionInterface {
    type Event = Action;
    type Instance = Action;
    type Writes = ();

    fn link(linker: &mut Linker<HandlerState>) -> wasmtime::Result<()> {
        crate::action::add_to_linker(linker, |s| s.states.get_mut::<Self>())
    }

    fn event(setup: &Setup<'_>) -> Action {
        let ctx = setup.ctx;
        Action::new(
            setup.tools.clone(),
            &ctx.event,
            &ctx.described,
            &ctx.charm.actions,
        )
    }

    fn declaring(_declaring: &Declaring<'_>) -> Action {
        Action::outside("no event runs while the component declares its handlers")
    }

    fn instance(mut action: Action, start: &Start<'_>) -> Action {
        action.set_deadline(start.deadline);
        action
    }

    fn finish(action: Action, _warnings: &mut Vec<String>) -> (Action, ()) {
        (action, ())
    }
}
