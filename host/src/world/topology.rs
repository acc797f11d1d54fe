//! Which endpoints `juju integrate` relates, checked against both charms'
//! metadata as Juju's state checks them (`state/relation.go`,
//! `apiserver/facades/client/application`): the interfaces match, one side
//! provides what the other requires, peers relate only to themselves, no
//! relation is added twice and no endpoint past its `limit`. Pure: the
//! metadata and the existing relations in, the pair or the error out.

use super::state::End;
use crate::charm_dir::{Metadata, Role};

/// One side as the operator names it: `app` or `app:endpoint`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named<'a> {
    pub app: &'a str,
    pub endpoint: Option<&'a str>,
}

impl<'a> Named<'a> {
    pub fn parse(text: &'a str) -> Named<'a> {
        match text.split_once(':') {
            Some((app, ep)) => Named {
                app,
                endpoint: Some(ep),
            },
            None => Named {
                app: text,
                endpoint: None,
            },
        }
    }
}

fn role_word(role: Role) -> &'static str {
    match role {
        Role::Provides => "provides",
        Role::Requires => "requires",
        Role::Peers => "peers",
    }
}

/// The pair of ends `a` and `b` name, given each side's metadata and the
/// relations that exist (each as its ends). `Err`: Juju's message, without
/// its `ERROR ` prefix.
/// Every pair of endpoints of `a` and `b` that could relate: one provides
/// what the other requires, the named endpoints when named.
fn candidates(a: &Named, a_meta: &Metadata, b: &Named, b_meta: &Metadata) -> Vec<[End; 2]> {
    let mut candidates = Vec::new();
    for (a_ep, a_end) in &a_meta.endpoints {
        if a.endpoint.is_some_and(|e| e != a_ep) || a_end.role == Role::Peers {
            continue;
        }
        for (b_ep, b_end) in &b_meta.endpoints {
            if b.endpoint.is_some_and(|e| e != b_ep) || b_end.role == Role::Peers {
                continue;
            }
            let roles_fit = matches!(
                (a_end.role, b_end.role),
                (Role::Provides, Role::Requires) | (Role::Requires, Role::Provides)
            );
            if roles_fit && a_end.interface == b_end.interface {
                candidates.push([
                    End {
                        app: a.app.to_string(),
                        endpoint: a_ep.clone(),
                        role: role_word(a_end.role).to_string(),
                    },
                    End {
                        app: b.app.to_string(),
                        endpoint: b_ep.clone(),
                        role: role_word(b_end.role).to_string(),
                    },
                ]);
            }
        }
    }
    candidates
}

pub fn match_endpoints(
    a: &Named,
    a_meta: &Metadata,
    b: &Named,
    b_meta: &Metadata,
    existing: &[Vec<End>],
) -> Result<[End; 2], String> {
    let mut candidates = candidates(a, a_meta, b, b_meta);
    let shown = |pair: &[End; 2]| {
        format!(
            "{}:{} {}:{}",
            pair[0].app, pair[0].endpoint, pair[1].app, pair[1].endpoint
        )
    };
    let pair = match candidates.len() {
        0 => {
            return Err(format!(
                "no relations found between {} and {}",
                shown_named(a),
                shown_named(b)
            ));
        }
        1 => candidates.remove(0),
        _ => {
            let listed: Vec<String> = candidates
                .iter()
                .map(|p| format!("\"{}\"", shown(p)))
                .collect();
            return Err(format!(
                "ambiguous relation: \"{} {}\" could refer to {}",
                shown_named(a),
                shown_named(b),
                listed.join("; ")
            ));
        }
    };
    let same = |ends: &Vec<End>| {
        ends.len() == 2
            && ((ends[0] == pair[0] && ends[1] == pair[1])
                || (ends[0] == pair[1] && ends[1] == pair[0]))
    };
    if existing.iter().any(same) {
        return Err(format!("relation {} already exists", shown(&pair)));
    }
    for (end, meta) in [(&pair[0], a_meta), (&pair[1], b_meta)] {
        let Some(limit) = meta.endpoints.get(&end.endpoint).and_then(|e| e.limit) else {
            continue;
        };
        let used = existing
            .iter()
            .filter(|ends| ends.len() == 2 && ends.contains(end))
            .count();
        if used >= limit as usize {
            return Err(format!(
                "cannot add relation \"{}\": establishing a new relation for {}:{} would exceed its maximum relation limit of {limit}",
                shown(&pair),
                end.app,
                end.endpoint
            ));
        }
    }
    Ok(pair)
}

fn shown_named(n: &Named) -> String {
    match n.endpoint {
        Some(e) => format!("{}:{e}", n.app),
        None => n.app.to_string(),
    }
}

/// The peer relations an application of `meta` gets when it is deployed.
pub fn peer_ends(app: &str, meta: &Metadata) -> Vec<(End, String)> {
    meta.endpoints
        .iter()
        .filter(|(_, e)| e.role == Role::Peers)
        .map(|(name, e)| {
            (
                End {
                    app: app.to_string(),
                    endpoint: name.clone(),
                    role: "peers".to_string(),
                },
                e.interface.clone(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charm_dir::Endpoint;
    use proptest::prelude::*;

    fn meta(eps: &[(&str, Role, &str, Option<u32>)]) -> Metadata {
        Metadata {
            name: "x".into(),
            endpoints: eps
                .iter()
                .map(|(n, role, i, limit)| {
                    (
                        n.to_string(),
                        Endpoint {
                            role: *role,
                            interface: i.to_string(),
                            limit: *limit,
                        },
                    )
                })
                .collect(),
            ..Metadata::default()
        }
    }

    #[test]
    fn a_provider_and_a_requirer_of_one_interface_relate() {
        let db = meta(&[
            ("database", Role::Provides, "pg", None),
            ("cluster", Role::Peers, "pg-peers", None),
        ]);
        let app = meta(&[("db", Role::Requires, "pg", Some(1))]);
        let pair =
            match_endpoints(&Named::parse("app"), &app, &Named::parse("db"), &db, &[]).unwrap();
        assert_eq!(pair[0].endpoint, "db");
        assert_eq!(pair[1].endpoint, "database");
        let again = match_endpoints(
            &Named::parse("db"),
            &db,
            &Named::parse("app:db"),
            &app,
            &[pair.to_vec()],
        );
        assert_eq!(
            again.unwrap_err(),
            "relation db:database app:db already exists"
        );
    }

    #[test]
    fn an_endpoint_at_its_limit_refuses_another_relation() {
        let db = meta(&[("database", Role::Provides, "pg", None)]);
        let app = meta(&[("db", Role::Requires, "pg", Some(1))]);
        let first = vec![
            End {
                app: "app".into(),
                endpoint: "db".into(),
                role: "requires".into(),
            },
            End {
                app: "other".into(),
                endpoint: "database".into(),
                role: "provides".into(),
            },
        ];
        let err = match_endpoints(
            &Named::parse("app"),
            &app,
            &Named::parse("db"),
            &db,
            &[first],
        )
        .unwrap_err();
        assert!(
            err.contains("would exceed its maximum relation limit of 1"),
            "{err}"
        );
    }

    #[test]
    fn two_candidates_are_ambiguous_and_none_is_no_relation() {
        let db = meta(&[
            ("a", Role::Provides, "pg", None),
            ("b", Role::Provides, "pg", None),
        ]);
        let app = meta(&[
            ("db", Role::Requires, "pg", None),
            ("peer", Role::Peers, "pg", None),
        ]);
        let err =
            match_endpoints(&Named::parse("app"), &app, &Named::parse("db"), &db, &[]).unwrap_err();
        assert!(
            err.starts_with("ambiguous relation: \"app db\" could refer to"),
            "{err}"
        );
        let none = match_endpoints(
            &Named::parse("app:peer"),
            &app,
            &Named::parse("db"),
            &db,
            &[],
        )
        .unwrap_err();
        assert_eq!(none, "no relations found between app:peer and db");
    }

    proptest! {
        /// Whatever the metadata, a pair found is one provider and one
        /// requirer of the same interface, the named endpoints when named.
        #[test]
        fn a_found_pair_fits_both_sides(
            a_eps in proptest::collection::vec((0u8..3, 0u8..3), 0..4),
            b_eps in proptest::collection::vec((0u8..3, 0u8..3), 0..4),
        ) {
            let role = |r: u8| match r { 0 => Role::Provides, 1 => Role::Requires, _ => Role::Peers };
            let build = |eps: &[(u8, u8)]| {
                let names: Vec<(String, Role, String)> = eps.iter().enumerate()
                    .map(|(i, (r, iface))| (format!("e{i}"), role(*r), format!("i{iface}"))).collect();
                Metadata {
                    endpoints: names.into_iter().map(|(n, r, i)| (n, Endpoint { role: r, interface: i, limit: None })).collect(),
                    ..Metadata::default()
                }
            };
            let (am, bm) = (build(&a_eps), build(&b_eps));
            if let Ok([x, y]) = match_endpoints(&Named::parse("a"), &am, &Named::parse("b"), &bm, &[]) {
                let (xe, ye) = (&am.endpoints[&x.endpoint], &bm.endpoints[&y.endpoint]);
                prop_assert_eq!(&xe.interface, &ye.interface);
                prop_assert!(xe.role != Role::Peers && ye.role != Role::Peers && xe.role != ye.role);
            }
        }
    }
}
