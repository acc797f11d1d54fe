use super::*;

fn web_layer() -> Layer {
    Layer {
        summary: "web-k8s layer".into(),
        services: [(
            "web".to_string(),
            Service {
                summary: "the web server".into(),
                command: "web-server --config /etc/web/web.conf".into(),
                startup: Some(ServiceStartup::Enabled),
                on_check_failure: [("alive".to_string(), ServiceAction::Restart)].into(),
                environment: [("GREETING".to_string(), "yes: no".to_string())].into(),
                backoff_factor: Some(1.5),
                user_id: Some(1000),
                ..Default::default()
            },
        )]
        .into(),
        checks: [(
            "alive".to_string(),
            Check {
                level: Some(CheckLevel::Alive),
                threshold: Some(3),
                http: Some(HttpCheck {
                    url: "http://localhost:8080/healthz".into(),
                    ..Default::default()
                }),
                ..Default::default()
            },
        )]
        .into(),
        log_targets: [(
            "loki".to_string(),
            LogTarget {
                r#type: Some(LogTargetType::OpenTelemetry),
                location: "http://otel:4318".into(),
                services: vec!["all".into(), "-web".into()],
                ..Default::default()
            },
        )]
        .into(),
        ..Default::default()
    }
}

#[test]
fn a_layer_is_pebble_yaml() {
    let yaml = web_layer().to_yaml();
    assert_eq!(
        yaml,
        "summary: web-k8s layer
services:
  web:
    summary: the web server
    override: replace
    command: web-server --config /etc/web/web.conf
    startup: enabled
    environment:
      GREETING: \"yes: no\"
    user-id: 1000
    on-check-failure:
      alive: restart
    backoff-factor: 1.5
checks:
  alive:
    override: replace
    level: alive
    threshold: 3
    http:
      url: http://localhost:8080/healthz
log-targets:
  loki:
    override: replace
    type: opentelemetry
    location: http://otel:4318
    services:
      - all
      - \"-web\"
"
    );
    assert_same_as_serde(&web_layer());
    assert_eq!(Layer::from_yaml(&yaml).unwrap(), web_layer());
}

/// The YAML written field by field holds what `Serialize` gives.
fn assert_same_as_serde(layer: &Layer) {
    let yaml = layer.to_yaml();
    let read: serde_json::Value = yaml::from_str(&yaml).unwrap_or_else(|e| panic!("{e}"));
    let serde = serde_json::to_value(layer).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read, serde, "{yaml}");
    assert_eq!(Layer::from_yaml(&yaml).as_ref(), Ok(layer), "{yaml}");
}

#[test]
fn every_field_is_written_as_serde_names_it() {
    let text = |s: &str| s.to_string();
    let map = |k: &str, v: &str| BTreeMap::from([(text(k), text(v))]);
    let service = Service {
        summary: text("s"),
        description: text("d"),
        r#override: Override::Merge,
        command: text("c"),
        startup: Some(ServiceStartup::Disabled),
        after: vec![text("a")],
        before: vec![text("b")],
        requires: vec![text("r")],
        environment: map("K", "v"),
        user: text("u"),
        user_id: Some(1),
        group: text("g"),
        group_id: Some(2),
        working_dir: text("/w"),
        on_success: Some(ServiceAction::SuccessShutdown),
        on_failure: Some(ServiceAction::FailureShutdown),
        on_check_failure: BTreeMap::from([(text("up"), ServiceAction::Ignore)]),
        backoff_delay: text("1s"),
        backoff_factor: Some(2.0),
        backoff_limit: text("10s"),
        kill_delay: text("5s"),
    };
    let check = Check {
        r#override: Override::Replace,
        level: Some(CheckLevel::Ready),
        startup: Some(CheckStartup::Enabled),
        period: text("10s"),
        timeout: text("3s"),
        threshold: Some(1),
        http: Some(HttpCheck {
            url: text("http://x/"),
            headers: map("H", "v"),
        }),
        tcp: Some(TcpCheck {
            port: 80,
            host: text("h"),
        }),
        exec: Some(ExecCheck {
            command: text("true"),
            service_context: text("svc"),
            environment: map("E", "v"),
            user: text("u"),
            user_id: Some(3),
            group: text("g"),
            group_id: Some(4),
            working_dir: text("/w"),
        }),
    };
    let target = LogTarget {
        r#override: Override::Merge,
        r#type: Some(LogTargetType::Syslog),
        location: text("udp://x:514"),
        services: vec![text("all")],
        labels: map("L", "v"),
    };
    let layer = Layer {
        summary: text("summary"),
        description: text("description"),
        services: BTreeMap::from([(text("svc"), service)]),
        checks: BTreeMap::from([(text("up"), check), (text("bare"), Check::default())]),
        log_targets: BTreeMap::from([(text("t"), target)]),
    };
    assert_same_as_serde(&layer);
    assert_same_as_serde(&Layer::default());
}

#[test]
fn plans_as_pebble_and_the_simulated_pebble_write_them() {
    // yaml.v3's style: four spaces, sequences indented, quoted when
    // needed, literal blocks for several lines.
    let pebble = "\
services:
    web:
        summary: the web server
        startup: enabled
        override: replace
        command: 'web-server --config /etc/web/web.conf'
        after:
            - db
        description: |-
            Serves.
            Well.
        backoff-delay: 500ms
        workload: future-field
checks:
    alive:
        override: replace
        level: alive
        period: 10s
        timeout: 3s
        threshold: 3
        http:
            url: http://localhost:8080/healthz
    db:
        override: replace
        tcp:
            port: 5432
log-targets:
    loki:
        type: loki
        location: http://loki:3100
        services: []
";
    let plan = Plan::from_yaml(pebble).unwrap_or_else(|e| panic!("{e}"));
    let web = &plan.services["web"];
    assert_eq!(web.command, "web-server --config /etc/web/web.conf");
    assert_eq!(web.after, ["db"]);
    assert_eq!(web.description, "Serves.\nWell.");
    assert_eq!(web.startup, Some(ServiceStartup::Enabled));
    assert_eq!(plan.checks["alive"].threshold, Some(3));
    assert_eq!(plan.checks["alive"].level, Some(CheckLevel::Alive));
    assert_eq!(plan.checks["db"].tcp.as_ref().map(|t| t.port), Some(5432));
    assert_eq!(plan.log_targets["loki"].r#type, Some(LogTargetType::Loki));
    assert!(plan.log_targets["loki"].services.is_empty());
    assert_eq!(Plan::from_yaml("{}\n").unwrap(), Plan::default());
    assert_eq!(Plan::from_yaml("").unwrap(), Plan::default());
}

#[test]
fn unknown_values_are_named() {
    let e = Layer::from_yaml("services:\n  web:\n    startup: sometimes\n").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("services: web: startup: unknown variant `sometimes`"),
        "{e}"
    );
}
