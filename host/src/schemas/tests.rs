use super::*;
use proptest::prelude::*;
use serde_json::{Value, json};

fn bag(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn shown(v: &[Violation]) -> Vec<String> {
    v.iter().map(ToString::to_string).collect()
}

#[test]
fn every_description_parses_and_is_pinned() {
    for (file, text) in SOURCES {
        let d = parse(text).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(*file, format!("{}-v{}.yaml", d.interface, d.version));
        assert_eq!(d.source.commit.len(), 40, "{file}: a full commit");
        assert!(!d.source.library.is_empty(), "{file}");
    }
    assert_eq!(catalog().len(), SOURCES.len());
    assert!(for_interface("ingress").is_some());
    assert!(for_interface("no-such").is_none());
    let unknown = parse(
        "interface: x\nversion: 0\nencoding: json\nsource: {repository: r, commit: c, path: p, library: l}\n\
         provider: {app: {a: {type: nothing}}}\n",
    );
    assert_eq!(unknown.unwrap_err(), "field `a`: unknown type `nothing`");
}

#[test]
fn ingress_values_are_json_text_and_a_port_must_be_a_number_in_range() {
    let d = for_interface("ingress").unwrap();
    let ok = bag(&[("model", "\"m\""), ("name", "\"app\""), ("port", "8080")]);
    assert_eq!(check_bag(d, Role::Requirer, Bag::App, &ok, true), []);
    let bad = bag(&[
        ("model", "m"),
        ("name", "\"app\""),
        ("port", "\"8080\""),
        ("strip-prefix", "yes"),
    ]);
    let found = shown(&check_bag(d, Role::Requirer, Bag::App, &bad, false));
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(
        found[0].starts_with("model: is not JSON text ("),
        "{found:?}"
    );
    assert_eq!(found[1], "port: is the string \"8080\", not an integer");
    assert!(found[2].starts_with("strip-prefix: is not JSON text"));
    let out_of_range = bag(&[("port", "70000")]);
    assert_eq!(
        shown(&check_bag(
            d,
            Role::Requirer,
            Bag::App,
            &out_of_range,
            false
        )),
        ["port: is 70000, outside 1..=65534"]
    );
    // A complete bag names every required field.
    assert_eq!(
        shown(&check_bag(d, Role::Requirer, Bag::App, &out_of_range, true))[1..],
        ["model: missing", "name: missing"]
    );
    let url = bag(&[("ingress", r#"{"url": "ftp://x"}"#)]);
    assert_eq!(
        shown(&check_bag(d, Role::Provider, Bag::App, &url, true)),
        ["ingress.url: is \"ftp://x\", not an http or https URL"]
    );
}

#[test]
fn the_wrong_bag_and_a_typo_are_named_and_other_keys_pass() {
    let d = for_interface("ingress").unwrap();
    let wrong = bag(&[("host", "\"h\""), ("prot", "1"), ("egress", "x")]);
    assert_eq!(
        shown(&check_bag(d, Role::Requirer, Bag::App, &wrong, false)),
        [
            "host: belongs in the unit bag of the requirer, not its application bag",
            "prot: not a field of the requirer's application bag in ingress v2; did you mean `port`?",
        ]
    );
    let db = for_interface("postgresql_client").unwrap();
    let typo = bag(&[("requested_secrets", "[]"), ("database", "shop")]);
    assert_eq!(
        shown(&check_bag(db, Role::Requirer, Bag::App, &typo, false)),
        [
            "requested_secrets: not a field of the requirer's application bag in postgresql_client v0; did you mean `requested-secrets`?"
        ]
    );
}

#[test]
fn database_values_are_raw_but_its_json_fields_are_json() {
    let d = for_interface("postgresql_client").unwrap();
    let ok = bag(&[
        ("database", "shop"),
        ("requested-secrets", r#"["username","password"]"#),
        ("entity-type", "USER"),
    ]);
    assert_eq!(check_bag(d, Role::Requirer, Bag::App, &ok, true), []);
    let bad = bag(&[
        ("requested-secrets", "username,password"),
        ("entity-type", "ROLE"),
    ]);
    let found = shown(&check_bag(d, Role::Requirer, Bag::App, &bad, true));
    assert!(
        found[0].starts_with("entity-type: is \"ROLE\", not one of USER, GROUP"),
        "{found:?}"
    );
    assert!(
        found[1].starts_with("requested-secrets: is not JSON text"),
        "{found:?}"
    );
    assert_eq!(found.len(), 2, "{found:?}");
    // v1's requests, as dpcharmlibs-interfaces writes them: unset fields null.
    let v1 = bag(&[
        ("version", "v1"),
        (
            "requests",
            r#"[{"resource": "shop", "request-id": "f69a", "salt": "s", "entity-type": null}]"#,
        ),
    ]);
    assert_eq!(check_bag(d, Role::Requirer, Bag::App, &v1, true), []);
    let v1 = bag(&[(
        "requests",
        r#"[{"request-id": "f69a", "entity-type": "ROOT"}]"#,
    )]);
    assert_eq!(
        shown(&check_bag(d, Role::Requirer, Bag::App, &v1, false)),
        [
            "requests[0].entity-type: is \"ROOT\", not one of USER, GROUP",
            "requests[0].resource: missing"
        ]
    );
    let provider = bag(&[
        ("endpoints", "10.0.0.1:5432,10.0.0.2:5432"),
        ("secret-user", "secret:cvh7kruupa1s46bqvuig"),
    ]);
    assert_eq!(check_bag(d, Role::Provider, Bag::App, &provider, false), []);
    let provider = bag(&[
        ("endpoints", "10.0.0.1"),
        ("secret-user", "cvh7kruupa1s46bqvuig"),
    ]);
    assert_eq!(
        shown(&check_bag(d, Role::Provider, Bag::App, &provider, false)),
        [
            "endpoints: is \"10.0.0.1\", not a comma-separated list of `host:port`",
            "secret-user: is \"cvh7kruupa1s46bqvuig\", not a secret URI (`secret:<id>`)",
        ]
    );
}

#[test]
fn nested_objects_lists_and_sets_are_checked_to_their_leaves() {
    let tls = for_interface("tls-certificates").unwrap();
    let certs = json!([{"ca": "C", "certificate_signing_request": "R"}, "x"]).to_string();
    let found = shown(&check_bag(
        tls,
        Role::Provider,
        Bag::App,
        &bag(&[("certificates", &certs)]),
        false,
    ));
    assert_eq!(
        found,
        [
            "certificates[0].certificate: missing",
            "certificates[1]: is the string \"x\", not an object (certificate)",
        ]
    );
    let transfer = for_interface("certificate_transfer").unwrap();
    let twice = bag(&[("certificates", r#"["A","A"]"#), ("version", "2")]);
    assert_eq!(
        shown(&check_bag(
            transfer,
            Role::Provider,
            Bag::App,
            &twice,
            false
        )),
        [
            "certificates[1]: is there twice, in a set",
            "version: is 2, outside the one value 1"
        ]
    );
}

#[test]
fn a_huge_bad_list_reports_a_bounded_number_of_violations() {
    let d = for_interface("tracing").unwrap();
    let many = serde_json::to_string(&vec![1; 5000]).unwrap();
    let found = check_bag(
        d,
        Role::Requirer,
        Bag::App,
        &bag(&[("receivers", &many)]),
        false,
    );
    assert_eq!(found.len(), 21);
    assert_eq!(found[20].to_string(), "…: and 4980 more");
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let found = shown(&check_bag(
        d,
        Role::Requirer,
        Bag::App,
        &bag(&[("receivers", &deep)]),
        false,
    ));
    assert!(found[0].contains("recursion limit"), "{found:?}");
}

/// A value that fits `shape`, built from the description alone.
fn example(d: &Description, shape: &Shape) -> Value {
    match shape {
        Shape::Named(n) => match n.as_str() {
            "string" | "any" => json!("x"),
            "int" => json!(7),
            "bool" => json!(true),
            "secret-uri" => json!("secret:cvh7kruupa1s46bqvuig"),
            "url" => json!("https://h/p"),
            "host-ports" => json!("h:1,g:2"),
            "any-object" => json!({}),
            t => Value::Object(
                d.types[t]
                    .iter()
                    .map(|(k, f)| (k.clone(), example(d, &f.shape)))
                    .collect(),
            ),
        },
        Shape::List { list } => json!([example(d, list), example(d, list)]),
        Shape::Set { set } => json!([example(d, set)]),
        Shape::OneOf { values } => json!(values[0]),
        Shape::Int { int } => json!(int.min.or(int.max).unwrap_or(0)),
    }
}

fn encoded(d: &Description, f: &Field) -> String {
    let v = example(d, &f.shape);
    match (d.encoding_of(f), &v) {
        (Encoding::Raw, Value::String(s)) => s.clone(),
        _ => v.to_string(),
    }
}

#[test]
fn a_bag_built_from_a_description_fits_it_on_every_side() {
    for d in catalog() {
        for role in [Role::Provider, Role::Requirer] {
            for b in [Bag::App, Bag::Unit] {
                let data: BTreeMap<String, String> = d
                    .side(role)
                    .bag(b)
                    .iter()
                    .map(|(k, f)| (k.clone(), encoded(d, f)))
                    .collect();
                let found = check_bag(d, role, b, &data, true);
                assert_eq!(found, [], "{} {} {}", d.title(), role.name(), b.name());
            }
        }
    }
}

proptest! {
    /// Whatever a remote charm writes, the check ends with a bounded
    /// report and never panics.
    #[test]
    fn any_bag_is_checked_without_panic_and_with_a_bounded_report(
        which in 0usize..5,
        pairs in proptest::collection::btree_map("[a-z_-]{1,24}", ".{0,64}", 0..40),
        known in proptest::collection::vec((0usize..16, ".{0,64}"), 0..8),
    ) {
        let d = &catalog()[which % catalog().len()];
        let names: Vec<&String> = d.provider.app.keys().chain(d.requirer.app.keys()).collect();
        let mut data = pairs;
        for (i, v) in known {
            if !names.is_empty() {
                data.insert(names[i % names.len()].clone(), v);
            }
        }
        for role in [Role::Provider, Role::Requirer] {
            let found = check_bag(d, role, Bag::App, &data, true);
            prop_assert!(found.len() <= 21);
            prop_assert_eq!(&found, &check_bag(d, role, Bag::App, &data, true));
        }
    }
}

#[test]
fn the_interfaces_page_lists_every_description_with_its_library_and_disagreements() {
    let page = include_str!("../../../docs/interfaces.md");
    for d in &yaml_catalog() {
        let row = format!("| `{}` v{} |", d.interface, d.version);
        assert!(page.contains(&row), "docs/interfaces.md: no row `{row}`");
        assert!(page.contains(&d.source.commit), "{}: its commit", d.title());
        let library = d.source.library.split(" (").next().unwrap_or_default();
        assert!(
            page.contains(library),
            "{}: its library {library}",
            d.title()
        );
        if !d.disagreements.is_empty() {
            let item = format!("* `{}` v{}:", d.interface, d.version);
            assert!(
                page.contains(&item),
                "docs/interfaces.md: no disagreements of {}",
                d.title()
            );
        }
    }
}

/// A file the descriptions write: it must hold `want`; with
/// `WASM_CHARM_REGENERATE` set, it is written instead.
fn written_from_the_descriptions(path: &str, want: &str) {
    let have = std::fs::read_to_string(path).unwrap_or_default();
    if have != want && std::env::var_os("WASM_CHARM_REGENERATE").is_some() {
        if let Some(dir) = std::path::Path::new(path).parent() {
            std::fs::create_dir_all(dir).expect("the file's directory");
        }
        std::fs::write(path, want).unwrap_or_else(|e| panic!("write {path}: {e}"));
        return;
    }
    assert!(
        have == want,
        "{path} is not written from guest-sdk/interfaces: run \
         `WASM_CHARM_REGENERATE=1 cargo test -p wasm-charm --lib schemas`"
    );
}

#[test]
fn the_python_sdks_descriptions_are_written_from_these() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../guest-sdk-py/wasm_charm/_interfaces.py"
    );
    written_from_the_descriptions(path, &python_module());
}

#[test]
fn each_interfaces_page_is_written_from_its_description() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/interfaces");
    for d in &yaml_catalog() {
        let path = format!("{dir}/{}", page::file_name(d));
        written_from_the_descriptions(&path, &page::page(d));
    }
}

#[test]
fn the_compiled_descriptions_are_written_from_the_yaml() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/schemas/compiled.rs");
    written_from_the_descriptions(path, &compiled_module());
}

#[test]
fn the_dispatchs_own_reader_gives_each_description_as_its_yaml_does() {
    for d in yaml_catalog() {
        // With every word kept, so each field of the types is read.
        let full = serde_json::to_string(&d).unwrap();
        let read = from_json::description(&full).unwrap_or_else(|e| panic!("{}: {e}", d.title()));
        assert_eq!(
            serde_json::to_value(&read).unwrap(),
            serde_json::to_value(&d).unwrap(),
            "{}",
            d.title()
        );
        let compiled = for_interface(&d.interface).unwrap();
        assert_eq!(
            compiled.side(Role::Provider).app.len(),
            d.provider.app.len()
        );
        assert_eq!(compiled.types.len(), d.types.len());
    }
    let bad = |text: &str| from_json::description(text).unwrap_err();
    assert_eq!(bad("[]"), "the description: not a map");
    assert!(bad("{\"interface\": \"x\"}").starts_with("no `"));
    let with = |shape: &str| {
        format!(
            "{{\"interface\":\"x\",\"version\":0,\"encoding\":\"raw\",\
             \"source\":{{\"repository\":\"r\",\"commit\":\"c\",\"path\":\"p\",\"library\":\"l\"}},\
             \"provider\":{{\"app\":{{\"a\":{{\"type\":{shape}}}}}}}}}"
        )
    };
    assert!(from_json::description(&with("{\"list\":{\"int\":{\"min\":1}}}")).is_ok());
    assert_eq!(
        bad(&with("{\"tuple\":\"string\"}")),
        "provider.app.a: `tuple` is not list, set, enum or int"
    );
    assert_eq!(
        bad(&with("{\"list\":\"string\",\"set\":\"string\"}")),
        "provider.app.a: a type is a name or a map of one key"
    );
}
