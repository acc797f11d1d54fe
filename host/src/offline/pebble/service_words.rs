//! Pebble's words when a service fails to start, and the state it is left
//! in, for both backends and for the state file's scripted failures
//! (`fail-start`).

use super::state::Current;
pub use super::state::{StartFailure, StartWord};
use serde_json::{Map, Value};

/// Go's words for a program that cannot be run: looked up on `PATH`
/// unless its name has a `/`.
pub fn cannot_start(program: &str, word: StartWord) -> String {
    let reason = match word {
        StartWord::NotFound if program.contains('/') => {
            format!("fork/exec {program}: no such file or directory")
        }
        StartWord::NotFound => format!("exec: {program:?}: executable file not found in $PATH"),
        StartWord::PermissionDenied if program.contains('/') => {
            format!("fork/exec {program}: permission denied")
        }
        StartWord::PermissionDenied => format!("exec: {program:?}: permission denied"),
    };
    format!("cannot start service: {reason}")
}

/// What Pebble does after `def`'s service exited with `code`: its
/// `on-success` or `on-failure`, `restart` when unset.
pub fn action(def: &Map<String, Value>, code: i64) -> &str {
    let key = if code == 0 {
        "on-success"
    } else {
        "on-failure"
    };
    match def.get(key).and_then(Value::as_str) {
        None | Some("") => "restart",
        Some(a) => a,
    }
}

/// Pebble's words for a service that exited within the okay delay.
pub fn exited_quickly(def: &Map<String, Value>, code: i64) -> String {
    format!(
        "service start attempt: exited quickly with code {code}, will {}",
        action(def, code)
    )
}

/// The error of a scripted failed start of `def`'s service, and its
/// `current` after it: never run, inactive; exited, in backoff when Pebble
/// restarts it, else error (inactive when it exited 0).
pub fn scripted(def: &Map<String, Value>, failure: StartFailure) -> (String, Current) {
    match failure {
        StartFailure::Word(word) => {
            let command = def.get("command").and_then(Value::as_str).unwrap_or("");
            let program = super::words::split(command)
                .ok()
                .and_then(|w| w.into_iter().next())
                .unwrap_or_default();
            (cannot_start(&program, word), Current::Inactive)
        }
        StartFailure::Exit { exit } => {
            let current = match (action(def, exit.into()), exit) {
                ("restart", _) => Current::Backoff,
                (_, 0) => Current::Inactive,
                _ => Current::Error,
            };
            (exited_quickly(def, exit.into()), current)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn def(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn failed_starts_read_as_pebbles() {
        let web = def(json!({"command": "web-server --port 80"}));
        assert_eq!(
            scripted(&web, StartFailure::Word(StartWord::NotFound)),
            (
                "cannot start service: exec: \"web-server\": executable file not found in $PATH"
                    .to_string(),
                Current::Inactive
            )
        );
        let abs = def(json!({"command": "/bin/web"}));
        assert_eq!(
            scripted(&abs, StartFailure::Word(StartWord::PermissionDenied)).0,
            "cannot start service: fork/exec /bin/web: permission denied"
        );
        assert_eq!(
            scripted(&web, StartFailure::Exit { exit: 2 }),
            (
                "service start attempt: exited quickly with code 2, will restart".to_string(),
                Current::Backoff
            )
        );
        let ignored = def(json!({"command": "w", "on-failure": "ignore"}));
        assert_eq!(
            scripted(&ignored, StartFailure::Exit { exit: 1 }),
            (
                "service start attempt: exited quickly with code 1, will ignore".to_string(),
                Current::Error
            )
        );
        let parsed: StartFailure = serde_saphyr::from_str("{exit: 3}").unwrap();
        assert_eq!(parsed, StartFailure::Exit { exit: 3 });
        let parsed: StartFailure = serde_saphyr::from_str("not-found").unwrap();
        assert_eq!(parsed, StartFailure::Word(StartWord::NotFound));
    }
}
