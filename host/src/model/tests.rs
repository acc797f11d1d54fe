//! The model over hook tools answering from a table, as the model's test
//! modules share it, and the tests that cross its parts: tool failures as
//! typed errors, and the guest's tool-call bound that the host escapes.

use super::budget::MAX_GUEST_TOOL_CALLS_PER_EVENT;
use super::{Identity, Model, describe_error};
use crate::bindings::RelationRef;
use crate::bindings::model::{Host, LogLevel, ModelError};
use crate::bindings::relations::{Host as _, LocalBag};
use crate::charm_dir::{ConfigSchema, ConfigType};
use crate::hook_tools::ToolOutput;
use crate::hook_tools::table::{Calls, ToolTable};
use std::sync::Arc;

/// A model of unit `gw/0` whose config.yaml declares `port` an int and
/// `ratio` a float, its tools answering from `answers`.
pub(super) fn model(answers: &[(&'static str, ToolOutput)]) -> (Model, Calls) {
    let (tools, calls) = ToolTable::new(answers);
    let mut schema = ConfigSchema::default();
    schema.options.insert("port".into(), ConfigType::Int);
    schema.options.insert("ratio".into(), ConfigType::Float);
    let identity = Identity {
        unit: "gw/0".into(),
        app: "gw".into(),
        model: "m".into(),
        juju: None,
        kubernetes: false,
    };
    (Model::new(Arc::new(tools), schema, identity), calls)
}

/// A model of unit `gw/0` of a charm with relation endpoints `endpoints`
/// (a Kubernetes unit when `kubernetes`), its tools answering from
/// `answers`.
pub(super) fn model_on(
    kubernetes: bool,
    endpoints: &[&str],
    answers: &[(&'static str, ToolOutput)],
) -> (Model, Calls) {
    let (tools, calls) = ToolTable::new(answers);
    let identity = Identity {
        unit: "gw/0".into(),
        app: "gw".into(),
        model: "m".into(),
        juju: None,
        kubernetes,
    };
    let mut m = Model::new(Arc::new(tools), ConfigSchema::default(), identity);
    m.set_endpoints(endpoints.iter().map(|e| e.to_string()).collect());
    (m, calls)
}

pub(super) fn rel(id: u32) -> RelationRef {
    RelationRef {
        endpoint: "db".into(),
        id,
    }
}

#[test]
fn tool_failures_become_typed_errors() {
    let (mut m, _) = model(&[
        (
            "relation-list",
            ToolOutput::error(
                2,
                "invalid value \"db:9\" for option -r: relation not found",
            ),
        ),
        ("relation-ids", ToolOutput::ok("[\"db:1\", \"nonsense\"]")),
        ("config-get", ToolOutput::ok(r#"{"port": "eighty"}"#)),
        ("is-leader", ToolOutput::ok("maybe")),
    ]);
    assert!(matches!(
        m.relation_units(rel(9)),
        Err(ModelError::RelationNotFound(_))
    ));
    let e = describe_error(&m.relation_ids("db".into()).unwrap_err());
    assert!(e.contains("`nonsense` is not `<endpoint>:<id>`"), "{e}");
    let e = describe_error(&m.config().unwrap_err());
    assert!(
        e.contains("option `port` is declared int in config.yaml"),
        "{e}"
    );
    let e = describe_error(&m.is_leader().unwrap_err());
    assert!(
        e.contains("is-leader answered something that is not the expected JSON"),
        "{e}"
    );
    assert!(matches!(
        m.relation_set(rel(1), LocalBag::Unit, vec![("".into(), "v".into())]),
        Err(ModelError::InvalidArgument(_))
    ));
}

/// The arguments of each call of `tool`.
pub(super) fn tool_calls(calls: &Calls, tool: &str) -> Vec<Vec<String>> {
    let calls = calls.lock().unwrap();
    calls
        .iter()
        .filter(|c| c.0 == tool)
        .map(|c| c.1.clone())
        .collect()
}

#[test]
fn guest_tool_calls_are_bounded_per_event_but_not_the_hosts() {
    let (mut m, calls) = model(&[("juju-log", ToolOutput::ok(""))]);
    // Failed reads are not cached: each runs the tool.
    for _ in 0..MAX_GUEST_TOOL_CALLS_PER_EVENT {
        assert!(matches!(m.config(), Err(ModelError::ToolFailed(_))));
    }
    let e = describe_error(&m.config().unwrap_err());
    assert!(
        e.contains("config-get not run")
            && e.contains("1000 hook-tool calls")
            && e.contains("MAX_GUEST_TOOL_CALLS_PER_EVENT"),
        "{e}"
    );
    Host::log(&mut m, LogLevel::Info, "dropped".into());
    assert_eq!(
        tool_calls(&calls, "config-get").len(),
        MAX_GUEST_TOOL_CALLS_PER_EVENT
    );
    // The host still runs its tools, and says what was dropped.
    assert!(matches!(m.leader(), Err(ModelError::ToolFailed(_))));
    Model::log(&mut m, LogLevel::Error, "host");
    m.report_dropped_logs();
    assert_eq!(tool_calls(&calls, "is-leader").len(), 1);
    let logs = tool_calls(&calls, "juju-log");
    assert_eq!(logs.len(), 2, "{logs:?}");
    assert!(
        logs[1][3].contains("MAX_GUEST_TOOL_CALLS_PER_EVENT"),
        "{}",
        logs[1][3]
    );
}
