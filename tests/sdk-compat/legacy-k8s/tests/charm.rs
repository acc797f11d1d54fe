//! The fixture's own tests, as its author wrote them against the 0.1.0
//! harness (`Kind` was the harness's; it is the SDK's `StatusKind` now).

use wasm_charm_testing::{Charm, Kind, State, Status};

fn charm() -> Charm {
    Charm::build(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn install_asks_for_the_token_secret() {
    let out = charm().run(&State::new(), "install");
    out.assert_ok();
    assert_eq!(
        out.scope("handler/config"),
        Some(Status::blocked("Config item `token-secret` must be set")),
        "{out}"
    );
    assert_eq!(out.unit_status().map(|s| s.kind), Some(Kind::Blocked), "{out}");
}

#[test]
fn a_token_secret_that_is_not_there_says_so() {
    let state = State::new().config("token-secret", "secret:cs0k1ed8000000000000");
    let out = charm().run(&state, "config-changed");
    out.assert_ok();
    let status = out.scope("handler/config").expect("the config handler's scope");
    assert_eq!(status.kind, Kind::Blocked, "{out}");
    assert!(status.message.starts_with("token: not found: secret "), "{out}");
}
