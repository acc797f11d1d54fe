//! A requirer of the `postgresql_client` interface: asks for the database
//! config `database-name` names, and goes active once the provider has
//! answered with endpoints and a user secret it can read. The SDK's
//! `DatabaseRequirer` does the exchange as `data_interfaces` does; the
//! charm only says what to do with the credentials: it writes its
//! workload's configuration (`/etc/db-client`) and restarts the
//! `db-client` service when that changed, and the `db-client` probe holds
//! the unit back until the service runs.
//!
//! Over `certificates` (optional), the SDK's `TlsRequirer` asks for a
//! certificate for each unit, its key made in the sandbox and kept in the
//! unit's secret, and renews it before it expires; the service gets the
//! certificate, its chain and key under `/etc/db-client/tls`.

use wasm_charm::interfaces::database::{DatabaseEvent, DatabaseRequirer};
use wasm_charm::interfaces::tls::{CertificateEvent, TlsRequirer, x509};
use wasm_charm::prelude::*;
use wasm_charm::workload;

/// The workload's configuration, as the service reads it.
const CONFIG: &str = "/etc/db-client/client.conf";
/// The database user's password, apart from the configuration so that
/// nothing else that reads it sees the password.
const PASSWORD: &str = "/etc/db-client/password";
/// The provider's CA, when it sent one.
const DATABASE_CA: &str = "/etc/db-client/database-ca.pem";
/// The unit's certificate (with its chain), its key and the CA.
const TLS_DIR: &str = "/etc/db-client/tls";
const CERTIFICATE: &str = "/etc/db-client/tls/client.pem";
const KEY: &str = "/etc/db-client/tls/client.key";
const CA: &str = "/etc/db-client/tls/ca.pem";
const SERVICE: &str = "db-client";

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

/// The service runs with what was written: restarted when it changed,
/// started when it is not running.
fn serve(changed: bool) -> Result<(), Error> {
    if changed {
        workload::restart(SERVICE)?;
    } else if workload::service_status(SERVICE)?.active != "active" {
        workload::start(SERVICE)?;
    }
    Ok(())
}

/// The configuration from the endpoints and the user the secret holds,
/// then active; the library's event is logged, so a test sees which one
/// came (the password is written to its file, never logged).
fn connected(event: &DatabaseEvent) -> Outcome {
    let c = event.credentials();
    let what = match event {
        DatabaseEvent::Created(_) => "database created",
        DatabaseEvent::EndpointsChanged(_) => "endpoints changed",
        DatabaseEvent::ReadOnlyEndpointsChanged(_) => "read-only endpoints changed",
        DatabaseEvent::Unchanged(_) => "credentials read",
    };
    let mut config = format!(
        "# Written by the db-client charm from its database relation.\n\
         endpoints = {}\nuser = {}\npassword-file = {PASSWORD}\n",
        c.endpoints, c.username
    );
    let mut changed = workload::write_if_changed(PASSWORD, &c.password)?;
    if let Some(ca) = &c.tls_ca {
        changed |= workload::write_if_changed(DATABASE_CA, ca)?;
        config.push_str(&format!("database-ca = {DATABASE_CA}\n"));
    }
    changed |= workload::write_if_changed(CONFIG, &config)?;
    serve(changed)?;
    wasm_charm::log::info(format!(
        "{what}: credentials {}, {}, CA {}",
        c.username,
        if changed {
            "configuration written"
        } else {
            "configuration unchanged"
        },
        if c.tls_ca.is_some() { "sent" } else { "none" }
    ));
    Ok(Some(Status::active(format!(
        "connected to {} as {}",
        c.endpoints, c.username
    ))))
}

/// The certificate, its chain and key for the service, then active with
/// the certificate's end; the library's event is logged, so a test sees
/// a renewal.
fn certified(event: &CertificateEvent) -> Outcome {
    let issued = event.issued();
    let (_, until) = x509::validity(&issued.certificate)?;
    let until = x509::rfc3339(until)?;
    let what = match event {
        CertificateEvent::Available(_) => "certificate available",
        CertificateEvent::Renewing(_) => "certificate renewing",
        CertificateEvent::Unchanged(_) => "certificate held",
    };
    let chain = if issued.chain.is_empty() {
        issued.certificate.clone()
    } else {
        issued.chain.join("\n")
    };
    std::fs::create_dir_all(TLS_DIR)
        .map_err(|e| Error::from(e).context(format!("cannot create {TLS_DIR}")))?;
    let mut changed = workload::write_if_changed(KEY, &issued.private_key)?;
    changed |= workload::write_if_changed(CA, &issued.ca)?;
    changed |= workload::write_if_changed(CERTIFICATE, &chain)?;
    serve(changed)?;
    wasm_charm::log::info(format!("{what}: valid until {until}"));
    Ok(Some(Status::active(format!(
        "TLS certificate valid until {until}"
    ))))
}
