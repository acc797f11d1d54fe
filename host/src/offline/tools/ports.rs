//! The model's ports (reference §2.14): `open-port`, `close-port`,
//! `opened-ports`. The sim applies a port request at once;
//! `offline::commit` drops it when the hook fails, as Juju does.

use super::args::{Answer, format, output, parse};
use crate::hook_tools::ToolOutput;
use crate::offline::sim::{SimState, SimTools};

impl SimTools {
    pub(super) fn port(&self, state: &mut SimState, args: &[&str], open: bool) -> Answer {
        let a = parse(args, &["--endpoints", "--format"], &[])?;
        let [spec] = a.positional[..] else {
            return Err(ToolOutput::error(2, "no port or range specified"));
        };
        let spec = canonical_port(spec)
            .ok_or_else(|| ToolOutput::error(2, format!("invalid port range {spec:?}")))?;
        let endpoints: Vec<String> = match a.flag(&["--endpoints"]) {
            Some(e) => e.split(',').map(|e| e.trim().to_string()).collect(),
            None => vec!["*".into()],
        };
        let all = endpoints.iter().any(|e| e == "*");
        let have = state.model.opened_ports.remove(&spec).unwrap_or_default();
        let now: Vec<String> = if open {
            if all || have.iter().any(|e| e == "*") {
                vec!["*".into()]
            } else {
                let set: std::collections::BTreeSet<String> =
                    have.into_iter().chain(endpoints).collect();
                set.into_iter().collect()
            }
        } else if all {
            Vec::new()
        } else {
            have.into_iter()
                .filter(|e| !endpoints.contains(e))
                .collect()
        };
        if !now.is_empty() {
            state.model.opened_ports.insert(spec, now);
        }
        Ok(ToolOutput::ok(""))
    }

    pub(super) fn opened_ports(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format"], &["--endpoints"])?;
        let fmt = format(&a, &["smart", "json", "yaml"])?;
        let lines: Vec<serde_json::Value> = state
            .model
            .opened_ports
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

/// `80/tcp`, `8000-8100/udp` or `icmp` for what `open-port` accepts.
fn canonical_port(spec: &str) -> Option<String> {
    let spec = spec.to_lowercase();
    if spec == "icmp" {
        return Some(spec);
    }
    let (ports, proto) = spec.split_once('/').unwrap_or((&spec, "tcp"));
    if !matches!(proto, "tcp" | "udp") {
        return None;
    }
    let (lo, hi): (u16, u16) = match ports.split_once('-') {
        Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
        None => {
            let p = ports.parse().ok()?;
            (p, p)
        }
    };
    if lo == 0 || hi < lo {
        return None;
    }
    Some(if lo == hi {
        format!("{lo}/{proto}")
    } else {
        format!("{lo}-{hi}/{proto}")
    })
}
