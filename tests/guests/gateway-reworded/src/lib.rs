//! The gateway example (`examples/gateway`) as a later version of it might
//! be: the same handlers and events, with the message of an unset `kind`
//! reworded (see `build.rs`). `tests/replay.rs` replays a recording of the
//! gateway with this component, and expects exactly that change.

include!(concat!(env!("OUT_DIR"), "/gateway.rs"));
