//! `dispatch`: what Juju runs on the unit, once per event (DESIGN §2). The
//! runtime alone: it reads the event from Juju's environment, loads the
//! artifact `wasm-charm pack` precompiled, and runs the handlers; no
//! command line, no compiler (built without default features), none of
//! the tools around a charm.

use std::process::ExitCode;

/// The static dispatch's allocator. musl's own maps and unmaps a few pages
/// at a time as allocations of one size come and go: an update-status
/// checking 16 probes made 137 mmap and munmap calls, and each munmap, once
/// a second thread runs (a handler's, the probes'), is a TLB shootdown
/// across the cores. dlmalloc takes memory in larger segments and keeps
/// it (15 calls). Its entry points are kept out of line: inlined into every
/// allocating call, they grew the binary by 270 KB.
#[cfg(target_env = "musl")]
mod allocator {
    use std::alloc::{GlobalAlloc, Layout};

    pub struct Dlmalloc;

    // SAFETY: each call forwards to dlmalloc's own global allocator with
    // the same arguments.
    unsafe impl GlobalAlloc for Dlmalloc {
        #[inline(never)]
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            unsafe { dlmalloc::GlobalDlmalloc.alloc(layout) }
        }

        #[inline(never)]
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            unsafe { dlmalloc::GlobalDlmalloc.alloc_zeroed(layout) }
        }

        #[inline(never)]
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { dlmalloc::GlobalDlmalloc.dealloc(ptr, layout) }
        }

        #[inline(never)]
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            unsafe { dlmalloc::GlobalDlmalloc.realloc(ptr, layout, new_size) }
        }
    }

    #[global_allocator]
    static ALLOCATOR: Dlmalloc = Dlmalloc;
}

fn main() -> ExitCode {
    wasm_charm_host::juju::prepare_process();
    wasm_charm_host::juju::main()
}
