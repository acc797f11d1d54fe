//! Ways for a test guest to run into the host's limits: the deadline,
//! memory, the stack. Included (`#[path]`) by the guests that need them, so
//! every test charm hits a limit the same way.

use std::hint::black_box;

/// Spins until the host's deadline stops it.
pub fn spin() -> ! {
    let mut counter = 0u64;
    loop {
        counter = black_box(counter.wrapping_add(1));
    }
}

/// Allocates and touches 1 MiB blocks until an allocation fails, which aborts
/// (traps) the instance.
pub fn exhaust_memory() -> ! {
    const BLOCK: usize = 1 << 20;
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    loop {
        // Filled with ones, so that every page is really written.
        blocks.push(black_box(vec![1u8; BLOCK]));
    }
}

/// Recurses until the stack overflows; the work after the call keeps it from
/// becoming a loop.
#[inline(never)]
pub fn recurse(depth: u64) -> u64 {
    let mut frame = [0u8; 512];
    frame[0] = depth as u8;
    black_box(&mut frame);
    if black_box(depth) == u64::MAX {
        return 0;
    }
    recurse(depth + 1).wrapping_add(u64::from(frame[0]))
}
