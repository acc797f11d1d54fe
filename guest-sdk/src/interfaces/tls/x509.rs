//! The certificate work of tls-certificates, in the sandbox: P-256 keys,
//! CSRs, a self-signed CA and the certificates it signs, and the dates a
//! renewal is planned from. Randomness comes from the host (WASI's
//! random), nothing here does I/O.
//!
//! ```
//! use wasm_charm::interfaces::tls::x509::{self, Ca, PrivateKey};
//!
//! let key = PrivateKey::generate();
//! let csr = x509::request(&key, "web.example", &["web.example".into()])?;
//! let ca = Ca::generate("example CA", 365)?;
//! let cert = ca.sign(&csr, 90)?;
//! assert!(x509::matches_key(&cert, &key)?);
//! # Ok::<(), wasm_charm::Error>(())
//! ```

use crate::Error;
use p256::ecdsa::signature::Verifier;
use p256::ecdsa::{DerSignature, SigningKey, VerifyingKey};
use p256::pkcs8::{DecodePrivateKey, EncodePrivateKey, LineEnding};
use rand_core::{OsRng, RngCore};
use std::time::Duration;
use x509_cert::builder::{Builder, CertificateBuilder, Profile, RequestBuilder};
use x509_cert::der::asn1::{Ia5String, SetOfVec};
use x509_cert::der::{Any, DateTime, Decode, DecodePem, Encode, EncodePem, Tag};
use x509_cert::ext::pkix::SubjectAltName;
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::name::{Name, RdnSequence, RelativeDistinguishedName};
use x509_cert::request::{CertReq, ExtensionReq};
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::{ObjectIdentifier, SubjectPublicKeyInfoOwned};
use x509_cert::time::Validity;
use x509_cert::{Certificate, attr::AttributeTypeAndValue};

const COMMON_NAME: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.5.4.3");
/// x500UniqueIdentifier: the library puts a fresh one in each CSR's
/// subject, so that a renewal's CSR differs from the one it replaces.
const UNIQUE_IDENTIFIER: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.5.4.45");
const EXTENSION_REQUEST: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.14");
const SUBJECT_ALT_NAME: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.5.29.17");
const EC_PUBLIC_KEY: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.2.1");

fn bad(what: &str, e: impl std::fmt::Display) -> Error {
    Error::msg(format!("tls-certificates: {what}: {e}"))
}

/// A P-256 private key.
#[derive(Clone)]
pub struct PrivateKey(SigningKey);

impl std::fmt::Debug for PrivateKey {
    // A key is never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PrivateKey(..)")
    }
}

impl PrivateKey {
    /// A new key, from the host's randomness.
    pub fn generate() -> Self {
        PrivateKey(SigningKey::random(&mut OsRng))
    }

    /// The key as PKCS#8 PEM, as the library keeps its keys.
    ///
    /// ```
    /// use wasm_charm::interfaces::tls::x509::PrivateKey;
    ///
    /// let pem = PrivateKey::generate().to_pem()?;
    /// assert!(pem.starts_with("-----BEGIN PRIVATE KEY-----"));
    /// assert!(PrivateKey::from_pem(&pem).is_ok());
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn to_pem(&self) -> Result<String, Error> {
        Ok(self
            .0
            .to_pkcs8_pem(LineEnding::LF)
            .map_err(|e| bad("encoding a private key", e))?
            .to_string())
    }

    /// A key from PKCS#8 PEM.
    pub fn from_pem(pem: &str) -> Result<Self, Error> {
        SigningKey::from_pkcs8_pem(pem)
            .map(PrivateKey)
            .map_err(|e| bad("reading a private key (PKCS#8 PEM, P-256)", e))
    }

    fn public(&self) -> Result<SubjectPublicKeyInfoOwned, Error> {
        SubjectPublicKeyInfoOwned::from_key(*self.0.verifying_key())
            .map_err(|e| bad("the public key", e))
    }
}

fn utf8(oid: ObjectIdentifier, value: &str) -> Result<RelativeDistinguishedName, Error> {
    let value = Any::new(Tag::Utf8String, value.as_bytes()).map_err(|e| bad("a name", e))?;
    SetOfVec::try_from(vec![AttributeTypeAndValue { oid, value }])
        .map(RelativeDistinguishedName)
        .map_err(|e| bad("a name", e))
}

fn random_id() -> String {
    let mut b = [0u8; 16];
    OsRng.fill_bytes(&mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A CSR (PEM) for `common_name` and DNS names `sans`, signed with
/// `key`, its subject holding a fresh unique identifier as the library's
/// do.
pub fn request(key: &PrivateKey, common_name: &str, sans: &[String]) -> Result<String, Error> {
    let subject = RdnSequence(vec![
        utf8(COMMON_NAME, common_name)?,
        utf8(UNIQUE_IDENTIFIER, &random_id())?,
    ]);
    let mut builder = RequestBuilder::new(subject, &key.0).map_err(|e| bad("building a CSR", e))?;
    if !sans.is_empty() {
        builder
            .add_extension(&dns_names(sans)?)
            .map_err(|e| bad("the CSR's subject alternative names", e))?;
    }
    signed_pem(builder, "a CSR")
}

/// What `builder` makes, signed with its key and encoded as PEM.
fn signed_pem<B>(builder: B, what: &str) -> Result<String, Error>
where
    B: Builder,
    B::Signer: p256::ecdsa::signature::Signer<DerSignature>,
    B::Output: EncodePem,
{
    builder
        .build::<DerSignature>()
        .map_err(|e| bad(&format!("signing {what}"), e))?
        .to_pem(LineEnding::LF)
        .map_err(|e| bad(&format!("encoding {what}"), e))
}

fn dns_names(sans: &[String]) -> Result<SubjectAltName, Error> {
    sans.iter()
        .map(|s| {
            Ia5String::new(s)
                .map(GeneralName::DnsName)
                .map_err(|e| bad(&format!("DNS name {s:?}"), e))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(SubjectAltName)
}

/// What a provider reads of a CSR before it signs it.
#[derive(Debug, Clone)]
pub struct Request {
    subject: Name,
    public_key: SubjectPublicKeyInfoOwned,
    alt_names: Option<SubjectAltName>,
}

impl Request {
    /// Read a CSR (PEM). Its signature is checked when its key is P-256;
    /// the RSA keys the library makes by default are taken unchecked (as
    /// the library's own provider takes every CSR).
    pub fn parse(pem: &str) -> Result<Self, Error> {
        let csr = CertReq::from_pem(pem.trim()).map_err(|e| bad("reading a CSR", e))?;
        if csr.info.public_key.algorithm.oid == EC_PUBLIC_KEY {
            let key =
                VerifyingKey::from_sec1_bytes(csr.info.public_key.subject_public_key.raw_bytes())
                    .map_err(|e| bad("the CSR's public key", e))?;
            let signature = DerSignature::try_from(csr.signature.raw_bytes())
                .map_err(|e| bad("the CSR's signature", e))?;
            let signed = csr.info.to_der().map_err(|e| bad("the CSR", e))?;
            key.verify(&signed, &signature)
                .map_err(|e| bad("the CSR's signature does not verify", e))?;
        }
        let mut alt_names = None;
        for attribute in csr.info.attributes.iter() {
            if attribute.oid != EXTENSION_REQUEST {
                continue;
            }
            for value in attribute.values.iter() {
                let der = value.to_der().map_err(|e| bad("the CSR's extensions", e))?;
                let extensions =
                    ExtensionReq::from_der(&der).map_err(|e| bad("the CSR's extensions", e))?;
                for extension in extensions.0 {
                    if extension.extn_id == SUBJECT_ALT_NAME {
                        alt_names = Some(
                            SubjectAltName::from_der(extension.extn_value.as_bytes())
                                .map_err(|e| bad("the CSR's subject alternative names", e))?,
                        );
                    }
                }
            }
        }
        Ok(Request {
            subject: csr.info.subject,
            public_key: csr.info.public_key,
            alt_names,
        })
    }

    /// The subject's common name, when it has one.
    pub fn common_name(&self) -> Option<String> {
        self.subject
            .0
            .iter()
            .flat_map(|rdn| rdn.0.iter())
            .find_map(|atv| {
                (atv.oid == COMMON_NAME)
                    .then(|| {
                        std::str::from_utf8(atv.value.value())
                            .ok()
                            .map(str::to_string)
                    })
                    .flatten()
            })
    }
}

/// A self-signed certificate authority: its key and its certificate.
#[derive(Debug, Clone)]
pub struct Ca {
    key: PrivateKey,
    certificate: String,
}

fn serial() -> Result<SerialNumber, Error> {
    let mut b = [0u8; 16];
    OsRng.fill_bytes(&mut b);
    // Positive, as RFC 5280 asks.
    b[0] &= 0x7f;
    SerialNumber::new(&b).map_err(|e| bad("a serial number", e))
}

fn days(n: u32) -> Result<Validity, Error> {
    Validity::from_now(Duration::from_secs(u64::from(n) * 86_400))
        .map_err(|e| bad("a validity period", e))
}

impl Ca {
    /// A new CA called `common_name`, valid for `valid_days` from now.
    pub fn generate(common_name: &str, valid_days: u32) -> Result<Self, Error> {
        let key = PrivateKey::generate();
        let subject = RdnSequence(vec![utf8(COMMON_NAME, common_name)?]);
        let builder = CertificateBuilder::new(
            Profile::Root,
            serial()?,
            days(valid_days)?,
            subject,
            key.public()?,
            &key.0,
        )
        .map_err(|e| bad("building the CA", e))?;
        let certificate = signed_pem(builder, "the CA")?;
        Ok(Ca { key, certificate })
    }

    /// A CA kept before: its key and its certificate, PEM.
    pub fn from_pem(key: &str, certificate: &str) -> Result<Self, Error> {
        Certificate::from_pem(certificate.trim()).map_err(|e| bad("reading the CA", e))?;
        Ok(Ca {
            key: PrivateKey::from_pem(key)?,
            certificate: certificate.to_string(),
        })
    }

    /// The CA's certificate, PEM.
    pub fn certificate(&self) -> &str {
        &self.certificate
    }

    /// The CA's key.
    pub fn key(&self) -> &PrivateKey {
        &self.key
    }

    /// A leaf certificate (PEM) for the CSR `csr`, valid for `valid_days`
    /// from now, with the CSR's subject, key and DNS names.
    pub fn sign(&self, csr: &str, valid_days: u32) -> Result<String, Error> {
        let request = Request::parse(csr)?;
        let issuer = Certificate::from_pem(self.certificate.trim())
            .map_err(|e| bad("reading the CA", e))?
            .tbs_certificate
            .subject;
        let profile = Profile::Leaf {
            issuer,
            enable_key_agreement: false,
            enable_key_encipherment: true,
        };
        let mut builder = CertificateBuilder::new(
            profile,
            serial()?,
            days(valid_days)?,
            request.subject,
            request.public_key,
            &self.key.0,
        )
        .map_err(|e| bad("building a certificate", e))?;
        if let Some(names) = &request.alt_names {
            builder
                .add_extension(names)
                .map_err(|e| bad("the certificate's subject alternative names", e))?;
        }
        signed_pem(builder, "a certificate")
    }
}

/// When a certificate (PEM) starts and stops being valid, seconds since
/// the epoch.
pub fn validity(certificate: &str) -> Result<(u64, u64), Error> {
    let cert =
        Certificate::from_pem(certificate.trim()).map_err(|e| bad("reading a certificate", e))?;
    let v = cert.tbs_certificate.validity;
    Ok((
        v.not_before.to_unix_duration().as_secs(),
        v.not_after.to_unix_duration().as_secs(),
    ))
}

/// Whether the certificate (PEM) holds `key`'s public key.
pub fn matches_key(certificate: &str, key: &PrivateKey) -> Result<bool, Error> {
    let cert =
        Certificate::from_pem(certificate.trim()).map_err(|e| bad("reading a certificate", e))?;
    Ok(cert.tbs_certificate.subject_public_key_info == key.public()?)
}

/// When to ask for a new certificate: nine tenths of the way through its
/// validity, the library's default (`renewal_relative_time = 0.9`), or
/// `notice_hours` before it ends when the provider recommends it, never
/// before half-way.
///
/// ```
/// use wasm_charm::interfaces::tls::x509::renewal_time;
///
/// assert_eq!(renewal_time(0, 1000, None), 900);
/// assert_eq!(renewal_time(0, 100 * 3600, Some(20)), 80 * 3600);
/// assert_eq!(renewal_time(0, 100 * 3600, Some(99)), 50 * 3600);
/// ```
pub fn renewal_time(not_before: u64, not_after: u64, notice_hours: Option<i64>) -> u64 {
    let span = not_after.saturating_sub(not_before);
    let earliest = not_before + span / 2;
    let at = match notice_hours {
        Some(h) if h > 0 => not_after.saturating_sub(h.unsigned_abs().saturating_mul(3600)),
        _ => not_before + span / 10 * 9 + span % 10 * 9 / 10,
    };
    at.max(earliest).min(not_after)
}

/// `at` (seconds since the epoch) as RFC 3339 UTC, what `secret-set
/// --expire` takes; X.509's years (to 9999), as der's `DateTime` has them.
///
/// ```
/// use wasm_charm::interfaces::tls::x509::rfc3339;
///
/// assert_eq!(rfc3339(0)?, "1970-01-01T00:00:00Z");
/// assert_eq!(rfc3339(1_700_000_000)?, "2023-11-14T22:13:20Z");
/// assert!(rfc3339(u64::MAX).is_err());
/// # Ok::<(), wasm_charm::Error>(())
/// ```
pub fn rfc3339(at: u64) -> Result<String, Error> {
    DateTime::from_unix_duration(Duration::from_secs(at))
        .map(|t| t.to_string())
        .map_err(|e| bad(&format!("time {at}"), e))
}
