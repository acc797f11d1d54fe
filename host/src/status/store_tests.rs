use super::*;
use crate::status::merge;
use proptest::prelude::*;

/// A set of `scope` at normal priority (the other stores' tests build theirs with it).
pub(crate) fn set(target: Target, scope: &str, status: Kind, message: &str) -> Write {
    Write::Set {
        target,
        scope: scope.into(),
        status,
        message: message.into(),
        priority: Band::Normal,
    }
}

#[test]
fn same_status_keeps_its_age() {
    let mut s = ScopeStore::default();
    s.apply(set(Target::Unit, "a", Kind::Blocked, "x"), "install", 10);
    let since = s.unit["a"].current.as_ref().unwrap().since;
    s.apply(set(Target::Unit, "b", Kind::Blocked, "y"), "install", 10);
    s.apply(
        set(Target::Unit, "a", Kind::Blocked, "x"),
        "config-changed",
        11,
    );
    assert_eq!(s.unit["a"].current.as_ref().unwrap().since, since);
    assert_eq!(s.unit["a"].history.len(), 1);
    // A new message of the same kind: the problem is as old as before, the
    // history records the new wording.
    s.apply(
        set(Target::Unit, "a", Kind::Blocked, "z"),
        "config-changed",
        12,
    );
    assert_eq!(s.unit["a"].current.as_ref().unwrap().since, since);
    assert_eq!(s.unit["a"].current.as_ref().unwrap().message, "z");
    assert_eq!(s.unit["a"].history.len(), 2);
    assert_eq!(s.unit["a"].history[1].message, "z");
    // A new kind is a new problem: its age restarts.
    s.apply(
        set(Target::Unit, "a", Kind::Waiting, "z"),
        "config-changed",
        13,
    );
    assert!(s.unit["a"].current.as_ref().unwrap().since > since);
    assert_eq!(s.unit["a"].history.len(), 3);
}

#[test]
fn rewording_the_older_problem_keeps_it_the_winner() {
    let mut s = ScopeStore::default();
    s.apply(
        set(Target::Unit, "b", Kind::Blocked, "disk 91% full"),
        "e1",
        1,
    );
    s.apply(set(Target::Unit, "a", Kind::Blocked, "no db"), "e1", 1);
    let winner = |s: &ScopeStore| merge::merge(s.views(Target::Unit), "").winner;
    assert_eq!(winner(&s).as_deref(), Some("b"));
    s.apply(
        set(Target::Unit, "b", Kind::Blocked, "disk 92% full"),
        "e2",
        2,
    );
    assert_eq!(winner(&s).as_deref(), Some("b"));
}

#[test]
fn clear_keeps_history_and_is_idempotent() {
    let mut s = ScopeStore::default();
    s.apply(set(Target::App, "a", Kind::Waiting, "x"), "e1", 1);
    s.apply(
        Write::Clear {
            target: Target::App,
            scope: "a".into(),
        },
        "e2",
        2,
    );
    s.apply(
        Write::Clear {
            target: Target::App,
            scope: "a".into(),
        },
        "e3",
        3,
    );
    let a = &s.app["a"];
    assert_eq!(a.current, None);
    assert_eq!(a.history.len(), 2);
    assert_eq!(a.history[1].event, "e2");
    assert!(!s.has_current(Target::App));
    // Clearing what never existed leaves no trace.
    s.apply(
        Write::Clear {
            target: Target::Unit,
            scope: "never".into(),
        },
        "e4",
        4,
    );
    assert!(!s.unit.contains_key("never"));
}

#[test]
fn history_and_cleared_scopes_are_bounded() {
    let mut s = ScopeStore::default();
    for i in 0..(HISTORY as u64 + 5) {
        s.apply(
            set(Target::Unit, "a", Kind::Blocked, &i.to_string()),
            "e",
            i,
        );
    }
    assert_eq!(s.unit["a"].history.len(), HISTORY);
    assert_eq!(
        s.unit["a"].history.last().unwrap().message,
        (HISTORY + 4).to_string()
    );
    for i in 0..(CLEARED_KEPT as u64 + 10) {
        let name = format!("unit/app/{i}");
        s.apply(set(Target::Unit, &name, Kind::Waiting, "w"), "e", i);
        s.apply(
            Write::Clear {
                target: Target::Unit,
                scope: name,
            },
            "e",
            i,
        );
    }
    let cleared = s.unit.values().filter(|v| v.current.is_none()).count();
    assert_eq!(cleared, CLEARED_KEPT);
    assert!(
        s.unit.contains_key("a"),
        "a scope holding a status is never pruned"
    );
}

#[test]
fn the_document_is_the_store_serialised_with_the_format_chosen() {
    let mut s = ScopeStore::default();
    s.apply(set(Target::Unit, "a", Kind::Blocked, "m"), "e", 1);
    s.data = [("k".to_string(), "v".to_string())].into_iter().collect();
    let derived = format!("{}\n", serde_json::to_string(&s).unwrap());
    assert_eq!(String::from_utf8(s.encode()).unwrap(), derived);
    let mut marked = Vec::new();
    s.encode_as(3, &mut marked).unwrap();
    let marked = String::from_utf8(marked).unwrap();
    assert!(marked.starts_with("{\"format\":3,"), "{marked}");
    assert_eq!(marked.replacen("\"format\":3", "\"format\":2", 1), derived);
}

#[test]
fn decode_refuses_what_it_cannot_read() {
    assert!(matches!(
        ScopeStore::decode(b"{\"format\": 4, \"release\": \"9.0.0\", \"clock\": 0}"),
        Err(DecodeError::Newer { found: 4, release: Some(r) }) if r == "9.0.0"
    ));
    // A journaled document (format 3) is read, and says what it was marked.
    let (journaled, marked) =
        ScopeStore::decode_marked(b"{\"format\": 3, \"release\": \"0.1.0\", \"clock\": 7}")
            .unwrap();
    assert_eq!((journaled.clock, journaled.format, marked), (7, FORMAT, 3));
    // Format 1, before the release marker, is read, and saved as format 2
    // with this host's release.
    let old = ScopeStore::decode(b"{\"format\": 1, \"clock\": 0}").unwrap();
    assert_eq!(old.format, FORMAT);
    let saved = String::from_utf8(old.encode()).unwrap();
    let release = super::super::store_release::RELEASE;
    assert!(
        saved.contains(&format!("\"release\":\"{release}\"")),
        "{saved}"
    );
    assert!(
        saved.contains("\"format\":2") && saved.contains("\"release\""),
        "{saved}"
    );
    assert!(matches!(
        ScopeStore::decode(b"{\"format\": 0, \"clock\": 0}"),
        Err(DecodeError::Unknown { found: 0 })
    ));
    assert!(matches!(
        ScopeStore::decode(b"{\"format\": 1"),
        Err(DecodeError::Invalid(_))
    ));
    assert!(matches!(
        ScopeStore::decode(b"{\"format\": 1, \"clock\": 0, \"extra\": 1}"),
        Err(DecodeError::Invalid(_))
    ));
    assert_eq!(
        ScopeStore::decode(b"{\"format\": 1, \"clock\": 0}"),
        Ok(ScopeStore::default())
    );
    // The data section: text values only.
    let with_data =
        ScopeStore::decode(b"{\"format\": 1, \"clock\": 0, \"data\": {\"k\": \"v\"}}").unwrap();
    assert_eq!(with_data.data.get("k"), Some("v"));
    assert!(matches!(
        ScopeStore::decode(b"{\"format\": 1, \"clock\": 0, \"data\": {\"k\": 1}}"),
        Err(DecodeError::Invalid(_))
    ));
}

#[test]
fn data_changes_are_worth_a_save() {
    let before = ScopeStore::default();
    let mut after = before.clone();
    after.data = [("k".to_string(), "v".to_string())].into_iter().collect();
    assert!(after.worth_saving_over(&before));
    assert!(!after.worth_saving_over(&after.clone()));
}

#[test]
fn a_probe_rechecked_with_the_same_result_is_not_worth_a_save() {
    use crate::probe::state::LastCheck;
    let check = |healthy: bool, detail: &str, at: u64, since: u64| crate::probe::ProbeState {
        last: Some(LastCheck {
            healthy,
            detail: detail.into(),
            at,
            since,
            pid: None,
        }),
        ..Default::default()
    };
    let mut before = ScopeStore::default();
    before
        .probes
        .insert("api".into(), check(true, "port open", 1_000, 500));
    // Checked again later, same finding: nothing worth a write.
    let mut after = before.clone();
    after
        .probes
        .insert("api".into(), check(true, "port open", 9_000, 500));
    assert!(!after.worth_saving_over(&before));
    assert!(!before.worth_saving_over(&before));
    // Anything else is: a new detail, a new health, a new probe, a gate,
    // where a process probe looks first.
    let mut elsewhere = check(true, "port open", 9_000, 500);
    elsewhere.last.as_mut().unwrap().pid = Some(7);
    for changed in [
        elsewhere,
        check(true, "port open, pid 7", 9_000, 500),
        check(false, "port closed", 9_000, 9_000),
        crate::probe::ProbeState {
            gate: Some(false),
            ..check(true, "port open", 9_000, 500)
        },
    ] {
        let mut after = before.clone();
        after.probes.insert("api".into(), changed);
        assert!(after.worth_saving_over(&before), "{after:?}");
    }
    let mut after = before.clone();
    after
        .probes
        .insert("db".into(), check(true, "port open", 9_000, 9_000));
    assert!(after.worth_saving_over(&before));
    // And so is any scope change, probes or not.
    let mut after = before.clone();
    after.apply(set(Target::Unit, "x", Kind::Blocked, "m"), "ev", 1);
    assert!(after.worth_saving_over(&before));
}

pub(crate) fn arb_write() -> impl Strategy<Value = Write> {
    let target = prop_oneof![Just(Target::Unit), Just(Target::App)];
    let kind = prop_oneof![
        Just(Kind::Active),
        Just(Kind::Waiting),
        Just(Kind::Maintenance),
        Just(Kind::Blocked)
    ];
    let band = prop_oneof![Just(Band::Critical), Just(Band::Normal), Just(Band::Low)];
    prop_oneof![
        (target.clone(), "[a-c]{1,2}", kind, "\\PC{0,20}", band).prop_map(
            |(target, scope, status, message, priority)| Write::Set {
                target,
                scope,
                status,
                message,
                priority
            }
        ),
        (target, "[a-c]{1,2}").prop_map(|(target, scope)| Write::Clear { target, scope }),
    ]
}

proptest! {
    /// Any store built by any sequence of writes, with any data (any text:
    /// NUL and what YAML refuses raw included), survives encoding.
    #[test]
    fn encode_decode_round_trip(
        writes in prop::collection::vec(arb_write(), 0..40),
        data in prop::collection::btree_map("[a-zA-Z0-9._:/-]{1,12}", any::<String>(), 0..6),
    ) {
        let mut s = ScopeStore::default();
        for (i, w) in writes.into_iter().enumerate() {
            s.apply(w, "ev", i as u64);
        }
        s.written.unit = Some(Written { status: Kind::Waiting, message: "m".into() });
        s.data = data.into_iter().collect();
        prop_assert_eq!(ScopeStore::decode(&s.encode()), Ok(s));
    }

    /// A document written before the data section existed decodes, with no
    /// data; one written now without data has no section, so it reads as it
    /// did before.
    #[test]
    fn documents_without_data_decode_as_before(writes in prop::collection::vec(arb_write(), 0..20)) {
        let mut s = ScopeStore::default();
        for (i, w) in writes.into_iter().enumerate() {
            s.apply(w, "ev", i as u64);
        }
        let mut older: serde_json::Value = serde_json::from_slice(&s.encode()).unwrap();
        prop_assert!(older.get("data").is_none());
        older.as_object_mut().unwrap().remove("data");
        let decoded = ScopeStore::decode(older.to_string().as_bytes()).unwrap();
        prop_assert!(decoded.data.is_empty());
        prop_assert_eq!(decoded, s);
    }

    /// The last write to a scope decides its current status.
    #[test]
    fn last_write_wins(writes in prop::collection::vec(arb_write(), 1..40)) {
        let mut s = ScopeStore::default();
        for w in &writes {
            s.apply(w.clone(), "ev", 0);
        }
        let mut last = std::collections::BTreeMap::new();
        for w in &writes {
            match w {
                Write::Set { target, scope, status, message, .. } => { last.insert((*target, scope.clone()), Some((*status, message.clone()))); }
                Write::Clear { target, scope } => { last.insert((*target, scope.clone()), None); }
            }
        }
        for ((target, scope), want) in last {
            let got = s.scopes(target).get(&scope).and_then(|sc| sc.current.as_ref()).map(|c| (c.status, c.message.clone()));
            prop_assert_eq!(got, want);
        }
    }

    /// A new message of the same kind never changes which scope wins the
    /// merge, nor how many others there are: only its wording moves. (An
    /// active scope that gains its first message, or loses it, may start or
    /// stop giving the unit its message: that is not a rewording.)
    #[test]
    fn rewording_keeps_the_merge_ranking(
        writes in prop::collection::vec(arb_write(), 1..40),
        pick in any::<prop::sample::Index>(),
        message in "\\PC{0,20}",
    ) {
        let mut s = ScopeStore::default();
        for (i, w) in writes.into_iter().enumerate() {
            s.apply(w, "ev", i as u64);
        }
        let names = s.current_names(Target::Unit, |_| true);
        prop_assume!(!names.is_empty());
        let name = pick.get(&names).clone();
        let current = s.unit[&name].current.clone().unwrap();
        prop_assume!(
            current.status != Kind::Active || current.message.is_empty() == message.is_empty()
        );
        let before = merge::merge(s.views(Target::Unit), "");
        let history = s.unit[&name].history.len();
        s.apply(Write::Set {
            target: Target::Unit,
            scope: name.clone(),
            status: current.status,
            message: message.clone(),
            priority: current.priority,
        }, "later", 1000);
        let after = merge::merge(s.views(Target::Unit), "");
        prop_assert_eq!(&after.winner, &before.winner);
        prop_assert_eq!(after.others, before.others);
        prop_assert_eq!(after.written.status, before.written.status);
        prop_assert_eq!(s.unit[&name].current.as_ref().unwrap().since, current.since);
        let changed = message != current.message;
        prop_assert_eq!(s.unit[&name].history.len(), (history + usize::from(changed)).min(HISTORY));
    }

    /// Corrupt bytes are an error, never a panic and never an empty store.
    #[test]
    fn garbage_is_an_error(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        if let Ok(s) = ScopeStore::decode(&bytes) {
            prop_assert_eq!(s.format, FORMAT);
        }
    }
}

/// What [`ScopeStore::worth_saving_over`] decides without copying: the
/// store differs from `before` once each probe's check time is set back to
/// the kept one's wherever that check found what the kept one found.
fn worth_saving_by_definition(after: &ScopeStore, before: &ScopeStore) -> bool {
    let mut rechecked = after.clone();
    for (name, state) in &mut rechecked.probes {
        if let (Some(now), Some(then)) = (
            state.last.as_mut(),
            before.probes.get(name).and_then(|p| p.last.as_ref()),
        ) && now.healthy == then.healthy
            && now.detail == then.detail
            && now.since == then.since
        {
            now.at = then.at;
        }
    }
    rechecked != *before
}

/// Probe states drawn from a few values each, so that a recheck finding
/// what was found before is frequent.
pub(crate) fn arb_probes() -> impl Strategy<Value = BTreeMap<String, crate::probe::ProbeState>> {
    let last = prop::option::of(
        (
            any::<bool>(),
            "open|closed",
            0u64..3,
            0u64..2,
            prop::option::of(1u32..3),
        )
            .prop_map(
                |(healthy, detail, at, since, pid)| crate::probe::state::LastCheck {
                    healthy,
                    detail,
                    at,
                    since,
                    pid,
                },
            ),
    );
    let state = (
        last,
        prop::option::of(0u64..2),
        prop::option::of(0u64..2),
        prop::option::of(any::<bool>()),
    )
        .prop_map(
            |(last, failing_since, grace_start, gate)| crate::probe::ProbeState {
                last,
                failing_since,
                grace_start,
                gate,
            },
        );
    prop::collection::btree_map("[ab]", state, 0..3)
}

proptest! {
    /// The walk that decides whether an event saves agrees with its
    /// definition, for any probes before and after and any scope writes.
    #[test]
    fn worth_saving_over_is_its_definition(
        before_probes in arb_probes(),
        after_probes in arb_probes(),
        writes in prop::collection::vec(arb_write(), 0..3),
    ) {
        let before = ScopeStore { probes: before_probes, ..ScopeStore::default() };
        let mut after = ScopeStore { probes: after_probes, ..before.clone() };
        for (i, w) in writes.into_iter().enumerate() {
            after.apply(w, "ev", i as u64 + 1);
        }
        prop_assert_eq!(
            after.worth_saving_over(&before),
            worth_saving_by_definition(&after, &before)
        );
    }

    /// The same probes checked again, a probe's check time moved and one
    /// field of it changed: the near misses that a walk forgetting a field
    /// would judge wrong, which two stores drawn apart rarely are.
    #[test]
    fn a_recheck_differing_in_one_field_is_judged_as_its_definition(
        before_probes in arb_probes(),
        at in 0u64..5,
        field in 0usize..8,
    ) {
        let before = ScopeStore { probes: before_probes, ..ScopeStore::default() };
        let mut after = before.clone();
        if let Some(state) = after.probes.values_mut().next() {
            let toggle = |v: Option<u64>| v.map_or(Some(0), |_| None);
            if let Some(last) = state.last.as_mut() {
                last.at = at;
                match field {
                    0 => last.healthy = !last.healthy,
                    1 => last.detail.push('!'),
                    2 => last.since += 1,
                    3 => last.pid = last.pid.map_or(Some(9), |_| None),
                    _ => {}
                }
            }
            match field {
                4 => state.failing_since = toggle(state.failing_since),
                5 => state.grace_start = toggle(state.grace_start),
                6 => state.gate = Some(!state.gate.unwrap_or(false)),
                _ => {}
            }
        }
        prop_assert_eq!(
            after.worth_saving_over(&before),
            worth_saving_by_definition(&after, &before)
        );
    }
}
