//! The unit's storage (reference §2.19): `storage-list`, `storage-get`.

use super::args::{Answer, format, output, parse, unrecognized};
use crate::hook_tools::ToolOutput;
use crate::offline::sim::{SimState, SimTools};

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
}
