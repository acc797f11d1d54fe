//! `apt-get` and `dpkg-query` on the simulated machine, with their words
//! and exit codes (100 for any apt-get error, 1 for a package dpkg-query
//! does not find).

use super::{MachineState, Processes, said};
use crate::hook_tools::ToolOutput;

/// apt-get's exit code for any error.
const APT_ERROR: i32 = 100;

/// `apt-get [options] <command> <package>…`: `install` installs, any other
/// command does nothing.
pub fn apt_get(state: &mut MachineState, processes: &dyn Processes, args: &[String]) -> ToolOutput {
    let mut words = Vec::new();
    let mut rest = args.iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            // Options with a value.
            "-o" | "-c" | "-t" => {
                rest.next();
            }
            _ if a.starts_with('-') => {}
            _ => words.push(a.as_str()),
        }
    }
    if state.apt.lock_held > 0 {
        state.apt.lock_held -= 1;
        return said(
            APT_ERROR,
            "",
            "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 \
             (unattended-upgr)\nE: Unable to acquire the dpkg frontend lock \
             (/var/lib/dpkg/lock-frontend), is another process using it?\n",
        );
    }
    let Some((&"install", packages)) = words.split_first() else {
        return said(0, "", "");
    };
    let mut stdout = String::from("Reading package lists...\n");
    if let Some(repository) = &state.apt.repository
        && let Some(unknown) = packages.iter().find(|p| !repository.contains_key(**p))
    {
        return said(
            APT_ERROR,
            stdout,
            format!("E: Unable to locate package {unknown}\n"),
        );
    }
    for package in packages {
        let payload = state
            .apt
            .repository
            .as_ref()
            .and_then(|r| r.get(*package))
            .and_then(|p| p.payload.clone());
        if let Some(payload) = payload
            && !processes.install(package, &payload)
        {
            return said(
                APT_ERROR,
                stdout,
                "E: Sub-process /usr/bin/dpkg returned an error code (1)\n",
            );
        }
        state.packages.insert((*package).to_string());
        stdout.push_str(&format!("Setting up {package} ...\n"));
    }
    said(0, stdout, "")
}

/// `dpkg-query -W [-f <format>] [--] <package>…`: the format filled in for
/// each installed package (`${Status}`, `${Package}`, `${Version}`).
pub fn dpkg_query(state: &MachineState, args: &[String]) -> ToolOutput {
    let mut format = "${Package}\t${Version}\n".to_string();
    let mut packages = Vec::new();
    let mut rest = args.iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "-W" | "--show" => {}
            "-f" | "--showformat" => format = rest.next().cloned().unwrap_or_default(),
            "--" => packages.extend(rest.by_ref().cloned()),
            _ => {
                if let Some(f) = a
                    .strip_prefix("-f=")
                    .or_else(|| a.strip_prefix("--showformat="))
                {
                    format = f.to_string();
                } else if a.starts_with('-') {
                    return said(2, "", format!("dpkg-query: error: unknown option {a}\n"));
                } else {
                    packages.push(a.clone());
                }
            }
        }
    }
    let format = format.replace("\\n", "\n").replace("\\t", "\t");
    let mut out = ToolOutput::ok(Vec::new());
    for package in packages {
        if state.packages.contains(&package) {
            let filled = format
                .replace("${Status}", "install ok installed")
                .replace("${Package}", &package)
                .replace("${Version}", "1.0");
            out.stdout.extend_from_slice(filled.as_bytes());
        } else {
            out.stderr.push_str(&format!(
                "dpkg-query: no packages found matching {package}\n"
            ));
            out.code = 1;
        }
    }
    out
}
