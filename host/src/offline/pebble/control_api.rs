//! `POST /v1/signals` and `POST /v1/checks`: a signal to running services,
//! and checks stopped or started, each answered at once (sync), as Pebble
//! answers them.

use super::api::Sim;
use super::reply::{Reply, Request, bad, error, json_body, names_suffix, strings, sync, text};
use serde_json::{Value, json};

impl Sim {
    pub(super) fn send_signal(&mut self, req: &Request) -> Reply {
        let body = match json_body(req) {
            Ok(b) => b,
            Err(r) => return r,
        };
        let signal = text(&body, "signal");
        let names = strings(&body, "services");
        self.calls
            .push(format!("send-signal {signal}{}", names_suffix(&names)));
        if names.is_empty() {
            return bad("must specify one or more services");
        }
        // Pebble tries each service and joins what went wrong.
        let mut errors = Vec::new();
        for name in &names {
            let sent = if self.plan.services.contains_key(name) {
                self.services.signal(name, &signal)
            } else {
                Err("service is not running".into())
            };
            if let Err(e) = sent {
                errors.push(format!("cannot send signal to {name:?}: {e}"));
            }
        }
        if errors.is_empty() {
            sync(Value::Bool(true))
        } else {
            error(500, "", &errors.join("; "))
        }
    }

    pub(super) fn checks_action(&mut self, req: &Request) -> Reply {
        let body = match json_body(req) {
            Ok(b) => b,
            Err(r) => return r,
        };
        let action = text(&body, "action");
        let names = strings(&body, "checks");
        self.calls
            .push(format!("{action}-checks{}", names_suffix(&names)));
        if names.is_empty() {
            return bad(format!("must specify checks for {action} action"));
        }
        let run = match action.as_str() {
            "start" => true,
            "stop" => false,
            other => return bad(format!("invalid action {other:?}")),
        };
        let missing: Vec<&str> = names
            .iter()
            .filter(|n| !self.plan.checks.contains_key(*n))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return bad(format!(
                "cannot {action} checks: cannot find checks in plan: {}",
                missing.join(", ")
            ));
        }
        let mut changed: Vec<String> = names
            .iter()
            .filter(|n| self.checks.set_running(n, run, &self.plan))
            .cloned()
            .collect();
        changed.sort();
        changed.dedup();
        sync(json!({ "changed": changed }))
    }
}
