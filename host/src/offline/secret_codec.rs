//! The encodings of Juju's secret tools, for the simulated Juju: secret ids
//! (an xid: 12 bytes as 20 lowercase base32hex characters, `core/secrets`
//! `ParseURI`), base64 content (values travel base64-encoded and Juju's size
//! limits count those bytes), and expiry times and durations as `secret-add
//! --expire` reads them (RFC 3339, RFC 3339 without a zone, or a Go
//! duration).

/// The alphabet of xid ids: base32hex, lowercase.
const XID_ALPHABET: &[u8; 32] = b"0123456789abcdefghijklmnopqrstuv";

/// The id of a secret as Juju names it in any of the forms `ParseURI`
/// takes (`secret:<id>`, `secret://<uuid>/<id>`, `secret:<uuid>/<id>`,
/// `<uuid>/<id>`, `<id>`: the scheme may be left out, the source model's
/// UUID given before the id); `None` when it is not one.
pub fn parse_id(arg: &str) -> Option<String> {
    let rest = match arg.split_once(':') {
        Some(("secret", rest)) => rest,
        Some(_) => return None,
        None => arg,
    };
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    let id = match rest.split_once('/') {
        Some((source, id)) if is_uuid(source) => id,
        Some(_) => return None,
        None => rest,
    };
    is_xid(id).then(|| id.to_string())
}

/// `secret:<id>`: how Juju prints a secret made in this model.
pub fn uri(id: &str) -> String {
    format!("secret:{id}")
}

fn is_uuid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// 20 characters of the xid alphabet whose last one holds a single bit:
/// 96 bits in 100, the 4 left over zero, as xid decodes them.
fn is_xid(id: &str) -> bool {
    id.len() == 20
        && id.bytes().all(|b| XID_ALPHABET.contains(&b))
        && matches!(id.as_bytes()[19], b'0' | b'g')
}

/// A new secret id, as Juju's are made: 4 bytes of time, then (where xid
/// has machine, process and counter) `sim`, two zero bytes and `n`.
pub fn new_id(now: u64, n: u32) -> String {
    let mut bytes = [0u8; 12];
    // xid keeps the low 32 bits of the time.
    bytes[..4].copy_from_slice(&(now as u32).to_be_bytes());
    bytes[4..7].copy_from_slice(b"sim");
    bytes[9..].copy_from_slice(&n.to_be_bytes()[1..]);
    let mut bits: u128 = 0;
    for b in bytes {
        bits = (bits << 8) | u128::from(b);
    }
    bits <<= 4;
    (0..20)
        .map(|i| XID_ALPHABET[((bits >> (95 - 5 * i)) & 0x1f) as usize] as char)
        .collect()
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding, as Go's `base64.StdEncoding`.
pub fn b64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(b64_len(data.len()));
    for chunk in data.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[((n >> (18 - 6 * i)) & 0x3f) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The length of [`b64_encode`]'s answer for `n` bytes.
pub fn b64_len(n: usize) -> usize {
    n.div_ceil(3) * 4
}

/// Standard base64, padded; `None` when it is not.
pub fn b64_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.as_bytes();
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    for (index, chunk) in text.chunks(4).enumerate() {
        let last = index + 1 == text.len() / 4;
        let pad = chunk.iter().rev().take_while(|b| **b == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for (i, b) in chunk[..4 - pad].iter().enumerate() {
            let v = B64.iter().position(|c| c == b)? as u32;
            n |= v << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..4 - pad]);
    }
    Some(out)
}

/// When a secret expires, as `secret-add --expire` reads `spec`: an RFC
/// 3339 time, one without a zone (UTC), or a positive Go duration from
/// `now`. `Err`: Juju's words.
pub fn parse_expiry(spec: &str, now: u64) -> Result<u64, String> {
    if let Some(t) = rfc3339(spec) {
        return u64::try_from(t)
            .map_err(|_| format!("expire time or duration \"{spec}\" not valid"));
    }
    let d =
        go_duration(spec).ok_or_else(|| format!("expire time or duration \"{spec}\" not valid"))?;
    if d <= 0.0 {
        return Err(format!("negative expire duration \"{spec}\" not valid"));
    }
    Ok(now.saturating_add(d.ceil() as u64))
}

/// The rotation policies Juju knows, each with how long until the next
/// rotation (`core/secrets` `RotatePolicy`); `never` has none.
pub fn rotation_interval(policy: &str) -> Option<Option<u64>> {
    const HOUR: u64 = 3600;
    const DAY: u64 = 24 * HOUR;
    Some(match policy {
        "never" => None,
        "hourly" => Some(HOUR),
        "daily" => Some(DAY),
        "weekly" => Some(7 * DAY),
        "monthly" => Some(30 * DAY),
        "quarterly" => Some(90 * DAY),
        "yearly" => Some(365 * DAY),
        _ => return None,
    })
}

/// A Go duration (`time.ParseDuration`: `90s`, `1h30m`, `1.5h`, `-2m`,
/// `0`) in seconds.
pub fn go_duration(s: &str) -> Option<f64> {
    let (sign, mut rest) = match s.as_bytes().first() {
        Some(b'-') => (-1.0, &s[1..]),
        Some(b'+') => (1.0, &s[1..]),
        _ => (1.0, s),
    };
    if rest == "0" {
        return Some(0.0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total = 0.0;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number = &rest[..number_len];
        if number.is_empty() || number == "." || number.matches('.').count() > 1 {
            return None;
        }
        let value: f64 = number.parse().ok()?;
        rest = &rest[number_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        total += value * scale;
        rest = &rest[unit_len..];
    }
    Some(sign * total)
}

/// Seconds since the epoch of `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`, or
/// of the same without a zone (UTC).
pub fn rfc3339(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 19
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = s.get(range)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month)
        || !(1..=days_in_month(year, month)).contains(&day)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let mut rest = &s[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(frac.len());
        if digits == 0 {
            return None;
        }
        rest = &frac[digits..];
    }
    let offset = match rest {
        "" | "Z" => 0,
        zone => {
            let sign = match zone.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let (h, m) = zone[1..].split_once(':')?;
            if h.len() != 2 || m.len() != 2 {
                return None;
            }
            let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
            if h > 23 || m > 59 {
                return None;
            }
            sign * (h * 3600 + m * 60)
        }
    };
    Some(days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (the inverse of
/// `show::utc`'s civil-from-days).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::show::utc;

    #[test]
    fn ids_are_xids_in_any_of_jujus_uri_forms() {
        let id = "d1ulvkcavc0s73ak2mcg";
        for form in [
            id.to_string(),
            format!("secret:{id}"),
            format!("secret://1f2e3d4c-5b6a-4789-8abc-def012345678/{id}"),
            // Juju's `ParseURI` takes the source model without the `//`,
            // and without the scheme.
            format!("secret:1f2e3d4c-5b6a-4789-8abc-def012345678/{id}"),
            format!("1f2e3d4c-5b6a-4789-8abc-def012345678/{id}"),
        ] {
            assert_eq!(parse_id(&form).as_deref(), Some(id), "{form}");
        }
        for bad in [
            "",
            "secret:",
            "secret:missing",
            "secret:d1ulvkcavc0s73ak2mc1",
            "secret:d1ulvkcavc0s73ak2mcw",
            "secret:D1ULVKCAVC0S73AK2MCG",
            "http:d1ulvkcavc0s73ak2mcg",
            "secret://nope/d1ulvkcavc0s73ak2mcg",
            "nope/d1ulvkcavc0s73ak2mcg",
            "secret:1f2e3d4c-5b6a-4789-8abc-def012345678/",
            "secret://1f2e3d4c-5b6a-4789-8abc-def012345678",
        ] {
            assert_eq!(parse_id(bad), None, "{bad}");
        }
        // New ids parse, differ by their number and time, and sort by time.
        let a = new_id(1_795_969_336, 1);
        assert_eq!(a.len(), 20);
        assert_eq!(parse_id(&uri(&a)), Some(a.clone()));
        assert_ne!(a, new_id(1_795_969_336, 2));
        assert!(a < new_id(1_795_969_337, 0));
        // `sim` shows in the middle.
        assert_eq!(new_id(0, 0), "0000003jd5mg00000000");
    }

    #[test]
    fn base64_is_gos_standard_encoding() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("s3cr=t\n", "czNjcj10Cg=="),
        ] {
            assert_eq!(b64_encode(plain.as_bytes()), encoded);
            assert_eq!(b64_len(plain.len()), encoded.len());
            assert_eq!(b64_decode(encoded).as_deref(), Some(plain.as_bytes()));
        }
        for bad in ["Zg", "Zg=a", "Z===", "Zg==Zg==", "Zm9v!A==", "===="] {
            assert_eq!(b64_decode(bad), None, "{bad}");
        }
    }

    #[test]
    fn expiry_reads_times_and_durations_as_juju() {
        let now = 1_795_969_336; // 2026-11-29T16:22:16Z
        let at = |spec: &str| parse_expiry(spec, now).map(utc);
        assert_eq!(at("2027-01-01T06:06:06Z").unwrap(), "2027-01-01T06:06:06Z");
        assert_eq!(at("2027-01-01T06:06:06").unwrap(), "2027-01-01T06:06:06Z");
        assert_eq!(
            at("2027-01-01T08:06:06.25+02:00").unwrap(),
            "2027-01-01T06:06:06Z"
        );
        assert_eq!(at("2028-02-29T00:00:00Z").unwrap(), "2028-02-29T00:00:00Z");
        assert_eq!(at("24h").unwrap(), "2026-11-30T16:22:16Z");
        assert_eq!(at("1h30m").unwrap(), "2026-11-29T17:52:16Z");
        assert_eq!(at("1.5h").unwrap(), "2026-11-29T17:52:16Z");
        assert_eq!(at("90s").unwrap(), "2026-11-29T16:23:46Z");
        for bad in [
            "",
            "tomorrow",
            "5",
            "1d",
            "2027-02-29T00:00:00Z",
            "2027-01-01 06:06:06",
        ] {
            assert_eq!(
                at(bad),
                Err(format!("expire time or duration \"{bad}\" not valid")),
                "{bad}"
            );
        }
        for negative in ["-1h", "0", "0s"] {
            assert_eq!(
                at(negative),
                Err(format!("negative expire duration \"{negative}\" not valid"))
            );
        }
        assert_eq!(rotation_interval("daily"), Some(Some(86_400)));
        assert_eq!(rotation_interval("never"), Some(None));
        assert_eq!(rotation_interval("fortnightly"), None);
    }
}
