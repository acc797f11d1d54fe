//! What bounds and captures one handler's instance, whatever interfaces it
//! imports: WASI with nothing granted but the declared directories and the
//! event's wall clock, the resource table, the memory limiter and the
//! tails of its stdout and stderr. The interfaces' own state sits beside it in
//! [`crate::interfaces::HandlerState`]; the runtime builds both.

pub mod clock;
pub mod limits;
pub mod output;

use limits::StoreLimits;
use output::OutputTail;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView};

/// One instance's sandbox.
pub struct Sandbox {
    wasi: WasiCtx,
    table: ResourceTable,
    /// Which bound stopped the instance, for the trap report.
    pub limiter: StoreLimits,
    pub stdout: OutputTail,
    pub stderr: OutputTail,
}

impl Sandbox {
    /// A sandbox from `wasi` (its directories granted already), whose
    /// output goes to `stdout` and `stderr`, with `memory_bytes` of linear
    /// memory at most.
    pub fn new(
        wasi: &mut WasiCtxBuilder,
        stdout: OutputTail,
        stderr: OutputTail,
        memory_bytes: usize,
    ) -> Sandbox {
        Sandbox {
            wasi: wasi.build(),
            table: ResourceTable::new(),
            limiter: StoreLimits::new(memory_bytes),
            stdout,
            stderr,
        }
    }

    /// What `wasmtime_wasi::WasiView` hands the WASI host functions.
    pub fn wasi(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}
