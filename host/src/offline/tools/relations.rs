//! The relation tools (reference §2): `relation-ids`, `relation-list`,
//! `relation-get`, `relation-set`, `relation-model-get`.

use super::args::{Answer, Args, format, output, parse, relation, settings_file, unrecognized};
use crate::hook_tools::ToolOutput;
use crate::offline::sim::{Bag, SimState, SimTools};

impl SimTools {
    /// `relation-ids [<endpoint>]` (reference §2.8): the endpoint's
    /// relations, sorted as strings as Juju sorts them; the hook's endpoint
    /// when none is named.
    pub(super) fn relation_ids(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format"], &[])?;
        let fmt = format(&a, &["smart", "json", "yaml"])?;
        let hook_endpoint = self
            .relation
            .as_deref()
            .and_then(|r| r.rsplit_once(':'))
            .map(|(e, _)| e);
        let endpoint = match a.positional.as_slice() {
            [] => hook_endpoint,
            [e] => Some(*e),
            [_, rest @ ..] => return Err(unrecognized(rest)),
        };
        let endpoint = endpoint
            .filter(|e| !e.is_empty())
            .ok_or_else(|| ToolOutput::error(2, "no endpoint name specified"))?;
        let mut ids: Vec<&String> = state
            .model
            .relations
            .keys()
            .filter(|k| k.rsplit_once(':').is_some_and(|(e, _)| e == endpoint))
            .collect();
        ids.sort();
        Ok(output(fmt, &serde_json::json!(ids)))
    }

    /// `-r`, else the hook's relation (`JUJU_RELATION_ID`), as Juju does.
    fn relation_flag<'a>(&'a self, a: &Args<'a>) -> Option<&'a str> {
        a.flag(&["-r", "--relation"]).or(self.relation.as_deref())
    }

    /// `relation-list [-r <id>] [--app]` (reference §2.9): the remote
    /// units, sorted, without one departing in this hook; or the remote
    /// application.
    pub(super) fn relation_list(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format", "-r", "--relation"], &["--app"])?;
        let fmt = format(&a, &["smart", "json", "yaml"])?;
        let (key, rel) = relation(state, self.relation_flag(&a))?;
        if !a.positional.is_empty() {
            return Err(unrecognized(&a.positional));
        }
        if a.bool(&["--app"]) {
            return Ok(output(fmt, &serde_json::json!(rel.app)));
        }
        let mut units = rel.units.clone();
        if let Some((id, unit)) = &self.departing
            && *id == key
        {
            units.retain(|u| u != unit);
        }
        units.sort();
        Ok(output(fmt, &serde_json::json!(units)))
    }

    /// `relation-get [-r <id>] [--app] [<key>|-] [<unit-or-app>]`
    /// (reference §2.10): whose bag as Juju's `determineUnitOrAppName`
    /// picks it (the hook's remote unit, else its remote application), read
    /// as Juju allows: this unit's own bag, its application's for the
    /// leader (or any unit of a peer relation), the remote side's; anyone
    /// else is `permission denied`.
    pub(super) fn relation_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format", "-r", "--relation"], &["--app"])?;
        let fmt = format(&a, &["smart", "json", "yaml"])?;
        let leader = state.model.leader;
        let (_, rel) = relation(state, self.relation_flag(&a))?;
        let (key, rest) = match a.positional.split_first() {
            Some((key, rest)) => (*key, rest),
            None => ("-", &[][..]),
        };
        let (owner, is_app) = self.owner(a.bool(&["--app"]), rest)?;
        let own_app = self.unit.split('/').next().unwrap_or_default();
        let bag = if is_app && owner == own_app {
            if !leader && rel.app != own_app {
                // A non-leader asks the controller, which shows it its own
                // application's bag only in a peer relation.
                return Err(ToolOutput::error(1, "permission denied"));
            }
            &rel.local_app_data
        } else if is_app && owner == rel.app {
            &rel.app_data
        } else if !is_app && owner == self.unit {
            &rel.local_unit_data
        } else if !is_app && owner.split('/').next() == Some(rel.app.as_str()) {
            static EMPTY: std::sync::OnceLock<Bag> = std::sync::OnceLock::new();
            rel.unit_data
                .get(&owner)
                .unwrap_or_else(|| EMPTY.get_or_init(Bag::new))
        } else {
            return Err(ToolOutput::error(1, "permission denied"));
        };
        if key == "-" || key.is_empty() {
            Ok(output(fmt, &serde_json::json!(bag)))
        } else {
            Ok(output(fmt, &serde_json::json!(bag.get(key))))
        }
    }

    /// Whose bag `relation-get` reads, and whether it is an application's:
    /// the name given (a unit's name with `--app` meaning its
    /// application), else the hook's remote unit, else its remote
    /// application.
    fn owner(&self, want_app: bool, rest: &[&str]) -> Result<(String, bool), ToolOutput> {
        let (name, is_app) = match rest {
            [name, extra @ ..] => {
                if !extra.is_empty() {
                    return Err(unrecognized(extra));
                }
                let name = *name;
                if want_app {
                    (name.split('/').next().unwrap_or(name).to_string(), true)
                } else if !name.contains('/') {
                    return Err(ToolOutput::error(
                        2,
                        format!("expected unit name, got application name \"{name}\""),
                    ));
                } else {
                    (name.to_string(), false)
                }
            }
            [] if want_app => (self.remote_app.clone().unwrap_or_default(), true),
            [] => match self.remote_unit.as_deref().filter(|u| !u.is_empty()) {
                Some(unit) => (unit.to_string(), false),
                None => (self.remote_app.clone().unwrap_or_default(), true),
            },
        };
        if name.is_empty() {
            return Err(ToolOutput::error(2, "no unit or application specified"));
        }
        Ok((name, is_app))
    }

    /// `relation-set` (reference §2).
    pub(super) fn relation_set(
        &self,
        state: &mut SimState,
        args: &[&str],
        stdin: Option<&[u8]>,
    ) -> Answer {
        let a = parse(
            args,
            &["--format", "-r", "--relation", "--file"],
            &["--app"],
        )?;
        let want_app = a.bool(&["--app"]);
        let leader = state.model.leader;
        let mut changes: Bag = settings_file(a.flag(&["--file"]), stdin)?;
        for kv in &a.positional {
            let (k, v) = kv.split_once('=').ok_or_else(|| {
                ToolOutput::error(2, format!("expected \"key=value\", got \"{kv}\""))
            })?;
            changes.insert(k.to_string(), v.to_string());
        }
        if want_app && !leader {
            return Err(ToolOutput::error(1, "cannot write relation settings"));
        }
        let (_, rel) = relation(state, self.relation_flag(&a))?;
        let bag = if want_app {
            &mut rel.local_app_data
        } else {
            &mut rel.local_unit_data
        };
        for (k, v) in changes {
            if v.is_empty() {
                bag.remove(&k);
            } else {
                bag.insert(k, v);
            }
        }
        Ok(ToolOutput::ok(Vec::new()))
    }

    /// `relation-model-get [-r <id>]` (Juju 3.6.2's
    /// `jujuc/relation-model-get.go`): `{"uuid": …}`, the remote side's
    /// model; this model's own (`JUJU_MODEL_UUID`) for a relation within
    /// it, as Juju answers.
    pub(super) fn relation_model_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format", "-r", "--relation"], &[])?;
        let fmt = format(&a, &["smart", "json", "yaml"])?;
        let (_, rel) = relation(state, self.relation_flag(&a))?;
        if !a.positional.is_empty() {
            return Err(unrecognized(&a.positional));
        }
        let uuid = rel.model_uuid.as_deref().unwrap_or(&self.model_uuid);
        Ok(output(fmt, &serde_json::json!({ "uuid": uuid })))
    }
}
