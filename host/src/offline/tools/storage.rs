//! The unit's storage (reference §2.19): `storage-list`, `storage-get`.

use super::args::{Answer, json, parse};
use crate::hook_tools::ToolOutput;
use crate::offline::sim::{SimState, SimTools};

impl SimTools {
    pub(super) fn storage_list(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format"], &[])?;
        let name = a.positional.first().copied();
        let ids: Vec<&String> = state
            .storage
            .keys()
            .filter(|id| name.is_none_or(|n| id.split('/').next() == Some(n)))
            .collect();
        Ok(json(&ids))
    }

    pub(super) fn storage_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format", "-s"], &[])?;
        let Some(id) = a.flag(&["-s"]) else {
            return Err(ToolOutput::error(2, "no storage instance specified"));
        };
        let s = state.storage.get(id).ok_or_else(|| {
            ToolOutput::error(
                2,
                format!("invalid value {id:?} for option -s: storage instance {id:?} not found"),
            )
        })?;
        Ok(json(
            &serde_json::json!({"kind": s.kind, "location": s.location}),
        ))
    }
}
