//! What the unit reads and writes of itself (reference §2): `config-get`,
//! `is-leader`, `juju-log`, `status-set`, `status-get`,
//! `application-version-set`, `juju-reboot`.

use super::args::{Answer, format, output, parse, unrecognized};
use crate::hook_tools::ToolOutput;
use crate::offline::sim::{SimReboot, SimState, SimTools};
use crate::status::merge::{Kind, Written};

impl SimTools {
    /// `config-get` (reference §2).
    pub(super) fn config_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format"], &["-a", "--all"])?;
        let fmt = format(&a, &["smart", "json", "yaml"])?;
        let mut all = self.defaults.clone();
        all.extend(state.model.config.clone());
        all.retain(|_, v| !v.is_null());
        let all = serde_json::Value::Object(all.into_iter().collect());
        match a.positional.as_slice() {
            [] | [""] => Ok(output(fmt, &all)),
            [key] => Ok(output(
                fmt,
                all.get(*key).unwrap_or(&serde_json::Value::Null),
            )),
            [_, extra @ ..] => Err(unrecognized(extra)),
        }
    }

    /// `is-leader` (reference §2).
    pub(super) fn is_leader(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format"], &[])?;
        let fmt = format(&a, &["smart", "json", "yaml"])?;
        if !a.positional.is_empty() {
            return Err(unrecognized(&a.positional));
        }
        Ok(output(fmt, &serde_json::Value::Bool(state.model.leader)))
    }

    /// `juju-log` (reference §2): one record at a level named in any case;
    /// an unknown level is warned about and the message kept at INFO, and
    /// in a relation hook the record starts with the relation
    /// (`db:1: …`), as Juju's `juju-log` does.
    pub(super) fn juju_log(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["-l", "--log-level", "--format"], &["--debug"])?;
        if a.positional.is_empty() {
            return Err(ToolOutput::error(2, "no message specified"));
        }
        let log = &mut state.last_event.log;
        let asked = a.flag(&["-l", "--log-level"]).unwrap_or("INFO");
        let level = if a.bool(&["--debug"]) {
            Some("DEBUG")
        } else {
            match log_level(asked) {
                Ok(level) => level,
                Err(()) => {
                    log.push(format!(
                        "WARNING Specified log level of {asked:?} is not valid"
                    ));
                    Some("INFO")
                }
            }
        };
        // UNSPECIFIED is below every level Juju's logger writes.
        let Some(level) = level else {
            return Ok(ToolOutput::ok(Vec::new()));
        };
        let prefix = self
            .relation
            .as_deref()
            .map(|r| format!("{r}: "))
            .unwrap_or_default();
        // One entry per line: the host sends a handler's lines joined.
        let message = format!("{prefix}{}", a.positional.join(" "));
        log.extend(message.split('\n').map(|line| format!("{level} {line}")));
        Ok(ToolOutput::ok(Vec::new()))
    }

    /// `status-set` (reference §2).
    pub(super) fn status_set(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &[], &["--application"])?;
        let (kind, message) = match a.positional.as_slice() {
            [] => {
                return Err(ToolOutput::error(
                    2,
                    "invalid args, require <status> [message]",
                ));
            }
            [k] => (*k, ""),
            [k, m] => (*k, *m),
            [_, _, extra @ ..] => return Err(unrecognized(extra)),
        };
        let status = match kind {
            "maintenance" => Kind::Maintenance,
            "blocked" => Kind::Blocked,
            "waiting" => Kind::Waiting,
            "active" => Kind::Active,
            other => {
                return Err(ToolOutput::error(
                    2,
                    format!(
                        "invalid status \"{other}\", expected one of [maintenance blocked waiting active]"
                    ),
                ));
            }
        };
        let written = Some(Written {
            status,
            message: message.to_string(),
        });
        if a.bool(&["--application"]) {
            if !state.model.leader {
                return Err(ToolOutput::error(1, "this unit is not the leader"));
            }
            state.model.status.app = written;
        } else {
            state.model.status.unit = written;
        }
        Ok(ToolOutput::ok(Vec::new()))
    }

    /// `status-get [--include-data] [--application] [--format=…]`
    /// (reference §2.2): what `status-set` last wrote, `unknown` before it
    /// did. Without `--include-data` only the status word; the
    /// application's only for the leader, nested under
    /// `application-status` with its units (this simulated application has
    /// this one unit).
    pub(super) fn status_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format"], &["--application", "--include-data"])?;
        let format = format(&a, &["smart", "json", "yaml"])?;
        if let Some(extra) = a.positional.first() {
            return Err(ToolOutput::error(
                2,
                format!("unrecognized args: [\"{extra}\"]"),
            ));
        }
        let data = a.bool(&["--include-data"]);
        let details = |w: &Option<Written>| {
            let (status, message) = match w {
                Some(w) => (w.status.as_str(), w.message.as_str()),
                None => ("unknown", ""),
            };
            if data {
                serde_json::json!({"status": status, "message": message, "status-data": {}})
            } else {
                serde_json::json!({"status": status})
            }
        };
        let word_only = !data && format == "smart";
        let doc = if a.bool(&["--application"]) {
            if !state.model.leader {
                return Err(ToolOutput::error(
                    1,
                    "finding application status: this unit is not the leader",
                ));
            }
            let mut app = details(&state.model.status.app);
            if word_only {
                app["status"].clone()
            } else {
                app["units"] =
                    serde_json::json!({ self.unit.clone(): details(&state.model.status.unit) });
                serde_json::json!({ "application-status": app })
            }
        } else {
            let unit = details(&state.model.status.unit);
            if word_only {
                unit["status"].clone()
            } else {
                unit
            }
        };
        Ok(output(format, &doc))
    }

    /// `application-version-set` (reference §2).
    pub(super) fn application_version_set(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &[], &[])?;
        let [v] = a.positional.as_slice() else {
            return Err(ToolOutput::error(2, "expected exactly one argument"));
        };
        state.model.application_version = Some(v.to_string());
        Ok(ToolOutput::ok(Vec::new()))
    }

    /// `juju-reboot [--now]` (`jujuc/reboot.go`): recorded in the last
    /// event's `reboot`; `--now` wins over a reboot after the hook. Juju
    /// would kill the hook at `--now`; the commit rule (`end_hook`) then
    /// keeps nothing the hook held. Refused in an action, as Juju does.
    pub(super) fn juju_reboot(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &[], &["--now"])?;
        if !a.positional.is_empty() {
            return Err(unrecognized(&a.positional));
        }
        if self.action.is_some() {
            return Err(ToolOutput::error(
                1,
                "juju-reboot is not supported when running an action.",
            ));
        }
        let asked = if a.bool(&["--now"]) {
            SimReboot::Now
        } else {
            SimReboot::AfterHook
        };
        let reboot = &mut state.last_event.reboot;
        if *reboot != Some(SimReboot::Now) {
            *reboot = Some(asked);
        }
        Ok(ToolOutput::ok(""))
    }
}

/// A level as Juju's logger parses it, in any case: `None` for
/// UNSPECIFIED, which it takes and never writes.
fn log_level(name: &str) -> Result<Option<&'static str>, ()> {
    Ok(Some(match name.to_ascii_uppercase().as_str() {
        "UNSPECIFIED" => return Ok(None),
        "TRACE" => "TRACE",
        "DEBUG" => "DEBUG",
        "INFO" => "INFO",
        "WARN" | "WARNING" => "WARNING",
        "ERROR" => "ERROR",
        "CRITICAL" => "CRITICAL",
        _ => return Err(()),
    }))
}
