//! The model's ports (reference §2.14): `open-port`, `close-port`,
//! `opened-ports`. Each request is checked at the call by Juju's rules
//! (`model::port_rules`, shared with the host) and held in the state's
//! `pending_ports` until the hook ends, as Juju holds it: `opened-ports`
//! shows it merged in, and `offline::commit` applies it when the hook
//! succeeded.

use super::args::{Answer, format, output, parse};
use crate::hook_tools::ToolOutput;
use crate::model::port_rules::{self, Book, Grouped, Pending, Range};
use crate::offline::sim::{SimState, SimTools};
use std::collections::BTreeMap;

/// The state file's spelling: each range with the endpoints it is open
/// for, `*` for every endpoint.
type Opened = BTreeMap<String, Vec<String>>;

const EVERY: &str = "*";

impl SimTools {
    pub(super) fn port(&self, state: &mut SimState, args: &[&str], open: bool) -> Answer {
        let a = parse(args, &["--endpoints", "--format"], &[])?;
        let [spec] = a.positional[..] else {
            return Err(ToolOutput::error(2, "no port or range specified"));
        };
        let range = Range::parse(spec)
            .ok_or_else(|| ToolOutput::error(2, format!("invalid port range {spec:?}")))?;
        let endpoints: Vec<String> = match a.flag(&["--endpoints"]) {
            Some(e) => e
                .split(',')
                .map(|e| match e.trim() {
                    EVERY => port_rules::ALL.to_string(),
                    e => e.to_string(),
                })
                .collect(),
            None => vec![port_rules::ALL.to_string()],
        };
        let opened = grouped(&state.model.opened_ports);
        let mut pending = state.pending_ports.clone();
        let mut book = Book {
            unit: &self.unit,
            kubernetes: state.model.kubernetes,
            opened: &opened,
            pending: &mut pending,
        };
        for endpoint in &endpoints {
            let verdict = if open {
                book.open(endpoint, range)
            } else {
                book.close(endpoint, range)
            };
            verdict.map_err(|message| ToolOutput::error(1, message))?;
        }
        state.pending_ports = pending;
        Ok(ToolOutput::ok(""))
    }

    pub(super) fn opened_ports(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format"], &["--endpoints"])?;
        let fmt = format(&a, &["smart", "json", "yaml"])?;
        let now = apply(&state.model.opened_ports, &state.pending_ports);
        let lines: Vec<serde_json::Value> = now
            .iter()
            .map(|(spec, endpoints)| {
                if a.bool(&["--endpoints"]) {
                    format!("{spec} ({})", endpoints.join(", ")).into()
                } else {
                    spec.clone().into()
                }
            })
            .collect();
        Ok(output(fmt, &serde_json::Value::Array(lines)))
    }
}

fn grouped(opened: &Opened) -> Grouped {
    let mut out = Grouped::new();
    for (spec, endpoints) in opened {
        let Some(range) = Range::parse(spec) else {
            continue;
        };
        for e in endpoints {
            let e = if e == EVERY {
                port_rules::ALL
            } else {
                e.as_str()
            };
            out.entry(e.to_string()).or_default().push(range);
        }
    }
    out
}

/// `opened` with a hook's requests applied: what `opened-ports` answers
/// during the hook, and what a successful hook leaves.
pub fn apply(opened: &Opened, pending: &Pending) -> Opened {
    port_rules::by_range(&port_rules::merged(&grouped(opened), pending))
        .into_iter()
        .map(|(range, endpoints)| {
            let endpoints = endpoints.unwrap_or_else(|| vec![EVERY.to_string()]);
            (range.to_string(), endpoints)
        })
        .collect()
}
