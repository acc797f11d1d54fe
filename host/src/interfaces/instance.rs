//! What one handler's instance holds: its sandbox, and every registered
//! interface's state, which the interfaces' WIT functions reach.

use super::InstanceStates;
use crate::sandbox::Sandbox;
use wasmtime_wasi::{WasiCtxView, WasiView};

/// The store data of one instance.
pub struct HandlerState {
    /// WASI, limits and captured output: the same for every interface.
    pub sandbox: Sandbox,
    /// What the interfaces' WIT functions reach.
    pub states: InstanceStates,
}

impl WasiView for HandlerState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        self.sandbox.wasi()
    }
}
