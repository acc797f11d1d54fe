//! Secrets on the simulated Juju (reference §2.18; `jujuc/secret-*.go` and
//! the hook context's secret recorder, `runner/context/secrets.go`).
//!
//! This file holds the secrets' types, and what a hook's changes become
//! at the commit; the tools are in `tools::secrets`.
//!
//! The state file's `secrets` holds the charm's own secrets (owned by the
//! application or by this unit) and those other applications shared with
//! it. Reads answer at once; the writes of a hook (`secret-add`, `-set`,
//! `-remove`, `-grant`, `-revoke`) wait in [`PendingSecrets`] until
//! `offline::commit` applies them, after a successful hook only, as Juju
//! commits them. As in Juju, the hook sees its own new secrets at once, a
//! new revision of an existing one only with `--peek` or `--refresh`, and
//! its metadata changes in `secret-info-get` and `secret-ids`. What the
//! controller records when it answers a read (the revision a consumer
//! tracks, the label it gives a shared secret) is kept whatever the hook
//! does.

use super::secret_codec::{rotation_interval, uri};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// A secret's content: key to value.
type Bag = BTreeMap<String, String>;

/// One revision of a secret's content.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SimRevision {
    pub revision: u32,
    pub content: Bag,
}

/// One secret the simulated Juju knows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SimSecret {
    /// `application` or `unit` for the charm's own secrets (owned by its
    /// application, or by this unit); for a secret another application
    /// shared with this unit, that application's name.
    pub owner: String,
    /// Its content, revision by revision; the highest is the latest.
    pub revisions: Vec<SimRevision>,
    /// The owner's label, or for a shared secret the one this unit gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// When the latest revision expires (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiry: Option<String>,
    /// The rotation policy (`never`, `hourly`, … `yearly`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<String>,
    /// When it next rotates (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotates: Option<String>,
    /// A shared secret: the revision this unit reads. The first read fixes
    /// it at the latest; `secret-get --refresh` moves it there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracking: Option<u32>,
    /// The charm's own: who may read it, by relation (`db:1`): the related
    /// application, or some of its units.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub grants: BTreeMap<String, BTreeSet<String>>,
}

impl SimSecret {
    /// Whether the charm owns it (rather than reads it from another).
    pub fn is_owned(&self) -> bool {
        matches!(self.owner.as_str(), "application" | "unit")
    }

    pub(in crate::offline) fn latest(&self) -> u32 {
        self.revisions.iter().map(|r| r.revision).max().unwrap_or(0)
    }

    pub(in crate::offline) fn content(&self, revision: u32) -> Option<&Bag> {
        self.revisions
            .iter()
            .find(|r| r.revision == revision)
            .map(|r| &r.content)
    }
}

/// What one `secret-add` or `secret-set` gives, checked; `None`: not given.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(in crate::offline) struct Upsert {
    pub(in crate::offline) content: Option<Bag>,
    pub(in crate::offline) label: Option<String>,
    pub(in crate::offline) description: Option<String>,
    pub(in crate::offline) expiry: Option<String>,
    pub(in crate::offline) rotation: Option<String>,
}

impl Upsert {
    /// Apply to `secret` what a pending change sets besides content:
    /// what `secret-info-get` shows before the commit.
    pub(in crate::offline) fn metadata_into(&self, secret: &mut SimSecret) {
        let set = |field: &mut Option<String>, value: &Option<String>| {
            if value.is_some() {
                field.clone_from(value);
            }
        };
        set(&mut secret.label, &self.label);
        set(&mut secret.description, &self.description);
        set(&mut secret.expiry, &self.expiry);
        set(&mut secret.rotation, &self.rotation);
    }

    /// A later `secret-set` of the same secret in the same hook: what it
    /// gives replaces what the earlier one gave.
    pub(in crate::offline) fn merge(&mut self, later: Upsert) {
        fn take<T>(field: &mut Option<T>, value: Option<T>) {
            if value.is_some() {
                *field = value;
            }
        }
        take(&mut self.content, later.content);
        take(&mut self.label, later.label);
        take(&mut self.description, later.description);
        take(&mut self.expiry, later.expiry);
        take(&mut self.rotation, later.rotation);
    }
}

/// One `secret-grant` or `secret-revoke`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(in crate::offline) struct AccessChange {
    pub(in crate::offline) id: String,
    pub(in crate::offline) grant: bool,
    /// The relation a grant is made in (`db:1`); a revoke takes the
    /// subject's access in every relation.
    pub(in crate::offline) relation: Option<String>,
    /// An application, or a unit.
    pub(in crate::offline) subject: String,
}

/// A hook's secret changes, by secret id (without `secret:`).
/// Serialised only in a hook's session, between the processes of
/// `sim dispatch`'s tools; never in the state file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PendingSecrets {
    pub(in crate::offline) creates: BTreeMap<String, SimSecret>,
    pub(in crate::offline) updates: BTreeMap<String, Upsert>,
    /// The revisions to remove, or all of them (`None`).
    pub(in crate::offline) removes: BTreeMap<String, Option<BTreeSet<u32>>>,
    pub(in crate::offline) access: Vec<AccessChange>,
}

/// When a secret with `rotation` next rotates, from `now`.
fn next_rotation(rotation: Option<&str>, now: u64) -> Option<String> {
    let interval = rotation.and_then(rotation_interval).flatten()?;
    Some(crate::show::utc(now + interval))
}

impl PendingSecrets {
    /// Commit the hook's changes to `secrets`, in Juju's order: new
    /// secrets, updates (a new revision only when the content changed),
    /// removals, then grants and revokes.
    pub fn apply(self, secrets: &mut BTreeMap<String, SimSecret>, now: u64) {
        for (id, mut secret) in self.creates {
            secret.rotates = next_rotation(secret.rotation.as_deref(), now);
            secrets.insert(uri(&id), secret);
        }
        for (id, update) in self.updates {
            let Some(secret) = secrets.get_mut(&uri(&id)) else {
                continue;
            };
            if let Some(content) = &update.content {
                let latest = secret.latest();
                if secret.content(latest) != Some(content) {
                    secret.revisions.push(SimRevision {
                        revision: latest + 1,
                        content: content.clone(),
                    });
                }
            }
            update.metadata_into(secret);
            if update.rotation.is_some() {
                secret.rotates = next_rotation(secret.rotation.as_deref(), now);
            }
        }
        for (id, revisions) in self.removes {
            let key = uri(&id);
            if let (Some(revisions), Some(secret)) = (revisions, secrets.get_mut(&key)) {
                secret
                    .revisions
                    .retain(|r| !revisions.contains(&r.revision));
                if !secret.revisions.is_empty() {
                    continue;
                }
            }
            secrets.remove(&key);
        }
        for change in self.access {
            let Some(secret) = secrets.get_mut(&uri(&change.id)) else {
                continue;
            };
            match (change.grant, change.relation) {
                (true, Some(relation)) => {
                    secret
                        .grants
                        .entry(relation)
                        .or_default()
                        .insert(change.subject);
                }
                _ => {
                    for subjects in secret.grants.values_mut() {
                        subjects.remove(&change.subject);
                    }
                    secret.grants.retain(|_, subjects| !subjects.is_empty());
                }
            }
        }
    }
}
