//! A requirer of the `postgresql_client` interface: asks for the database
//! config `database-name` names, and goes active once the provider has
//! answered with endpoints and a user secret it can read. The SDK's
//! `DatabaseRequirer` does the exchange as `data_interfaces` does; the
//! charm only says what to do with the credentials.
//!
//! Over `certificates` (optional), the SDK's `TlsRequirer` asks for a
//! certificate for each unit, its key made in the sandbox and kept in the
//! unit's secret, and renews it before it expires.

use wasm_charm::interfaces::database::{DatabaseEvent, DatabaseRequirer};
use wasm_charm::interfaces::tls::{CertificateEvent, TlsRequirer, x509};
use wasm_charm::prelude::*;

fn charm() -> Charm {
    let charm = DatabaseRequirer::from_config("database", "database-name").observe(
        Charm::new(),
        "connection",
        connected,
    );
    TlsRequirer::new("certificates", "db-client")
        .sans(["db-client.local"])
        .optional()
        .observe(charm, "certificate", certified)
}

wasm_charm::export_charm!(charm);

/// Active with the endpoints and the user the secret holds; the library's
/// event is logged, so a test sees which one came.
fn connected(event: &DatabaseEvent) -> Outcome {
    let c = event.credentials();
    let what = match event {
        DatabaseEvent::Created(_) => "database created",
        DatabaseEvent::EndpointsChanged(_) => "endpoints changed",
        DatabaseEvent::ReadOnlyEndpointsChanged(_) => "read-only endpoints changed",
        DatabaseEvent::Unchanged(_) => "credentials read",
    };
    // What a real client would connect with; logged so a test sees a rotation.
    wasm_charm::log::info(format!(
        "{what}: credentials {}/{}, CA {}",
        c.username,
        c.password,
        c.tls_ca.as_deref().unwrap_or("none")
    ));
    Ok(Some(Status::active(format!(
        "connected to {} as {}",
        c.endpoints, c.username
    ))))
}

/// Active with the certificate's end; the library's event is logged, so
/// a test sees a renewal.
fn certified(event: &CertificateEvent) -> Outcome {
    let issued = event.issued();
    let (_, until) = x509::validity(&issued.certificate)?;
    let until = x509::rfc3339(until)?;
    let what = match event {
        CertificateEvent::Available(_) => "certificate available",
        CertificateEvent::Renewing(_) => "certificate renewing",
        CertificateEvent::Unchanged(_) => "certificate held",
    };
    wasm_charm::log::info(format!("{what}: valid until {until}"));
    Ok(Some(Status::active(format!(
        "TLS certificate valid until {until}"
    ))))
}
