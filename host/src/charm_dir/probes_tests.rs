//! Declarations as wasm-charm.yaml writes them (DESIGN §5), and the errors,
//! which name the file, the probe and the field.

// A test reads as one scenario: its length is the story it tells.
#![allow(clippy::too_many_lines)]

use super::{Expect, HostPort, ProbeSpec, Target, check_containers};
use crate::charm_dir::Manifest;
use std::path::Path;
use std::time::Duration;

fn parse(text: &str) -> Result<Manifest, String> {
    Manifest::parse(text, Path::new("wasm-charm.yaml")).map_err(|e| e.to_string())
}

fn probe(text: &str, name: &str) -> ProbeSpec {
    parse(text).unwrap().probes[name].clone()
}

fn error(text: &str) -> String {
    parse(text).unwrap_err()
}

#[test]
fn the_schema_of_design_5_with_its_defaults() {
    let m = parse(
        "probes:
  api-port:
    tcp: 127.0.0.1:8774
    expect: up
    gate: true
    timeout: 2s
    retries: 2
    backoff: 200ms
    grace: 60s
  nova-api:
    systemd: nova-api.service
  worker:
    process: api-worker
    expect: down
    gate: false
    timeout: 500ms
    retries: 0
    backoff: 0ms
    grace: 0s
  health:
    http: http://127.0.0.1:8774/healthcheck
  v6:
    tcp: '[::1]:8080'
  detailed:
    http: {url: 'http://[::1]:8080/v1/status?full=1', status: 204, body: '\"ok\"'}
",
    )
    .unwrap();
    assert_eq!(m.probes.len(), 6);
    let defaults = ProbeSpec::new(Target::Tcp(HostPort {
        host: "127.0.0.1".into(),
        port: 8774,
    }));
    assert_eq!(m.probes["api-port"], defaults);
    assert_eq!(defaults.timeout, Duration::from_secs(2));
    assert_eq!(defaults.retries, 2);
    assert_eq!(defaults.backoff, Duration::from_millis(200));
    assert_eq!(defaults.grace, Duration::from_secs(60));
    assert!(defaults.gate);
    assert_eq!(defaults.expect, Expect::Up);
    assert_eq!(
        m.probes["nova-api"].target,
        Target::Systemd {
            unit: "nova-api.service".into()
        }
    );
    let w = &m.probes["worker"];
    assert_eq!(
        (w.expect, w.gate, w.timeout, w.retries, w.backoff, w.grace),
        (
            Expect::Down,
            false,
            Duration::from_millis(500),
            0,
            Duration::ZERO,
            Duration::ZERO
        )
    );
    let Target::Http(h) = &m.probes["health"].target else {
        panic!()
    };
    assert_eq!(h.addr.to_string(), "127.0.0.1:8774");
    assert_eq!(h.path, "/healthcheck");
    assert_eq!((h.status, h.body.as_deref()), (None, None));
    let Target::Tcp(v6) = &m.probes["v6"].target else {
        panic!()
    };
    assert_eq!((v6.host.as_str(), v6.port), ("::1", 8080));
    assert_eq!(v6.to_string(), "[::1]:8080");
    let Target::Http(d) = &m.probes["detailed"].target else {
        panic!()
    };
    assert_eq!(d.addr.to_string(), "[::1]:8080");
    assert_eq!(d.path, "/v1/status?full=1");
    assert_eq!((d.status, d.body.as_deref()), (Some(204), Some("\"ok\"")));
}

#[test]
fn urls_without_port_or_path() {
    let t = |url: &str| match probe(&format!("probes:\n  h:\n    http: '{url}'\n"), "h").target {
        Target::Http(h) => (h.addr.to_string(), h.path),
        _ => unreachable!(),
    };
    assert_eq!(t("http://localhost"), ("localhost:80".into(), "/".into()));
    assert_eq!(t("http://[::1]"), ("[::1]:80".into(), "/".into()));
    assert_eq!(t("HTTP://h:81?x=1#frag"), ("h:81".into(), "/?x=1".into()));
}

/// Each bad declaration, and what its error must name.
#[test]
fn errors_name_the_file_the_probe_and_the_field() {
    let cases: &[(&str, &[&str])] = &[
        (
            "probes:\n  Api:\n    tcp: h:1\n",
            &["probe `Api`", "a-z, 0-9"],
        ),
        ("probes:\n  a_b:\n    tcp: h:1\n", &["probe `a_b`"]),
        (
            &format!("probes:\n  {}:\n    tcp: h:1\n", "a".repeat(64)),
            &["1 to 63"],
        ),
        ("probes:\n  p: 8774\n", &["probe `p`", "found an integer"]),
        (
            "probes:\n  p:\n    expect: up\n",
            &["probe `p`", "no target"],
        ),
        (
            "probes:\n  p:\n    tcp: h:1\n    process: x\n",
            &["probe `p`", "several targets (process, tcp)"],
        ),
        (
            "probes:\n  p:\n    tcp: h:1\n    timout: 2s\n",
            &["probe `p`, field `timout`", "unknown field"],
        ),
        (
            "probes:\n  p:\n    pebble-service: nginx\n",
            &["field `pebble-service`", "not <container>/<name>"],
        ),
        (
            "probes:\n  p:\n    pebble-check: web/a/b\n",
            &["field `pebble-check`", "without `/`"],
        ),
        (
            "probes:\n  p:\n    pebble-check: 3\n",
            &["field `pebble-check`", "expected a string"],
        ),
        (
            "probes:\n  p:\n    http: https://h/x\n",
            &[
                "field `http`",
                "https is not supported",
                "only http:// URLs",
            ],
        ),
        (
            "probes:\n  p:\n    http: ftp://h/x\n",
            &["field `http`", "only http:// URLs"],
        ),
        (
            "probes:\n  p:\n    http: http://u:pw@h/x\n",
            &["credentials"],
        ),
        (
            "probes:\n  p:\n    http: {url: 'http://h/', status: 600}\n",
            &["field `http`", "status", "600"],
        ),
        (
            "probes:\n  p:\n    http: {url: 'http://h/', code: 200}\n",
            &["field `http`", "unknown key `code`"],
        ),
        (
            "probes:\n  p:\n    http: {status: 200}\n",
            &["field `http`", "no `url`"],
        ),
        (
            "probes:\n  p:\n    tcp: ::1:8774\n",
            &["field `tcp`", "in brackets"],
        ),
        (
            "probes:\n  p:\n    tcp: '[::1]8774'\n",
            &["field `tcp`", "[address]:port"],
        ),
        (
            "probes:\n  p:\n    tcp: '[zz]:1'\n",
            &["field `tcp`", "not an IPv6 address"],
        ),
        (
            "probes:\n  p:\n    tcp: h:0\n",
            &["field `tcp`", "not a port"],
        ),
        ("probes:\n  p:\n    tcp: h\n", &["field `tcp`", "no port"]),
        (
            "probes:\n  p:\n    tcp: 8774\n",
            &["field `tcp`", "expected a string"],
        ),
        (
            "probes:\n  p:\n    systemd: --all\n",
            &["field `systemd`", "not a systemd unit name"],
        ),
        (
            "probes:\n  p:\n    process: /usr/bin/x\n",
            &["field `process`", "without `/`"],
        ),
        (
            "probes:\n  p:\n    tcp: h:1\n    expect: sideways\n",
            &["field `expect`", "`sideways`"],
        ),
        (
            "probes:\n  p:\n    tcp: h:1\n    gate: yes please\n",
            &["field `gate`", "true or false"],
        ),
        (
            "probes:\n  p:\n    tcp: h:1\n    timeout: 2x\n",
            &["field `timeout`", "not a duration"],
        ),
        (
            "probes:\n  p:\n    tcp: h:1\n    timeout: 61s\n",
            &["field `timeout`", "61s is outside 1ms to 1m"],
        ),
        (
            "probes:\n  p:\n    tcp: h:1\n    timeout: 0ms\n",
            &["field `timeout`", "outside"],
        ),
        (
            "probes:\n  p:\n    tcp: h:1\n    retries: 11\n",
            &["field `retries`", "11 is outside 0..=10"],
        ),
        (
            "probes:\n  p:\n    tcp: h:1\n    retries: -1\n",
            &["field `retries`"],
        ),
        (
            "probes:\n  p:\n    tcp: h:1\n    backoff: 2m\n",
            &["field `backoff`", "outside"],
        ),
        (
            "probes:\n  p:\n    tcp: h:1\n    grace: 25h\n",
            &["field `grace`", "outside"],
        ),
        (
            "probes:\n  p:\n    tcp: h:1\n    grace: 60\n",
            &["field `grace`", "expected a string"],
        ),
    ];
    for (text, wanted) in cases {
        let e = error(text);
        assert!(e.starts_with("wasm-charm.yaml: "), "{text}\n{e}");
        for w in *wanted {
            assert!(e.contains(w), "{text}\nwanted `{w}` in: {e}");
        }
    }
}

#[test]
fn pebble_probes_name_a_container_and_a_service_or_check() {
    let text =
        "probes:\n  svc:\n    pebble-service: web/nginx\n  up:\n    pebble-check: web/alive\n";
    assert_eq!(
        probe(text, "svc").target,
        Target::PebbleService {
            container: "web".into(),
            service: "nginx".into()
        }
    );
    let up = probe(text, "up");
    assert_eq!(up.target.to_string(), "Pebble check web/alive");
    let specs = parse(text).unwrap().probes;
    assert_eq!(check_containers(&specs, &["web".to_string()]), Ok(()));
    let e = check_containers(&specs, &["db".to_string()]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "probe `svc`, field `pebble-service`: container `web` is not declared in metadata.yaml \
         `containers:` (db)"
    );
}

#[test]
fn at_most_64_probes() {
    let many = |n: usize| {
        let mut t = String::from("probes:\n");
        for i in 0..n {
            t += &format!("  p{i}:\n    tcp: h:{}\n", i + 1);
        }
        t
    };
    assert_eq!(parse(&many(64)).unwrap().probes.len(), 64);
    let e = error(&many(65));
    assert!(e.contains("65 probes are declared; at most 64"), "{e}");
}

#[test]
fn no_section_no_probes() {
    assert!(parse("component: x.wasm\n").unwrap().probes.is_empty());
    assert!(parse("probes: {}\n").unwrap().probes.is_empty());
}
