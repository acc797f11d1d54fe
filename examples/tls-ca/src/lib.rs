//! A self-signed certificate authority, the provider of tls-certificates
//! v1 through the SDK's `TlsProvider`: the leader makes its CA once (key
//! and certificate in an application secret, so a new leader signs with
//! the same CA) and answers each CSR once; a CSR no longer asked for
//! loses its certificate. A CSR for a CA, or one that does not parse, is
//! refused in the bag with the library's error, not by failing the hook.

use wasm_charm::interfaces::tls::x509::Ca;
use wasm_charm::interfaces::tls::{Answer, TlsProvider};
use wasm_charm::model::{self, ModelError, SecretOptions, SecretOwner};
use wasm_charm::prelude::*;

fn charm() -> Charm {
    Charm::new().observe(
        "certificates",
        On::relation("certificates")
            | On::install()
            | On::leader_elected()
            | On::config_changed()
            | On::update_status(),
        certificates,
    )
}

wasm_charm::export_charm!(charm);

const LABEL: &str = "ca";
/// How long the CA itself is valid.
const CA_DAYS: u32 = 3650;

/// The CA in the application's secret, made on first use.
fn ca() -> Result<Ca, Error> {
    match model::get_secret(None, Some(LABEL)) {
        Ok(secret) => {
            let content = secret.get_content()?;
            match (content.get("ca-key"), content.get("ca-certificate")) {
                (Some(key), Some(cert)) => Ca::from_pem(key, cert),
                _ => Err(Error::msg(
                    "secret ca: expected keys ca-key and ca-certificate",
                )),
            }
        }
        Err(ModelError::NotFound(_)) => {
            let name = model::config()?
                .get("ca-common-name")
                .and_then(|v| v.as_str())
                .unwrap_or("wasm-charm example CA")
                .to_string();
            let ca = Ca::generate(&name, CA_DAYS)?;
            let options = SecretOptions {
                label: Some(LABEL.into()),
                description: Some("the CA's key and certificate".into()),
                ..SecretOptions::default()
            };
            model::add_secret(
                &[
                    ("ca-key", &ca.key().to_pem()?),
                    ("ca-certificate", ca.certificate()),
                ],
                options,
                SecretOwner::Application,
            )?;
            Ok(ca)
        }
        Err(e) => Err(e.into()),
    }
}

fn certificates(_event: &Event) -> Outcome {
    if !model::is_leader()? {
        return Ok(Some(Status::active("replica")));
    }
    let ca = ca()?;
    let days = model::config()?
        .get("certificate-validity-days")
        .and_then(|v| v.as_i64())
        .and_then(|d| u32::try_from(d).ok())
        .filter(|d| *d > 0)
        .unwrap_or(90);
    let done = TlsProvider::new("certificates").answer(|csr, is_ca| {
        if is_ca {
            return Ok(Answer::Refused {
                code: 999,
                message: "this CA signs no CA certificates".into(),
            });
        }
        Ok(match ca.sign(csr, days) {
            Ok(certificate) => Answer::Signed {
                chain: vec![certificate.clone(), ca.certificate().to_string()],
                certificate,
                ca: ca.certificate().to_string(),
            },
            Err(e) => Answer::Refused {
                code: 999,
                message: e.to_string(),
            },
        })
    })?;
    if done.signed > 0 {
        wasm_charm::log::info(format!("signed {} certificates", done.signed));
    }
    Ok(Some(Status::active(format!(
        "{} certificates on {} relations",
        done.certificates, done.relations
    ))))
}
