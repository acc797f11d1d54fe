//! A test charm for the `action` interface (tests/action_api.rs).
//!
//! * `hook` (install, config-changed): makes every action call outside an
//!   action and logs each error as `outside <call>: <error>`.
//! * `exercise` (action `exercise`): does what parameter `mode` says. A call
//!   the host refuses is recorded as result `error` (so the test sees what
//!   the guest got), unless the mode is about failing.
//! * `untyped` (action `untyped`, no schema): returns its parameters as
//!   result `params`.
//!
//! The modes that fail write a scope and stored data first, which the event
//! must not keep; `fail` writes them too, and they are kept.

use wasm_charm::action::{self, ActionError};
use wasm_charm::prelude::*;

fn charm() -> Charm {
    Charm::new()
        .observe("hook", On::install() | On::config_changed(), hook)
        .observe("exercise", On::action("exercise"), exercise)
        .observe("untyped", On::action("untyped"), untyped)
}

wasm_charm::export_charm!(charm);

fn hook(_event: &Event) -> Outcome {
    let outside = |call: &str, result: Result<(), ActionError>| {
        if let Err(e) = result {
            log::info(format!("outside {call}: {e}"));
        }
    };
    if let Err(e) = action::load_params::<serde_json::Value>() {
        log::info(format!("outside params: {e}"));
    }
    outside("set-results", action::set_results([("a", "1")]));
    outside("fail", action::fail("x"));
    outside("log", action::log("x"));
    Ok(None)
}

#[derive(serde::Deserialize)]
struct Params {
    mode: String,
    count: i64,
}

/// Record a refused call as result `error`.
fn record(result: Result<(), ActionError>) -> Outcome {
    if let Err(e) = result {
        action::set_results([("error", e.to_string())])?;
    }
    Ok(None)
}

fn exercise(_event: &Event) -> Outcome {
    let params: Params = action::load_params()?;
    match params.mode.as_str() {
        "results" => {
            action::log("setting results")?;
            action::set_results([("a.b", "1"), ("a.c", "two"), ("empty", "")])?;
            action::set_results([("a.b", "replaced")])?;
            Ok(None)
        }
        // The status a handler returns during an action is ignored; a scope
        // it sets is kept.
        "status" => {
            status::set(Target::Unit, "kept", Status::active("kept by the action"))?;
            Ok(Some(Status::blocked("returned by an action")))
        }
        // action::fail, then success: the action fails, the writes stay.
        "fail" => {
            action::fail("refused politely")?;
            status::set(Target::Unit, "kept", Status::active("kept by the action"))?;
            stored::set("kept", "by the action")?;
            Ok(None)
        }
        "fail-default" => record(action::fail("")),
        // A result set before the handler fails stays; the scope and the
        // stored data do not.
        "err" => {
            action::set_results([("partial", "yes")])?;
            status::set(
                Target::Unit,
                "dropped",
                Status::blocked("written before failing"),
            )?;
            stored::set("dropped", "written before failing")?;
            Err(Error::msg("deliberate failure"))
        }
        "panic" => {
            status::set(
                Target::Unit,
                "dropped",
                Status::blocked("written before failing"),
            )?;
            stored::set("dropped", "written before failing")?;
            panic!("deliberate panic")
        }
        "bad-key" => record(action::set_results([("Bad_Key", "x")])),
        "reserved" => record(action::set_results([("out.stderr", "x")])),
        "nested" => record(action::set_results([("a", "1"), ("a.b", "2")])),
        "nul" => record(action::set_results([("a", "x\0y")])),
        "too-long" => record(action::set_results([("dump", "x".repeat(128 * 1024))])),
        "long-log" => record(action::log("x".repeat(128 * 1024))),
        "many-logs" => {
            for i in 0..params.count {
                if let Err(e) = action::log(format!("step {i}")) {
                    action::set_results([("error", e.to_string()), ("sent", i.to_string())])?;
                    return Ok(None);
                }
            }
            Ok(None)
        }
        // Several argv elements' worth: sent in several calls.
        "big" => {
            let value = "v".repeat(100 * 1024);
            let results: Vec<(String, String)> = (0..params.count)
                .map(|i| (format!("part-{i}"), value.clone()))
                .collect();
            record(action::set_results(results))
        }
        // Every call's error from a tool that fails goes back to the
        // handler, which returns it: the action fails with its message.
        "log-then-results" => {
            action::log("working")?;
            action::set_results([("done", "yes")])?;
            Ok(None)
        }
        other => Err(Error::msg(format!("unknown mode `{other}`"))),
    }
}

fn untyped(_event: &Event) -> Outcome {
    let params: serde_json::Value = action::load_params()?;
    action::set_results([("params", params.to_string())])?;
    Ok(None)
}
