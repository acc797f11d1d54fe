//! A status as a test names it: the SDK's own [`Status`] and [`StatusKind`],
//! so a test compares what the handler returns with the same type.

pub use wasm_charm::{Status, StatusKind};
