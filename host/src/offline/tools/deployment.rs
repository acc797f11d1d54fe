//! What the simulated Juju knows of the deployment around the unit
//! (reference §2.16, §2.17, `jujuc/goal-state.go`, `credential-get.go`,
//! `resource-get.go`): the goal state, derived from the state's relations;
//! the cloud credential, given only to a trusted application; and the files
//! of the resources the operator provided.

use super::args::{Answer, format, output, parse, unrecognized};
use crate::hook_tools::ToolOutput;
use crate::offline::deployment::SimCloudSpec;
use crate::offline::sim::{SimState, SimTools};
use std::collections::BTreeMap;

/// One entry of goal-state. The sim keeps no times, so `since` (which Juju
/// leaves out when unknown) is left out.
fn goal(status: &str) -> serde_json::Value {
    serde_json::json!({ "status": status })
}

impl SimTools {
    /// `goal-state [--format=yaml|json]`: this application's units (this
    /// one with its workload status, its peers as the peer relations list
    /// them) and, per endpoint, each related application (`joined` once it
    /// has units, `joining` before) and its units. Peer relations are not
    /// under `relations`, as in Juju.
    pub(super) fn goal_state(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format", "-o", "--output"], &[])?;
        let format = format(&a, &["yaml", "json"])?;
        if !a.positional.is_empty() {
            return Err(unrecognized(&a.positional));
        }
        let app = self.unit.split('/').next().unwrap_or_default();
        let own = state
            .model
            .status
            .unit
            .as_ref()
            .map_or("unknown", |w| w.status.as_str());
        let mut units = serde_json::Map::new();
        units.insert(self.unit.clone(), goal(own));
        let mut relations: BTreeMap<String, serde_json::Map<String, serde_json::Value>> =
            BTreeMap::new();
        for (id, rel) in &state.model.relations {
            if rel.app == app {
                for u in rel.units.iter().filter(|u| **u != self.unit) {
                    units.insert(u.clone(), goal("active"));
                }
                continue;
            }
            let endpoint = id.rsplit_once(':').map_or(id.as_str(), |(e, _)| e);
            let related = relations.entry(endpoint.to_string()).or_default();
            let status = if rel.units.is_empty() {
                "joining"
            } else {
                "joined"
            };
            related.insert(rel.app.clone(), goal(status));
            for u in &rel.units {
                related.insert(u.clone(), goal("active"));
            }
        }
        let doc = serde_json::json!({ "units": units, "relations": relations });
        Ok(output(format, &doc))
    }

    /// `credential-get [--format=…]`: the cloud spec, for a trusted
    /// application only.
    pub(super) fn credential_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &["--format", "-o", "--output"], &[])?;
        let format = format(&a, &["smart", "json", "yaml"])?;
        if !a.positional.is_empty() {
            return Err(unrecognized(&a.positional));
        }
        if !state.model.trusted {
            return Err(ToolOutput::error(
                1,
                "cannot access cloud credentials: permission denied",
            ));
        }
        let spec = state
            .model
            .credential
            .clone()
            .unwrap_or_else(SimCloudSpec::local_lxd);
        Ok(output(
            format,
            &serde_json::to_value(spec).unwrap_or_default(),
        ))
    }

    /// `resource-get <name>`: the path of the resource's file, printed
    /// without a newline as Juju prints it.
    pub(super) fn resource_get(&self, state: &mut SimState, args: &[&str]) -> Answer {
        let a = parse(args, &[], &[])?;
        let name = match a.positional.as_slice() {
            [] => return Err(ToolOutput::error(2, "missing required resource name")),
            [name] => *name,
            [_, extra @ ..] => return Err(unrecognized(extra)),
        };
        let Some(path) = state.model.resources.get(name) else {
            return Err(ToolOutput::error(
                1,
                format!("could not download resource: resource \"{name}\" not found"),
            ));
        };
        let path = self.state_dir.join(path);
        if let Err(e) = std::fs::metadata(&path) {
            return Err(ToolOutput::error(
                1,
                format!("could not download resource: {}: {e}", path.display()),
            ));
        }
        Ok(ToolOutput::ok(path.display().to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::sim::SimRelation;
    use crate::offline::tools::tests::{call, tools};
    use crate::status::merge::{Kind, Written};

    fn answer(t: &mut SimTools, tool: &str, args: &[&str]) -> serde_json::Value {
        let out = call(t, tool, args);
        assert_eq!(out.code, 0, "{tool} {args:?}: {}", out.stderr);
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn error(t: &mut SimTools, tool: &str, args: &[&str]) -> (i32, String) {
        let out = call(t, tool, args);
        assert!(out.stdout.is_empty(), "{tool} {args:?}");
        (out.code, out.stderr)
    }

    #[test]
    fn goal_state_follows_the_relations_and_the_units_status() {
        let mut state = SimState::default();
        let rel = |app: &str, units: &[&str]| SimRelation {
            app: app.into(),
            units: units.iter().map(|u| u.to_string()).collect(),
            ..SimRelation::default()
        };
        state
            .model
            .relations
            .insert("db:1".into(), rel("pg", &["pg/0", "pg/1"]));
        state
            .model
            .relations
            .insert("db:4".into(), rel("mysql", &[]));
        state
            .model
            .relations
            .insert("peer:2".into(), rel("gw", &["gw/1"]));
        let mut t = tools(state);
        assert_eq!(
            answer(&mut t, "goal-state", &["--format=json"]),
            serde_json::json!({
                "units": {"gw/0": {"status": "unknown"}, "gw/1": {"status": "active"}},
                "relations": {"db": {
                    "pg": {"status": "joined"}, "pg/0": {"status": "active"},
                    "pg/1": {"status": "active"}, "mysql": {"status": "joining"},
                }},
            })
        );
        t.state.lock().unwrap().model.status.unit = Some(Written {
            status: Kind::Blocked,
            message: "x".into(),
        });
        assert_eq!(
            answer(&mut t, "goal-state", &["--format=json"])["units"]["gw/0"],
            serde_json::json!({"status": "blocked"})
        );
        // YAML is the default; there is no smart format.
        let out = call(&mut t, "goal-state", &[]);
        let yaml: serde_json::Value =
            serde_saphyr::from_str(std::str::from_utf8(&out.stdout).unwrap()).unwrap();
        assert_eq!(yaml["units"]["gw/0"]["status"], "blocked");
        assert_eq!(
            error(&mut t, "goal-state", &["--format=smart"]),
            (
                2,
                "ERROR invalid value \"smart\" for option --format: unknown format \"smart\"\n"
                    .into()
            )
        );
        assert_eq!(
            error(&mut t, "goal-state", &["x"]),
            (2, "ERROR unrecognized args: [\"x\"]\n".into())
        );
    }

    #[test]
    fn credential_get_answers_a_trusted_application_only() {
        let mut t = tools(SimState::default());
        assert_eq!(
            error(&mut t, "credential-get", &["--format=json"]),
            (
                1,
                "ERROR cannot access cloud credentials: permission denied\n".into()
            )
        );
        assert_eq!(
            error(&mut t, "credential-get", &["--format=json", "x"]).0,
            2
        );
        t.state.lock().unwrap().model.trusted = true;
        assert_eq!(
            answer(&mut t, "credential-get", &["--format=json"]),
            serde_json::json!({"type": "lxd", "name": "localhost", "region": "default",
                "credential": {"auth-type": "certificate"}, "is-controller-cloud": true})
        );
        let spec: SimCloudSpec = serde_saphyr::from_str(
            "type: openstack\nname: os\nendpoint: https://keystone:5000/v3\n\
             credential: {auth-type: userpass, attrs: {username: admin}, redacted: [password]}\n",
        )
        .unwrap();
        t.state.lock().unwrap().model.credential = Some(spec);
        assert_eq!(
            answer(&mut t, "credential-get", &["--format=json"]),
            serde_json::json!({"type": "openstack", "name": "os",
                "endpoint": "https://keystone:5000/v3",
                "credential": {"auth-type": "userpass", "attrs": {"username": "admin"},
                    "redacted": ["password"]}})
        );
        // A typo in the state file is refused, not ignored.
        let e = serde_saphyr::from_str::<SimCloudSpec>("type: lxd\nname: l\nregoin: x\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("regoin"), "{e}");
    }

    #[test]
    fn resource_get_gives_the_provided_file_or_jujus_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("image.json"), "{}").unwrap();
        let mut t = tools(SimState::default());
        t.state_dir = dir.path().to_path_buf();
        assert_eq!(
            error(&mut t, "resource-get", &["--", "image"]),
            (
                1,
                "ERROR could not download resource: resource \"image\" not found\n".into()
            )
        );
        {
            let mut s = t.state.lock().unwrap();
            s.model
                .resources
                .insert("image".into(), "image.json".into());
            s.model
                .resources
                .insert("gone".into(), "/nonexistent/file".into());
        }
        let out = call(&mut t, "resource-get", &["--", "image"]);
        assert_eq!(
            (out.code, String::from_utf8(out.stdout).unwrap()),
            (0, dir.path().join("image.json").display().to_string())
        );
        let (code, stderr) = error(&mut t, "resource-get", &["gone"]);
        assert_eq!(code, 1);
        assert!(
            stderr.starts_with("ERROR could not download resource: /nonexistent/file: "),
            "{stderr}"
        );
        assert_eq!(
            error(&mut t, "resource-get", &[]),
            (2, "ERROR missing required resource name\n".into())
        );
        assert_eq!(
            error(&mut t, "resource-get", &["image", "more"]),
            (2, "ERROR unrecognized args: [\"more\"]\n".into())
        );
    }
}
