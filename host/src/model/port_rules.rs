//! Juju's rules for one unit's port requests during a hook, pure: what the
//! uniter's port-range recorder accepts, refuses or ignores at the call
//! (`open-port`, `close-port`), and what `opened-ports` answers once this
//! hook's own requests are merged in. The host checks each request here
//! before it buffers it, so a handler gets Juju's refusal at its call; the
//! simulated Juju answers its tools from the same rules.
//!
//! Only this unit's ranges are known here: a conflict with another unit's
//! ports on the same machine is Juju's alone to find, when the hook ends.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;

/// A port protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Proto {
    Tcp,
    Udp,
    Icmp,
}

/// A port range as Juju records it; icmp has no ports (0, 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Range {
    pub protocol: Proto,
    pub from: u16,
    pub to: u16,
}

impl fmt::Display for Range {
    /// Juju's spelling: `icmp`, `80/tcp`, `8000-8100/udp`.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let proto = match self.protocol {
            Proto::Icmp => return f.write_str("icmp"),
            Proto::Tcp => "tcp",
            Proto::Udp => "udp",
        };
        if self.from == self.to {
            write!(f, "{}/{proto}", self.from)
        } else {
            write!(f, "{}-{}/{proto}", self.from, self.to)
        }
    }
}

impl Range {
    /// Parse Juju's spelling (the protocol defaults to tcp, case ignored);
    /// `None` for anything `open-port` would refuse.
    pub fn parse(spec: &str) -> Option<Range> {
        let spec = spec.to_ascii_lowercase();
        if spec == "icmp" {
            return Some(Range {
                protocol: Proto::Icmp,
                from: 0,
                to: 0,
            });
        }
        let (ports, proto) = spec.split_once('/').unwrap_or((&spec, "tcp"));
        let protocol = match proto {
            "tcp" => Proto::Tcp,
            "udp" => Proto::Udp,
            _ => return None,
        };
        let (from, to) = match ports.split_once('-') {
            Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
            None => {
                let p = ports.parse().ok()?;
                (p, p)
            }
        };
        (from != 0 && to >= from).then_some(Range { protocol, from, to })
    }

    /// Whether the two share a port of the same protocol.
    pub fn conflicts_with(&self, other: &Range) -> bool {
        self.protocol == other.protocol && self.to >= other.from && other.to >= self.from
    }
}

impl Serialize for Range {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Range {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Range, D::Error> {
        let spec = String::deserialize(d)?;
        Range::parse(&spec)
            .ok_or_else(|| serde::de::Error::custom(format!("invalid port range {spec:?}")))
    }
}

/// Ranges by endpoint; the empty endpoint is every endpoint (`*`).
pub type Grouped = BTreeMap<String, Vec<Range>>;

/// The endpoint key of every endpoint.
pub const ALL: &str = "";

/// This hook's requests, not yet applied.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Pending {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub open: Grouped,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub close: Grouped,
}

impl Pending {
    pub fn is_empty(&self) -> bool {
        self.open.values().all(Vec::is_empty) && self.close.values().all(Vec::is_empty)
    }
}

/// One unit's ports during a hook: those open when it began, and its
/// requests so far.
pub struct Book<'a> {
    pub unit: &'a str,
    /// On Kubernetes a request names one port, never a range.
    pub kubernetes: bool,
    pub opened: &'a Grouped,
    pub pending: &'a mut Pending,
}

/// How the same unit's recorded ranges meet a request.
enum Meets {
    Clear,
    /// The very range, for the very endpoint: nothing to do.
    Already,
    Conflict(Range),
}

fn meets(endpoint: &str, range: Range, recorded: &Grouped) -> Meets {
    for (existing_endpoint, ranges) in recorded {
        for existing in ranges {
            if !range.conflicts_with(existing) {
                continue;
            }
            if range != *existing {
                return Meets::Conflict(*existing);
            }
            // The same range for another endpoint is a change Juju allows.
            if existing_endpoint == endpoint {
                return Meets::Already;
            }
        }
    }
    Meets::Clear
}

impl Book<'_> {
    fn refuse(&self, verb: &str, range: Range, existing: Range, earlier: bool) -> String {
        let unit = self.unit;
        let earlier = if earlier { " requested earlier" } else { "" };
        format!(
            "cannot {verb} {range} (unit {unit:?}): port range conflicts with {existing} (unit {unit:?}){earlier}"
        )
    }

    fn single_port(&self, range: Range) -> Result<(), String> {
        if self.kubernetes && range.from != range.to {
            return Err(
                "port ranges are not supported for k8s applications, please specify a single port"
                    .into(),
            );
        }
        Ok(())
    }

    /// `open-port` for `endpoint`: `Err` with Juju's words when it refuses.
    /// Juju cancels a pending close of the range before it checks; here a
    /// refused call changes nothing, so that a request is all or nothing.
    pub fn open(&mut self, endpoint: &str, range: Range) -> Result<(), String> {
        self.single_port(range)?;
        let record = match meets(endpoint, range, &self.pending.open) {
            Meets::Already => false,
            Meets::Conflict(e) => return Err(self.refuse("open", range, e, true)),
            Meets::Clear => match meets(endpoint, range, self.opened) {
                Meets::Already => false,
                Meets::Conflict(e) => return Err(self.refuse("open", range, e, false)),
                Meets::Clear => true,
            },
        };
        remove(&mut self.pending.close, endpoint, range);
        if record {
            push(&mut self.pending.open, endpoint, range);
        }
        Ok(())
    }

    /// `close-port` for `endpoint`: `Err` with Juju's words when it refuses.
    pub fn close(&mut self, endpoint: &str, range: Range) -> Result<(), String> {
        self.single_port(range)?;
        let record = match meets(endpoint, range, &self.pending.close) {
            Meets::Already => false,
            Meets::Conflict(e) => return Err(self.refuse("close", range, e, true)),
            Meets::Clear => match meets(endpoint, range, self.opened) {
                Meets::Conflict(e) => return Err(self.refuse("close", range, e, false)),
                // Nothing open: nothing to close.
                _ => self.opened.values().any(|r| !r.is_empty()),
            },
        };
        remove(&mut self.pending.open, endpoint, range);
        if record {
            push(&mut self.pending.close, endpoint, range);
        }
        Ok(())
    }
}

fn push(grouped: &mut Grouped, endpoint: &str, range: Range) {
    grouped.entry(endpoint.to_string()).or_default().push(range);
}

fn remove(grouped: &mut Grouped, endpoint: &str, range: Range) {
    if let Some(ranges) = grouped.get_mut(endpoint)
        && let Some(i) = ranges.iter().position(|r| *r == range)
    {
        ranges.remove(i);
        if ranges.is_empty() {
            grouped.remove(endpoint);
        }
    }
}

/// The ports open once `pending` is applied to `opened`: what
/// `opened-ports` answers during the hook, and what Juju keeps after it.
pub fn merged(opened: &Grouped, pending: &Pending) -> Grouped {
    let mut out = opened.clone();
    for (endpoint, ranges) in &pending.open {
        let have = out.entry(endpoint.clone()).or_default();
        for r in ranges {
            if !have.contains(r) {
                have.push(*r);
            }
        }
    }
    for (endpoint, ranges) in &pending.close {
        for r in ranges {
            if endpoint == ALL {
                // Closed for every endpoint: gone from each.
                for have in out.values_mut() {
                    have.retain(|h| h != r);
                }
            } else if let Some(have) = out.get_mut(endpoint) {
                have.retain(|h| h != r);
            }
        }
    }
    out.retain(|_, ranges| !ranges.is_empty());
    for ranges in out.values_mut() {
        ranges.sort();
        ranges.dedup();
    }
    out
}

/// Each range with the endpoints it is open for, `None` meaning every
/// endpoint: `opened-ports --endpoints` line by line.
pub fn by_range(grouped: &Grouped) -> BTreeMap<Range, Option<Vec<String>>> {
    let mut out: BTreeMap<Range, Option<Vec<String>>> = BTreeMap::new();
    for (endpoint, ranges) in grouped {
        for r in ranges {
            let entry = out.entry(*r).or_insert_with(|| Some(Vec::new()));
            match (endpoint.as_str(), entry.as_mut()) {
                (ALL, _) => *entry = None,
                (e, Some(list)) if !list.iter().any(|l| l == e) => list.push(e.to_string()),
                _ => {}
            }
        }
    }
    out
}

/// The inverse of [`by_range`].
pub fn grouped<'a>(lines: impl IntoIterator<Item = (Range, Option<&'a [String]>)>) -> Grouped {
    let mut out = Grouped::new();
    for (range, endpoints) in lines {
        match endpoints {
            None => out.entry(ALL.to_string()).or_default().push(range),
            Some(list) => {
                for e in list {
                    out.entry(e.clone()).or_default().push(range);
                }
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "port_rules_tests.rs"]
mod tests;
