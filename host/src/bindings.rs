//! The WIT contract (`wit/`), as Rust types and traits generated once for the
//! whole host. Every other module names WIT types through here.

wasmtime::component::bindgen!({
    path: "../wit",
    world: "charm",
    additional_derives: [PartialEq],
    // `reboot(now)` stops the handler at the call, as Juju kills the hook.
    imports: { "wasm-charm:charm/model.reboot": trappable },
});

pub use self::wasm_charm::charm::action;
pub use self::wasm_charm::charm::model;
pub use self::wasm_charm::charm::network;
pub use self::wasm_charm::charm::pebble;
pub use self::wasm_charm::charm::ports;
pub use self::wasm_charm::charm::probe;
pub use self::wasm_charm::charm::relations;
pub use self::wasm_charm::charm::secrets;
pub use self::wasm_charm::charm::status;
pub use self::wasm_charm::charm::storage;
pub use self::wasm_charm::charm::stored;
pub use self::wasm_charm::charm::types::{
    ActionEvent, CheckEvent, Event, EventKind, Handler, NoticeEvent, Observation, Priority,
    RelationEvent, RelationRef, SecretEvent, Status, StatusKind, StorageEvent, Target,
};
pub use self::wasm_charm::charm::workload;

/// The version of the WIT package this host implements.
pub const WIT_VERSION: &str = "0.3.0";
/// The WIT package name, as it appears in component import names.
pub const WIT_PACKAGE: &str = "wasm-charm:charm";

/// A relation as Juju spells it (`JUJU_RELATION_ID`, `relation-ids`):
/// `db:3` → endpoint `db`, id 3. The endpoint may itself hold `:`-free dashes.
pub fn parse_relation_id(raw: &str) -> Option<RelationRef> {
    let (endpoint, id) = raw.rsplit_once(':')?;
    if endpoint.is_empty() {
        return None;
    }
    Some(RelationRef {
        endpoint: endpoint.to_string(),
        id: id.parse().ok()?,
    })
}
