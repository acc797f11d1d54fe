use super::*;
use proptest::prelude::*;

fn r(spec: &str) -> Range {
    Range::parse(spec).unwrap()
}

fn book<'a>(opened: &'a Grouped, pending: &'a mut Pending, kubernetes: bool) -> Book<'a> {
    Book {
        unit: "web/0",
        kubernetes,
        opened,
        pending,
    }
}

#[test]
fn ranges_are_spelled_as_juju_spells_them() {
    for spec in ["80/tcp", "8000-8100/udp", "icmp"] {
        assert_eq!(r(spec).to_string(), spec);
    }
    assert_eq!(r("80").to_string(), "80/tcp");
    assert_eq!(r("80/TCP").to_string(), "80/tcp");
    for bad in ["0/tcp", "90-80/tcp", "80/sctp", "x", "icmp/80"] {
        assert_eq!(Range::parse(bad), None, "{bad}");
    }
}

#[test]
fn kubernetes_refuses_a_range_at_the_call() {
    let opened = Grouped::new();
    let mut pending = Pending::default();
    let mut b = book(&opened, &mut pending, true);
    assert_eq!(
        b.open(ALL, r("8000-8100/tcp")),
        Err(
            "port ranges are not supported for k8s applications, please specify a single port"
                .into()
        )
    );
    assert_eq!(b.open(ALL, r("8000/tcp")), Ok(()));
    assert_eq!(pending.open[ALL], vec![r("8000/tcp")]);
}

#[test]
fn an_overlap_with_an_open_range_or_an_earlier_request_is_refused() {
    let opened = Grouped::from([(ALL.to_string(), vec![r("8000-8100/tcp")])]);
    let mut pending = Pending::default();
    let mut b = book(&opened, &mut pending, false);
    assert_eq!(
        b.open(ALL, r("8080/tcp")),
        Err("cannot open 8080/tcp (unit \"web/0\"): port range conflicts with 8000-8100/tcp (unit \"web/0\")".into())
    );
    // Another protocol, or no overlap: accepted.
    assert_eq!(b.open(ALL, r("8080/udp")), Ok(()));
    assert_eq!(b.open("db", r("9000-9010/tcp")), Ok(()));
    assert_eq!(
        b.open(ALL, r("9005/tcp")),
        Err("cannot open 9005/tcp (unit \"web/0\"): port range conflicts with 9000-9010/tcp (unit \"web/0\") requested earlier".into())
    );
    assert_eq!(
        b.close(ALL, r("8050/tcp")),
        Err("cannot close 8050/tcp (unit \"web/0\"): port range conflicts with 8000-8100/tcp (unit \"web/0\")".into())
    );
}

#[test]
fn the_same_range_again_is_nothing_and_a_close_cancels_an_open() {
    let opened = Grouped::from([(ALL.to_string(), vec![r("80/tcp")])]);
    let mut pending = Pending::default();
    let mut b = book(&opened, &mut pending, false);
    assert_eq!(b.open(ALL, r("80/tcp")), Ok(()));
    assert!(b.pending.is_empty());
    // The same range for another endpoint is a change.
    assert_eq!(b.open("db", r("80/tcp")), Ok(()));
    assert_eq!(b.open(ALL, r("443/tcp")), Ok(()));
    assert_eq!(b.close(ALL, r("443/tcp")), Ok(()));
    assert_eq!(b.close(ALL, r("80/tcp")), Ok(()));
    let now = merged(&opened, &pending);
    assert_eq!(now, Grouped::new(), "{pending:?}");
}

#[test]
fn opened_ports_show_the_hooks_own_requests() {
    let opened = Grouped::from([(ALL.to_string(), vec![r("80/tcp"), r("icmp")])]);
    let mut pending = Pending::default();
    let mut b = book(&opened, &mut pending, false);
    b.open("db", r("5432/tcp")).unwrap();
    b.open("admin", r("5432/tcp")).unwrap();
    b.close(ALL, r("icmp")).unwrap();
    let lines = by_range(&merged(&opened, &pending));
    assert_eq!(
        lines.into_iter().collect::<Vec<_>>(),
        vec![
            (r("80/tcp"), None),
            (
                r("5432/tcp"),
                Some(vec!["admin".to_string(), "db".to_string()])
            ),
        ]
    );
}

#[test]
fn nothing_open_makes_a_close_a_no_op() {
    let opened = Grouped::new();
    let mut pending = Pending::default();
    book(&opened, &mut pending, false)
        .close(ALL, r("80/tcp"))
        .unwrap();
    assert!(pending.is_empty());
}

fn any_range() -> impl Strategy<Value = Range> {
    (
        prop_oneof![Just(Proto::Tcp), Just(Proto::Udp), Just(Proto::Icmp)],
        1u16..20,
        0u16..4,
    )
        .prop_map(|(protocol, from, len)| match protocol {
            Proto::Icmp => Range {
                protocol,
                from: 0,
                to: 0,
            },
            _ => Range {
                protocol,
                from,
                to: from + len,
            },
        })
}

fn any_endpoint() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(ALL.to_string()),
        Just("db".to_string()),
        Just("web".to_string())
    ]
}

proptest! {
    #[test]
    fn spelling_round_trips(range in any_range()) {
        prop_assert_eq!(Range::parse(&range.to_string()), Some(range));
    }

    /// A refused request changes nothing; an accepted close leaves the
    /// range closed for its endpoint; `by_range` and `grouped` are inverses.
    #[test]
    fn requests_keep_their_promises(
        opened in prop::collection::vec((any_range(), any_endpoint()), 0..4),
        calls in prop::collection::vec((any::<bool>(), any_endpoint(), any_range()), 0..12),
        kubernetes in any::<bool>(),
    ) {
        let mut start = Grouped::new();
        for (range, endpoint) in opened {
            start.entry(endpoint).or_default().push(range);
        }
        let mut pending = Pending::default();
        for (open, endpoint, range) in calls {
            let before = pending.clone();
            let mut b = book(&start, &mut pending, kubernetes);
            let result = if open { b.open(&endpoint, range) } else { b.close(&endpoint, range) };
            match result {
                Err(_) => prop_assert_eq!(&pending, &before),
                Ok(()) if !open => {
                    let now = merged(&start, &pending);
                    prop_assert!(!now.get(&endpoint).is_some_and(|rs| rs.contains(&range)));
                }
                Ok(()) => {}
            }
        }
        let now = merged(&start, &pending);
        let lines = by_range(&now);
        let back = grouped(lines.iter().map(|(r, e)| (*r, e.as_deref())));
        prop_assert_eq!(by_range(&back), lines);
    }
}
