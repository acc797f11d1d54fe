//! A charm with a `backup` action, on wasm-charm: typed parameters, progress
//! messages, nested results, and the two ways an action fails.
//!
//! * `config`: blocked while config `databases` names no database.
//! * `backup` (the action): checks its parameters, reports each database as
//!   it goes (`action-log`), returns where each backup file goes
//!   (`databases.<name>`) and a summary (`backup.id`, `backup.target`,
//!   `backup.compression`), and keeps a scope saying when the last backup
//!   ran, which the unit shows while nothing is wrong.
//!
//! The handlers run sandboxed, without files or network: this example plans
//! the backup (names, files, compression) and reports it; the dumps
//! themselves would run through the workload interface (DESIGN §12).
//!
//! A request the action refuses (a relative target, a gzip level that is
//! none) fails the action with [`action::fail`]: the handler ran, and its
//! answer is "failed, because…". A database the unit does not serve is an
//! error the handler returns: the action fails with its message, and the
//! event keeps nothing of what the handler wrote.

use serde::{Deserialize, Serialize};
use wasm_charm::prelude::*;

fn charm() -> Charm {
    Charm::new()
        .observe("config", On::install() | On::config_changed(), config)
        .observe("backup", On::action("backup"), backup)
}

wasm_charm::export_charm!(charm);

/// The scope the backup action keeps: active, with when the last backup ran.
const LAST_BACKUP: &str = "last-backup";

/// The options of config.yaml.
#[derive(Deserialize)]
struct Config {
    #[serde(default)]
    databases: String,
}

/// The databases config `databases` names, in its order.
fn configured() -> Result<Vec<String>, Error> {
    let config: Config = model::load_config()?;
    Ok(config
        .databases
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(str::to_string)
        .collect())
}

/// Blocked while there is nothing to back up.
fn config(_event: &Event) -> Outcome {
    if configured()?.is_empty() {
        return Ok(Some(Status::blocked(
            "Config item `databases` must name at least one database",
        )));
    }
    Ok(None)
}

/// The backup action's parameters (actions.yaml): `compress` and `level`
/// have defaults there, so Juju always gives them; `databases` may be
/// missing.
#[derive(Deserialize)]
struct Params {
    target: String,
    compress: bool,
    level: i64,
    #[serde(default)]
    databases: Option<Vec<String>>,
}

/// The results besides each database's file: `backup.id`, `backup.target`,
/// `backup.compression`.
#[derive(Serialize)]
struct Results {
    backup: Summary,
}

#[derive(Serialize)]
struct Summary {
    id: String,
    target: String,
    compression: String,
}

/// The backup action.
fn backup(event: &Event) -> Outcome {
    let params: Params = action::load_params()?;
    let target = params.target.trim_end_matches('/');
    if !(target.starts_with('/') || target.starts_with("s3://")) {
        action::fail(format!(
            "target `{}` is neither an absolute path nor an s3:// URL",
            params.target
        ))?;
        return Ok(None);
    }
    if params.compress && !(1..=9).contains(&params.level) {
        action::fail(format!(
            "level {} is not a gzip level (1 to 9)",
            params.level
        ))?;
        return Ok(None);
    }
    let served = configured()?;
    let wanted = params.databases.unwrap_or_else(|| served.clone());
    if let Some(unknown) = wanted.iter().find(|d| !served.contains(d)) {
        return Err(Error::msg(format!(
            "database `{unknown}` is not served by this unit (config `databases`: {})",
            served.join(", ")
        )));
    }

    // Juju's id of this run names the backup.
    let id = format!("b-{}", event.action().map_or("0", |a| a.id.as_str()));
    let compression = if params.compress {
        format!("gzip-{}", params.level)
    } else {
        "none".to_string()
    };
    action::log(format!(
        "Backing up {} databases to {target} ({compression})",
        wanted.len()
    ))?;
    for (i, db) in wanted.iter().enumerate() {
        action::log(format!("{db} ({}/{})", i + 1, wanted.len()))?;
        let suffix = if params.compress { ".sql.gz" } else { ".sql" };
        // A database whose name Juju does not take as a result key
        // (`user_db`) is refused here, naming the key: the action fails.
        action::set_results([(
            format!("databases.{db}"),
            format!("{target}/{id}/{db}{suffix}"),
        )])?;
    }
    action::set_results_from(&Results {
        backup: Summary {
            id: id.clone(),
            target: target.to_string(),
            compression,
        },
    })?;
    action::log(format!("Backup {id} done"))?;
    // Kept when the handler returns, as any scope: while nothing is wrong,
    // the unit says when the last backup ran.
    status::set(
        Target::Unit,
        LAST_BACKUP,
        Status::active(format!("Last backup {id} to {target}")),
    )?;
    Ok(None)
}
