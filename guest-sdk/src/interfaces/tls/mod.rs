//! tls-certificates v1, both sides, as `charmlibs-interfaces-tls-certificates`
//! behaves: the requirer's key and CSR are made in the sandbox and kept in
//! a Juju secret of the unit's own (no secret crosses the relation), the
//! CSR goes into the unit's bag, the provider answers in its application's
//! bag, and the certificate is renewed before it expires through the
//! secret's expiry, as the library does.
//!
//! Needs the SDK's `tls-certificates` feature (the P-256 and X.509 crates).
//!
//! ```no_run
//! use wasm_charm::interfaces::tls::{CertificateEvent, TlsRequirer};
//! use wasm_charm::prelude::*;
//!
//! fn charm() -> Charm {
//!     TlsRequirer::new("certificates", "web.example")
//!         .sans(["web.example"])
//!         .observe(Charm::new(), "tls", |event| {
//!             let issued = event.issued();
//!             // ... write issued.certificate and issued.private_key for the workload ...
//!             Ok(Some(Status::active(format!("serving TLS as {}", "web.example"))))
//!         })
//! }
//! ```

pub mod x509;

use super::tls_certificates_v1::{
    Certificate, Csr, ProviderApp, ProviderError, RequestError, RequirerApp, RequirerUnit,
};
use crate::charm::{Charm, On};
use crate::event::{Event, EventKind};
use crate::model::{self, Databag, ModelError, Relation, Secret, SecretOptions, SecretOwner};
use crate::{Error, Outcome, Status, stored};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A certificate the provider signed for this unit's CSR, with the key it
/// was made for.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Issued {
    /// The certificate, PEM.
    pub certificate: String,
    /// The CA that signed it, PEM.
    pub ca: String,
    /// Leaf to root, as the provider sent it.
    pub chain: Vec<String>,
    /// The CSR it answers.
    pub csr: String,
    /// The unit's key (from its secret; never stored elsewhere).
    #[serde(skip)]
    pub private_key: String,
}

/// The library's events, each with the certificate as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CertificateEvent {
    /// A certificate arrived for the current CSR (`certificate_available`).
    Available(Issued),
    /// The certificate is due for renewal and a new CSR was sent; the one
    /// held is still valid until the new one comes.
    Renewing(Issued),
    /// Nothing changed (update-status, another relation's change).
    Unchanged(Issued),
}

impl CertificateEvent {
    /// The certificate, whichever event this is.
    pub fn issued(&self) -> &Issued {
        match self {
            CertificateEvent::Available(i)
            | CertificateEvent::Renewing(i)
            | CertificateEvent::Unchanged(i) => i,
        }
    }
}

/// One certificate a unit needs over one endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsRequirer {
    endpoint: String,
    common_name: String,
    sans: Vec<String>,
    optional: bool,
}

/// The secret's keys: Juju's rule allows lowercase words and dashes.
const KEY: &str = "private-key";
const CSR: &str = "csr";

impl TlsRequirer {
    /// A requirer of a certificate for `common_name` over `endpoint` (a
    /// `tls-certificates` endpoint of metadata.yaml).
    ///
    /// ```
    /// use wasm_charm::interfaces::tls::TlsRequirer;
    ///
    /// let tls = TlsRequirer::new("certificates", "web.example");
    /// assert_eq!(tls.secret_label(), "wasm-charm.tls.certificates");
    /// ```
    pub fn new(endpoint: impl Into<String>, common_name: impl Into<String>) -> Self {
        TlsRequirer {
            endpoint: endpoint.into(),
            common_name: common_name.into(),
            sans: Vec::new(),
            optional: false,
        }
    }

    /// DNS names the certificate is for besides the common name.
    pub fn sans<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.sans = names.into_iter().map(Into::into).collect();
        self
    }

    /// Without the relation the scope has no status (the workload runs
    /// without TLS), instead of blocked.
    pub fn optional(mut self) -> Self {
        self.optional = true;
        self
    }

    /// The label of the unit's secret that holds its key and CSR.
    pub fn secret_label(&self) -> String {
        format!("wasm-charm.tls.{}", self.endpoint)
    }

    /// Add the two handlers of the certificate to `charm`:
    ///
    /// * `<name>-request`: each unit makes its key and CSR (once, kept in
    ///   its secret), sends the CSR in its bag when the bag differs, and
    ///   on the secret's expiry sends a new CSR for the same key;
    /// * `<name>`: its scope is blocked without the relation (unless
    ///   [`optional`](Self::optional)) and waiting until the provider
    ///   signed the CSR; then `on_event` runs, and its status is the
    ///   scope's. A refusal by the provider blocks the scope with its
    ///   message.
    ///
    /// # Panics
    ///
    /// As [`Charm::observe`], when the names are taken.
    pub fn observe<F>(self, charm: Charm, name: &str, on_event: F) -> Charm
    where
        F: Fn(&CertificateEvent) -> Outcome + 'static,
    {
        let requester = self.clone();
        let both = On::relation(self.endpoint.clone())
            | On::install()
            | On::upgrade_charm()
            | On::kind(EventKind::SecretExpired);
        let reads = both.clone() | On::update_status();
        charm
            .observe(&format!("{name}-request"), both, move |event| {
                requester.write_request(event)
            })
            .observe(name, reads, move |_| self.certificate(&on_event))
    }

    /// The certificate held now, `None` before one arrived; other
    /// handlers may read it.
    pub fn issued(&self) -> Result<Option<Issued>, Error> {
        let Some(relation) = model::get_relation(&self.endpoint)? else {
            return Ok(None);
        };
        match self.own_secret()? {
            Some(own) => self.last_issued(&relation, &own.key),
            None => Ok(None),
        }
    }

    /// The certificate last delivered on `relation` (kept in the unit's
    /// stored data), with the unit's key.
    fn last_issued(&self, relation: &Relation, key: &str) -> Result<Option<Issued>, Error> {
        let last: Option<Issued> = stored::get(&self.stored_key(relation))?;
        Ok(last.map(|i| Issued {
            private_key: key.to_string(),
            ..i
        }))
    }

    fn stored_key(&self, relation: &Relation) -> String {
        format!("wasm-charm.tls.{}.{}", self.endpoint, relation.id())
    }

    /// The unit's secret with the key and CSR it holds, `None` before it
    /// was made; the handle is kept so that no call reads it twice.
    fn own_secret(&self) -> Result<Option<Own>, Error> {
        match model::get_secret(None, Some(&self.secret_label())) {
            Ok(secret) => {
                let mut content = secret.get_content()?;
                match (content.remove(KEY), content.remove(CSR)) {
                    (Some(key), Some(csr)) => Ok(Some(Own { secret, key, csr })),
                    _ => Err(Error::msg(format!(
                        "secret {}: expected keys {KEY} and {CSR}",
                        self.secret_label()
                    ))),
                }
            }
            Err(ModelError::NotFound(_)) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    fn write_request(&self, event: &Event) -> Outcome {
        let Some(relation) = model::get_relation(&self.endpoint)? else {
            return Ok(None);
        };
        let label = self.secret_label();
        let csr = match self.own_secret()? {
            None => {
                let key = x509::PrivateKey::generate();
                let csr = x509::request(&key, &self.common_name, &self.sans)?;
                let options = SecretOptions {
                    label: Some(label),
                    description: Some(format!("the key of {}'s certificate", self.endpoint)),
                    ..SecretOptions::default()
                };
                model::add_secret(
                    &[(KEY, &key.to_pem()?), (CSR, &csr)],
                    options,
                    SecretOwner::Unit,
                )?;
                csr
            }
            Some(own) if matches!(event, Event::SecretExpired(s) if s.label.as_deref() == Some(label.as_str())) =>
            {
                // Renewal: a new CSR for the same key (a new unique id in
                // its subject makes it differ), the library's way.
                let csr = x509::request(
                    &x509::PrivateKey::from_pem(&own.key)?,
                    &self.common_name,
                    &self.sans,
                )?;
                own.secret.set_content(&[(KEY, &own.key), (CSR, &csr)])?;
                csr
            }
            Some(own) => own.csr,
        };
        let wanted = RequirerUnit {
            certificate_signing_requests: Some(vec![Csr {
                certificate_signing_request: csr.trim().to_string(),
                ca: Some(false),
            }]),
        };
        relation.write_if_changed(&wanted)?;
        Ok(None)
    }

    fn certificate(&self, on_event: &dyn Fn(&CertificateEvent) -> Outcome) -> Outcome {
        let Some(relation) = model::get_relation(&self.endpoint)? else {
            if self.optional {
                return Ok(None);
            }
            return Ok(Some(Status::blocked(format!(
                "needs a {} relation",
                self.endpoint
            ))));
        };
        let provider = relation.app()?.unwrap_or_else(|| "the provider".into());
        let waiting = || {
            Ok(Some(Status::waiting(format!(
                "waiting for a certificate from {provider} on {}:{}",
                self.endpoint,
                relation.id()
            ))))
        };
        let Some(own) = self.own_secret()? else {
            return waiting();
        };
        let csr = own.csr.as_str();
        let answer = relation
            .read::<ProviderApp>(&Databag::RemoteApp)?
            .unwrap_or_else(ProviderApp::new);
        let last = self.last_issued(&relation, &own.key)?;
        let signed = answer
            .certificates
            .unwrap_or_default()
            .into_iter()
            .find(|c| {
                c.certificate_signing_request.trim() == csr.trim() && c.revoked != Some(true)
            });
        let Some(signed) = signed else {
            if let Some(refused) = refusal(answer.request_errors.unwrap_or_default(), csr) {
                return Ok(Some(Status::blocked(format!(
                    "{provider} refused the certificate request: {}",
                    refused.message
                ))));
            }
            return match last {
                Some(held) => on_event(&CertificateEvent::Renewing(held)),
                None => waiting(),
            };
        };
        let now = Issued {
            certificate: signed.certificate,
            ca: signed.ca,
            chain: signed.chain.unwrap_or_default(),
            csr: csr.to_string(),
            private_key: own.key.clone(),
        };
        if last.as_ref() == Some(&now) {
            // Checked against the key when it first came.
            return on_event(&CertificateEvent::Unchanged(now));
        }
        if !x509::matches_key(
            &now.certificate,
            &x509::PrivateKey::from_pem(&now.private_key)?,
        )? {
            return Ok(Some(Status::blocked(format!(
                "{provider} sent a certificate for another key on {}:{}",
                self.endpoint,
                relation.id()
            ))));
        }
        // Renewal is planned by the secret's expiry, as the library does:
        // Juju's secret-expired comes at that time, on the model's clock.
        let (not_before, not_after) = x509::validity(&now.certificate)?;
        let renew = x509::renewal_time(
            not_before,
            not_after,
            signed.recommended_expiry_notification_time,
        );
        own.secret.set_info(SecretOptions {
            expire: Some(x509::rfc3339(renew)?),
            ..SecretOptions::default()
        })?;
        stored::set(&self.stored_key(&relation), &now)?;
        on_event(&CertificateEvent::Available(now))
    }
}

/// The unit's secret, and what it holds.
struct Own {
    secret: Secret,
    key: String,
    csr: String,
}

/// The provider's refusal of `csr`, under either of the names the schema
/// and the library give the CSR.
fn refusal(errors: Vec<RequestError>, csr: &str) -> Option<ProviderError> {
    errors.into_iter().find_map(|e| {
        let named = e
            .csr
            .as_deref()
            .or(e.certificate_signing_request.as_deref());
        (named.map(str::trim) == Some(csr.trim())).then_some(e.error)
    })
}

/// What a provider answers one CSR with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The certificate, its CA and the chain (leaf to root).
    Signed {
        /// PEM.
        certificate: String,
        /// PEM.
        ca: String,
        /// Leaf to root.
        chain: Vec<String>,
    },
    /// Refused, with the library's error code (101 IP not allowed, 102
    /// domain not allowed, 103 wildcard not allowed, 201 server not
    /// available, 999 other) and why.
    Refused {
        /// The library's `CertificateRequestErrorCode`.
        code: i64,
        /// Why, for the requirer's operator.
        message: String,
    },
}

/// The provider's side over one endpoint: each relation's CSRs (from the
/// requirer's units and its application) answered in this application's
/// bag, each one once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsProvider {
    endpoint: String,
}

/// What [`TlsProvider::answer`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Answered {
    /// Relations on the endpoint.
    pub relations: usize,
    /// Certificates in their bags now.
    pub certificates: usize,
    /// Certificates signed by this call.
    pub signed: usize,
    /// CSRs refused.
    pub refused: usize,
}

impl TlsProvider {
    /// The provider of `endpoint` (a `tls-certificates` endpoint under
    /// `provides`).
    pub fn new(endpoint: impl Into<String>) -> Self {
        TlsProvider {
            endpoint: endpoint.into(),
        }
    }

    /// On the leader, answer every CSR on every relation: a CSR already
    /// answered keeps its certificate, a new one goes to `sign`, one no
    /// longer asked for loses its certificate (as the library's
    /// `_remove_certificates_for_which_no_csr_exists`). The bag is written
    /// only when it changes, its lists in a stable order. A bag of the
    /// requirer's that does not fit the interface is skipped, logged
    /// with its relation and field.
    pub fn answer(
        &self,
        sign: impl Fn(&str, bool) -> Result<Answer, Error>,
    ) -> Result<Answered, Error> {
        let mut done = Answered::default();
        if !model::is_leader()? {
            return Ok(done);
        }
        for relation in model::relations(&self.endpoint)? {
            done.relations += 1;
            let asked = asked(&relation)?;
            let before = relation
                .read::<ProviderApp>(&Databag::LocalApp)?
                .unwrap_or_else(ProviderApp::new);
            let mut held: BTreeMap<String, Certificate> = before
                .certificates
                .clone()
                .unwrap_or_default()
                .into_iter()
                .map(|c| (c.certificate_signing_request.trim().to_string(), c))
                .collect();
            let mut certificates = Vec::new();
            let mut errors = Vec::new();
            for (csr, is_ca) in asked {
                if let Some(c) = held.remove(&csr) {
                    certificates.push(c);
                    continue;
                }
                match sign(&csr, is_ca)? {
                    Answer::Signed {
                        certificate,
                        ca,
                        chain,
                    } => {
                        done.signed += 1;
                        certificates.push(Certificate {
                            chain: Some(chain),
                            ..Certificate::new(ca, certificate, csr)
                        });
                    }
                    Answer::Refused { code, message } => {
                        done.refused += 1;
                        errors.push(RequestError {
                            csr: Some(csr),
                            ..RequestError::new(ProviderError::new(
                                code,
                                message,
                                error_name(code).into(),
                            ))
                        });
                    }
                }
            }
            done.certificates += certificates.len();
            let now = ProviderApp {
                certificates: Some(certificates),
                request_errors: (!errors.is_empty()).then_some(errors),
                capabilities: before.capabilities.clone(),
            };
            if now != before {
                relation.write(&now)?;
            }
        }
        Ok(done)
    }
}

/// The library's name for an error code.
fn error_name(code: i64) -> &'static str {
    match code {
        101 => "IP_NOT_ALLOWED",
        102 => "DOMAIN_NOT_ALLOWED",
        103 => "WILDCARD_NOT_ALLOWED",
        201 => "SERVER_NOT_AVAILABLE",
        _ => "OTHER",
    }
}

/// Every CSR the requirer's side asks for on `relation`, each once, in
/// order: its application's bag and each unit's.
fn asked(relation: &Relation) -> Result<BTreeMap<String, bool>, Error> {
    let mut asked = BTreeMap::new();
    let mut add = |csrs: Option<Vec<Csr>>| {
        for c in csrs.unwrap_or_default() {
            asked
                .entry(c.certificate_signing_request.trim().to_string())
                .or_insert(c.ca.unwrap_or(false));
        }
    };
    match relation.read::<RequirerApp>(&Databag::RemoteApp) {
        Ok(bag) => add(bag.and_then(|b| b.certificate_signing_requests)),
        Err(e) => crate::log::warning(format!("skipped: {e}")),
    }
    for unit in relation.units()? {
        match relation.read::<RequirerUnit>(&Databag::RemoteUnit(unit)) {
            Ok(bag) => add(bag.and_then(|b| b.certificate_signing_requests)),
            Err(e) => crate::log::warning(format!("skipped: {e}")),
        }
    }
    Ok(asked)
}

#[cfg(test)]
mod tests;
