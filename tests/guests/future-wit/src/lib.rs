//! A guest built against a future, incompatible version of the contract:
//! `wasm-charm:charm@0.4.0`, whose `status` interface has one more function,
//! `set-many`. Its handler calls `set-many`, so the component really imports
//! `wasm-charm:charm/status@0.4.0`; a host implementing 0.3.0 must refuse it
//! before running any of its code.

wit_bindgen::generate!({
    world: "charm",
    inline: r#"
        package wasm-charm:charm@0.4.0;

        interface types {
            enum status-kind { active, maintenance, waiting, blocked }
            record status { kind: status-kind, message: string }
            enum target { unit, app }
            enum priority { critical, normal, low }
            record relation-ref { endpoint: string, id: u32 }
            record relation-event {
                relation: relation-ref,
                remote-app: string,
                remote-unit: option<string>,
                departing-unit: option<string>,
            }
            record storage-event {
                name: string,
                id: string,
                kind: option<string>,
                location: option<string>,
            }
            record notice-event { container: string, id: string, %type: string, key: string }
            record check-event { container: string, check: string }
            record secret-event { id: string, label: option<string>, revision: option<u32> }
            record action-event { name: string, id: string }
            variant event {
                install, start, stop, remove, upgrade-charm, config-changed,
                update-status, leader-elected, leader-settings-changed,
                leader-deposed, pre-series-upgrade, post-series-upgrade,
                collect-metrics, meter-status-changed,
                relation-created(relation-event),
                relation-joined(relation-event),
                relation-changed(relation-event),
                relation-departed(relation-event),
                relation-broken(relation-event),
                storage-attached(storage-event),
                storage-detaching(storage-event),
                pebble-ready(string),
                pebble-custom-notice(notice-event),
                pebble-check-failed(check-event),
                pebble-check-recovered(check-event),
                secret-changed(secret-event),
                secret-rotate(secret-event),
                secret-remove(secret-event),
                secret-expired(secret-event),
                action(action-event),
            }
            enum event-kind {
                install, start, stop, remove, upgrade-charm, config-changed,
                update-status, leader-elected, leader-settings-changed,
                leader-deposed, pre-series-upgrade, post-series-upgrade,
                collect-metrics, meter-status-changed, relation-created,
                relation-joined, relation-changed, relation-departed,
                relation-broken, storage-attached, storage-detaching,
                pebble-ready, pebble-custom-notice, pebble-check-failed,
                pebble-check-recovered, secret-changed, secret-rotate,
                secret-remove, secret-expired, action,
            }
            record observation { kind: event-kind, entity: option<string> }
            record handler { name: string, observes: list<observation>, priority: priority }
        }

        interface status {
            use types.{status, target, priority};
            set: func(target: target, scope: string, status: status, priority: priority) -> result<_, string>;
            clear: func(target: target, scope: string) -> result<_, string>;
            /// New in 0.4.0: set several scopes of one target at once.
            set-many: func(target: target, scopes: list<tuple<string, status>>, priority: priority) -> result<_, string>;
        }

        interface handlers {
            use types.{event, status, handler};
            declare: func() -> list<handler>;
            run: func(handler: string, event: event) -> result<option<status>, string>;
        }

        world charm {
            import status;
            export handlers;
        }
    "#,
});

use exports::wasm_charm::charm::handlers::Guest;
use wasm_charm::charm::types::{
    Event, EventKind, Handler, Observation, Priority, Status, StatusKind, Target,
};

struct FutureCharm;

impl Guest for FutureCharm {
    fn declare() -> Vec<Handler> {
        vec![Handler {
            name: "future".to_owned(),
            observes: vec![Observation {
                kind: EventKind::Install,
                entity: None,
            }],
            priority: Priority::Normal,
        }]
    }

    fn run(_handler: String, _event: Event) -> Result<Option<Status>, String> {
        let scopes = [
            (
                "future/a".to_owned(),
                status(StatusKind::Waiting, "set by set-many"),
            ),
            ("future/b".to_owned(), status(StatusKind::Active, "")),
        ];
        wasm_charm::charm::status::set_many(Target::Unit, &scopes, Priority::Normal)?;
        Ok(None)
    }
}

fn status(kind: StatusKind, message: &str) -> Status {
    Status {
        kind,
        message: message.to_owned(),
    }
}

export!(FutureCharm);
