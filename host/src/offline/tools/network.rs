//! `network-get` on the simulated Juju (reference §2.15,
//! `jujuc/network-get.go`), answered from the state file's `networks`.

use super::args::{Answer, json, output, parse, relation, unrecognized};
use crate::hook_tools::ToolOutput;
use crate::offline::sim::{SimState, SimTools};

impl SimTools {
    /// `network-get [--format=…] [-r <id>] <binding> [--bind-address]
    /// [--ingress-address] [--egress-subnets] [--primary-address]`.
    pub(super) fn network_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let selectors = [
            "--bind-address",
            "--ingress-address",
            "--egress-subnets",
            "--primary-address",
        ];
        let a = parse(
            args,
            &["--format", "-o", "--output", "-r", "--relation"],
            &selectors,
        )?;
        let format = super::args::format(&a, &["smart", "json", "yaml"])?;
        if let Some(r) = a.flag(&["-r", "--relation"]) {
            relation(state, Some(r))?;
        }
        let binding = match a.positional.as_slice() {
            [] => return Err(ToolOutput::error(2, "no arguments specified")),
            [""] => return Err(ToolOutput::error(2, "no binding name specified")),
            [binding] => *binding,
            [_, extra @ ..] => return Err(unrecognized(extra)),
        };
        if !self.bindings.contains(binding) {
            return Err(ToolOutput::error(
                1,
                format!("no network config found for binding \"{binding}\""),
            ));
        }
        let info = state
            .model
            .networks
            .get(binding)
            .cloned()
            .unwrap_or_default()
            .info();
        let wanted: Vec<&str> = selectors[..3]
            .iter()
            .copied()
            .filter(|s| a.bool(&[s]))
            .collect();
        let first_address = info.bind_addresses[0].addresses[0].value.clone();
        if a.bool(&["--primary-address"]) {
            if !wanted.is_empty() {
                return Err(ToolOutput::error(
                    1,
                    "--primary-address must be the only flag specified",
                ));
            }
            return Ok(output(format, &first_address.into()));
        }
        if wanted.is_empty() {
            if format == "json" {
                // Straight from the struct: Juju's key order.
                return Ok(json(&info));
            }
            let all = serde_json::to_value(&info).unwrap_or_default();
            return Ok(output(format, &all));
        }
        let value = |selector: &str| -> serde_json::Value {
            match selector {
                "--egress-subnets" => info.egress_subnets.clone().into(),
                "--ingress-address" => info
                    .ingress_addresses
                    .first()
                    .cloned()
                    .unwrap_or_else(|| first_address.clone())
                    .into(),
                _ => first_address.clone().into(),
            }
        };
        let answer = match wanted.as_slice() {
            [one] => value(one),
            several => several
                .iter()
                .map(|s| (s.trim_start_matches('-').to_string(), value(s)))
                .collect::<serde_json::Map<_, _>>()
                .into(),
        };
        Ok(output(format, &answer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::network::SimNetwork;
    use crate::offline::tools::tests::{call, tools};

    #[test]
    fn every_binding_of_metadata_has_the_default_network_unless_the_state_says() {
        let mut state = SimState::default();
        state.model.networks.insert(
            "admin".into(),
            SimNetwork {
                address: Some("192.168.1.5".into()),
                cidr: Some("192.168.1.0/24".into()),
                ingress_addresses: Some(vec!["203.0.113.7".into()]),
                egress_subnets: Some(vec![]),
                ..SimNetwork::default()
            },
        );
        state
            .model
            .relations
            .insert("db:1".into(), crate::offline::sim::SimRelation::default());
        let mut t = tools(state);
        let out = call(&mut t, "network-get", &["--format=json", "--", "db"]);
        assert_eq!((out.code, out.stderr.as_str()), (0, ""));
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            "{\"bind-addresses\":[{\"mac-address\":\"00:16:3e:00:00:0a\",\"interface-name\":\"eth0\",\
             \"addresses\":[{\"hostname\":\"\",\"value\":\"10.0.0.10\",\"cidr\":\"10.0.0.0/24\"}]}],\
             \"egress-subnets\":[\"10.0.0.10/32\"],\"ingress-addresses\":[\"10.0.0.10\"]}\n"
        );
        // An extra binding, configured; the empty egress list is left out.
        let out = call(
            &mut t,
            "network-get",
            &["--format=json", "-r", "db:1", "--", "admin"],
        );
        let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            got,
            serde_json::json!({
                "bind-addresses": [{"mac-address": "00:16:3e:00:00:0a", "interface-name": "eth0",
                    "addresses": [{"hostname": "", "value": "192.168.1.5", "cidr": "192.168.1.0/24"}]}],
                "ingress-addresses": ["203.0.113.7"],
            })
        );
        // One selector prints its value; several, a map of them.
        let text = |t: &mut SimTools, args: &[&str]| {
            let out = call(t, "network-get", args);
            assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
            String::from_utf8(out.stdout).unwrap()
        };
        assert_eq!(
            text(&mut t, &["admin", "--ingress-address"]),
            "203.0.113.7\n"
        );
        assert_eq!(text(&mut t, &["admin", "--bind-address"]), "192.168.1.5\n");
        assert_eq!(text(&mut t, &["peer", "--primary-address"]), "10.0.0.10\n");
        assert_eq!(
            text(
                &mut t,
                &["--format=json", "db", "--bind-address", "--egress-subnets"]
            ),
            "{\"bind-address\":\"10.0.0.10\",\"egress-subnets\":[\"10.0.0.10/32\"]}\n"
        );
    }

    #[test]
    fn network_get_errors_are_jujus() {
        let mut t = tools(SimState::default());
        for (args, code, error) in [
            (
                &["--format=json", "--", "nope"][..],
                1,
                "no network config found for binding \"nope\"",
            ),
            (&["--format=json"][..], 2, "no arguments specified"),
            (&["db", "extra"][..], 2, "unrecognized args: [\"extra\"]"),
            (
                &["-r", "db:9", "db"][..],
                2,
                "invalid value \"db:9\" for option -r: relation not found",
            ),
            (
                &["--format=toml", "db"][..],
                2,
                "invalid value \"toml\" for option --format: unknown format \"toml\"",
            ),
            (
                &["--bogus", "db"][..],
                2,
                "option provided but not defined: --bogus",
            ),
            (
                &["db", "--primary-address", "--bind-address"][..],
                1,
                "--primary-address must be the only flag specified",
            ),
        ] {
            let out = call(&mut t, "network-get", args);
            assert_eq!(
                (out.code, out.stderr.as_str()),
                (code, format!("ERROR {error}\n").as_str()),
                "{args:?}"
            );
            assert!(out.stdout.is_empty());
        }
    }
}
