//! The examples' pair in the offline model: db-client's units ask the
//! CA for certificates over tls-certificates v1, each with a key made in
//! its own sandbox; the CA signs each CSR once, and the certificates are
//! renewed when the model's clock reaches nine tenths of their validity.

use wasm_charm_testing::{Charm, Model, ModelState, Status};

/// How many times `unit` logged a certificate's arrival.
fn arrivals(now: &ModelState, unit: &str) -> usize {
    now.log(unit)
        .iter()
        .filter(|l| l.contains("certificate available"))
        .count()
}

fn csrs(model: &Model) -> Vec<String> {
    let now = model.read();
    let bag = now.app_data("ca", "certificates");
    let list: Vec<serde_json::Value> =
        serde_json::from_str(bag.get("certificates").map_or("[]", String::as_str))
            .expect("the CA's certificates as JSON");
    list.iter()
        .map(|c| {
            c["certificate_signing_request"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

#[test]
fn each_unit_gets_its_own_certificate_and_renews_it_before_it_expires() {
    let ca = Charm::build(env!("CARGO_MANIFEST_DIR"));
    let client = Charm::build(concat!(env!("CARGO_MANIFEST_DIR"), "/../db-client"));
    let model = Model::new();
    model.deploy(&ca, "ca", 1);
    model.deploy(&client, "client", 2);
    // A day's certificates, so that renewal comes within a day's hooks.
    model.juju_ok(&["config", "ca", "certificate-validity-days=1"]);
    model.juju_ok(&["model-config", "update-status-hook-interval=60m"]);
    // Optional: without the relation, no scope speaks of TLS.
    assert_eq!(model.read().scope("client/0", "handler/certificate"), None);

    model.juju_ok(&["integrate", "client:certificates", "ca:certificates"]);
    let now = model.read();
    assert_eq!(
        now.scope("ca/0", "handler/certificates"),
        Some(Status::active("2 certificates on 1 relations"))
    );
    for unit in ["client/0", "client/1"] {
        let scope = now.scope(unit, "handler/certificate").expect("a scope");
        assert!(
            scope.message.starts_with("TLS certificate valid until "),
            "{scope:?}"
        );
        let bag = now.unit_data(unit, "certificates");
        assert!(
            bag["certificate_signing_requests"].contains("BEGIN CERTIFICATE REQUEST"),
            "{bag:?}"
        );
        assert!(arrivals(&now, unit) >= 1, "{:?}", now.log(unit));
    }
    let first = csrs(&model);
    assert_eq!(first.len(), 2, "{first:?}");
    assert_ne!(first[0], first[1]);

    // 22 hours of the 24: past nine tenths, each unit's secret expired.
    model.advance("22h");
    let renewed = csrs(&model);
    assert_eq!(renewed.len(), 2, "{renewed:?}");
    assert!(
        renewed.iter().all(|c| !first.contains(c)),
        "the CSRs were not renewed"
    );
    let now = model.read();
    for unit in ["client/0", "client/1"] {
        // Once more, and once only: the CA dates what it signs by the
        // sandbox's wall clock, which on the model is the model's.
        assert_eq!(arrivals(&now, unit), 2, "{:?}", now.log(unit));
        assert!(
            now.events(unit)
                .iter()
                .any(|e| e.starts_with("secret-expired")),
            "{:?}",
            now.events(unit)
        );
    }
}

/// A CSR for a CA, and one that does not parse, are refused in the bag
/// with the library's error (the hook does not fail), and the refusals
/// are the only answer.
#[test]
fn a_ca_request_and_a_bad_csr_are_refused_in_the_bag_not_by_failing() {
    use wasm_charm_testing::{Event, Relation, State};
    let csrs = r#"[{"certificate_signing_request": "not a CSR", "ca": false},
                   {"certificate_signing_request": "a CA, please", "ca": true}]"#;
    let state = State::new().unit("ca/0").relation(
        Relation::new("certificates:1", "client")
            .unit("client/0")
            .unit_data("client/0", "certificate_signing_requests", csrs),
    );
    let out = Charm::build(env!("CARGO_MANIFEST_DIR")).run(
        &state,
        Event::relation_changed("certificates").remote_unit("client/0"),
    );
    out.assert_ok();
    let bag = out
        .relation("certificates:1")
        .expect("the relation")
        .local_app;
    let errors: Vec<serde_json::Value> =
        serde_json::from_str(bag.get("request_errors").expect("request_errors")).expect("JSON");
    let by_csr = |csr: &str| {
        errors
            .iter()
            .find(|e| e["csr"] == csr)
            .unwrap_or_else(|| panic!("no error for {csr:?}: {errors:?}"))
    };
    assert_eq!(by_csr("a CA, please")["error"]["code"], 999);
    assert_eq!(
        by_csr("a CA, please")["error"]["message"],
        "this CA signs no CA certificates"
    );
    let bad = by_csr("not a CSR")["error"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(bad.starts_with("tls-certificates: reading a CSR"), "{bad}");
    assert_eq!(bag.get("certificates").map(String::as_str), Some("[]"));
    assert_eq!(
        out.scope("handler/certificates"),
        Some(Status::active("0 certificates on 1 relations"))
    );
}
