//! What one handler instance may allocate: linear memory (the manifest's
//! `limits.memory-mib`) and wasmtime's per-store counts, whose defaults
//! (10,000 instances, memories and tables) are far above what any charm
//! component needs. The limiter remembers which bound it enforced, so the
//! trap report can name it instead of a bare `unreachable`.

use wasmtime::ResourceLimiter;

/// Core instances one component instance may create. A Rust `wasm32-wasip2`
/// component creates about five (the program, the WASI adapter, shims).
pub const MAX_INSTANCES: usize = 32;
/// Linear memories per instance: a charm has one, the adapter one more.
pub const MAX_MEMORIES: usize = 4;
/// Tables per instance.
pub const MAX_TABLES: usize = 32;
/// Elements one table may hold; Rust guests use a few hundred.
pub const MAX_TABLE_ELEMENTS: usize = 100_000;

/// The bounds of one store, and which of them it hit.
#[derive(Debug)]
pub struct StoreLimits {
    pub max_memory_bytes: usize,
    pub memory_exceeded: bool,
    table_exceeded: bool,
}

impl StoreLimits {
    pub fn new(max_memory_bytes: usize) -> Self {
        StoreLimits {
            max_memory_bytes,
            memory_exceeded: false,
            table_exceeded: false,
        }
    }

    /// A count bound the instance hit, if any, for the trap report. (wasmtime
    /// fails instantiation past the instance, memory and table counts
    /// itself, with an error that names the count.)
    pub fn exceeded_count(&self) -> Option<String> {
        self.table_exceeded
            .then(|| format!("{MAX_TABLE_ELEMENTS} table elements"))
    }
}

impl ResourceLimiter for StoreLimits {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.max_memory_bytes {
            self.memory_exceeded = true;
            // Refuse the growth: Rust's allocator then aborts, which traps.
            return Ok(false);
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > MAX_TABLE_ELEMENTS {
            self.table_exceeded = true;
            return Ok(false);
        }
        Ok(true)
    }

    fn instances(&self) -> usize {
        MAX_INSTANCES
    }

    fn memories(&self) -> usize {
        MAX_MEMORIES
    }

    fn tables(&self) -> usize {
        MAX_TABLES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growth_past_a_bound_is_refused_and_named() {
        let mut limits = StoreLimits::new(1 << 20);
        assert!(limits.memory_growing(0, 1 << 20, None).unwrap());
        assert!(!limits.memory_growing(0, (1 << 20) + 1, None).unwrap());
        assert!(limits.memory_exceeded);
        assert_eq!(limits.exceeded_count(), None);
        assert!(limits.table_growing(0, MAX_TABLE_ELEMENTS, None).unwrap());
        assert!(
            !limits
                .table_growing(0, MAX_TABLE_ELEMENTS + 1, None)
                .unwrap()
        );
        assert_eq!(
            limits.exceeded_count().as_deref(),
            Some("100000 table elements")
        );
        // wasmtime's defaults are 10,000 of each.
        assert_eq!(
            (limits.instances(), limits.memories(), limits.tables()),
            (MAX_INSTANCES, MAX_MEMORIES, MAX_TABLES)
        );
    }
}
