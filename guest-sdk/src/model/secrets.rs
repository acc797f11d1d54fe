//! Secrets: `secret-get`, `secret-info-get`, `secret-add`, `secret-set`,
//! `secret-grant`, `secret-revoke`, `secret-remove`, `secret-ids`, with
//! ops' names ([`secret_get`], [`Secret::get_content`],
//! [`Secret::peek_content`], [`Secret::set_content`], [`add_secret`]).
//!
//! [`add_secret`] runs at the call (its answer is the new id); the writes
//! of a [`Secret`] (`set_*`, `grant`, `revoke`, `remove_*`) are kept only if
//! the handler returns and sent at the end of the event, as Juju applies
//! them when the hook succeeds.
//!
//! ```no_run
//! use wasm_charm::model::{self, SecretOptions, SecretOwner};
//!
//! let secret = model::secret_get(None, Some("db-password"))?;
//! let content = secret.get_content(false)?;
//! let id = model::add_secret(&[("password", "hunter2")], SecretOptions::default(), SecretOwner::Application)?;
//! # Ok::<(), wasm_charm::model::ModelError>(())
//! ```

use std::collections::BTreeMap;

use super::{ModelError, wit};
use crate::RelationRef;

pub use crate::__bindings::wasm_charm::charm::model::{
    SecretInfo, SecretOptions, SecretOwner, SecretRead, SecretRotate,
};

impl Default for SecretOptions {
    fn default() -> Self {
        SecretOptions {
            label: None,
            description: None,
            expire: None,
            rotate: None,
        }
    }
}

/// A secret, named by its id, its label, or both (ops' `Secret`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secret {
    /// Its id (`secret:…`), if known.
    pub id: Option<String>,
    /// Its label, if known.
    pub label: Option<String>,
}

fn owned(content: &[(&str, &str)]) -> Vec<(String, String)> {
    content
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The secret with this id and/or label (ops' `model.get_secret(id=,
/// label=)`): checked to exist by reading its content, as ops does.
pub fn secret_get(id: Option<&str>, label: Option<&str>) -> Result<Secret, ModelError> {
    let secret = Secret {
        id: id.map(str::to_string),
        label: label.map(str::to_string),
    };
    secret.get_content(false)?;
    Ok(secret)
}

/// Create a secret (ops' `app.add_secret` / `unit.add_secret`); its id.
pub fn add_secret(
    content: &[(&str, &str)],
    options: SecretOptions,
    owner: SecretOwner,
) -> Result<String, ModelError> {
    wit::secret_add(&owned(content), &options, owner)
}

/// The ids of the secrets this unit or application owns.
pub fn secret_ids() -> Result<Vec<String>, ModelError> {
    wit::secret_ids()
}

impl Secret {
    fn read(&self, read: SecretRead) -> Result<BTreeMap<String, String>, ModelError> {
        Ok(
            wit::secret_get(self.id.as_deref(), self.label.as_deref(), read)?
                .into_iter()
                .collect(),
        )
    }

    fn id(&self) -> Result<&str, ModelError> {
        self.id.as_deref().ok_or_else(|| {
            ModelError::InvalidArgument(
                "this secret is known by its label only; write by id".into(),
            )
        })
    }

    /// The content of the revision this unit tracks; `refresh`: the
    /// latest, tracked from now on.
    pub fn get_content(&self, refresh: bool) -> Result<BTreeMap<String, String>, ModelError> {
        self.read(if refresh {
            SecretRead::Refresh
        } else {
            SecretRead::Current
        })
    }

    /// The latest revision's content, without tracking it.
    pub fn peek_content(&self) -> Result<BTreeMap<String, String>, ModelError> {
        self.read(SecretRead::Peek)
    }

    /// The secret's metadata (owner only).
    pub fn get_info(&self) -> Result<SecretInfo, ModelError> {
        wit::secret_info_get(self.id.as_deref(), self.label.as_deref())
    }

    /// A new revision with this content (buffered).
    pub fn set_content(&self, content: &[(&str, &str)]) -> Result<(), ModelError> {
        wit::secret_set(self.id()?, Some(&owned(content)), &SecretOptions::default())
    }

    /// New metadata (buffered).
    pub fn set_info(&self, options: SecretOptions) -> Result<(), ModelError> {
        wit::secret_set(self.id()?, None, &options)
    }

    /// Let a relation's application, or one unit of it, read the secret.
    pub fn grant(&self, relation: &RelationRef, unit: Option<&str>) -> Result<(), ModelError> {
        wit::secret_grant(self.id()?, relation, unit)
    }

    /// Take back a grant.
    pub fn revoke(&self, relation: &RelationRef, unit: Option<&str>) -> Result<(), ModelError> {
        wit::secret_revoke(self.id()?, relation, unit)
    }

    /// Remove one revision (ops' `remove_revision`).
    pub fn remove_revision(&self, revision: u32) -> Result<(), ModelError> {
        wit::secret_remove(self.id()?, Some(revision))
    }

    /// Remove every revision (ops' `remove_all_revisions`).
    pub fn remove_all_revisions(&self) -> Result<(), ModelError> {
        wit::secret_remove(self.id()?, None)
    }
}
