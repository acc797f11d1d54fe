//! Ports as `open-port`, `close-port` and `opened-ports` spell them
//! (juju-protocol §2.14; `jujuc/ports.go`, `core/network` `ParsePortRange`):
//! `<port>[/<proto>]`, `<from>-<to>[/<proto>]` or `icmp`, and the requests
//! of one event, which Juju applies only when the hook succeeds.

use super::port_rules::{Proto, Range};
use crate::bindings::model::ModelError;
use crate::bindings::ports::{OpenedPort, PortRange, Protocol};

/// Port requests one event may leave pending, all handlers together: each
/// is one tool call at the end of the event.
pub const MAX_PORT_REQUESTS_PER_EVENT: usize = 256;
/// Endpoints one port request may name.
pub const MAX_PORT_ENDPOINTS: usize = 64;
/// Longest endpoint name a port request may carry.
const MAX_ENDPOINT_NAME: usize = 256;

/// One `open-port` or `close-port` call to make at the end of the event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortRequest {
    pub open: bool,
    /// `80/tcp`, `8000-8100/udp`, `icmp`.
    pub spec: String,
    /// `--endpoints` value (`a,b`); `None`: every endpoint.
    pub endpoints: Option<String>,
}

impl PortRequest {
    /// The request as the tool's argv.
    pub fn tool_and_args(&self) -> (&'static str, Vec<&str>) {
        let tool = if self.open { "open-port" } else { "close-port" };
        let mut args = Vec::new();
        if let Some(e) = &self.endpoints {
            args.extend(["--endpoints", e.as_str()]);
        }
        args.push(self.spec.as_str());
        (tool, args)
    }
}

/// The tool's spelling of a port range, checked as Juju checks it.
pub fn port_spec(port: &PortRange) -> Result<String, ModelError> {
    let bad = |why: &str| {
        ModelError::InvalidArgument(format!(
            "port {}-{}/{}: {why}",
            port.from,
            port.to,
            protocol_name(port.protocol)
        ))
    };
    match port.protocol {
        Protocol::Icmp if port.from == 0 && port.to == 0 => Ok("icmp".into()),
        Protocol::Icmp => Err(bad("icmp has no port: give 0 and 0")),
        _ if port.from == 0 => Err(bad("ports are 1 to 65535")),
        _ if port.to < port.from => Err(bad("the range ends before it starts")),
        p if port.from == port.to => Ok(format!("{}/{}", port.from, protocol_name(p))),
        p => Ok(format!("{}-{}/{}", port.from, port.to, protocol_name(p))),
    }
}

fn protocol_name(p: Protocol) -> &'static str {
    match p {
        Protocol::Tcp => "tcp",
        Protocol::Udp => "udp",
        Protocol::Icmp => "icmp",
    }
}

/// The `--endpoints` value for a list of endpoint names; each must be a
/// name argv and Juju's comma list can carry.
pub fn endpoints_arg(endpoints: Option<&[String]>) -> Result<Option<String>, ModelError> {
    let Some(endpoints) = endpoints else {
        return Ok(None);
    };
    if endpoints.is_empty() || endpoints.len() > MAX_PORT_ENDPOINTS {
        return Err(ModelError::InvalidArgument(format!(
            "a port request names 1 to {MAX_PORT_ENDPOINTS} endpoints (MAX_PORT_ENDPOINTS), not {}; give none for every endpoint",
            endpoints.len()
        )));
    }
    for e in endpoints {
        let ok = !e.is_empty()
            && e.len() <= MAX_ENDPOINT_NAME
            && !e.starts_with('-')
            && !e.contains([',', '\0'])
            && !e.chars().any(char::is_whitespace);
        if !ok {
            return Err(ModelError::InvalidArgument(format!(
                "`{}` is not an endpoint name (no commas, spaces or NUL, not starting with `-`, at most {MAX_ENDPOINT_NAME} bytes)",
                e.escape_debug()
            )));
        }
    }
    Ok(Some(endpoints.join(",")))
}

/// Add `request` to the event's pending requests: a request for the same
/// ports and endpoints replaces the earlier one, so the last word counts
/// and nothing is sent twice.
pub fn push(pending: &mut Vec<PortRequest>, request: PortRequest) {
    pending.retain(|r| !(r.spec == request.spec && r.endpoints == request.endpoints));
    pending.push(request);
}

/// Parse one `opened-ports --endpoints` line: `80/tcp (*)`,
/// `8000-8100/udp (db, web)`, `icmp`.
pub fn parse_opened(line: &str) -> Option<OpenedPort> {
    let (spec, endpoints) = match line.split_once(" (") {
        Some((spec, rest)) => {
            let list = rest.strip_suffix(')')?;
            let endpoints = if list == "*" {
                None
            } else {
                Some(list.split(", ").map(str::to_string).collect())
            };
            (spec, endpoints)
        }
        None => (line, None),
    };
    Some(OpenedPort {
        port: parse_spec(spec)?,
        endpoints,
    })
}

fn parse_spec(spec: &str) -> Option<PortRange> {
    Range::parse(spec).map(from_range)
}

/// The WIT's port range as Juju's rules take it.
pub fn to_range(port: &PortRange) -> Range {
    let protocol = match port.protocol {
        Protocol::Tcp => Proto::Tcp,
        Protocol::Udp => Proto::Udp,
        Protocol::Icmp => Proto::Icmp,
    };
    Range {
        protocol,
        from: port.from,
        to: port.to,
    }
}

/// The inverse of [`to_range`].
pub fn from_range(range: Range) -> PortRange {
    let protocol = match range.protocol {
        Proto::Tcp => Protocol::Tcp,
        Proto::Udp => Protocol::Udp,
        Proto::Icmp => Protocol::Icmp,
    };
    PortRange {
        protocol,
        from: range.from,
        to: range.to,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(protocol: Protocol, from: u16, to: u16) -> PortRange {
        PortRange { protocol, from, to }
    }

    #[test]
    fn specs_are_spelled_as_juju_parses_them() {
        assert_eq!(port_spec(&range(Protocol::Tcp, 80, 80)).unwrap(), "80/tcp");
        assert_eq!(
            port_spec(&range(Protocol::Udp, 8000, 8100)).unwrap(),
            "8000-8100/udp"
        );
        assert_eq!(port_spec(&range(Protocol::Icmp, 0, 0)).unwrap(), "icmp");
        for bad in [
            range(Protocol::Tcp, 0, 0),
            range(Protocol::Tcp, 90, 80),
            range(Protocol::Icmp, 1, 1),
        ] {
            assert!(matches!(
                port_spec(&bad),
                Err(ModelError::InvalidArgument(_))
            ));
        }
    }

    #[test]
    fn opened_ports_lines_parse_with_their_endpoints() {
        assert_eq!(
            parse_opened("80/tcp (*)"),
            Some(OpenedPort {
                port: range(Protocol::Tcp, 80, 80),
                endpoints: None
            })
        );
        assert_eq!(
            parse_opened("8000-8100/udp (db, web)"),
            Some(OpenedPort {
                port: range(Protocol::Udp, 8000, 8100),
                endpoints: Some(vec!["db".into(), "web".into()])
            })
        );
        assert_eq!(
            parse_opened("icmp").map(|p| p.port),
            Some(range(Protocol::Icmp, 0, 0))
        );
        for bad in ["", "x/tcp", "80/sctp", "80/tcp (db"] {
            assert_eq!(parse_opened(bad), None, "{bad}");
        }
    }

    #[test]
    fn endpoints_are_checked_and_joined() {
        assert_eq!(endpoints_arg(None).unwrap(), None);
        assert_eq!(
            endpoints_arg(Some(&["db".into(), "web".into()])).unwrap(),
            Some("db,web".into())
        );
        for bad in [
            vec![],
            vec!["a,b".to_string()],
            vec!["-x".into()],
            vec!["a b".into()],
        ] {
            assert!(endpoints_arg(Some(&bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_repeated_request_replaces_the_earlier_one() {
        let req = |open, spec: &str| PortRequest {
            open,
            spec: spec.into(),
            endpoints: None,
        };
        let mut pending = Vec::new();
        push(&mut pending, req(true, "80/tcp"));
        push(&mut pending, req(true, "443/tcp"));
        push(&mut pending, req(false, "80/tcp"));
        assert_eq!(pending, [req(true, "443/tcp"), req(false, "80/tcp")]);
    }
}
