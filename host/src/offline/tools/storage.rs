//! The unit's storage (reference §2.19): `storage-list`, `storage-get`,
//! and `storage-add`, whose requests wait in the state's
//! `pending_storage` until `offline::commit` adds the instances.

use super::args::{Answer, format, output, parse, unrecognized};
use crate::hook_tools::ToolOutput;
use crate::offline::sim::{SimState, SimStorage, SimTools};

impl SimTools {
    /// `storage-list [<name>]`: the unit's storage instances, of one
    /// storage when named.
    pub(super) fn storage_list(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format"], &[])?;
        let fmt = format(&a, &["smart", "json", "yaml"])?;
        let name = match a.positional.as_slice() {
            [] => None,
            [name] => Some(*name),
            [_, extra @ ..] => return Err(unrecognized(extra)),
        };
        let ids: Vec<&String> = state
            .model
            .storage
            .keys()
            .filter(|id| name.is_none_or(|n| id.split('/').next() == Some(n)))
            .collect();
        Ok(output(fmt, &serde_json::json!(ids)))
    }

    /// `storage-get [-s <id>] [<key>]`: an instance's kind and location,
    /// or one of them; the hook's instance when `-s` is not given.
    pub(super) fn storage_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format", "-s"], &[])?;
        let fmt = format(&a, &["smart", "json", "yaml"])?;
        let Some(id) = a.flag(&["-s"]).or(self.storage.as_deref()) else {
            return Err(ToolOutput::error(2, "no storage instance specified"));
        };
        let s = state.model.storage.get(id).ok_or_else(|| {
            ToolOutput::error(
                2,
                format!("invalid value {id:?} for option -s: storage instance {id:?} not found"),
            )
        })?;
        let values = serde_json::json!({"kind": s.kind, "location": s.location});
        match a.positional.as_slice() {
            [] => Ok(output(fmt, &values)),
            [key] if values.get(key).is_some() => Ok(output(fmt, &values[key])),
            [key] => Err(ToolOutput::error(
                1,
                format!("invalid storage attribute {key:?}"),
            )),
            [_, extra @ ..] => Err(unrecognized(extra)),
        }
    }

    /// `storage-add <name>[=<count>] …` (Juju 3.6's `jujuc/storage-add.go`):
    /// each directive checked as Juju's `Init` checks it (only a count may
    /// be given, greater than zero; exit 2), then held until the hook ends.
    /// The instances get the next free numbers of their storage; a name
    /// metadata.yaml does not declare is accepted here and refused by the
    /// commit (`charm storage "x" not found`), which fails the hook.
    pub(super) fn storage_add(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &[], &[])?;
        if a.positional.is_empty() {
            return Err(ToolOutput::error(
                2,
                "storage add requires a storage directive",
            ));
        }
        let mut requests: Vec<(&str, u64)> = Vec::new();
        for directive in &a.positional {
            let (name, count) = directive_count(directive)?;
            if requests.iter().any(|(n, _)| *n == name) {
                return Err(ToolOutput::error(
                    2,
                    format!("storage {name:?} specified more than once"),
                ));
            }
            requests.push((name, count));
        }
        for (name, count) in requests {
            let Some(kind) = self.declared_storage.get(name) else {
                state
                    .pending_storage
                    .refused
                    .get_or_insert_with(|| format!("charm storage {name:?} not found"));
                continue;
            };
            for _ in 0..count {
                let n = next_number(state, name);
                let id = format!("{name}/{n}");
                let location = if kind == "block" {
                    format!("/dev/loop{n}")
                } else {
                    format!("/var/lib/juju/storage/{id}")
                };
                let instance = SimStorage {
                    kind: kind.clone(),
                    location,
                };
                state.pending_storage.added.insert(id, instance);
            }
        }
        Ok(ToolOutput::ok(""))
    }
}

/// The next free instance number of storage `name`, counting the held ones.
fn next_number(state: &SimState, name: &str) -> u64 {
    state
        .model
        .storage
        .keys()
        .chain(state.pending_storage.added.keys())
        .filter_map(|id| id.rsplit_once('/'))
        .filter(|(n, _)| *n == name)
        .filter_map(|(_, number)| number.parse::<u64>().ok())
        .map(|number| number + 1)
        .max()
        .unwrap_or(0)
}

/// One `<name>[=<constraints>]` directive as Juju 3.6 reads it
/// (`storage.ParseConstraintsMap`, then only a count allowed): the name
/// and its count, 1 by default.
fn directive_count(directive: &str) -> Result<(&str, u64), ToolOutput> {
    let parts: Vec<&str> = directive.split('=').collect();
    let (name, constraints) = match parts.as_slice() {
        [name] if !name.is_empty() => (*name, "1"),
        [name, constraints] if !name.is_empty() => (*name, *constraints),
        _ => {
            return Err(ToolOutput::error(
                2,
                format!("expected \"name=constraints\" or \"name\", got {directive:?}"),
            ));
        }
    };
    let bad = |why: String| {
        ToolOutput::error(
            2,
            format!("cannot parse constraints for storage {name:?}: {why}"),
        )
    };
    let (mut count, mut other) = (0u64, false);
    for field in constraints.split(',').filter(|f| !f.is_empty()) {
        let digits = field.strip_prefix('-').unwrap_or(field);
        let numeric = !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit());
        match field.parse::<u64>() {
            Ok(n) if n > 0 => count = n,
            _ if numeric => {
                return Err(bad(format!(
                    "cannot parse count: count must be greater than zero, got {field:?}"
                )));
            }
            // A pool or a size: a storage-add takes neither.
            _ if is_pool_or_size(field) => other = true,
            // Juju logs an unknown field and ignores it.
            _ => {}
        }
    }
    if count == 0 && !other {
        return Err(bad(
            "storage constraints require at least one field to be specified".to_string(),
        ));
    }
    if other {
        return Err(ToolOutput::error(
            2,
            format!("only count can be specified for {name:?}"),
        ));
    }
    Ok((name, count))
}

/// A storage pool name (`ebs`, `my-pool`) or a size (`10G`, `1.5TiB`), as
/// Juju's constraint grammar reads them.
fn is_pool_or_size(field: &str) -> bool {
    let pool = field.starts_with(|c: char| c.is_ascii_alphabetic())
        && field
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '?');
    let number = field.trim_end_matches(['B', 'i']);
    let size = number
        .strip_suffix(['M', 'G', 'T', 'P', 'E', 'Z', 'Y'])
        .is_some_and(|n| n.trim_start_matches('-').parse::<f64>().is_ok());
    pool || size
}
