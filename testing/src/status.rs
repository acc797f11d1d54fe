//! A status as a test names it: the SDK's own [`Status`] and [`StatusKind`],
//! so a test compares what the handler returns with the same type.

use wasm_charm_host::status::merge::{Kind, Written};

pub use wasm_charm::{Status, StatusKind};

/// The SDK's kind of the host's.
pub(crate) fn kind_of(kind: Kind) -> StatusKind {
    match kind {
        Kind::Active => StatusKind::Active,
        Kind::Maintenance => StatusKind::Maintenance,
        Kind::Waiting => StatusKind::Waiting,
        Kind::Blocked => StatusKind::Blocked,
    }
}

/// The host's kind of the SDK's.
pub(crate) fn host_kind(kind: StatusKind) -> Kind {
    match kind {
        StatusKind::Active => Kind::Active,
        StatusKind::Maintenance => Kind::Maintenance,
        StatusKind::Waiting => Kind::Waiting,
        StatusKind::Blocked => Kind::Blocked,
    }
}

/// The SDK's status of a kind and message the host holds.
pub(crate) fn status_of(kind: Kind, message: &str) -> Status {
    Status::new(kind_of(kind), message)
}

/// What `status-set` wrote, as the SDK's status.
pub(crate) fn from_written(w: &Written) -> Status {
    status_of(w.status, &w.message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_the_host_is_the_sdks_of_the_same_name() {
        for kind in [
            Kind::Active,
            Kind::Maintenance,
            Kind::Waiting,
            Kind::Blocked,
        ] {
            assert_eq!(kind_of(kind).name(), kind.as_str());
            assert_eq!(host_kind(kind_of(kind)), kind);
        }
    }
}
