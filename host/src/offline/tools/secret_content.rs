//! The content `secret-add` and `secret-set` give, as Juju reads it
//! (`CreateSecretData` and its base64 step): `key=value` arguments, files,
//! base64, each key by Juju's rule, within Juju's limits.

use crate::hook_tools::ToolOutput;
use crate::model::secrets::is_secret_key;
use crate::offline::secret_codec::{b64_decode, b64_len};
use std::collections::BTreeMap;

/// Juju's cap on one base64-encoded value, and on a secret's whole
/// content (`core/secrets`: what Vault and Kubernetes both take).
const MAX_ENCODED_CONTENT: usize = 1_000_000;

/// Juju's `CreateSecretData` then its base64 step: `key=value`,
/// `key#base64=<base64>`, `key#file=<path>`; each key by Juju's rule,
/// each encoded value and the whole within Juju's limit. The values come
/// back decoded. Every problem is an argument error (exit 2).
pub(super) fn secret_data(args: &[&str]) -> Result<Vec<(String, Vec<u8>)>, ToolOutput> {
    let bad = |m: String| ToolOutput::error(2, m);
    let mut raw = Vec::new();
    for arg in args {
        // Base64 padding may end a value: it never splits key from value.
        let idx = arg.trim_end_matches('=').find('=').unwrap_or(0);
        if idx < 1 {
            return Err(bad(format!("key value \"{arg}\" not valid")));
        }
        let (key, value) = (&arg[..idx], &arg[idx + 1..]);
        match key.strip_suffix("#file") {
            Some(key) => raw.push((key.to_string(), read_content_file(key, value)?)),
            None => raw.push((key.to_string(), value.as_bytes().to_vec())),
        }
    }
    encoded(raw)
}

/// The content of a `key#file=<path>` argument.
fn read_content_file(key: &str, path: &str) -> Result<Vec<u8>, ToolOutput> {
    let bad = |m: String| ToolOutput::error(2, m);
    if let Ok(meta) = std::fs::metadata(path)
        && meta.len() > MAX_ENCODED_CONTENT as u64
    {
        return Err(bad(format!(
            "secret content in file \"{path}\" too large: {} bytes",
            meta.len()
        )));
    }
    std::fs::read(path).map_err(|e| {
        bad(format!(
            "reading content for secret key \"{key}\": open {path}: {e}"
        ))
    })
}

/// `--file`: a YAML (or JSON) map of key to value; keys may end `#base64`.
pub(super) fn read_data_file(path: &str) -> Result<Vec<(String, Vec<u8>)>, ToolOutput> {
    let bad = |m: String| ToolOutput::error(2, m);
    let text = std::fs::read(path).map_err(|e| bad(format!("open {path}: {e}")))?;
    if text.len() > MAX_ENCODED_CONTENT {
        return Err(bad(format!(
            "secret content in file \"{path}\" too large: {} bytes",
            text.len()
        )));
    }
    let text = String::from_utf8_lossy(&text);
    let map: BTreeMap<String, String> =
        serde_saphyr::from_str(&text).map_err(|e| bad(format!("{path}: {e}")))?;
    encoded(map.into_iter().map(|(k, v)| (k, v.into_bytes())).collect())
}

/// Keys checked and sizes counted as Juju counts them, base64-encoded;
/// `#base64` values decoded.
fn encoded(raw: Vec<(String, Vec<u8>)>) -> Result<Vec<(String, Vec<u8>)>, ToolOutput> {
    let bad = |m: String| ToolOutput::error(2, m);
    let mut total = 0;
    let mut out = Vec::with_capacity(raw.len());
    for (key, value) in raw {
        let (key, value) = match key.strip_suffix("#base64") {
            Some(key) => {
                let text = String::from_utf8_lossy(&value).into_owned();
                // Juju keeps the text and fails only when it is read; the
                // sim stores content decoded, so it refuses it now.
                let decoded = b64_decode(&text).ok_or_else(|| {
                    bad(format!("secret content for key \"{key}\" is not base64"))
                })?;
                (key.to_string(), decoded)
            }
            None => (key, value),
        };
        if !is_secret_key(&key) {
            return Err(bad(format!("key \"{key}\" not valid")));
        }
        let size = b64_len(value.len());
        if size > MAX_ENCODED_CONTENT {
            return Err(bad(format!(
                "base64 encoded secret content for key \"{key}\" too large: {size} bytes"
            )));
        }
        total += size;
        out.push((key, value));
    }
    if total > MAX_ENCODED_CONTENT {
        return Err(bad(format!(
            "base64 encoded secret content too large: {total} bytes"
        )));
    }
    Ok(out)
}
