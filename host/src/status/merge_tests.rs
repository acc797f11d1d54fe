use super::*;
use proptest::prelude::*;

fn view(name: &str, kind: Kind, band: Band, since: u64) -> ScopeView<'_> {
    ScopeView {
        name,
        kind,
        message: name,
        band,
        since,
    }
}

#[test]
fn severity_order() {
    let m = merge(
        [
            view("w", Kind::Waiting, Band::Critical, 1),
            view("b", Kind::Blocked, Band::Low, 9),
            view("m", Kind::Maintenance, Band::Normal, 2),
            view("a", Kind::Active, Band::Critical, 0),
        ],
        "",
    );
    assert_eq!(m.written.status, Kind::Blocked);
    assert_eq!(m.written.message, "b (+2 more)");
    assert_eq!(m.winner.as_deref(), Some("b"));
    assert_eq!(m.others, 2);
    assert!(Kind::Blocked > Kind::Maintenance && Kind::Maintenance > Kind::Waiting);
    assert!(Kind::Waiting > Kind::Active);
}

#[test]
fn tie_break_band_then_age_then_name() {
    let both = |a, b| merge([a, b], "").winner.unwrap();
    assert_eq!(
        both(
            view("x", Kind::Blocked, Band::Low, 1),
            view("y", Kind::Blocked, Band::Critical, 5)
        ),
        "y"
    );
    assert_eq!(
        both(
            view("x", Kind::Blocked, Band::Normal, 7),
            view("y", Kind::Blocked, Band::Normal, 3)
        ),
        "y"
    );
    assert_eq!(
        both(
            view("y", Kind::Waiting, Band::Normal, 3),
            view("x", Kind::Waiting, Band::Normal, 3)
        ),
        "x"
    );
}

#[test]
fn nothing_wrong_is_active_with_the_ready_message() {
    let quiet = ScopeView {
        message: "",
        ..view("a", Kind::Active, Band::Normal, 1)
    };
    let m = merge([quiet], "Serving");
    assert_eq!(
        m.written,
        Written {
            status: Kind::Active,
            message: "Serving".into()
        }
    );
    assert_eq!(m.winner, None);
    assert_eq!(merge([], "").written.message, "");
}

#[test]
fn an_active_scope_with_a_message_says_it_when_nothing_is_wrong() {
    // Paused, with every service down as it should be: active, and saying so.
    let scopes = || {
        [
            ScopeView {
                message: "",
                ..view("quiet", Kind::Active, Band::Critical, 0)
            },
            view("newer", Kind::Active, Band::Normal, 9),
            ScopeView {
                message: "Unit is paused",
                ..view("paused", Kind::Active, Band::Normal, 5)
            },
        ]
    };
    let m = merge(scopes(), "Serving");
    assert_eq!(
        m.written,
        Written {
            status: Kind::Active,
            message: "Unit is paused".into()
        }
    );
    assert_eq!(m.winner.as_deref(), Some("paused"));
    // A problem still outranks every active scope.
    let mut with_problem = scopes().to_vec();
    with_problem.push(view("probe/api", Kind::Maintenance, Band::Normal, 10));
    let m = merge(with_problem, "Serving");
    assert_eq!(m.written.status, Kind::Maintenance);
    assert_eq!(m.written.message, "probe/api");
}

#[test]
fn long_messages_keep_the_count() {
    let long = "é".repeat(200);
    let views = [
        ScopeView {
            name: "a",
            kind: Kind::Blocked,
            message: &long,
            band: Band::Normal,
            since: 1,
        },
        view("b", Kind::Waiting, Band::Normal, 2),
    ];
    let m = merge(views, "");
    assert_eq!(m.written.message.chars().count(), MESSAGE_LIMIT);
    assert!(
        m.written.message.ends_with("… (+1 more)"),
        "{}",
        m.written.message
    );
    assert_eq!(cut("short", ""), "short");
    assert_eq!(cut(&"x".repeat(120), ""), "x".repeat(120));
    assert_eq!(cut(&"x".repeat(121), "").chars().count(), 120);
}

fn arb_kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::Active),
        Just(Kind::Waiting),
        Just(Kind::Maintenance),
        Just(Kind::Blocked)
    ]
}

fn arb_band() -> impl Strategy<Value = Band> {
    prop_oneof![Just(Band::Critical), Just(Band::Normal), Just(Band::Low)]
}

type Raw = (String, Kind, String, Band, u64);

fn arb_scopes() -> impl Strategy<Value = Vec<Raw>> {
    prop::collection::btree_map(
        "[a-z/]{1,8}",
        (arb_kind(), "\\PC{0,150}", arb_band(), 0u64..20),
        0..12,
    )
    .prop_map(|m| {
        m.into_iter()
            .map(|(n, (k, msg, b, s))| (n, k, msg, b, s))
            .collect()
    })
}

fn views(raw: &[Raw]) -> Vec<ScopeView<'_>> {
    raw.iter()
        .map(|(n, k, m, b, s)| ScopeView {
            name: n,
            kind: *k,
            message: m,
            band: *b,
            since: *s,
        })
        .collect()
}

proptest! {
    /// The result does not depend on the order scopes come in.
    #[test]
    fn deterministic(raw in arb_scopes(), seed in any::<u64>()) {
        let a = merge(views(&raw), "ready");
        let mut shuffled = views(&raw);
        // a cheap deterministic permutation from the seed
        let n = shuffled.len().max(1);
        shuffled.rotate_left((seed as usize) % n);
        shuffled.reverse();
        prop_assert_eq!(a, merge(shuffled, "ready"));
    }

    /// The winner is at least as severe as every scope, and nothing outranks it.
    #[test]
    fn winner_is_the_most_important(raw in arb_scopes()) {
        let vs = views(&raw);
        let m = merge(vs.clone(), "");
        let problems: Vec<_> = vs.iter().filter(|v| v.kind != Kind::Active).collect();
        prop_assert_eq!(m.others, problems.len().saturating_sub(1));
        match &m.winner {
            None => {
                prop_assert!(problems.is_empty());
                prop_assert!(vs.iter().all(|v| v.message.is_empty()));
            }
            Some(w) => {
                let winner = vs.iter().find(|v| v.name == w).unwrap();
                prop_assert_eq!(m.written.status, winner.kind);
                for v in &problems {
                    prop_assert!(rank(winner, v) != std::cmp::Ordering::Greater);
                }
            }
        }
    }

    /// The message never exceeds the limit, and shows the count when others exist.
    #[test]
    fn message_bound(raw in arb_scopes()) {
        let m = merge(views(&raw), "");
        prop_assert!(m.written.message.chars().count() <= MESSAGE_LIMIT);
        if m.others > 0 {
            let suffix = format!(" (+{} more)", m.others);
            prop_assert!(m.written.message.ends_with(&suffix));
        }
    }
}
