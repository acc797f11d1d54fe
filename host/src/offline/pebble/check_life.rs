//! What a new plan does to each check, as Pebble's check manager decides
//! it (`internals/overlord/checkstate`), for both backends: a running
//! check whose definition is unchanged, or that only became
//! `startup: disabled`, runs on with its counts; a running check otherwise
//! changed starts afresh; every other check of the new plan starts afresh
//! when its startup is enabled (so a stopped check starts again at the
//! next plan change, as in Pebble) and is inactive when it is disabled.

use super::plan::Plan;
use std::collections::BTreeMap;

/// A check's fate at a plan change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Runs on, its counts kept.
    Keep,
    /// Starts afresh: up, no failures.
    Restart,
    /// Inactive, with no counts.
    Inactive,
    /// Gone from the plan.
    Drop,
}

/// Each check of `old` and `new` and its fate; `running`: whether a check
/// of the old plan was running (not inactive).
pub fn fates(old: &Plan, new: &Plan, running: impl Fn(&str) -> bool) -> BTreeMap<String, Fate> {
    let mut out = BTreeMap::new();
    for name in old.checks.keys() {
        if !new.checks.contains_key(name) {
            out.insert(name.clone(), Fate::Drop);
        }
    }
    for (name, def) in &new.checks {
        let was_running = old.checks.contains_key(name) && running(name);
        let fate = if was_running {
            let unchanged = old.checks.get(name) == Some(def);
            let now_disabled = !new.check_enabled(name) && old.check_enabled(name);
            if unchanged || now_disabled {
                Fate::Keep
            } else {
                Fate::Restart
            }
        } else if new.check_enabled(name) {
            Fate::Restart
        } else {
            Fate::Inactive
        };
        out.insert(name.clone(), fate);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::pebble::plan::{combine, parse_layer};

    fn plan(text: &str) -> Plan {
        combine(&[parse_layer("x", text).unwrap()]).unwrap()
    }

    #[test]
    fn each_check_meets_pebbles_fate() {
        let old = plan(
            "checks:\n  same: {override: replace, tcp: {port: 1}}\n  \
             changed: {override: replace, tcp: {port: 2}}\n  \
             off: {override: replace, tcp: {port: 3}}\n  \
             stopped: {override: replace, tcp: {port: 4}}\n  \
             gone: {override: replace, tcp: {port: 5}}\n",
        );
        let new = plan(
            "checks:\n  same: {override: replace, tcp: {port: 1}}\n  \
             changed: {override: replace, tcp: {port: 20}}\n  \
             off: {override: replace, startup: disabled, tcp: {port: 3}}\n  \
             stopped: {override: replace, tcp: {port: 4}}\n  \
             new: {override: replace, tcp: {port: 6}}\n  \
             new-off: {override: replace, startup: disabled, tcp: {port: 7}}\n",
        );
        let f = fates(&old, &new, |n| n != "stopped");
        let expected = [
            ("changed", Fate::Restart),
            ("gone", Fate::Drop),
            ("new", Fate::Restart),
            ("new-off", Fate::Inactive),
            ("off", Fate::Keep),
            ("same", Fate::Keep),
            ("stopped", Fate::Restart),
        ];
        let expected: BTreeMap<String, Fate> =
            expected.iter().map(|(n, f)| (n.to_string(), *f)).collect();
        assert_eq!(f, expected);
    }
}
