//! The secret tools of the simulated Juju (reference §2.18;
//! `jujuc/secret-*.go` and the hook context's secret recorder,
//! `runner/context/secrets.go`): reads answer at once, a hook's writes wait
//! in the state's `pending_secrets` until `offline::commit` applies them.

use super::args::{Answer, Args, format, output, parse, relation, unrecognized};
use super::secret_content::{read_data_file, secret_data};
use crate::hook_tools::ToolOutput;
use crate::model::{is_app_name, is_unit_name};
use crate::offline::secret_codec::{
    b64_encode, new_id, parse_expiry, parse_id, rotation_interval, uri,
};
use crate::offline::secrets::{AccessChange, SimRevision, SimSecret, Upsert};
use crate::offline::sim::{Bag, SimState, SimTools};
use std::collections::{BTreeMap, BTreeSet};

/// `secret URI "<arg>" not valid` (exit 2) unless `arg` names a secret.
fn secret_id(arg: &str) -> Result<String, ToolOutput> {
    parse_id(arg).ok_or_else(|| ToolOutput::error(2, format!("secret URI \"{arg}\" not valid")))
}

fn not_found(what: &str) -> ToolOutput {
    ToolOutput::error(1, format!("secret \"{what}\" not found"))
}

/// The flags `secret-add` and `secret-set` share.
const UPSERT_FLAGS: &[&str] = &[
    "--label",
    "--description",
    "--expire",
    "--rotate",
    "--owner",
    "--file",
];

impl SimTools {
    /// The flags and content of `secret-add` and `secret-set`, as Juju's
    /// `Init` checks them (exit 2), and the owner asked for.
    fn upsert(&self, a: &Args, content: &[&str]) -> Result<(Upsert, String), ToolOutput> {
        let mut up = Upsert::default();
        if let Some(spec) = a.flag(&["--expire"]).filter(|s| !s.is_empty()) {
            let at = parse_expiry(spec, self.now).map_err(|e| ToolOutput::error(2, e))?;
            up.expiry = Some(crate::show::utc(at));
        }
        if let Some(policy) = a.flag(&["--rotate"]).filter(|s| !s.is_empty()) {
            if rotation_interval(policy).is_none() {
                return Err(ToolOutput::error(
                    2,
                    format!("rotate policy \"{policy}\" not valid"),
                ));
            }
            up.rotation = Some(policy.to_string());
        }
        let owner = a.flag(&["--owner"]).unwrap_or("application");
        if !matches!(owner, "application" | "unit") {
            return Err(ToolOutput::error(
                2,
                format!("secret owner \"{owner}\" not valid"),
            ));
        }
        let mut data = secret_data(content)?;
        if let Some(file) = a.flag(&["--file"]).filter(|f| !f.is_empty()) {
            data.extend(read_data_file(file)?);
        }
        if !data.is_empty() {
            up.content = Some(
                data.into_iter()
                    .map(|(k, v)| (k, String::from_utf8_lossy(&v).into_owned()))
                    .collect(),
            );
        }
        let text = |flag: &str| {
            a.flag(&[flag])
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        up.label = text("--label");
        up.description = text("--description");
        Ok((up, owner.to_string()))
    }

    /// The charm's own secrets as this hook sees their metadata: the
    /// committed ones with this hook's metadata changes, less those it
    /// removes (any revision: Juju's context leaves them out), and the
    /// ones it added. By id. Only a leader has its application's among
    /// them: Juju's secrets manager gives the others' metadata to leaders
    /// alone (`GetSecretMetadata`), though any unit of the owner may read
    /// the content by its URI.
    fn owned(&self, state: &SimState) -> BTreeMap<String, SimSecret> {
        let pending = &state.pending_secrets;
        let mut view = pending.creates.clone();
        let manages = |s: &SimSecret| s.owner == "unit" || state.model.leader;
        for (key, secret) in state
            .model
            .secrets
            .iter()
            .filter(|(_, s)| s.is_owned() && manages(s))
        {
            let Some(id) = parse_id(key) else { continue };
            if pending.removes.contains_key(&id) {
                continue;
            }
            let mut secret = secret.clone();
            if let Some(update) = pending.updates.get(&id) {
                update.metadata_into(&mut secret);
            }
            view.insert(id, secret);
        }
        view
    }

    /// One of the charm's own secrets, to grant or revoke: a non-leader
    /// holding its application's is told it does not lead.
    fn managed(&self, state: &SimState, id: &str) -> Result<SimSecret, ToolOutput> {
        if let Some(secret) = self.owned(state).remove(id) {
            return Ok(secret);
        }
        match state.model.secrets.get(&uri(id)) {
            Some(secret) if secret.is_owned() => Ok(secret.clone()),
            _ => Err(not_found(id)),
        }
    }

    /// A committed secret the charm may change: its own (exit 1 when
    /// another application owns it), and only by the leader when its
    /// application owns it.
    fn changeable<'s>(&self, state: &'s SimState, id: &str) -> Result<&'s SimSecret, ToolOutput> {
        let secret = state
            .model
            .secrets
            .get(&uri(id))
            .ok_or_else(|| not_found(id))?;
        if !secret.is_owned() {
            return Err(ToolOutput::error(1, "permission denied"));
        }
        leader_for(state, secret)?;
        Ok(secret)
    }

    /// `secret-add [--label L] [--description D] [--expire T] [--rotate P]
    /// [--owner application|unit] [--file F] key=value…`: a new secret,
    /// its URI printed now, created when the hook commits.
    pub(super) fn secret_add(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, UPSERT_FLAGS, &[])?;
        if a.positional.is_empty() && a.flag(&["--file"]).is_none_or(str::is_empty) {
            return Err(ToolOutput::error(2, "missing secret value or filename"));
        }
        let (up, owner) = self.upsert(&a, &a.positional)?;
        let Some(content) = up.content.clone() else {
            return Err(ToolOutput::error(1, "empty secret value not valid"));
        };
        if owner == "application" && !state.model.leader {
            return Err(ToolOutput::error(1, "this unit is not the leader"));
        }
        if let Some(label) = &up.label
            && self
                .owned(state)
                .values()
                .any(|s| s.label.as_ref() == Some(label))
        {
            return Err(ToolOutput::error(
                1,
                format!("secret with label \"{label}\" already exists"),
            ));
        }
        let taken = |id: &String| {
            state.model.secrets.contains_key(&uri(id))
                || state.pending_secrets.creates.contains_key(id)
        };
        let mut n = (state.model.secrets.len() + state.pending_secrets.creates.len()) as u32;
        let mut id = new_id(self.now, n);
        while taken(&id) {
            n += 1;
            id = new_id(self.now, n);
        }
        let mut secret = SimSecret {
            owner,
            revisions: vec![SimRevision {
                revision: 1,
                content,
            }],
            ..SimSecret::default()
        };
        up.metadata_into(&mut secret);
        let line = format!("{}\n", uri(&id));
        state.pending_secrets.creates.insert(id, secret);
        Ok(ToolOutput::ok(line))
    }

    /// `secret-set <ID> [flags of secret-add] [key=value…]`: new content
    /// (a new revision at the commit, if it differs) or metadata.
    pub(super) fn secret_set(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, UPSERT_FLAGS, &[])?;
        let Some((first, content)) = a.positional.split_first() else {
            return Err(ToolOutput::error(2, "missing secret URI"));
        };
        let id = secret_id(first)?;
        let (up, _) = self.upsert(&a, content)?;
        if let Some(created) = state.pending_secrets.creates.get_mut(&id) {
            if let Some(content) = &up.content {
                created.revisions = vec![SimRevision {
                    revision: 1,
                    content: content.clone(),
                }];
            }
            up.metadata_into(created);
            return Ok(ToolOutput::ok(""));
        }
        self.changeable(state, &id)?;
        let pending = &mut state.pending_secrets;
        pending.removes.remove(&id);
        pending.updates.entry(id).or_default().merge(up);
        Ok(ToolOutput::ok(""))
    }

    /// `secret-get <ID> [key[#base64]] [--label L] [--peek|--refresh]
    /// [--format yaml|json]`.
    pub(super) fn secret_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(
            args,
            &["--format", "-o", "--output", "--label"],
            &["--peek", "--refresh"],
        )?;
        let format = format(&a, &["yaml", "json"])?;
        let mut rest = a.positional.as_slice();
        let id = match rest.split_first() {
            Some((first, tail)) => {
                rest = tail;
                Some(secret_id(first)?)
            }
            None => None,
        };
        let label = a.flag(&["--label"]).filter(|l| !l.is_empty());
        if id.is_none() && label.is_none() {
            return Err(ToolOutput::error(2, "require either a secret URI or label"));
        }
        let (peek, refresh) = (a.bool(&["--peek"]), a.bool(&["--refresh"]));
        if peek && refresh {
            return Err(ToolOutput::error(
                2,
                "specify one of --peek or --refresh but not both",
            ));
        }
        let key = match rest {
            [] => None,
            [key] => Some(*key),
            [_, extra @ ..] => return Err(unrecognized(extra)),
        };
        let content = self.read_content(state, id, label, peek, refresh)?;
        let value = match key {
            None => serde_json::to_value(&content).unwrap_or_default(),
            Some(key) => {
                let (name, base64) = match key.strip_suffix("#base64") {
                    Some(name) => (name, true),
                    None => (key, false),
                };
                let value = content.get(name).ok_or_else(|| {
                    ToolOutput::error(1, format!("secret key \"{key}\" not found"))
                })?;
                if base64 {
                    b64_encode(value.as_bytes()).into()
                } else {
                    value.clone().into()
                }
            }
        };
        Ok(output(format, &value))
    }

    /// The content `secret-get` answers, as Juju's hook context finds it:
    /// this hook's new secrets first, then (with `--peek` or `--refresh`)
    /// its new content of existing ones, then the controller's.
    fn read_content(
        &self,
        state: &mut SimState,
        id: Option<String>,
        label: Option<&str>,
        peek: bool,
        refresh: bool,
    ) -> Result<Bag, ToolOutput> {
        let pending = &mut state.pending_secrets;
        let created = pending.creates.iter_mut().find(|(i, s)| {
            id.as_ref() == Some(*i) || (label.is_some() && s.label.as_deref() == label)
        });
        if let Some((i, secret)) = created {
            if id.as_ref() == Some(i)
                && let Some(l) = label
            {
                secret.label = Some(l.to_string());
            }
            return Ok(secret.content(1).cloned().unwrap_or_default());
        }
        if peek || refresh {
            let updated = pending.updates.iter().find(|(i, u)| {
                id.as_ref() == Some(*i) || (label.is_some() && u.label.as_deref() == label)
            });
            if let Some(content) = updated.and_then(|(_, u)| u.content.clone()) {
                return Ok(content);
            }
        }
        let id = match id {
            Some(id) => id,
            None => self.by_label(state, label.unwrap_or_default())?,
        };
        // The controller names a secret it does not have by its URI.
        let secret = state
            .model
            .secrets
            .get_mut(&uri(&id))
            .ok_or_else(|| not_found(&uri(&id)))?;
        if secret.is_owned() {
            return Ok(secret.content(secret.latest()).cloned().unwrap_or_default());
        }
        // A shared secret: the controller records, as it answers, the
        // revision this unit reads from now on and the label it gave.
        let latest = secret.latest();
        let revision = match secret.tracking {
            _ if peek => latest,
            Some(tracked) if !refresh => tracked,
            _ => {
                secret.tracking = Some(latest);
                latest
            }
        };
        if let Some(l) = label {
            secret.label = Some(l.to_string());
        }
        secret.content(revision).cloned().ok_or_else(|| {
            ToolOutput::error(1, format!("secret \"{id}\" revision {revision} not found"))
        })
    }

    /// The id of the secret with `label`: one the charm owns (with this
    /// hook's new labels), else one shared with it.
    fn by_label(&self, state: &SimState, label: &str) -> Result<String, ToolOutput> {
        let owned = self
            .owned(state)
            .into_iter()
            .find(|(_, s)| s.label.as_deref() == Some(label))
            .map(|(id, _)| id);
        // Any unit of the owner reads its application's secret by the
        // owner's label (the secrets manager's
        // `getAppOwnedOrUnitOwnedSecretMetadata`), leader or not.
        let shared = || {
            state
                .model
                .secrets
                .iter()
                .find(|(_, s)| s.owner != "unit" && s.label.as_deref() == Some(label))
                .and_then(|(key, _)| parse_id(key))
        };
        owned
            .or_else(shared)
            .ok_or_else(|| ToolOutput::error(1, format!("secret with label \"{label}\" not found")))
    }

    /// `secret-info-get <ID> | --label L [--format yaml|json]`: the
    /// metadata of one of the charm's own secrets, keyed by its id.
    pub(super) fn secret_info_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format", "-o", "--output", "--label"], &[])?;
        let format = format(&a, &["yaml", "json"])?;
        let (id, rest) = match a.positional.split_first() {
            Some((first, rest)) => (Some(secret_id(first)?), rest),
            None => (None, &[][..]),
        };
        let label = a.flag(&["--label"]).filter(|l| !l.is_empty());
        match (&id, label) {
            (None, None) => {
                return Err(ToolOutput::error(2, "require either a secret URI or label"));
            }
            (Some(_), Some(_)) => {
                return Err(ToolOutput::error(
                    2,
                    "specify either a secret URI or label but not both",
                ));
            }
            _ => {}
        }
        if !rest.is_empty() {
            return Err(unrecognized(rest));
        }
        let owned = self.owned(state);
        let found = match (&id, label) {
            (Some(id), _) => owned.get_key_value(id),
            (None, Some(label)) => owned
                .iter()
                .find(|(_, s)| s.label.as_deref() == Some(label)),
            (None, None) => None,
        };
        let Some((id, secret)) = found else {
            return Err(not_found(id.as_deref().or(label).unwrap_or_default()));
        };
        let mut info = serde_json::json!({
            "revision": secret.latest(),
            "label": secret.label.clone().unwrap_or_default(),
            "owner": secret.owner,
        });
        for (key, value) in [
            ("description", &secret.description),
            ("rotation", &secret.rotation),
            ("expiry", &secret.expiry),
            ("rotates", &secret.rotates),
        ] {
            if let Some(v) = value {
                info[key] = v.clone().into();
            }
        }
        let mut doc = serde_json::Map::new();
        doc.insert(id.clone(), info);
        Ok(output(format, &doc.into()))
    }

    /// `secret-ids [--format=…]`: the ids of the charm's own secrets.
    pub(super) fn secret_ids(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format", "-o", "--output"], &[])?;
        let format = format(&a, &["smart", "json", "yaml"])?;
        if !a.positional.is_empty() {
            return Err(unrecognized(&a.positional));
        }
        let ids: Vec<String> = self.owned(state).into_keys().collect();
        Ok(output(format, &ids.into()))
    }

    /// `secret-grant <ID> -r <relation> [--unit <unit>]`: let the related
    /// application, or one of its units, read the secret.
    pub(super) fn secret_grant(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--unit", "-r", "--relation"], &[])?;
        let Some((first, rest)) = a.positional.split_first() else {
            return Err(ToolOutput::error(2, "missing secret URI"));
        };
        let id = secret_id(first)?;
        let raw = a.flag(&["-r", "--relation"]).or(self.relation.as_deref());
        if raw.is_none() {
            return Err(ToolOutput::error(2, "no relation id specified"));
        }
        let (key, rel) = relation(state, raw)?;
        let app = rel.app.clone();
        let unit = a.flag(&["--unit"]).filter(|u| !u.is_empty());
        if let Some(u) = unit {
            if !is_unit_name(u) {
                return Err(ToolOutput::error(2, format!("unit \"{u}\" not valid")));
            }
            if u.split('/').next() != Some(app.as_str()) {
                return Err(ToolOutput::error(
                    2,
                    format!("cannot specify unit \"{u}\" in relation to application \"{app}\""),
                ));
            }
        }
        if !rest.is_empty() {
            return Err(unrecognized(rest));
        }
        let secret = self.managed(state, &id)?;
        leader_for(state, &secret)?;
        let subject = unit.map_or(app, str::to_string);
        // Who can read it in this relation, with this hook's grants and
        // revokes: an application's grant covers its units, and a unit's
        // must go before its application's can come.
        let mut existing = secret.grants.get(&key).cloned().unwrap_or_default();
        for change in state.pending_secrets.access.iter().filter(|c| c.id == id) {
            if !change.grant {
                existing.remove(&change.subject);
            } else if change.relation.as_deref() == Some(key.as_str()) {
                existing.insert(change.subject.clone());
            }
        }
        for granted in &existing {
            if *granted == subject || !granted.contains('/') {
                return Ok(ToolOutput::ok(""));
            }
            if !subject.contains('/') {
                return Err(ToolOutput::error(
                    1,
                    "any unit level grants need to be revoked before granting access to the corresponding application",
                ));
            }
        }
        state.pending_secrets.access.push(AccessChange {
            id,
            grant: true,
            relation: Some(key),
            subject,
        });
        Ok(ToolOutput::ok(""))
    }

    /// `secret-revoke <ID> [-r <relation>] [--app <app>] [--unit <unit>]`:
    /// take back an application's or a unit's access.
    pub(super) fn secret_revoke(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(
            args,
            &["--app", "--application", "--unit", "-r", "--relation"],
            &[],
        )?;
        let Some((first, rest)) = a.positional.split_first() else {
            return Err(ToolOutput::error(2, "missing secret URI"));
        };
        let id = secret_id(first)?;
        let mut app = a
            .flag(&["--app", "--application"])
            .filter(|s| !s.is_empty())
            .map(str::to_string);
        let unit = a.flag(&["--unit"]).filter(|u| !u.is_empty());
        if let Some(name) = &app
            && !is_app_name(name)
        {
            return Err(ToolOutput::error(
                2,
                format!("application \"{name}\" not valid"),
            ));
        }
        if let Some(u) = unit
            && !is_unit_name(u)
        {
            return Err(ToolOutput::error(2, format!("unit \"{u}\" not valid")));
        }
        if app.is_some() && unit.is_some() {
            return Err(ToolOutput::error(
                2,
                "specify only one of application or unit",
            ));
        }
        if let Some(raw) = a.flag(&["-r", "--relation"]).or(self.relation.as_deref()) {
            let (_, rel) = relation(state, Some(raw))?;
            if app.is_some() {
                return Err(ToolOutput::error(2, "do not specify both relation and app"));
            }
            app = Some(rel.app.clone());
        }
        let Some(subject) = unit.map(str::to_string).or(app) else {
            return Err(ToolOutput::error(
                2,
                "missing relation or application or unit",
            ));
        };
        if !rest.is_empty() {
            return Err(unrecognized(rest));
        }
        let secret = self.managed(state, &id)?;
        leader_for(state, &secret)?;
        state.pending_secrets.access.push(AccessChange {
            id,
            grant: false,
            relation: None,
            subject,
        });
        Ok(ToolOutput::ok(""))
    }

    /// `secret-remove <ID> [--revision N]`: remove one revision, or the
    /// whole secret.
    pub(super) fn secret_remove(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--revision"], &[])?;
        let revision = match a.flag(&["--revision"]) {
            None => 0,
            Some(r) => r.parse::<i64>().map_err(|_| {
                ToolOutput::error(
                    2,
                    format!(
                        "invalid value \"{r}\" for option --revision: strconv.ParseInt: parsing \"{r}\": invalid syntax"
                    ),
                )
            })?,
        };
        let Some((first, rest)) = a.positional.split_first() else {
            return Err(ToolOutput::error(2, "missing secret URI"));
        };
        let id = secret_id(first)?;
        if !rest.is_empty() {
            return Err(unrecognized(rest));
        }
        let revision = u32::try_from(revision).ok().filter(|r| *r > 0);
        if state.pending_secrets.creates.remove(&id).is_some() {
            return Ok(ToolOutput::ok(""));
        }
        self.changeable(state, &id)?;
        let pending = &mut state.pending_secrets;
        pending.updates.remove(&id);
        pending.access.retain(|c| c.id != id);
        // Juju's recorder: revisions add up; no revision means all of them.
        let entry = pending
            .removes
            .entry(id)
            .or_insert_with(|| Some(BTreeSet::new()));
        match revision {
            Some(r) => {
                if let Some(revisions) = entry {
                    revisions.insert(r);
                }
            }
            None => *entry = None,
        }
        Ok(ToolOutput::ok(""))
    }
}

/// Only the leader changes a secret its application owns.
fn leader_for(state: &SimState, secret: &SimSecret) -> Result<(), ToolOutput> {
    if secret.owner == "application" && !state.model.leader {
        return Err(ToolOutput::error(1, "this unit is not the leader"));
    }
    Ok(())
}

#[cfg(test)]
#[path = "secrets_tests.rs"]
mod tests;
