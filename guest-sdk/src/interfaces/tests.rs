use super::codec::Bag;
use super::*;

fn applied(changes: Vec<(String, String)>) -> Bag {
    changes.into_iter().filter(|(_, v)| !v.is_empty()).collect()
}

#[test]
fn ingress_fields_are_json_text_and_a_left_out_field_is_deleted() {
    let value = ingress_v2::RequirerApp {
        strip_prefix: Some(true),
        ..ingress_v2::RequirerApp::new("dev".into(), "web".into(), 8080)
    };
    let changes = value.to_bag();
    assert!(changes.contains(&("model".into(), "\"dev\"".into())));
    assert!(changes.contains(&("port".into(), "8080".into())));
    assert!(changes.contains(&("strip-prefix".into(), "true".into())));
    assert!(
        changes.contains(&("scheme".into(), String::new())),
        "deleted"
    );
    let bag = applied(changes);
    assert_eq!(ingress_v2::RequirerApp::from_bag(&bag), Ok(value));
}

#[test]
fn database_fields_are_raw_but_for_its_json_ones() {
    let value = postgresql_client_v0::RequirerApp {
        requested_secrets: Some(vec!["username".into(), "password".into()]),
        entity_type: Some("USER".into()),
        database: Some("shop".into()),
        ..postgresql_client_v0::RequirerApp::new()
    };
    let bag = applied(value.to_bag());
    assert_eq!(bag["database"], "shop");
    assert_eq!(bag["requested-secrets"], r#"["username","password"]"#);
    assert_eq!(bag["entity-type"], "USER");
    assert_eq!(postgresql_client_v0::RequirerApp::from_bag(&bag), Ok(value));
}

#[test]
fn a_bad_or_missing_field_is_named() {
    let mut bag: Bag = [("port".to_string(), "\"8080\"".to_string())].into();
    let e = ingress_v2::RequirerApp::from_bag(&bag).unwrap_err();
    assert_eq!(e.field, "model");
    assert_eq!(e.problem, "missing");
    bag.insert("model".into(), "\"m\"".into());
    bag.insert("name".into(), "\"n\"".into());
    let e = ingress_v2::RequirerApp::from_bag(&bag).unwrap_err();
    assert_eq!(e.field, "port");
    assert!(e.problem.contains("expected i64"), "{e}");
}

#[test]
fn a_set_is_written_sorted_so_an_unchanged_value_is_the_same_text() {
    let a = certificate_transfer_v1::ProviderApp::new(["b".to_string(), "a".to_string()].into(), 1);
    let b = certificate_transfer_v1::ProviderApp::new(["a".to_string(), "b".to_string()].into(), 1);
    assert_eq!(a.to_bag(), b.to_bag());
    assert!(
        a.to_bag()
            .contains(&("certificates".into(), r#"["a","b"]"#.into()))
    );
}

#[test]
fn nested_objects_keep_their_wire_names() {
    let bag: Bag = [(
        "receivers".to_string(),
        r#"[{"protocol":{"name":"otlp_http","type":"http"},"url":"http://t:4318"}]"#.to_string(),
    )]
    .into();
    let p = tracing_v2::ProviderApp::from_bag(&bag).unwrap();
    assert_eq!(p.receivers[0].protocol.r#type, "http");
    assert_eq!(applied(p.to_bag()), bag);
}
