//! The pure parts of tls-certificates: keys, CSRs, signing, and the
//! renewal rule.

use super::x509::{self, Ca, PrivateKey, Request};

#[test]
fn a_csr_carries_its_name_and_a_fresh_unique_id() {
    let key = PrivateKey::generate();
    let one = x509::request(&key, "web.example", &["web.example".into()]).expect("a CSR");
    let two = x509::request(&key, "web.example", &["web.example".into()]).expect("a CSR");
    // The same key and name, yet another CSR: what renewal relies on.
    assert_ne!(one, two);
    let parsed = Request::parse(&one).expect("its own CSR parses");
    assert_eq!(parsed.common_name().as_deref(), Some("web.example"));
}

#[test]
fn the_ca_signs_a_csr_for_its_key_and_the_dates_plan_a_renewal() {
    let ca = Ca::generate("test CA", 365).expect("a CA");
    let key = PrivateKey::generate();
    let csr = x509::request(&key, "db.example", &[]).expect("a CSR");
    let cert = ca.sign(&csr, 90).expect("signed");
    assert!(x509::matches_key(&cert, &key).expect("a certificate"));
    assert!(!x509::matches_key(&cert, &PrivateKey::generate()).expect("a certificate"));
    let (from, to) = x509::validity(&cert).expect("its dates");
    assert_eq!(to - from, 90 * 86_400);
    let at = x509::renewal_time(from, to, None);
    assert_eq!(at, from + 81 * 86_400);
    // A CA kept in a secret comes back whole.
    let again = Ca::from_pem(&ca.key().to_pem().expect("pem"), ca.certificate()).expect("kept");
    assert!(again.sign(&csr, 1).is_ok());
}

#[test]
fn a_tampered_csr_is_refused_naming_what_failed() {
    let key = PrivateKey::generate();
    let csr = x509::request(&key, "web.example", &[]).expect("a CSR");
    let err = Request::parse(
        "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----",
    )
    .expect_err("not a CSR");
    assert!(
        err.to_string().contains("tls-certificates: reading a CSR"),
        "{err}"
    );
    // One byte of the signed part changed: the signature no longer holds.
    let mut lines: Vec<String> = csr.lines().map(str::to_string).collect();
    let mid = lines[1].clone();
    let flipped: String = mid
        .chars()
        .enumerate()
        .map(|(i, c)| {
            if i == 40 {
                if c == 'A' { 'B' } else { 'A' }
            } else {
                c
            }
        })
        .collect();
    lines[1] = flipped;
    let tampered = lines.join("\n");
    assert!(Request::parse(&tampered).is_err());
}

/// Property: the renewal time lies in the second half of the validity,
/// whatever the provider recommends.
#[test]
fn renewal_falls_in_the_second_half_of_the_validity() {
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..10_000 {
        let from = next() % 4_000_000_000;
        let to = from + next() % 400_000_000;
        let hours = match next() % 3 {
            0 => None,
            1 => Some((next() % 10_000) as i64),
            _ => Some(-((next() % 10) as i64)),
        };
        let at = x509::renewal_time(from, to, hours);
        assert!(
            at >= from + (to - from) / 2 && at <= to,
            "{from} {to} {hours:?} -> {at}"
        );
    }
}

/// Property: RFC 3339 text round-trips through a day count for every
/// day of four centuries (leap years included).
#[test]
fn rfc3339_dates_are_the_civil_calendars() {
    let mut expected = (1970i64, 1u32, 1u32);
    let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    for day in 0..146_097u64 {
        let (y, m, d) = expected;
        assert_eq!(
            x509::rfc3339(day * 86_400 + 3_723).expect("in X.509's years")[..19],
            format!("{y:04}-{m:02}-{d:02}T01:02:03")
        );
        let len = match m {
            2 if leap(y) => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        expected = if d < len {
            (y, m, d + 1)
        } else if m < 12 {
            (y, m + 1, 1)
        } else {
            (y + 1, 1, 1)
        };
    }
}
