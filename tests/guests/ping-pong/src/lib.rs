//! Answers the other side's `count` with the next one; see metadata.yaml.

use wasm_charm::model;
use wasm_charm::prelude::*;

fn charm() -> Charm {
    Charm::new()
        .observe(
            "answer",
            On::relation("ping") | On::relation("pong"),
            answer,
        )
        .observe("strict", On::relation("pong"), strict)
}

wasm_charm::export_charm!(charm);

#[derive(serde::Deserialize)]
struct Config {
    limit: i64,
    strict: bool,
}

fn relation_of(event: &Event) -> Option<model::Relation> {
    event
        .relation()
        .map(|r| model::Relation::new(r.relation.clone()))
}

/// The leader writes the remote count plus one, on joined and changed.
fn answer(event: &Event) -> Outcome {
    let Some(relation) = relation_of(event) else {
        return Ok(None);
    };
    let joined_or_changed = matches!(event, Event::RelationJoined(_) | Event::RelationChanged(_));
    if !joined_or_changed || !model::is_leader()? {
        return Ok(None);
    }
    let config: Config = model::load_config()?;
    let theirs: i64 = relation
        .app_data()?
        .get("count")
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    if config.limit > 0 && theirs >= config.limit {
        return Ok(None);
    }
    let next = (theirs + 1).to_string();
    if relation.local_app_data()?.get("count") != Some(&next) {
        relation.set_local_app_data(&[("count", next.as_str())])?;
    }
    Ok(None)
}

/// With `strict`, a remote unit's change before its application's count
/// fails the hook.
fn strict(event: &Event) -> Outcome {
    let Event::RelationChanged(changed) = event else {
        return Ok(None);
    };
    let config: Config = model::load_config()?;
    if !config.strict || changed.remote_unit.is_none() {
        return Ok(None);
    }
    let relation = model::Relation::new(changed.relation.clone());
    if !relation.app_data()?.contains_key("count") {
        return Err(Error::msg(format!(
            "{:?} changed before its application wrote a count",
            changed.remote_unit
        )));
    }
    Ok(None)
}
