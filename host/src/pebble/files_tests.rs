use super::*;
use crate::bindings::pebble::Host as _;
use crate::pebble::fake_tests::{error, serve, sync};

use crate::pebble::test_values::nobody;

fn web_owner() -> Ownership {
    Ownership {
        user: Some("web".into()),
        user_id: Some(1000),
        group: Some("www".into()),
        group_id: Some(33),
    }
}

#[test]
fn listings_carry_ownership() {
    let files = json!([{"path": "/etc/web/a.conf", "name": "a.conf", "type": "file",
        "size": 12, "permissions": "644", "last-modified": "2026-07-01T10:00:00Z",
        "user-id": 0, "user": "root", "group-id": 0, "group": "root"},
        {"path": "/etc/web/d", "name": "d", "type": "directory", "permissions": "755",
        "last-modified": "2026-07-01T10:00:00Z"}]);
    let files = parse_files(&files).unwrap();
    assert_eq!((files[0].permissions, files[0].size), (0o644, Some(12)));
    assert_eq!(
        (
            files[0].user_id,
            files[0].user.as_deref(),
            files[0].group_id
        ),
        (Some(0), Some("root"), Some(0))
    );
    assert_eq!((files[1].user.as_deref(), files[1].size), (None, None));
    assert_eq!(
        parse_files(&json!([{"path": "/x", "permissions": "9z"}])),
        None
    );
    assert_eq!(
        file_result_error(
            &json!([{"path": "/x", "error": {"kind": "not-found", "message": "gone"}}])
        ),
        Some(Error::Api {
            status: 200,
            kind: "not-found".into(),
            message: "gone".into()
        })
    );
    assert_eq!(file_result_error(&json!([{"path": "/x"}])), None);
    assert_eq!(permissions_text(Some(0o755)), Some("755".into()));
    assert!(boundary().len() >= 32);
}

#[test]
fn request_bodies_name_owner_and_group() {
    let options = PushOptions {
        make_dirs: true,
        permissions: Some(0o600),
        owner: web_owner(),
    };
    assert_eq!(
        push_metadata("/etc/web/a", &options),
        json!({"action": "write", "files": [{"path": "/etc/web/a", "make-dirs": true,
            "permissions": "600", "user-id": 1000, "user": "web", "group-id": 33,
            "group": "www"}]})
    );
    let plain = PushOptions {
        make_dirs: false,
        permissions: None,
        owner: nobody(),
    };
    assert_eq!(
        push_metadata("/a", &plain),
        json!({"action": "write", "files": [{"path": "/a", "make-dirs": false}]})
    );
    let dir = MakeDirOptions {
        make_parents: true,
        permissions: Some(0o750),
        owner: Ownership {
            user_id: Some(0),
            ..nobody()
        },
    };
    assert_eq!(
        make_dir_body("/var/lib/web", &dir),
        json!({"action": "make-dirs", "dirs": [{"path": "/var/lib/web",
            "make-parents": true, "permissions": "750", "user-id": 0}]})
    );
    assert_eq!(
        list_target("/etc/web", Some("*.conf"), false),
        "/v1/files?action=list&path=/etc/web&pattern=%2A.conf"
    );
    assert_eq!(
        list_target("/etc/web", None, true),
        "/v1/files?action=list&path=/etc/web&itself=true"
    );
}

#[test]
fn calls_through_a_fake_pebble() {
    let listing = json!([{"path": "/etc/web", "name": "web", "type": "directory",
        "permissions": "755", "last-modified": "2026-07-01T10:00:00Z"}]);
    let mut fake = serve(vec![
        sync(json!([{"path": "/etc/web/a"}])),
        sync(
            json!([{"path": "/var/x", "error": {"kind": "permission-denied",
            "message": "chown: operation not permitted"}}]),
        ),
        sync(listing),
        error(404, "not-found", "stat /nowhere: no such file or directory"),
    ]);
    let p = &mut fake.pebble;
    let options = PushOptions {
        make_dirs: true,
        permissions: None,
        owner: web_owner(),
    };
    assert_eq!(
        p.push("web".into(), "/etc/web/a".into(), b"x".to_vec(), options),
        Ok(())
    );
    let dir = MakeDirOptions {
        make_parents: false,
        permissions: None,
        owner: web_owner(),
    };
    assert!(matches!(
        p.make_dir("web".into(), "/var/x".into(), dir),
        Err(PebbleError::Api(e)) if e.kind == "permission-denied"
    ));
    let got = p
        .list_files("web".into(), "/etc/web".into(), None, true)
        .unwrap();
    assert_eq!(got[0].kind, "directory");
    assert!(matches!(
        p.list_files("web".into(), "/nowhere".into(), Some("*".into()), false),
        Err(PebbleError::Api(e)) if e.status_code == 404
    ));
    let too_long = Ownership {
        user: Some("u".repeat(MAX_NAME + 1)),
        ..nobody()
    };
    let refused = PushOptions {
        make_dirs: false,
        permissions: None,
        owner: too_long,
    };
    assert!(matches!(
        p.push("web".into(), "/a".into(), vec![], refused),
        Err(PebbleError::Invalid(m)) if m.contains("push options.owner.user")
    ));
    assert!(matches!(
        p.list_files("web".into(), "/".into(), Some("*".repeat(MAX_NAME + 1)), false),
        Err(PebbleError::Invalid(m)) if m.contains("list-files pattern")
    ));
    let seen = fake.seen();
    assert_eq!(seen.len(), 4);
    assert!(seen[0].head.contains("multipart/form-data"));
    let body = String::from_utf8_lossy(&seen[0].body);
    assert!(
        body.contains(r#""user":"web""#) && body.contains(r#""group-id":33"#),
        "{body}"
    );
    assert_eq!(seen[1].json()["dirs"][0]["group"], json!("www"));
    assert_eq!(
        seen[2].target,
        "/v1/files?action=list&path=/etc/web&itself=true"
    );
    assert_eq!(
        seen[3].target,
        "/v1/files?action=list&path=/nowhere&pattern=%2A"
    );
}

#[test]
fn a_push_too_large_is_refused_before_pebble_is_asked() {
    let mut fake = serve(vec![]);
    let plain = PushOptions {
        make_dirs: false,
        permissions: None,
        owner: nobody(),
    };
    assert!(matches!(
        fake.pebble.push("web".into(), "/big".into(), vec![0; MAX_PUSH + 1], plain),
        Err(PebbleError::Invalid(m)) if m.contains("push of /big")
    ));
    assert!(fake.seen().is_empty());
}
