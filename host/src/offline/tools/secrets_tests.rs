//! The secret tools of the simulated Juju: what each answers, every error
//! with Juju's exit code and words, and what a hook's changes become at the
//! commit.
#![allow(clippy::too_many_lines)] // a test reads as one scenario

use super::*;
use crate::offline::secrets::PendingSecrets;
use crate::offline::sim::SimRelation;
use crate::offline::tools::tests::{call, tools};

/// A secret `vault` shared with the unit, revisions 1 and 2.
const SHARED: &str = "secret:d1ulvkcavc0s73ak2mcg";
/// One the application owns, revision 1 only.
const OWNED: &str = "secret:d1ulvkcavc0s73ak2md0";

fn bag(pairs: &[(&str, &str)]) -> Bag {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn revision(revision: u32, pairs: &[(&str, &str)]) -> SimRevision {
    SimRevision {
        revision,
        content: bag(pairs),
    }
}

fn state() -> SimState {
    let mut state = SimState::default();
    state.model.secrets.insert(
        SHARED.into(),
        SimSecret {
            owner: "vault".into(),
            revisions: vec![
                revision(1, &[("token", "one")]),
                revision(2, &[("token", "two")]),
            ],
            ..SimSecret::default()
        },
    );
    state.model.secrets.insert(
        OWNED.into(),
        SimSecret {
            owner: "application".into(),
            revisions: vec![revision(1, &[("password", "old")])],
            label: Some("db-pass".into()),
            ..SimSecret::default()
        },
    );
    state.model.relations.insert(
        "db:1".into(),
        SimRelation {
            app: "pg".into(),
            units: vec!["pg/0".into(), "pg/1".into()],
            ..SimRelation::default()
        },
    );
    state
}

/// Stdout of a call that must succeed.
fn ok(t: &mut SimTools, tool: &str, args: &[&str]) -> String {
    let out = call(t, tool, args);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (0, ""),
        "{tool} {args:?} failed"
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json_of(t: &mut SimTools, tool: &str, args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(t, tool, args)).unwrap()
}

/// The exit code and error of a call that must fail, printing nothing.
fn err(t: &mut SimTools, tool: &str, args: &[&str]) -> (i32, String) {
    let out = call(t, tool, args);
    assert!(out.stdout.is_empty(), "{tool} {args:?} printed something");
    let message = out
        .stderr
        .strip_prefix("ERROR ")
        .and_then(|m| m.strip_suffix('\n'))
        .unwrap_or_else(|| panic!("{tool} {args:?}: not Juju's error shape: {:?}", out.stderr));
    (out.code, message.to_string())
}

fn commit(t: &SimTools) {
    let mut state = t.state.lock().unwrap();
    let pending = std::mem::take(&mut state.pending_secrets);
    pending.apply(&mut state.model.secrets, t.now);
}

fn committed(t: &SimTools, id: &str) -> Option<SimSecret> {
    t.state.lock().unwrap().model.secrets.get(id).cloned()
}

#[test]
fn a_new_secret_is_seen_by_its_hook_and_exists_once_committed() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("key");
    std::fs::write(&file, "-----BEGIN KEY-----\n").unwrap();
    let mut t = tools(state());
    let out = ok(
        &mut t,
        "secret-add",
        &[
            "--label",
            "tls",
            "--description=-the cert",
            "--expire",
            "24h",
            "--rotate",
            "daily",
            "cert=a=b",
            &format!("key#file={}", file.display()),
            "raw#base64=czNjcj10Cg==",
        ],
    );
    let id = out.trim_end().strip_prefix("secret:").unwrap().to_string();
    assert_eq!(parse_id(out.trim_end()), Some(id.clone()), "{out}");
    assert!(out.ends_with('\n'));
    let uri = format!("secret:{id}");
    // Not in the model until the hook commits; the hook sees it already.
    assert_eq!(committed(&t, &uri), None);
    let content =
        serde_json::json!({"cert": "a=b", "key": "-----BEGIN KEY-----\n", "raw": "s3cr=t\n"});
    assert_eq!(
        json_of(&mut t, "secret-get", &["--format=json", &uri]),
        content
    );
    assert_eq!(
        json_of(&mut t, "secret-get", &["--format=json", "--label", "tls"]),
        content
    );
    assert_eq!(
        json_of(&mut t, "secret-get", &["--format=json", "--", &id, "cert"]),
        "a=b"
    );
    assert_eq!(
        json_of(&mut t, "secret-get", &["--format=json", &uri, "raw#base64"]),
        "czNjcj10Cg=="
    );
    // YAML without --format.
    let yaml: serde_json::Value =
        serde_saphyr::from_str(&ok(&mut t, "secret-get", &[&uri])).unwrap();
    assert_eq!(yaml, content);
    assert_eq!(
        json_of(
            &mut t,
            "secret-info-get",
            &["--format=json", "--label", "tls"]
        ),
        serde_json::json!({ id.clone(): {
            "revision": 1, "label": "tls", "owner": "application",
            "description": "-the cert", "rotation": "daily",
            "expiry": "2026-11-30T16:22:16Z",
        }})
    );
    let mut ids = vec![OWNED.trim_start_matches("secret:").to_string(), id.clone()];
    ids.sort();
    assert_eq!(
        json_of(&mut t, "secret-ids", &["--format=json"]),
        serde_json::json!(ids)
    );
    assert_eq!(
        ok(&mut t, "secret-ids", &[]).lines().count(),
        2,
        "smart: one id a line"
    );

    commit(&t);
    let secret = committed(&t, &uri).unwrap();
    assert_eq!(secret.owner, "application");
    assert_eq!(
        secret.revisions,
        [revision(
            1,
            &[
                ("cert", "a=b"),
                ("key", "-----BEGIN KEY-----\n"),
                ("raw", "s3cr=t\n")
            ]
        )]
    );
    assert_eq!(secret.label.as_deref(), Some("tls"));
    assert_eq!(secret.rotates.as_deref(), Some("2026-11-30T16:22:16Z"));
    // A second secret gets another id.
    let again = ok(&mut t, "secret-add", &["--owner", "unit", "abc=1"]);
    assert_ne!(again.trim_end(), uri);
}

#[test]
fn secret_add_refuses_what_juju_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big");
    std::fs::write(&big, "x".repeat(750_001)).unwrap();
    let empty = dir.path().join("empty.yaml");
    std::fs::write(&empty, "{}\n").unwrap();
    let data = dir.path().join("data.yaml");
    std::fs::write(&data, "user: admin\nPass: x\n").unwrap();
    let missing = dir.path().join("nope");
    let mut t = tools(state());
    let cases: Vec<(Vec<String>, i32, String)> = vec![
        (vec![], 2, "missing secret value or filename".into()),
        (
            vec!["novalue".into()],
            2,
            "key value \"novalue\" not valid".into(),
        ),
        (vec!["=v".into()], 2, "key value \"=v\" not valid".into()),
        (vec!["PW=x".into()], 2, "key \"PW\" not valid".into()),
        (vec!["ab=x".into()], 2, "key \"ab\" not valid".into()),
        (
            vec!["abc#base64=!!!!".into()],
            2,
            "secret content for key \"abc\" is not base64".into(),
        ),
        (
            vec!["--owner".into(), "model".into(), "abc=1".into()],
            2,
            "secret owner \"model\" not valid".into(),
        ),
        (
            vec!["--rotate".into(), "fortnightly".into(), "abc=1".into()],
            2,
            "rotate policy \"fortnightly\" not valid".into(),
        ),
        (
            vec!["--expire".into(), "soon".into(), "abc=1".into()],
            2,
            "expire time or duration \"soon\" not valid".into(),
        ),
        (
            vec!["--expire".into(), "-1h".into(), "abc=1".into()],
            2,
            "negative expire duration \"-1h\" not valid".into(),
        ),
        (
            vec![format!("abc#file={}", missing.display())],
            2,
            format!(
                "reading content for secret key \"abc\": open {}: No such file or directory (os error 2)",
                missing.display()
            ),
        ),
        (
            vec![format!("abc#file={}", big.display())],
            2,
            "base64 encoded secret content for key \"abc\" too large: 1000004 bytes".into(),
        ),
        (
            vec![format!("--file={}", data.display())],
            2,
            "key \"Pass\" not valid".into(),
        ),
        (
            vec![format!("--file={}", empty.display())],
            1,
            "empty secret value not valid".into(),
        ),
        (
            vec!["--label".into(), "db-pass".into(), "abc=1".into()],
            1,
            "secret with label \"db-pass\" already exists".into(),
        ),
        (
            vec!["--bogus".into(), "abc=1".into()],
            2,
            "option provided but not defined: --bogus".into(),
        ),
    ];
    for (args, code, message) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_eq!(
            err(&mut t, "secret-add", &args),
            (code, message),
            "{args:?}"
        );
    }
    // Several values together past Juju's limit on the whole content.
    let half = "y".repeat(400_000);
    let (a, b) = (format!("aaa={half}"), format!("bbb={half}"));
    assert_eq!(
        err(&mut t, "secret-add", &[&a, &b]),
        (
            2,
            "base64 encoded secret content too large: 1066672 bytes".into()
        )
    );
    // Only the leader adds its application's secrets; a unit's own, anyone.
    t.state.lock().unwrap().model.leader = false;
    assert_eq!(
        err(&mut t, "secret-add", &["abc=1"]),
        (1, "this unit is not the leader".into())
    );
    ok(&mut t, "secret-add", &["--owner", "unit", "abc=1"]);
    // Two new secrets of one hook cannot share a label either.
    ok(
        &mut t,
        "secret-add",
        &["--owner", "unit", "--label", "x", "abc=1"],
    );
    assert_eq!(
        err(
            &mut t,
            "secret-add",
            &["--owner", "unit", "--label", "x", "abc=2"]
        ),
        (1, "secret with label \"x\" already exists".into())
    );
    assert_eq!(
        t.state.lock().unwrap().model.secrets.len(),
        2,
        "nothing committed"
    );
}

#[test]
fn a_new_revision_is_read_with_peek_or_refresh_until_the_commit() {
    let mut t = tools(state());
    ok(&mut t, "secret-set", &["--", OWNED, "password=new"]);
    let get = |t: &mut SimTools, args: &[&str]| {
        let mut all = vec!["--format=json"];
        all.extend_from_slice(args);
        json_of(t, "secret-get", &all)["password"].clone()
    };
    assert_eq!(get(&mut t, &[OWNED]), "old");
    assert_eq!(get(&mut t, &[OWNED, "--peek"]), "new");
    assert_eq!(get(&mut t, &[OWNED, "--refresh"]), "new");
    // Juju's context finds a pending revision by id, or by the label the
    // update gives, not by an older label: the controller's is read.
    assert_eq!(get(&mut t, &["--label", "db-pass", "--peek"]), "old");
    // Metadata shows at once; the revision only after the commit.
    ok(
        &mut t,
        "secret-set",
        &[OWNED, "--label", "db-password", "--rotate", "weekly"],
    );
    let info = json_of(&mut t, "secret-info-get", &["--format=json", OWNED]);
    let id = OWNED.trim_start_matches("secret:");
    assert_eq!(
        info,
        serde_json::json!({id: {"revision": 1, "label": "db-password", "owner": "application",
            "rotation": "weekly"}})
    );
    assert_eq!(
        committed(&t, OWNED).unwrap().label.as_deref(),
        Some("db-pass")
    );
    commit(&t);
    let secret = committed(&t, OWNED).unwrap();
    assert_eq!(
        secret.revisions,
        [
            revision(1, &[("password", "old")]),
            revision(2, &[("password", "new")])
        ]
    );
    assert_eq!(secret.label.as_deref(), Some("db-password"));
    assert_eq!(secret.rotates.as_deref(), Some("2026-12-06T16:22:16Z"));
    // The same content again makes no revision.
    ok(&mut t, "secret-set", &[OWNED, "password=new"]);
    commit(&t);
    assert_eq!(committed(&t, OWNED).unwrap().revisions.len(), 2);
}

#[test]
fn secret_set_errors() {
    let mut t = tools(state());
    for (args, code, message) in [
        (&[][..], 2, "missing secret URI".to_string()),
        (
            &["secret:missing", "abc=1"][..],
            2,
            "secret URI \"secret:missing\" not valid".into(),
        ),
        (&[OWNED, "PW=1"][..], 2, "key \"PW\" not valid".into()),
        (
            &["secret:d1ulvkcavc0s73ak2m00", "abc=1"][..],
            1,
            "secret \"d1ulvkcavc0s73ak2m00\" not found".into(),
        ),
        (&[SHARED, "token=mine"][..], 1, "permission denied".into()),
    ] {
        assert_eq!(err(&mut t, "secret-set", args), (code, message), "{args:?}");
    }
    t.state.lock().unwrap().model.leader = false;
    assert_eq!(
        err(&mut t, "secret-set", &[OWNED, "password=x"]),
        (1, "this unit is not the leader".into())
    );
    assert!(t.state.lock().unwrap().pending_secrets == PendingSecrets::default());
}

#[test]
fn a_shared_secret_is_read_at_the_revision_this_unit_tracks() {
    let mut t = tools(state());
    let token = |t: &mut SimTools, args: &[&str]| {
        let mut all = vec!["--format=json"];
        all.extend_from_slice(args);
        json_of(t, "secret-get", &all)["token"].clone()
    };
    let tracking = |t: &SimTools| committed(t, SHARED).unwrap().tracking;
    // The first read fixes the revision at the latest, at once.
    assert_eq!(token(&mut t, &[SHARED]), "two");
    assert_eq!(tracking(&t), Some(2));
    // The owner makes revision 3: read only when asked for.
    t.state
        .lock()
        .unwrap()
        .model
        .secrets
        .get_mut(SHARED)
        .unwrap()
        .revisions
        .push(revision(3, &[("token", "three")]));
    assert_eq!(token(&mut t, &[SHARED]), "two");
    assert_eq!(token(&mut t, &[SHARED, "--peek"]), "three");
    assert_eq!(tracking(&t), Some(2));
    // A label given with the id stays with the secret, for this unit.
    assert_eq!(
        token(&mut t, &[SHARED, "--refresh", "--label", "vault-token"]),
        "three"
    );
    assert_eq!(tracking(&t), Some(3));
    assert_eq!(
        committed(&t, SHARED).unwrap().label.as_deref(),
        Some("vault-token")
    );
    assert_eq!(token(&mut t, &["--label", "vault-token"]), "three");
    // That is what the controller records as it answers: a failed hook
    // does not take it back (no pending change holds it).
    assert!(t.state.lock().unwrap().pending_secrets == PendingSecrets::default());
    // It is not the charm's: no metadata, no id, no change.
    assert_eq!(
        err(&mut t, "secret-info-get", &["--format=json", SHARED]),
        (1, "secret \"d1ulvkcavc0s73ak2mcg\" not found".into())
    );
    assert_eq!(
        json_of(&mut t, "secret-ids", &["--format=json"]),
        serde_json::json!(["d1ulvkcavc0s73ak2md0"])
    );
    assert_eq!(
        err(&mut t, "secret-remove", &[SHARED]),
        (1, "permission denied".into())
    );
}

#[test]
fn secret_get_errors() {
    let mut t = tools(state());
    for (args, code, message) in [
        (
            &["--format=json"][..],
            2,
            "require either a secret URI or label".to_string(),
        ),
        (&["x"][..], 2, "secret URI \"x\" not valid".into()),
        (
            &[OWNED, "--peek", "--refresh"][..],
            2,
            "specify one of --peek or --refresh but not both".into(),
        ),
        (
            &[OWNED, "a", "b"][..],
            2,
            "unrecognized args: [\"b\"]".into(),
        ),
        (
            &["--format=smart", OWNED][..],
            2,
            "invalid value \"smart\" for option --format: unknown format \"smart\"".into(),
        ),
        (
            &["--label", "nope"][..],
            1,
            "secret with label \"nope\" not found".into(),
        ),
        (
            &["d1ulvkcavc0s73ak2m00"][..],
            1,
            // The controller names what it does not have by its URI.
            "secret \"secret:d1ulvkcavc0s73ak2m00\" not found".into(),
        ),
        (
            &[OWNED, "nope"][..],
            1,
            "secret key \"nope\" not found".into(),
        ),
    ] {
        assert_eq!(err(&mut t, "secret-get", args), (code, message), "{args:?}");
    }
}

#[test]
fn secret_info_get_errors() {
    let mut t = tools(state());
    for (args, code, message) in [
        (
            &[][..],
            2,
            "require either a secret URI or label".to_string(),
        ),
        (
            &[OWNED, "--label", "db-pass"][..],
            2,
            "specify either a secret URI or label but not both".into(),
        ),
        (&["nope"][..], 2, "secret URI \"nope\" not valid".into()),
        (
            &[OWNED, "extra"][..],
            2,
            "unrecognized args: [\"extra\"]".into(),
        ),
        (
            &["--label", "other"][..],
            1,
            "secret \"other\" not found".into(),
        ),
    ] {
        assert_eq!(
            err(&mut t, "secret-info-get", args),
            (code, message),
            "{args:?}"
        );
    }
    assert_eq!(
        err(&mut t, "secret-ids", &["extra"]),
        (2, "unrecognized args: [\"extra\"]".into())
    );
}

#[test]
fn removals_wait_for_the_commit_and_add_up() {
    let mut t = tools(state());
    t.state
        .lock()
        .unwrap()
        .model
        .secrets
        .get_mut(OWNED)
        .unwrap()
        .revisions
        .extend([
            revision(2, &[("password", "b")]),
            revision(3, &[("password", "c")]),
        ]);
    ok(&mut t, "secret-remove", &["--revision", "1", OWNED]);
    ok(&mut t, "secret-remove", &["--revision=2", "--", OWNED]);
    // Juju's context leaves a secret with a pending removal out of its metadata.
    assert_eq!(
        err(&mut t, "secret-info-get", &[OWNED]),
        (1, "secret \"d1ulvkcavc0s73ak2md0\" not found".into())
    );
    assert_eq!(committed(&t, OWNED).unwrap().revisions.len(), 3);
    commit(&t);
    assert_eq!(
        committed(&t, OWNED).unwrap().revisions,
        [revision(3, &[("password", "c")])]
    );
    // Without --revision (or with 0), the whole secret goes.
    ok(&mut t, "secret-remove", &["--revision", "3", OWNED]);
    ok(&mut t, "secret-remove", &["--revision", "0", OWNED]);
    commit(&t);
    assert_eq!(committed(&t, OWNED), None);
    // A secret added and removed in one hook never exists.
    let added = ok(&mut t, "secret-add", &["abc=1"]);
    ok(&mut t, "secret-remove", &[added.trim_end()]);
    commit(&t);
    assert_eq!(t.state.lock().unwrap().model.secrets.len(), 1);

    let mut t = tools(state());
    for (args, code, message) in [
        (&[][..], 2, "missing secret URI".to_string()),
        (
            &["--revision", "x", OWNED][..],
            2,
            "invalid value \"x\" for option --revision: strconv.ParseInt: parsing \"x\": invalid syntax".into(),
        ),
        (&["bad"][..], 2, "secret URI \"bad\" not valid".into()),
        (&[OWNED, "more"][..], 2, "unrecognized args: [\"more\"]".into()),
        (
            &["d1ulvkcavc0s73ak2m00"][..],
            1,
            "secret \"d1ulvkcavc0s73ak2m00\" not found".into(),
        ),
    ] {
        assert_eq!(err(&mut t, "secret-remove", args), (code, message), "{args:?}");
    }
    t.state.lock().unwrap().model.leader = false;
    assert_eq!(
        err(&mut t, "secret-remove", &[OWNED]),
        (1, "this unit is not the leader".into())
    );
}

#[test]
fn grants_follow_the_relation_and_jujus_rules() {
    let mut t = tools(state());
    let grants = |t: &SimTools| committed(t, OWNED).unwrap().grants;
    ok(
        &mut t,
        "secret-grant",
        &["-r", "db:1", "--unit", "pg/1", OWNED],
    );
    // A unit's grant must go before its application's.
    assert_eq!(
        err(&mut t, "secret-grant", &["--relation", "1", OWNED]),
        (
            1,
            "any unit level grants need to be revoked before granting access to the corresponding application"
                .into()
        )
    );
    assert!(grants(&t).is_empty(), "held until the commit");
    commit(&t);
    assert_eq!(
        grants(&t),
        [("db:1".to_string(), ["pg/1".to_string()].into())].into()
    );
    ok(
        &mut t,
        "secret-revoke",
        &["--relation", "db:1", "--unit", "pg/1", OWNED],
    );
    ok(&mut t, "secret-grant", &["--relation", "db:1", OWNED]);
    // The application's grant covers its units.
    ok(
        &mut t,
        "secret-grant",
        &["--relation", "db:1", "--unit", "pg/0", OWNED],
    );
    commit(&t);
    assert_eq!(
        grants(&t),
        [("db:1".to_string(), ["pg".to_string()].into())].into()
    );
    ok(&mut t, "secret-revoke", &["--app", "pg", OWNED]);
    commit(&t);
    assert!(grants(&t).is_empty());
    // In a relation hook, the hook's relation is the default.
    t.relation = Some("db:1".into());
    ok(&mut t, "secret-grant", &[OWNED]);
    assert_eq!(
        err(&mut t, "secret-revoke", &["--app", "pg", OWNED]),
        (2, "do not specify both relation and app".into())
    );
    ok(&mut t, "secret-revoke", &[OWNED]);
    commit(&t);
    assert!(grants(&t).is_empty());
}

#[test]
fn secret_grant_and_revoke_errors() {
    let mut t = tools(state());
    for (args, code, message) in [
        (&[][..], 2, "missing secret URI".to_string()),
        (
            &["-r", "db:1", "bad"][..],
            2,
            "secret URI \"bad\" not valid".into(),
        ),
        (&[OWNED][..], 2, "no relation id specified".into()),
        (
            &["-r", "db:7", OWNED][..],
            2,
            "invalid value \"db:7\" for option -r: relation not found".into(),
        ),
        (
            &["-r", "db:1", "--unit", "pg", OWNED][..],
            2,
            "unit \"pg\" not valid".into(),
        ),
        (
            &["-r", "db:1", "--unit", "mysql/0", OWNED][..],
            2,
            "cannot specify unit \"mysql/0\" in relation to application \"pg\"".into(),
        ),
        (
            &["-r", "db:1", OWNED, "x"][..],
            2,
            "unrecognized args: [\"x\"]".into(),
        ),
        (
            &["-r", "db:1", "d1ulvkcavc0s73ak2m00"][..],
            1,
            "secret \"d1ulvkcavc0s73ak2m00\" not found".into(),
        ),
        (
            &["-r", "db:1", SHARED][..],
            1,
            "secret \"d1ulvkcavc0s73ak2mcg\" not found".into(),
        ),
    ] {
        assert_eq!(
            err(&mut t, "secret-grant", args),
            (code, message),
            "{args:?}"
        );
    }
    for (args, code, message) in [
        (&[][..], 2, "missing secret URI".to_string()),
        (
            &["--app", "Pg", OWNED][..],
            2,
            "application \"Pg\" not valid".into(),
        ),
        (
            &["--unit", "pg/x", OWNED][..],
            2,
            "unit \"pg/x\" not valid".into(),
        ),
        (
            &["--app", "pg", "--unit", "pg/0", OWNED][..],
            2,
            "specify only one of application or unit".into(),
        ),
        (
            &["-r", "db:1", "--app", "pg", OWNED][..],
            2,
            "do not specify both relation and app".into(),
        ),
        (
            &["-r", "db:2", OWNED][..],
            2,
            "invalid value \"db:2\" for option -r: relation not found".into(),
        ),
        (
            &[OWNED][..],
            2,
            "missing relation or application or unit".into(),
        ),
        (
            &["--app", "pg", OWNED, "x"][..],
            2,
            "unrecognized args: [\"x\"]".into(),
        ),
        (
            &["--app", "pg", "d1ulvkcavc0s73ak2m00"][..],
            1,
            "secret \"d1ulvkcavc0s73ak2m00\" not found".into(),
        ),
    ] {
        assert_eq!(
            err(&mut t, "secret-revoke", args),
            (code, message),
            "{args:?}"
        );
    }
    t.state.lock().unwrap().model.leader = false;
    assert_eq!(
        err(&mut t, "secret-grant", &["-r", "db:1", OWNED]),
        (1, "this unit is not the leader".into())
    );
    assert_eq!(
        err(&mut t, "secret-revoke", &["--app", "pg", OWNED]),
        (1, "this unit is not the leader".into())
    );
    assert!(t.state.lock().unwrap().pending_secrets == PendingSecrets::default());
}

#[test]
fn the_state_file_keeps_secrets_readable_and_refuses_typos() {
    let text = format!(
        "secrets:\n  {SHARED}:\n    owner: vault\n    revisions:\n      - revision: 1\n        content: {{token: s3cret}}\n    tracking: 1\n"
    );
    let state: SimState = serde_saphyr::from_str(&text).unwrap();
    assert_eq!(
        state.model.secrets[SHARED].revisions,
        [revision(1, &[("token", "s3cret")])]
    );
    let again: SimState =
        serde_saphyr::from_str(&serde_saphyr::to_string(&state).unwrap()).unwrap();
    assert_eq!(again, state);
    // A YAML reader that wants string keys reads the file too.
    let doc: serde_json::Value =
        serde_saphyr::from_str(&serde_saphyr::to_string(&state).unwrap()).unwrap();
    assert_eq!(
        doc["secrets"][SHARED]["revisions"][0]["content"]["token"],
        "s3cret"
    );
    let e = serde_saphyr::from_str::<SimState>(&text.replace("tracking", "trackign"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("trackign"), "{e}");
}

#[test]
fn a_non_leader_reads_its_applications_secret_but_not_its_metadata() {
    // Juju's secrets manager answers `GetSecretMetadata` with the
    // application's secrets for its leader only; any unit of the owner
    // may still read the content by URI.
    let mut state = state();
    state.model.leader = false;
    let mut t = tools(state);
    assert_eq!(
        json_of(&mut t, "secret-ids", &["--format=json"]),
        serde_json::json!([])
    );
    assert_eq!(
        err(&mut t, "secret-info-get", &[OWNED]),
        (
            1,
            format!(
                "secret \"{}\" not found",
                OWNED.trim_start_matches("secret:")
            )
        )
    );
    assert_eq!(
        err(&mut t, "secret-info-get", &["--label", "db-pass"]),
        (1, "secret \"db-pass\" not found".into())
    );
    for by in [&[OWNED][..], &["--label", "db-pass"]] {
        let mut args = vec!["--format=json"];
        args.extend_from_slice(by);
        assert_eq!(
            json_of(&mut t, "secret-get", &args)["password"],
            "old",
            "{by:?}"
        );
    }
    assert_eq!(
        err(&mut t, "secret-grant", &["-r", "db:1", OWNED]),
        (1, "this unit is not the leader".into())
    );
    assert_eq!(
        err(&mut t, "secret-set", &[OWNED, "password=mine"]),
        (1, "this unit is not the leader".into())
    );
    // A secret the unit owns is its own whoever leads.
    ok(
        &mut t,
        "secret-add",
        &["--owner", "unit", "--label", "mine", "key=v"],
    );
    commit(&t);
    let ids = json_of(&mut t, "secret-ids", &["--format=json"]);
    assert_eq!(ids.as_array().map(Vec::len), Some(1), "{ids}");
}

#[test]
fn a_secret_is_found_by_any_uri_form_jujus_parser_takes() {
    let mut t = tools(state());
    let id = OWNED.trim_start_matches("secret:");
    let uuid = "1f2e3d4c-5b6a-4789-8abc-def012345678";
    for form in [
        id.to_string(),
        OWNED.to_string(),
        format!("secret://{uuid}/{id}"),
        format!("secret:{uuid}/{id}"),
        format!("{uuid}/{id}"),
    ] {
        assert_eq!(
            json_of(&mut t, "secret-get", &["--format=json", &form])["password"],
            "old",
            "{form}"
        );
        let info = json_of(&mut t, "secret-info-get", &["--format=json", &form]);
        assert_eq!(info[id]["revision"], 1, "{form}: {info}");
    }
}
