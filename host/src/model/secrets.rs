//! Secrets as Juju's `secret-*` hook tools take them (juju-protocol §2.18;
//! `jujuc/secret-*.go`, ops' `hookcmds/_secret.py`): the argv of each call,
//! content passed as `key#file=<path>` so that no value is ever in argv, and
//! the requests of one event Juju applies only when the hook succeeds.

use crate::bindings::model::ModelError;
use crate::bindings::secrets::{SecretInfo, SecretOptions, SecretRotate};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;

/// Bytes of keys and values one secret's content may hold. Juju refuses
/// content whose values, base64-encoded, pass 1,000,000 bytes ("base64
/// encoded secret content too large"); 750,000 raw bytes encode to exactly
/// that, so a secret the host lets through is one Juju takes.
pub const MAX_SECRET_CONTENT: usize = 750_000;
/// Keys one secret's content may hold.
pub const MAX_SECRET_KEYS: usize = 256;
/// Secret requests (`secret-set`, `-grant`, `-revoke`, `-remove`) one event
/// may leave pending, all handlers together: each is one tool call.
pub const MAX_SECRET_REQUESTS_PER_EVENT: usize = 64;
/// Content bytes the pending `secret-set` requests of one event may hold.
pub const MAX_SECRET_BYTES_PER_EVENT: usize = 4 << 20;
/// Longest id, label, description or expiry the host passes in argv.
pub const MAX_SECRET_ARG: usize = 4096;

/// One buffered `secret-set`, `secret-grant`, `secret-revoke` or
/// `secret-remove`, sent at the end of the event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SecretRequest {
    pub tool: &'static str,
    /// The flags and `-- <id>`; content follows as `key#file=` arguments.
    pub args: Vec<String>,
    pub content: Option<Vec<(String, String)>>,
    /// The secret's bare id (`cq3…`), which the event's reads overlay
    /// with this request.
    pub id: String,
    /// What the request changes of the secret's metadata, as
    /// `secret-info-get` shows it (`secret-set`), or its removal whole
    /// (`secret-remove` without a revision).
    pub change: Option<InfoChange>,
}

/// A pending change of a secret's metadata, which Juju's reads show
/// before the hook commits it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InfoChange {
    pub label: Option<String>,
    pub description: Option<String>,
    pub rotation: Option<String>,
    /// The whole secret removed.
    pub removed: bool,
}

impl InfoChange {
    /// The change `secret-set`'s options make.
    pub fn of(options: &SecretOptions) -> InfoChange {
        InfoChange {
            label: options.label.clone(),
            description: options.description.clone(),
            rotation: options.rotate.map(|r| rotate_name(r).to_string()),
            removed: false,
        }
    }

    /// Show the change in `info`.
    pub fn apply(&self, info: &mut SecretInfo) {
        if let Some(l) = &self.label {
            info.label = Some(l.clone());
        }
        if let Some(d) = &self.description {
            info.description = Some(d.clone());
        }
        if let Some(r) = &self.rotation {
            info.rotation = Some(r.clone());
        }
    }
}

/// A secret id in the one form the guest sees: `secret:<id>`, whether
/// Juju spelled it bare (`cq3…`, as `secret-ids` and `secret-info-get`
/// do), as a URI, or with the model's UUID (`secret://<uuid>/<id>`).
pub fn uri(id: &str) -> String {
    format!("secret:{}", bare_id(id))
}

/// The id without its `secret:` scheme or model UUID.
pub fn bare_id(id: &str) -> &str {
    match id.strip_prefix("secret://") {
        Some(rest) => rest.rsplit('/').next().unwrap_or(rest),
        None => id.strip_prefix("secret:").unwrap_or(id),
    }
}

impl SecretRequest {
    pub fn content_bytes(&self) -> usize {
        self.content.as_deref().map_or(0, content_bytes)
    }
}

pub fn content_bytes(content: &[(String, String)]) -> usize {
    content.iter().map(|(k, v)| k.len() + v.len()).sum()
}

/// Juju's content key rule (`coresecrets` and ops' `_validate_content`):
/// `^[a-z](-?[a-z0-9]){2,}$`.
pub fn is_secret_key(key: &str) -> bool {
    let b = key.as_bytes();
    if b.len() < 3 || !b[0].is_ascii_lowercase() {
        return false;
    }
    let mut units = 1;
    let mut i = 1;
    while i < b.len() {
        if b[i] == b'-' {
            i += 1;
        }
        match b.get(i) {
            Some(c) if c.is_ascii_lowercase() || c.is_ascii_digit() => units += 1,
            _ => return false,
        }
        i += 1;
    }
    units >= 3
}

/// Check content as Juju does before any tool runs: not empty, every key
/// by Juju's rule and given once, within the host's bounds.
pub fn check_content(content: &[(String, String)]) -> Result<(), ModelError> {
    let bad = |m: String| Err(ModelError::InvalidArgument(m));
    if content.is_empty() {
        return bad("a secret's content cannot be empty".into());
    }
    if content.len() > MAX_SECRET_KEYS {
        return bad(format!(
            "a secret holds at most {MAX_SECRET_KEYS} keys (MAX_SECRET_KEYS), not {}",
            content.len()
        ));
    }
    let mut seen = std::collections::BTreeSet::new();
    for (k, _) in content {
        if !is_secret_key(k) {
            return bad(format!(
                "invalid secret key `{}`: lowercase letters, digits and single dashes, at least 3 characters, starting with a letter",
                k.escape_debug()
            ));
        }
        if !seen.insert(k.as_str()) {
            return bad(format!("secret key `{k}` is given twice"));
        }
    }
    let size = content_bytes(content);
    if size > MAX_SECRET_CONTENT {
        return bad(format!(
            "secret content of {size} bytes is over the host's {MAX_SECRET_CONTENT} (MAX_SECRET_CONTENT)"
        ));
    }
    Ok(())
}

/// Check a value the host passes as one argv element (`what`: id, label…).
pub fn check_arg(what: &str, value: &str) -> Result<(), ModelError> {
    if value.is_empty()
        || value.len() > MAX_SECRET_ARG
        || value.starts_with('-')
        || value.contains('\0')
    {
        return Err(ModelError::InvalidArgument(format!(
            "`{}` is not a secret {what} (1 to {MAX_SECRET_ARG} bytes, no NUL, not starting with `-`)",
            value.escape_debug()
        )));
    }
    Ok(())
}

fn rotate_name(r: SecretRotate) -> &'static str {
    match r {
        SecretRotate::Never => "never",
        SecretRotate::Hourly => "hourly",
        SecretRotate::Daily => "daily",
        SecretRotate::Weekly => "weekly",
        SecretRotate::Monthly => "monthly",
        SecretRotate::Quarterly => "quarterly",
        SecretRotate::Yearly => "yearly",
    }
}

/// The metadata flags of `secret-add` and `secret-set`, checked.
pub fn option_args(options: &SecretOptions) -> Result<Vec<String>, ModelError> {
    let mut args = Vec::new();
    if let Some(l) = &options.label {
        check_arg("label", l)?;
        args.extend(["--label".to_string(), l.clone()]);
    }
    if let Some(d) = &options.description {
        // A description is free text: `--description=<d>` keeps a leading
        // dash from reading as a flag.
        if d.len() > MAX_SECRET_ARG || d.contains('\0') {
            return Err(ModelError::InvalidArgument(format!(
                "a secret description is at most {MAX_SECRET_ARG} bytes, without NUL"
            )));
        }
        args.push(format!("--description={d}"));
    }
    if let Some(e) = &options.expire {
        check_arg("expiry", e)?;
        args.extend(["--expire".to_string(), e.clone()]);
    }
    if let Some(r) = options.rotate {
        args.extend(["--rotate".to_string(), rotate_name(r).to_string()]);
    }
    Ok(args)
}

/// Write `content` into a fresh private directory, one file per key
/// (mode 0600), and give the `key#file=<path>` arguments naming them: the
/// values never appear in argv, as ops does it. The directory goes when the
/// returned guard drops.
pub fn content_files(
    content: &[(String, String)],
) -> std::io::Result<(tempfile::TempDir, Vec<String>)> {
    let dir = tempfile::Builder::new()
        .prefix("wasm-charm-secret-")
        .tempdir()?;
    let mut args = Vec::with_capacity(content.len());
    for (k, v) in content {
        // Keys are checked: `[a-z0-9-]`, a safe file name.
        let path = dir.path().join(k);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)?;
        f.write_all(v.as_bytes())?;
        args.push(format!("{k}#file={}", path.display()));
    }
    Ok((dir, args))
}

/// `secret-info-get --format=json`: `{"<id>": {…}}`.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct InfoJson {
    label: String,
    revision: i64,
    description: String,
    owner: String,
    expiry: String,
    rotation: String,
    rotates: String,
}

fn non_empty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

/// The one secret of a `secret-info-get` answer.
pub fn parse_info(raw: BTreeMap<String, InfoJson>) -> Option<SecretInfo> {
    let (id, i) = raw.into_iter().next()?;
    Some(SecretInfo {
        id: uri(&id),
        label: non_empty(i.label),
        revision: i.revision,
        description: non_empty(i.description),
        owner: non_empty(i.owner),
        expiry: non_empty(i.expiry),
        rotation: non_empty(i.rotation),
        rotates: non_empty(i.rotates),
    })
}

/// `secret-get --format=json`: a map of key to value, sorted.
pub fn parse_content(raw: Option<BTreeMap<String, String>>) -> Vec<(String, String)> {
    raw.unwrap_or_default().into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_jujus_rule() {
        for ok in ["abc", "pass-word", "a1b", "tls-key2"] {
            assert!(is_secret_key(ok), "{ok}");
        }
        for bad in [
            "", "ab", "a-b", "Abc", "1abc", "a--bc", "abc-", "-abc", "a_bc", "a.bc",
        ] {
            assert!(!is_secret_key(bad), "{bad}");
        }
    }

    #[test]
    fn content_is_checked_before_any_tool_runs() {
        let c = |k: &str| vec![(k.to_string(), "v".to_string())];
        assert!(check_content(&c("password")).is_ok());
        assert!(check_content(&[]).is_err());
        assert!(check_content(&c("PW")).is_err());
        let twice = [c("abc"), c("abc")].concat();
        assert!(check_content(&twice).is_err());
        let big = vec![("abc".to_string(), "x".repeat(MAX_SECRET_CONTENT))];
        assert!(check_content(&big).is_err());
    }

    #[test]
    fn options_become_flags() {
        let o = SecretOptions {
            label: Some("db-pass".into()),
            description: Some("-dashed".into()),
            expire: Some("24h".into()),
            rotate: Some(SecretRotate::Daily),
        };
        assert_eq!(
            option_args(&o).unwrap(),
            [
                "--label",
                "db-pass",
                "--description=-dashed",
                "--expire",
                "24h",
                "--rotate",
                "daily"
            ]
        );
        let bad = SecretOptions {
            label: Some("-x".into()),
            description: None,
            expire: None,
            rotate: None,
        };
        assert!(option_args(&bad).is_err());
    }

    #[test]
    fn content_travels_in_private_files() {
        use std::os::unix::fs::PermissionsExt as _;
        let content = vec![("password".to_string(), "s3cr=t\n".to_string())];
        let (dir, args) = content_files(&content).unwrap();
        assert_eq!(args.len(), 1);
        let path = args[0].strip_prefix("password#file=").unwrap();
        assert_eq!(std::fs::read_to_string(path).unwrap(), "s3cr=t\n");
        let mode = std::fs::metadata(path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let dir_path = dir.path().to_path_buf();
        drop(dir);
        assert!(!dir_path.exists());
    }

    #[test]
    fn info_json_is_read() {
        let raw: BTreeMap<String, InfoJson> = serde_json::from_str(
            r#"{"secret:abc": {"revision": 2, "label": "db", "owner": "application", "rotation": "never"}}"#,
        )
        .unwrap();
        let info = parse_info(raw).unwrap();
        assert_eq!(info.id, "secret:abc");
        assert_eq!(info.revision, 2);
        assert_eq!(info.label.as_deref(), Some("db"));
        assert_eq!(info.description, None);
        assert_eq!(info.rotation.as_deref(), Some("never"));
    }
}
