//! The names a guest passes to a tool, checked before any tool runs:
//! Juju's grammar of application and unit names, and the form of the
//! storage, binding and resource names argv carries.

use crate::bindings::RelationRef;
use crate::bindings::model::ModelError;

/// Longest name (storage, binding, resource) a guest may pass to a tool:
/// far above any name metadata.yaml can declare, far below argv's limit.
pub const MAX_NAME: usize = 256;

/// Juju's application name grammar (juju/names): lowercase letters and
/// digits in dash-separated words, starting with a letter, every word after
/// the first holding a letter.
pub fn is_app_name(name: &str) -> bool {
    let mut words = name.split('-');
    let first_ok = words.next().is_some_and(|w| {
        w.starts_with(|c: char| c.is_ascii_lowercase())
            && w.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    });
    first_ok
        && words.all(|w| {
            w.chars().any(|c| c.is_ascii_lowercase())
                && w.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

/// Juju's unit name grammar: `<app>/<n>`, `n` a decimal without leading zeros.
pub fn is_unit_name(name: &str) -> bool {
    name.rsplit_once('/').is_some_and(|(app, n)| {
        is_app_name(app)
            && !n.is_empty()
            && n.chars().all(|c| c.is_ascii_digit())
            && (n == "0" || !n.starts_with('0'))
    })
}

/// Check a name a guest passes to a tool (`what`: storage name, binding,
/// resource): non-empty, at most [`MAX_NAME`] bytes, no NUL, not starting
/// with `-`. It is passed after `--` all the same.
pub(super) fn check_name(what: &str, name: &str) -> Result<(), ModelError> {
    if name.is_empty() || name.len() > MAX_NAME || name.starts_with('-') || name.contains('\0') {
        return Err(ModelError::InvalidArgument(format!(
            "`{}` is not a {what} name (1 to {MAX_NAME} bytes, no NUL, not starting with `-`)",
            name.escape_debug()
        )));
    }
    Ok(())
}

/// A storage instance id: `<name>/<number>`.
pub(super) fn check_storage_id(id: &str) -> Result<(), ModelError> {
    let ok = id.rsplit_once('/').is_some_and(|(name, n)| {
        check_name("storage", name).is_ok()
            && !n.is_empty()
            && n.chars().all(|c| c.is_ascii_digit())
    });
    if !ok {
        return Err(ModelError::InvalidArgument(format!(
            "`{}` is not a storage instance id (`<storage-name>/<number>`, as `data/0`)",
            id.escape_debug()
        )));
    }
    Ok(())
}

/// Check a unit name a guest passes to a tool.
pub(super) fn check_unit_name(unit: &str) -> Result<(), ModelError> {
    if is_unit_name(unit) {
        return Ok(());
    }
    Err(ModelError::InvalidArgument(format!(
        "`{}` is not a unit name (`<app>/<n>`)",
        unit.escape_debug()
    )))
}

/// A relation as the tools' `-r` spells it: `<endpoint>:<id>`.
pub(super) fn rel_arg(relation: &RelationRef) -> String {
    format!("{}:{}", relation.endpoint, relation.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_names_follow_jujus_grammar() {
        for ok in ["pg/0", "pg/12", "my-app2/3", "a1-b2c/10", "x-1y/0"] {
            assert!(is_unit_name(ok), "{ok}");
        }
        for bad in [
            "", "pg", "pg/", "pg/01", "pg/-1", "/0", "Pg/0", "pg-/0", "pg--x/0", "pg-1/0", "1pg/0",
            "pg/0/1", "pg/0\0", "pg/ 0", "-pg/0", "pg_x/0",
        ] {
            assert!(!is_unit_name(bad), "{bad}");
        }
    }

    #[test]
    fn names_and_storage_ids_are_checked_for_argv() {
        assert!(check_name("storage", "data").is_ok());
        for bad in ["", "-x", "a\0b"] {
            assert!(check_name("storage", bad).is_err(), "{bad:?}");
        }
        assert!(check_name("storage", &"x".repeat(MAX_NAME + 1)).is_err());
        assert!(check_storage_id("data/0").is_ok());
        for bad in ["data", "data/", "/0", "data/x", "-d/0"] {
            assert!(check_storage_id(bad).is_err(), "{bad}");
        }
    }

    proptest::proptest! {
        /// Every name Juju's grammar produces is accepted.
        #[test]
        fn jujus_unit_names_are_accepted(
            name in "[a-z][a-z0-9]{0,5}(-[a-z0-9]{0,3}[a-z][a-z0-9]{0,3}){0,3}/(0|[1-9][0-9]{0,5})"
        ) {
            proptest::prop_assert!(is_unit_name(&name), "{}", name);
        }
    }
}
