//! `/v1/services` and `/v1/checks`: the plan's services as the backend
//! runs them, Pebble's actions on them (start, stop, restart, replan,
//! autostart) as one change each, and the checks with Pebble's defaults.

use super::api::Sim;
use super::reply::{
    Reply, Request, bad, error, json_body, names_suffix, started, strings, sync, text,
};
use super::state::{CheckStatus, Current};
use serde_json::{Value, json};

impl Sim {
    pub(super) fn get_services(&mut self, req: &Request) -> Reply {
        let names = req.list("names");
        self.calls
            .push(format!("get-services{}", names_suffix(&names)));
        let wanted: Vec<String> = self
            .plan
            .services
            .keys()
            .filter(|n| names.is_empty() || names.contains(n))
            .cloned()
            .collect();
        let list: Vec<Value> = wanted
            .iter()
            .map(|n| {
                json!({"name": n, "startup": self.plan.startup(n),
                    "current": self.services.current(n).as_str()})
            })
            .collect();
        sync(Value::Array(list))
    }

    /// Start `name` now, with the definition the plan gives it; a failure
    /// is a line of the change's error.
    fn start(&mut self, name: &str, errors: &mut Vec<String>) {
        let Some(def) = self.plan.services.get(name).cloned() else {
            return;
        };
        match self.services.start(name, &def) {
            Ok(true) => {
                self.started_with.insert(name.to_string(), def);
            }
            Ok(false) => {}
            Err(e) => errors.push(format!("- Start service \"{name}\" ({e})")),
        }
    }

    /// Pebble's refusals of a services action, in its order and words.
    fn refused(&self, action: &str, names: &[String]) -> Option<Reply> {
        match action {
            "replan" | "autostart" if !names.is_empty() => {
                return Some(bad(format!("{action} accepts no service names")));
            }
            "start" | "stop" | "restart" if names.is_empty() => {
                return Some(bad(format!("must specify services for {action} action")));
            }
            _ => {}
        }
        let unknown = names
            .iter()
            .find(|n| !self.plan.services.contains_key(*n))?;
        Some(bad(format!(
            "cannot {action} services: service \"{unknown}\" does not exist"
        )))
    }

    pub(super) fn services_action(&mut self, req: &Request) -> Reply {
        let body = match json_body(req) {
            Ok(b) => b,
            Err(r) => return r,
        };
        let action = text(&body, "action");
        let names = strings(&body, "services");
        self.calls.push(format!("{action}{}", names_suffix(&names)));
        if let Some(refused) = self.refused(&action, &names) {
            return refused;
        }
        let enabled: Vec<String> = self
            .plan
            .services
            .keys()
            .filter(|n| self.plan.startup(n) == "enabled")
            .cloned()
            .collect();
        let mut errors = Vec::new();
        match action.as_str() {
            "start" => names.iter().for_each(|n| self.start(n, &mut errors)),
            "restart" => names.iter().for_each(|n| {
                self.services.stop(n);
                self.start(n, &mut errors);
            }),
            "stop" => names.iter().for_each(|n| self.services.stop(n)),
            "autostart" if enabled.is_empty() => {
                return error(400, "no-default-services", "no default services");
            }
            "autostart" => enabled.iter().for_each(|n| {
                if self.services.current(n) != Current::Active {
                    self.start(n, &mut errors);
                }
            }),
            "replan" => self.replan(&enabled, &mut errors),
            other => return bad(format!("invalid action {other:?}")),
        }
        let id = self.next_id();
        let now = self.time();
        let mut change = json!({"id": id, "kind": action, "summary":
            format!("{action} service{}", names_suffix(&names)),
            "status": "Done", "ready": true, "spawn-time": now, "ready-time": now,
            "tasks": []});
        if !errors.is_empty() {
            change["status"] = json!("Error");
            change["err"] = json!(format!(
                "cannot perform the following tasks:\n{}",
                errors.join("\n")
            ));
        }
        self.changes.insert(&id, change);
        started(&id, Value::Null)
    }

    /// Enabled services not running start; running ones whose definition
    /// changed since they started restart.
    fn replan(&mut self, enabled: &[String], errors: &mut Vec<String>) {
        let names: Vec<String> = self.plan.services.keys().cloned().collect();
        for n in names {
            let running = self.services.current(&n) == Current::Active;
            let changed = self.started_with.get(&n) != self.plan.services.get(&n);
            if running && changed {
                self.services.stop(&n);
                self.start(&n, errors);
            } else if !running && enabled.contains(&n) {
                self.start(&n, errors);
            }
        }
    }

    pub(super) fn get_checks(&mut self, req: &Request) -> Reply {
        let names = req.list("names");
        let level = req.param("level");
        self.calls
            .push(format!("get-checks{}", names_suffix(&names)));
        if let Some(l) = level
            && !matches!(l, "alive" | "ready")
        {
            return bad(format!("invalid level {l:?}"));
        }
        let mut list = Vec::new();
        for (name, def) in &self.plan.checks {
            let own_level = def.get("level").and_then(Value::as_str);
            if (!names.is_empty() && !names.contains(name))
                || level.is_some_and(|l| own_level != Some(l))
            {
                continue;
            }
            let state = self.checks.state(name, &self.plan);
            let threshold = state.threshold.unwrap_or_else(|| self.plan.threshold(name));
            let failures = state.failures.unwrap_or(match state.status {
                CheckStatus::Down => threshold,
                _ => 0,
            });
            let mut check = json!({"name": name,
                "startup": def.get("startup").and_then(Value::as_str).unwrap_or("enabled"),
                "status": state.status.as_str(), "threshold": threshold});
            if let Some(l) = own_level {
                check["level"] = json!(l);
            }
            if failures > 0 {
                check["failures"] = json!(failures);
            }
            list.push(check);
        }
        sync(Value::Array(list))
    }
}
