//! The WIT `secrets` interface, answered by the event's [`Model`]: reads at
//! the call (`current` content and info cached for the event, and shown
//! with this event's own changes, as Juju shows them), `secret-add` at the
//! call since its id is its answer, and the other writes checked at the
//! call by Juju's rules (the charm owns the secret; an application's secret
//! needs leadership) and then buffered in the running handler's
//! transaction. Content travels in private files, never in argv.

use super::Model;
use super::errors::failure;
use super::host_config::is_leader;
use super::names::{check_unit_name, rel_arg};
use super::secrets::{self, InfoChange, SecretRequest};
use super::tool_calls::Caller;
use crate::bindings::RelationRef;
use crate::bindings::model::ModelError;
use crate::bindings::secrets::{Host, SecretInfo, SecretOptions, SecretOwner, SecretRead};
use wasmtime::component::{HasSelf, Linker};

impl Host for Model {
    fn secret_get(
        &mut self,
        id: Option<String>,
        label: Option<String>,
        read: SecretRead,
    ) -> Result<Vec<(String, String)>, ModelError> {
        secret_get(self, id, label, read)
    }

    fn secret_info_get(
        &mut self,
        id: Option<String>,
        label: Option<String>,
    ) -> Result<SecretInfo, ModelError> {
        secret_info_get(self, id, label)
    }

    fn secret_add(
        &mut self,
        content: Vec<(String, String)>,
        options: SecretOptions,
        owner: SecretOwner,
    ) -> Result<String, ModelError> {
        secret_add(self, content, options, owner)
    }

    fn secret_set(
        &mut self,
        id: String,
        content: Option<Vec<(String, String)>>,
        options: SecretOptions,
    ) -> Result<(), ModelError> {
        secret_set(self, id, content, options)
    }

    fn secret_grant(
        &mut self,
        id: String,
        relation: RelationRef,
        unit: Option<String>,
    ) -> Result<(), ModelError> {
        secret_access(self, true, id, relation, unit)
    }

    fn secret_revoke(
        &mut self,
        id: String,
        relation: RelationRef,
        unit: Option<String>,
    ) -> Result<(), ModelError> {
        secret_access(self, false, id, relation, unit)
    }

    fn secret_remove(&mut self, id: String, revision: Option<u32>) -> Result<(), ModelError> {
        secret_remove(self, id, revision)
    }

    fn secret_ids(&mut self) -> Result<Vec<String>, ModelError> {
        secret_ids(self)
    }
}

/// Register the `secrets` interface, answered by the event's [`Model`] that
/// `get` finds in an instance's state.
pub fn add_to_linker<T: 'static>(
    linker: &mut Linker<T>,
    get: fn(&mut T) -> &mut Model,
) -> wasmtime::Result<()> {
    crate::bindings::secrets::add_to_linker::<T, HasSelf<Model>>(linker, get)
}
use std::collections::BTreeMap;

impl Model {
    /// Run a secret tool: its flags and `-- <id>`, then its content as
    /// `key#file=` arguments naming private files removed after the call.
    pub(super) fn run_secret(
        &mut self,
        caller: Caller,
        request: &SecretRequest,
    ) -> Result<Vec<u8>, ModelError> {
        let tool = request.tool;
        let mut args: Vec<String> = request.args.clone();
        let _files = match &request.content {
            Some(content) => {
                let (dir, files) = secrets::content_files(content).map_err(|e| {
                    failure(
                        tool,
                        -1,
                        format!("cannot write the secret's content for {tool}: {e}"),
                    )
                })?;
                args.extend(files);
                Some(dir)
            }
            None => None,
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.run_as(caller, tool, &args, None)
    }
}

/// The `--label <label>` and `-- <id>` that name a secret for a read.
fn lookup_args(id: &Option<String>, label: &Option<String>) -> Result<Vec<String>, ModelError> {
    let mut args = Vec::new();
    if let Some(l) = label {
        secrets::check_arg("label", l)?;
        args.extend(["--label".to_string(), l.clone()]);
    }
    match id {
        Some(id) => {
            secrets::check_arg("id", id)?;
            args.extend(["--".to_string(), id.clone()]);
        }
        None if label.is_none() => {
            return Err(ModelError::InvalidArgument(
                "a secret is named by its id, its label, or both; neither was given".into(),
            ));
        }
        None => {}
    }
    Ok(args)
}

/// `--relation <endpoint:id> [--unit <unit>] -- <id>` of grant and
/// revoke, checked: a relation of the charm's endpoints, a unit name.
fn access_args(
    m: &Model,
    id: &str,
    relation: &RelationRef,
    unit: Option<String>,
) -> Result<Vec<String>, ModelError> {
    secrets::check_arg("id", id)?;
    m.facts.check_endpoint(&relation.endpoint)?;
    let mut args = vec!["--relation".to_string(), rel_arg(relation)];
    if let Some(u) = unit {
        check_unit_name(&u)?;
        args.extend(["--unit".to_string(), u]);
    }
    args.extend(["--".to_string(), id.to_string()]);
    Ok(args)
}

fn secret_get(
    m: &mut Model,
    id: Option<String>,
    label: Option<String>,
    read: SecretRead,
) -> Result<Vec<(String, String)>, ModelError> {
    let lookup = lookup_args(&id, &label)?;
    let key = (id, label);
    if read == SecretRead::Current
        && let Some(c) = m.cache.secret_content.get(&key)
    {
        return Ok(c.clone());
    }
    let mut args = vec!["--format=json"];
    match read {
        SecretRead::Current => {}
        SecretRead::Peek => args.push("--peek"),
        SecretRead::Refresh => args.push("--refresh"),
    }
    args.extend(lookup.iter().map(String::as_str));
    let raw: Option<BTreeMap<String, String>> = m.json(Caller::Guest, "secret-get", &args)?;
    let content = secrets::parse_content(raw);
    // After a refresh the unit tracks the latest revision: later current
    // reads in this event answer it, as Juju's do.
    if read != SecretRead::Peek {
        m.cache.secret_content.insert(key, content.clone());
    }
    Ok(content)
}

fn secret_info_get(
    m: &mut Model,
    id: Option<String>,
    label: Option<String>,
) -> Result<SecretInfo, ModelError> {
    // Unlike secret-get, secret-info-get refuses an id and a label
    // together (exit 2): the id names the secret alone.
    let by = if id.is_some() { None } else { label.clone() };
    let lookup = lookup_args(&id, &by)?;
    let key = (id, label);
    let mut info = match m.cache.secret_info.get(&key) {
        Some(i) => i.clone(),
        None => read_info(m, &lookup, &key)?,
    };
    let bare = secrets::bare_id(&info.id).to_string();
    for change in m.transaction.secret_changes(&bare) {
        if change.removed {
            return Err(not_found(&info.id));
        }
        change.apply(&mut info);
    }
    Ok(info)
}

/// `secret-info-get` at Juju, once per secret and event.
fn read_info(
    m: &mut Model,
    lookup: &[String],
    key: &(Option<String>, Option<String>),
) -> Result<SecretInfo, ModelError> {
    let mut args = vec!["--format=json"];
    args.extend(lookup.iter().map(String::as_str));
    let raw: BTreeMap<String, secrets::InfoJson> =
        m.json(Caller::Guest, "secret-info-get", &args)?;
    let info = secrets::parse_info(raw).ok_or_else(|| {
        ModelError::NotFound(format!(
            "secret-info-get answered no secret for {}",
            key.0.as_deref().or(key.1.as_deref()).unwrap_or_default()
        ))
    })?;
    m.cache.secret_info.insert(key.clone(), info.clone());
    Ok(info)
}

/// Juju's words for a secret the charm does not own, or removed.
fn not_found(id: &str) -> ModelError {
    ModelError::NotFound(format!("secret {:?} not found", secrets::bare_id(id)))
}

/// Juju's check of a change to secret `id` at the call: the charm owns it
/// (it was added in this event, or `secret-info-get` finds it), and an
/// application's secret is changed by the leader only.
fn check_owner(m: &mut Model, id: &str) -> Result<(), ModelError> {
    let bare = secrets::bare_id(id).to_string();
    let owner = match m.cache.created_secrets.get(&bare) {
        Some(owner) => *owner,
        None => match secret_info_get(m, Some(id.to_string()), None) {
            Ok(info) if info.owner.as_deref() == Some("unit") => SecretOwner::Unit,
            Ok(_) => SecretOwner::Application,
            Err(ModelError::NotFound(_)) => return Err(not_found(id)),
            Err(e) => return Err(e),
        },
    };
    if owner == SecretOwner::Application && !is_leader(m, Caller::Guest)? {
        return Err(ModelError::NotLeader("this unit is not the leader".into()));
    }
    Ok(())
}

fn secret_add(
    m: &mut Model,
    content: Vec<(String, String)>,
    options: SecretOptions,
    owner: SecretOwner,
) -> Result<String, ModelError> {
    secrets::check_content(&content)?;
    let mut args = secrets::option_args(&options)?;
    if owner == SecretOwner::Unit {
        args.extend(["--owner".to_string(), "unit".to_string()]);
    }
    let request = SecretRequest {
        tool: "secret-add",
        args,
        content: Some(content),
        ..SecretRequest::default()
    };
    let out = m.run_secret(Caller::Guest, &request)?;
    let uri = String::from_utf8_lossy(&out).trim().to_string();
    if uri.is_empty() {
        return Err(failure(
            "secret-add",
            0,
            "secret-add answered no secret id".into(),
        ));
    }
    m.cache.secret_ids = None;
    let uri = secrets::uri(&uri);
    m.cache
        .created_secrets
        .insert(secrets::bare_id(&uri).to_string(), owner);
    Ok(uri)
}

fn secret_set(
    m: &mut Model,
    id: String,
    content: Option<Vec<(String, String)>>,
    options: SecretOptions,
) -> Result<(), ModelError> {
    secrets::check_arg("id", &id)?;
    if let Some(c) = &content {
        secrets::check_content(c)?;
    }
    let mut args = secrets::option_args(&options)?;
    if content.is_none() && args.is_empty() {
        return Err(ModelError::InvalidArgument(
            "secret-set needs new content or new metadata; neither was given".into(),
        ));
    }
    check_owner(m, &id)?;
    let bare = secrets::bare_id(&id).to_string();
    args.extend(["--".to_string(), id]);
    m.transaction.request_secret(SecretRequest {
        tool: "secret-set",
        args,
        content,
        id: bare,
        change: Some(InfoChange::of(&options)),
    })
}

/// Buffer `secret-grant` (`grant`) or `secret-revoke` of the running handler.
fn secret_access(
    m: &mut Model,
    grant: bool,
    id: String,
    relation: RelationRef,
    unit: Option<String>,
) -> Result<(), ModelError> {
    if let Some(u) = &unit
        && let Some(app) = super::host_relations::remote_app(m, &relation)?
        && u.split('/').next() != Some(app.as_str())
    {
        // Juju's words, at the call (exit 2 of secret-grant/-revoke).
        return Err(ModelError::InvalidArgument(format!(
            "cannot specify unit \"{u}\" in relation to application \"{app}\""
        )));
    }
    let args = access_args(m, &id, &relation, unit)?;
    check_owner(m, &id)?;
    m.transaction.request_secret(SecretRequest {
        tool: if grant {
            "secret-grant"
        } else {
            "secret-revoke"
        },
        args,
        id: secrets::bare_id(&id).to_string(),
        ..SecretRequest::default()
    })
}

fn secret_remove(m: &mut Model, id: String, revision: Option<u32>) -> Result<(), ModelError> {
    secrets::check_arg("id", &id)?;
    let mut args = Vec::new();
    if let Some(r) = revision {
        if r == 0 {
            return Err(ModelError::InvalidArgument(
                "secret revisions start at 1".into(),
            ));
        }
        args.extend(["--revision".to_string(), r.to_string()]);
    }
    check_owner(m, &id)?;
    let bare = secrets::bare_id(&id).to_string();
    args.extend(["--".to_string(), id]);
    m.transaction.request_secret(SecretRequest {
        tool: "secret-remove",
        args,
        id: bare,
        change: revision.is_none().then(|| InfoChange {
            removed: true,
            ..InfoChange::default()
        }),
        ..SecretRequest::default()
    })
}

fn secret_ids(m: &mut Model) -> Result<Vec<String>, ModelError> {
    let ids = match &m.cache.secret_ids {
        Some(ids) => ids.clone(),
        None => {
            let ids: Option<Vec<String>> =
                m.json(Caller::Guest, "secret-ids", &["--format=json"])?;
            // Juju 3 prints bare ids (`cq3…`); the guest gets the `secret:`
            // URIs every other secret call and event carries.
            let ids: Vec<String> = ids
                .unwrap_or_default()
                .iter()
                .map(|id| secrets::uri(id))
                .collect();
            m.cache.secret_ids = Some(ids.clone());
            ids
        }
    };
    let mut ids: Vec<String> = ids
        .into_iter()
        .filter(|id| {
            !m.transaction
                .secret_changes(secrets::bare_id(id))
                .any(|c| c.removed)
        })
        .collect();
    ids.sort();
    ids.dedup();
    Ok(ids)
}
