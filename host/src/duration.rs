//! Durations as wasm-charm.yaml writes them (`500ms`, `2s`, `5m`, `1h`): a
//! probe's timeout, back-off and grace, a command's timeout. A leaf: the
//! manifest's parsers, the probes and the tools that show a manifest all
//! read and write durations this one way.

use std::time::Duration;

/// `500ms`, `2s`, `5m`, `1h`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad = || format!("`{text}` is not a duration (e.g. 500ms, 2s, 5m, 1h)");
    let split = text.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
    let (digits, unit) = text.split_at(split);
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let ms = match unit {
        "ms" => Some(n),
        "s" => n.checked_mul(1000),
        "m" => n.checked_mul(60_000),
        "h" => n.checked_mul(3_600_000),
        _ => None,
    }
    .ok_or_else(bad)?;
    Ok(Duration::from_millis(ms))
}

/// A duration as the manifest writes it.
pub fn show_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(3_600_000) && ms > 0 {
        format!("{}h", ms / 3_600_000)
    } else if ms.is_multiple_of(60_000) && ms > 0 {
        format!("{}m", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        for bad in [
            "",
            "2",
            "s",
            "1.5s",
            "-1s",
            "2 s",
            "2sec",
            "99999999999999999999h",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn shown_as_written() {
        for text in ["500ms", "2s", "5m", "1h", "90s", "0s"] {
            assert_eq!(show_duration(parse_duration(text).unwrap()), text);
        }
    }
}
