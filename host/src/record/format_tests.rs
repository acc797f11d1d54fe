//! The recording's format: what each answer keeps, and the file within
//! its bounds.

use super::*;

#[test]
fn a_replays_copy_of_the_charm_reads_as_the_units_directory() {
    let outcome = Outcome {
        exit: 1,
        failures: vec!["/tmp/r1/charm/.wasm-charm/scopes.json: cannot read".into()],
        handlers: vec![HandlerRun {
            handler: "config".into(),
            result: "trapped: in /tmp/r1/charm/charm.wasm".into(),
        }],
        ..Outcome::default()
    };
    let moved = outcome
        .clone()
        .relocated("/tmp/r1/charm", "/var/lib/juju/charm");
    assert_eq!(
        moved.failures,
        ["/var/lib/juju/charm/.wasm-charm/scopes.json: cannot read"]
    );
    assert_eq!(
        moved.handlers[0].result,
        "trapped: in /var/lib/juju/charm/charm.wasm"
    );
    // Nothing to relocate from: unchanged.
    assert_eq!(outcome.clone().relocated("", "/x"), outcome);
}
use proptest::prelude::*;

fn event(n: u64) -> Recorded {
    Recorded {
        format: FORMAT,
        host: "0.1.0".into(),
        event: Some("install".into()),
        time: n,
        env: [("JUJU_UNIT_NAME".to_string(), "a/0".to_string())].into(),
        backend: Backend::Local,
        store: None,
        store_previous: false,
        store_left_sha256: None,
        store_error: None,
        calls: vec![ToolCall::new(
            "config-get",
            &["--format=json"],
            None,
            ToolAnswer::Exited {
                code: 0,
                stdout: "{}".into(),
                stderr: String::new(),
            },
        )],
        probes: vec![],
        clock: vec![],
        workload: vec![WorkloadCall {
            call: vec!["service".into(), "db".into(), "restart".into()],
            answer: WorkloadAnswer::Error(CallError::Failed {
                tool: "systemctl".into(),
                code: Some(5),
                message: "no unit".into(),
            }),
        }],
        outcome: Outcome {
            exit: 0,
            wrote: vec!["unit".into()],
            unit: Some("active: ".into()),
            ..Outcome::default()
        },
    }
}

#[test]
fn a_document_reads_back_as_written() {
    let line = serde_json::to_string(&event(7)).unwrap();
    assert!(!line.contains('\n'));
    assert_eq!(parse(&format!("{line}\n\n{line}\n")), Ok(vec![event(7); 2]));
}

#[test]
fn a_bad_line_is_named() {
    let good = serde_json::to_string(&event(1)).unwrap();
    let e = parse(&format!("{good}\n{{\"format\": 1}}\n")).unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.message.contains("missing field `host`"), "{e}");
    let newer = good.replace("\"format\":2", "\"format\":9");
    let e = parse(&newer).unwrap_err();
    assert_eq!(e.line, 1);
    assert!(e.message.contains("field `format`: 9"), "{e}");
    assert!(e.message.contains("newer host"), "{e}");
    let e = parse("not json").unwrap_err();
    assert_eq!(e.to_string().split(':').next(), Some("line 1"));
}

#[test]
fn answers_come_back_as_given() {
    let out = ToolOutput {
        code: 2,
        stdout: b"x".to_vec(),
        stderr: "ERROR y\n".into(),
    };
    assert_eq!(ToolAnswer::of(&Ok(out.clone())).result().unwrap(), out);
    let late = std::io::Error::new(std::io::ErrorKind::TimedOut, "late");
    let again = ToolAnswer::of(&Err(late)).result().unwrap_err();
    assert_eq!(again.kind(), std::io::ErrorKind::TimedOut);
    assert_eq!(again.to_string(), "late");
    let failed = Err(WorkloadError::Failed(ToolFailure {
        tool: "apt-get".into(),
        code: None,
        message: "m".into(),
    }));
    assert_eq!(WorkloadAnswer::of_unit(&failed).unit(), failed);
    let ok = Ok(CommandOutput {
        exit: Exit::TimedOut,
        stdout: b"o".to_vec(),
        stderr: vec![],
        truncated: true,
    });
    assert_eq!(WorkloadAnswer::of_output(&ok).output(), ok);
    let e = WorkloadAnswer::Done.installed().unwrap_err();
    assert!(matches!(e, WorkloadError::Unavailable(m) if m.contains("not installed or not")));
}

#[test]
fn calls_read_as_shell_lines() {
    let call = ToolCall::new(
        "status-set",
        &["blocked", "--", "it's broken"],
        Some(b"a: 1"),
        ToolAnswer::Exited {
            code: 0,
            stdout: String::new(),
            stderr: String::new(),
        },
    );
    assert_eq!(
        call.line(),
        r"status-set blocked -- 'it'\''s broken' <<< 'a: 1'"
    );
    assert_eq!(quote(""), "''");
}

#[test]
fn one_event_over_the_byte_bound_is_not_kept() {
    let bounds = Bounds {
        events: 5,
        bytes: 10,
    };
    assert!(append("", "0123456789", bounds).is_err());
    assert_eq!(append("", "012345678", bounds).unwrap(), "012345678\n");
}

proptest! {
    #[test]
    fn the_file_keeps_the_newest_within_bounds(
        old in proptest::collection::vec("[a-z]{0,12}", 0..30),
        new in "[a-z]{1,12}",
        events in 1usize..10,
        bytes in 13usize..200,
    ) {
        let bounds = Bounds { events, bytes };
        let old_text: String = old.iter().map(|l| format!("{l}\n")).collect();
        let text = append(&old_text, &new, bounds).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        prop_assert!(lines.len() <= events);
        prop_assert!(text.len() <= bytes);
        prop_assert_eq!(lines.last().copied(), Some(new.as_str()));
        // The newest of the old ones, in order, with none skipped.
        let old_kept: Vec<&str> = old.iter().map(String::as_str).filter(|l| !l.is_empty()).collect();
        let n = lines.len() - 1;
        prop_assert_eq!(&lines[..n], &old_kept[old_kept.len() - n..]);
        // Not dropped while there was room for one more.
        if n < old_kept.len() && n + 1 < events {
            prop_assert!(text.len() + old_kept[old_kept.len() - n - 1].len() + 1 > bytes);
        }
    }
}

/// A store kept once: each event after the first says only that it loaded
/// what the one before it left, and its changes; dropping the oldest makes
/// the next one whole; reading gives every event its whole stores back.
#[test]
fn the_store_is_kept_once_and_the_first_event_kept_is_whole() {
    let big = "x".repeat(3000);
    let store = |n: u64| serde_json::json!({"format": 2, "clock": n, "data": {"big": big, "n": n.to_string()}});
    let bounds = Bounds {
        events: 3,
        bytes: 1 << 20,
    };
    let mut text = String::new();
    for n in 0..5u64 {
        let mut rec = event(n);
        rec.store = Some(store(n));
        rec.outcome.store = Some(store(n + 1));
        text = append_event(&text, rec, bounds).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].contains(&big), "the first event kept is whole");
        assert!(
            lines[1..].iter().all(|l| !l.contains(&big)),
            "the others hold changes only"
        );
    }
    let events = parse(&text).unwrap();
    let times: Vec<u64> = events.iter().map(|e| e.time).collect();
    assert_eq!(times, [2, 3, 4]);
    for e in &events {
        assert_eq!(e.store, Some(store(e.time)));
        assert_eq!(e.outcome.store, Some(store(e.time + 1)));
    }
}
