//! The model's time: `juju model-config` for the one key of it the model
//! simulates (`update-status-hook-interval`), and `advance`, the offline
//! model's own command (Juju's time passes by itself; here a command says
//! how much), which runs what falls due on the way.

use super::{Done, Failure, Model, Parsed, print_formatted, usage};
use crate::world::timers;

/// `juju model-config` (all, `--format json` as Juju prints it), `KEY`
/// (one value), `k=v …` (set), `--reset k,…`.
pub(super) fn model_config(m: &mut Model, p: &Parsed) -> Done {
    if p.has(&["--file"]) {
        return usage("--file: the offline model takes model config as key=value");
    }
    if let Some((values, reset)) = super::config::changes(p, &p.positional, "model-config")? {
        return Ok(m.set_model_config(values, reset)?);
    }
    let set = m.world.model_config.get(timers::UPDATE_STATUS);
    let value = set
        .cloned()
        .unwrap_or_else(|| format!("{}m", timers::DEFAULT_UPDATE_STATUS / 60));
    let source = if set.is_some() { "model" } else { "default" };
    match p.positional.as_slice() {
        [] => {}
        [key] if key == timers::UPDATE_STATUS => {
            say!("{value}");
            return Ok(());
        }
        [key] => {
            return Err(Failure {
                code: 1,
                // Juju's words: the model simulates one key, and knows no other.
                message: format!("key \"{key}\" not found in \"{}\" model.", m.world.name),
            });
        }
        [_, extra @ ..] => {
            return usage(format!(
                "can only retrieve a single value, or all values; got {} more",
                extra.len()
            ));
        }
    }
    let all = serde_json::json!({
        timers::UPDATE_STATUS: { "Value": value, "Source": source },
    });
    print_formatted(p, &all, || {
        format!(
            "Attribute                    From     Value\n{:<28} {source:<8} {value}\n",
            timers::UPDATE_STATUS
        )
    })
}

/// `advance DURATION` (a Go duration: `90s`, `1h30m`): the model's clock
/// moves on, what falls due on the way runs at its time, settled.
pub(super) fn advance(m: &mut Model, p: &Parsed) -> Done {
    let [by] = p.positional.as_slice() else {
        return usage("advance takes one duration (e.g. 5m, 1h30m)");
    };
    let secs = crate::offline::secret_codec::go_duration(by)
        .filter(|s| *s >= 0.0)
        .ok_or_else(|| Failure {
            code: 2,
            message: format!("advance: \"{by}\" is not a duration (e.g. 5m, 1h30m)"),
        })?;
    let settled = m.advance(secs.ceil() as u64)?;
    super::settled_told(&settled);
    Ok(())
}
