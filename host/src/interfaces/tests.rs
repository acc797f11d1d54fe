//! The registered interfaces driven through one event without wasm: what a
//! handler writes is data until the pipeline keeps it, a later handler reads
//! what an earlier one kept, and the states `declare` runs with reach
//! nothing of an event.

use super::*;
use crate::bindings::status::Host as _;
use crate::bindings::stored::Host as _;
use crate::bindings::{Priority, Status, StatusKind, Target as WitTarget};
use crate::charm_dir::{Actions, ConfigSchema, Endpoint, Manifest, Metadata, Role};
use crate::hook_tools::ToolOutput;
use crate::hook_tools::table::ToolTable;
use crate::interfaces::ActionInterface;
use crate::interfaces::probe::ProbeInterface;
use crate::interfaces::status::StatusInterface;
use crate::interfaces::stored::StoredInterface;
use crate::juju_env::JujuEnv;
use crate::status::store::Target;
use crate::workload::SystemMachine;
use crate::workload_root::WorkloadRoot;
use std::time::Duration;

fn charm() -> CharmDir {
    CharmDir {
        path: "/charm".into(),
        metadata: Metadata {
            name: "c".into(),
            endpoints: [(
                "db".to_string(),
                Endpoint {
                    role: Role::Requires,
                    interface: "pg".into(),
                    limit: None,
                },
            )]
            .into(),
            ..Metadata::default()
        },
        config: ConfigSchema::default(),
        actions: Actions::default(),
        manifest: Manifest::default(),
    }
}

fn start(handler: &str) -> Start<'_> {
    Start {
        handler,
        deadline: Instant::now() + Duration::from_secs(5),
    }
}

fn blocked(message: &str) -> Status {
    Status {
        kind: StatusKind::Blocked,
        message: message.into(),
    }
}

fn scopes(store: &ScopeStore) -> Vec<String> {
    store.current_names(Target::Unit, |_| true)
}

#[test]
fn writes_are_data_until_kept_and_later_handlers_read_what_was_kept() {
    let charm = charm();
    let env = JujuEnv::from_vars([
        ("JUJU_DISPATCH_PATH", "hooks/config-changed"),
        ("JUJU_UNIT_NAME", "c/0"),
    ]);
    let ctx = EventContext::new(
        &charm,
        &env,
        &WorkloadRoot::machine(),
        &charm.path.join(crate::status::store_file::STATE_DIR),
        crate::event_time::EventTime::model(100),
    )
    .unwrap()
    .unwrap();
    let (tools, _calls) = ToolTable::new(&[("juju-log", ToolOutput::ok(""))]);
    let prober = Prober::default();
    let setup = Setup {
        ctx: &ctx,
        tools: Arc::new(tools),
        prober: &prober,
        machine: Arc::new(SystemMachine::default()),
        guest_lines: Arc::default(),
    };
    let mut store = crate::status::store_edit::StoreEdit::begin(ScopeStore::default());
    let mut warnings = Vec::new();

    // A handler that returned: its writes reach the store when kept.
    let mut states = EventStates::new(&setup);
    states.begin(&store);
    let mut instance = states.instance(&start("a"));
    let status = instance.get_mut::<StatusInterface>();
    status
        .set(
            WitTarget::Unit,
            "tls".into(),
            blocked("no cert"),
            Priority::Normal,
        )
        .unwrap();
    let stored = instance.get_mut::<StoredInterface>();
    stored.set("k".into(), "v".into()).unwrap();
    let (mut states, writes) = instance.finish(&mut warnings);
    assert!(scopes(&store).is_empty(), "not applied in place");
    let mut to = Keep {
        store: &mut store,
        described: "config-changed",
        now: 100,
    };
    states.keep(writes, &mut to);
    assert_eq!(scopes(&store), ["tls"]);
    assert_eq!(store.data.get("k"), Some("v"));

    // A later handler reads what was kept; dropping its writes keeps none.
    states.begin(&store);
    let mut instance = states.instance(&start("b"));
    let stored = instance.get_mut::<StoredInterface>();
    assert_eq!(stored.get("k".into()), Some("v".into()));
    stored.delete("k".into()).unwrap();
    let status = instance.get_mut::<StatusInterface>();
    status.clear(WitTarget::Unit, "tls".into()).unwrap();
    let (mut states, dropped) = instance.finish(&mut warnings);
    drop(dropped);
    assert_eq!(scopes(&store), ["tls"]);
    assert_eq!(store.data.get("k"), Some("v"));
    assert!(warnings.is_empty(), "{warnings:?}");

    // Nothing held back: the end of the event sends nothing.
    assert_eq!(states.commit(), Ok(()));
}

#[test]
fn the_states_declare_runs_with_reach_nothing_of_an_event() {
    let charm = charm();
    let prober = Prober::default();
    let mut states = EventStates::declaring(&Declaring {
        charm: Some(&charm),
        ctx: None,
        prober: &prober,
    });
    let e = states.host_log().leader().unwrap_err();
    assert!(format!("{e:?}").contains("declares its handlers"), "{e:?}");
    let action = states.get_mut::<ActionInterface>();
    assert!(action.fail_for_host("x").is_err());
    assert_eq!(action.failed(), None);
}

#[test]
fn a_split_lends_several_interfaces_at_once_each_once() {
    let charm = charm();
    let prober = Prober::default();
    let states = EventStates::declaring(&Declaring {
        charm: Some(&charm),
        ctx: None,
        prober: &prober,
    });
    let mut instance = states.instance(&start("declare"));
    let mut split = instance.split();
    let probes = split.take::<ProbeInterface>();
    let model = split.take::<ModelInterface>();
    model.set_deadline(Instant::now());
    probes.set_deadline(Instant::now());
    let again = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        split.take::<ModelInterface>();
    }));
    assert!(again.is_err(), "a state is lent once per split");
}
