//! The relation tools (reference §2): `relation-ids`, `relation-list`,
//! `relation-get`, `relation-set`.

use super::args::{Answer, json, parse, relation};
use crate::hook_tools::ToolOutput;
use crate::offline::sim::{Bag, SimState, SimTools};

impl SimTools {
    /// `relation-ids` (reference §2).
    pub(super) fn relation_ids(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format"], &[])?;
        let [endpoint] = a.positional.as_slice() else {
            return Err(ToolOutput::error(2, "no endpoint name specified"));
        };
        let mut ids: Vec<&String> = state
            .relations
            .keys()
            .filter(|k| k.rsplit_once(':').is_some_and(|(e, _)| e == *endpoint))
            .collect();
        ids.sort_by_key(|k| {
            k.rsplit(':')
                .next()
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(0)
        });
        Ok(json(&ids))
    }

    /// `relation-list` (reference §2).
    pub(super) fn relation_list(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format", "-r", "--relation"], &["--app"])?;
        let want_app = a.bool(&["--app"]);
        let (key, rel) = relation(state, a.flag(&["-r", "--relation"]))?;
        if want_app {
            Ok(json(&rel.app))
        } else {
            let mut units = rel.units.clone();
            if let Some((id, unit)) = &self.departing
                && *id == key
            {
                units.retain(|u| u != unit);
            }
            units.sort();
            Ok(json(&units))
        }
    }

    /// `relation-get` (reference §2).
    pub(super) fn relation_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format", "-r", "--relation"], &["--app"])?;
        let want_app = a.bool(&["--app"]);
        let unit = self.unit.clone();
        let (_, rel) = relation(state, a.flag(&["-r", "--relation"]))?;
        let (key, owner) = match a.positional.as_slice() {
            [key, owner] => (*key, *owner),
            _ => return Err(ToolOutput::error(2, "no unit or application specified")),
        };
        let bag = if want_app {
            let owner_app = owner.split('/').next().unwrap_or(owner);
            if Some(owner_app) == self.unit.split('/').next() {
                rel.local_app_data.clone()
            } else {
                rel.app_data.clone()
            }
        } else if !owner.contains('/') {
            return Err(ToolOutput::error(
                2,
                format!("expected unit name, got application name \"{owner}\""),
            ));
        } else if owner == unit {
            rel.local_unit_data.clone()
        } else {
            rel.unit_data.get(owner).cloned().unwrap_or_default()
        };
        if key == "-" {
            Ok(json(&bag))
        } else {
            Ok(json(&bag.get(key)))
        }
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
        let leader = state.leader;
        let mut changes: Bag = match a.flag(&["--file"]) {
            // Juju reads a YAML map (JSON is YAML too); nothing is no change.
            Some("-") => {
                let text = String::from_utf8_lossy(stdin.unwrap_or_default());
                if text.trim().is_empty() {
                    Bag::new()
                } else {
                    serde_saphyr::from_str(&text).map_err(|e| {
                        ToolOutput::error(1, format!("cannot parse settings from stdin: {e}"))
                    })?
                }
            }
            Some(f) => {
                return Err(ToolOutput::error(
                    1,
                    format!("the simulated Juju reads --file only from stdin, not {f}"),
                ));
            }
            None => Bag::new(),
        };
        for kv in &a.positional {
            let (k, v) = kv.split_once('=').ok_or_else(|| {
                ToolOutput::error(2, format!("expected \"key=value\", got \"{kv}\""))
            })?;
            changes.insert(k.to_string(), v.to_string());
        }
        if want_app && !leader {
            return Err(ToolOutput::error(1, "cannot write relation settings"));
        }
        let (_, rel) = relation(state, a.flag(&["-r", "--relation"]))?;
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
}
