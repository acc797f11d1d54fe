//! Each of Pebble's layer and plan rules, refused in its words, and what
//! Pebble takes that looks as if it would not.

use super::super::plan::{combine, parse_layer};

/// The error of adding `text` as layer `x`, parsed then combined.
fn refusal(text: &str) -> String {
    match parse_layer("x", text).and_then(|l| combine(&[l])) {
        Ok(_) => panic!("Pebble refuses this layer:\n{text}"),
        Err(e) => e,
    }
}

fn accepted(text: &str) {
    if let Err(e) = parse_layer("x", text).and_then(|l| combine(&[l])) {
        panic!("Pebble takes this layer, refused with {e}:\n{text}");
    }
}

const WEB: &str = "services:\n  web: {override: replace, command: web}\n";

#[test]
fn sections_decode_with_known_fields_of_their_types() {
    assert_eq!(
        refusal("services:\n  web: {override: replace, command: w, restart: always}\n"),
        "cannot parse layer \"x\" section \"services\": field restart not found in type \
         plan.Service"
    );
    assert_eq!(
        refusal("checks:\n  c: {override: replace, tcp: {port: 80, timeout: 1s}}\n"),
        "cannot parse layer \"x\" section \"checks\": field timeout not found in type \
         plan.TCPCheck"
    );
    assert_eq!(
        refusal("checks:\n  c: {override: replace, period: soon, tcp: {port: 80}}\n"),
        "cannot parse layer \"x\" section \"checks\": invalid duration \"soon\""
    );
    assert_eq!(
        refusal("checks:\n  c: {override: replace, threshold: many, tcp: {port: 80}}\n"),
        "cannot parse layer \"x\" section \"checks\": cannot unmarshal !!str `many` into int"
    );
    assert_eq!(
        refusal("services:\n  web: {override: replace, command: w, after: web2}\n"),
        "cannot parse layer \"x\" section \"services\": cannot unmarshal !!str `web2` into \
         []string"
    );
    let e = refusal("services:\n  web: {override: replace, command: w, backoff-factor: x}\n");
    assert!(e.ends_with("invalid floating-point number \"x\""), "{e}");
    assert_eq!(
        refusal("log-targets:\n  l: {override: replace, type: loki, port: 1}\n"),
        "cannot parse layer \"x\" section \"log-targets\": field port not found in type \
         plan.LogTarget"
    );
}

#[test]
fn services_are_refused_as_pebble_refuses_them() {
    let cases = [
        (
            "services:\n  pebble: {override: replace, command: p}\n",
            "cannot use reserved service name \"pebble\"",
        ),
        (
            "services:\n  -web: {override: replace, command: p}\n",
            "cannot use service name \"-web\": starting with \"-\" not allowed",
        ),
        (
            "services:\n  web:\n",
            "service object cannot be null for service \"web\"",
        ),
        (
            "services:\n  web: {override: replace, command: \"w 'open\"}\n",
            "plan service \"web\" command invalid: cannot parse service \"web\" command: EOF \
             found when expecting closing quote",
        ),
        (
            "services:\n  web: {override: replace, command: \"[ w ]\"}\n",
            "plan service \"web\" command invalid: cannot parse service \"web\" command: \
             cannot start command with [ ... ] group",
        ),
        (
            "services:\n  web: {override: replace, command: \"w [ a ] b\"}\n",
            "plan service \"web\" command invalid: cannot parse service \"web\" command: \
             cannot have any arguments after [ ... ] group",
        ),
        (
            "services:\n  web: {override: replace, command: \"w [ a [ b ] ]\"}\n",
            "plan service \"web\" command invalid: cannot parse service \"web\" command: \
             cannot nest [ ... ] groups",
        ),
        (
            "services:\n  web: {override: replace, command: \"w ]\"}\n",
            "plan service \"web\" command invalid: cannot parse service \"web\" command: \
             cannot have ] outside of [ ... ] group",
        ),
        (
            "services:\n  web: {override: replace, command: w, on-success: success-shutdown}\n",
            "plan service \"web\" on-success action \"success-shutdown\" invalid",
        ),
        (
            "services:\n  web: {override: replace, command: w, on-failure: failure-shutdown}\n",
            "plan service \"web\" on-failure action \"failure-shutdown\" invalid",
        ),
        (
            "services:\n  web: {override: replace, command: w, on-check-failure: {c: reboot}}\n",
            "plan service \"web\" on-check-failure action \"reboot\" invalid",
        ),
        (
            "services:\n  web: {override: replace, command: w, backoff-factor: 0.5}\n",
            "plan service \"web\" backoff-factor must be 1.0 or greater, not 0.5",
        ),
        (
            "services:\n  web: {override: swap, command: w}\n",
            "layer \"x\" has invalid \"override\" value for service \"web\"",
        ),
        (
            "services:\n  web: {override: replace, command: w, requires: [db]}\n",
            "service \"db\" does not exist",
        ),
        (
            "services:\n  a: {override: replace, command: a, after: [b], before: [c]}\n  \
             b: {override: replace, command: b, after: [c]}\n  \
             c: {override: replace, command: c}\n",
            "services in before/after loop: a, b, c",
        ),
    ];
    for (text, words) in cases {
        assert_eq!(refusal(text), words, "{text}");
    }
}

#[test]
fn services_pebble_takes() {
    // Pebble reads any other startup as disabled; after/before may name
    // services the plan does not have; a service may come after itself.
    accepted("services:\n  web: {override: replace, command: w, startup: maybe}\n");
    accepted("services:\n  web: {override: replace, command: w, after: [db, web]}\n");
    accepted(
        "services:\n  web:\n    override: replace\n    command: w [ --port 80 ]\n    \
         on-success: failure-shutdown\n    on-failure: success-shutdown\n    \
         on-check-failure: {alive: restart}\n    backoff-delay: 500ms\n    \
         backoff-factor: 1.5\n    kill-delay: 1m\n    user-id: 1000\n    environment: {A: 1}\n",
    );
    let plan = parse_layer("x", "services:\n  web: {override: replace, command: 42}\n")
        .and_then(|l| combine(&[l]))
        .unwrap();
    assert_eq!(plan.services["web"]["command"], "42");
}

#[test]
fn checks_are_refused_as_pebble_refuses_them() {
    let cases = [
        (
            "checks:\n  c: {override: replace, level: alive}\n",
            "plan must specify one of \"http\", \"tcp\", or \"exec\" for check \"c\"",
        ),
        (
            "checks:\n  c: {override: replace, tcp: {port: 80}, exec: {command: x}}\n",
            "plan must specify one of \"http\", \"tcp\", or \"exec\" for check \"c\"",
        ),
        (
            "checks:\n  c: {override: replace, http: {headers: {A: b}}}\n",
            "plan must set \"url\" for http check \"c\"",
        ),
        (
            "checks:\n  c: {override: replace, tcp: {host: db}}\n",
            "plan must set \"port\" for tcp check \"c\"",
        ),
        (
            "checks:\n  c: {override: replace, exec: {working-dir: /}}\n",
            "plan must set \"command\" for exec check \"c\"",
        ),
        (
            "checks:\n  c: {override: replace, exec: {command: \"x 'y\"}}\n",
            "plan check \"c\" command invalid: EOF found when expecting closing quote",
        ),
        (
            "checks:\n  c: {override: replace, exec: {command: x, service-context: db}}\n",
            "plan check \"c\" service context specifies non-existent service \"db\"",
        ),
        (
            "checks:\n  c: {override: replace, exec: {command: x, group: adm}}\n",
            "plan check \"c\" has invalid user/group: must specify user, not just group",
        ),
        (
            "checks:\n  c: {override: replace, startup: later, tcp: {port: 80}}\n",
            "plan check \"c\" startup must be \"enabled\" or \"disabled\"",
        ),
        (
            "checks:\n  c: {override: replace, period: 0s, tcp: {port: 80}}\n",
            "plan check \"c\" period must not be zero",
        ),
        (
            "checks:\n  c: {override: replace, timeout: \"0\", tcp: {port: 80}}\n",
            "plan check \"c\" timeout must not be zero",
        ),
        (
            "checks:\n  c: {tcp: {port: 80}}\n",
            "layer \"x\" must define \"override\" for check \"c\"",
        ),
    ];
    for (text, words) in cases {
        assert_eq!(refusal(text), words, "{text}");
    }
}

#[test]
fn checks_pebble_takes() {
    // A timeout over the period is capped by Pebble, not refused.
    accepted("checks:\n  c: {override: replace, period: 1s, timeout: 5s, tcp: {port: 80}}\n");
    accepted("checks:\n  c: {override: replace, threshold: 0, http: {url: 'http://x/'}}\n");
    accepted(&format!(
        "{WEB}checks:\n  c: {{override: replace, startup: disabled, exec: \
         {{command: true, service-context: web, user-id: 0, group: root}}}}\n"
    ));
}

#[test]
fn log_targets_are_refused_as_pebble_refuses_them() {
    let cases = [
        (
            "log-targets:\n  l: {override: replace, type: fluentd, location: x}\n",
            "log target \"l\" has unsupported type \"fluentd\", must be \"loki\", \
             \"opentelemetry\" or \"syslog\"",
        ),
        (
            "log-targets:\n  l: {override: replace, location: x}\n",
            "plan must define \"type\" (\"loki\", \"opentelemetry\" or \"syslog\") for log \
             target \"l\"",
        ),
        (
            "log-targets:\n  l: {override: replace, type: loki}\n",
            "plan must define \"location\" for log target \"l\"",
        ),
        (
            "log-targets:\n  l: {override: replace, type: loki, location: x, services: [db]}\n",
            "log target \"l\" specifies unknown service \"db\"",
        ),
        (
            "log-targets:\n  l: {override: replace, type: loki, location: x, \
             labels: {pebble_x: y}}\n",
            "log target \"l\": label \"pebble_x\" uses reserved prefix \"pebble_\"",
        ),
        (
            "log-targets:\n  l: {type: loki, location: x}\n",
            "layer \"x\" must define \"override\" for log target \"l\"",
        ),
    ];
    for (text, words) in cases {
        assert_eq!(refusal(text), words, "{text}");
    }
    accepted(&format!(
        "{WEB}log-targets:\n  l: {{override: replace, type: syslog, location: x, \
         services: [all, -web]}}\n"
    ));
}

#[test]
fn a_reserved_label_is_refused() {
    let e = parse_layer("pebble-x", "").unwrap_err();
    assert_eq!(e, "cannot use reserved label prefix \"pebble-\"");
}
