//! The vocabulary every tool of the simulated Juju shares: its answer,
//! its arguments parsed in Juju's interspersed style, and its output
//! written as juju/cmd writes it.

use crate::hook_tools::ToolOutput;
use crate::offline::sim::{SimRelation, SimState};
use serde::Serialize;
use std::collections::BTreeMap;

/// A tool's answer: `Err` is an answer too (an exit code and message), so
/// `?` ends the tool as Juju would.
pub(super) type Answer = Result<ToolOutput, ToolOutput>;

/// Parsed arguments: flags (with their value, `true` for bare bool flags) and
/// positionals, in Juju's interspersed style; `--` ends the flags.
pub(super) struct Args<'a> {
    pub(super) flags: BTreeMap<&'a str, &'a str>,
    pub(super) positional: Vec<&'a str>,
}

pub(super) fn parse<'a>(
    args: &[&'a str],
    valued: &[&str],
    bools: &[&str],
) -> Result<Args<'a>, ToolOutput> {
    let mut out = Args {
        flags: BTreeMap::new(),
        positional: Vec::new(),
    };
    let mut it = args.iter().copied();
    while let Some(a) = it.next() {
        if a == "--" {
            out.positional.extend(it.by_ref());
            break;
        }
        if a.starts_with('-') && a.len() > 1 {
            let (name, inline) = match a.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (a, None),
            };
            if valued.contains(&name) {
                let v = match inline {
                    Some(v) => v,
                    None => it.next().ok_or_else(|| {
                        ToolOutput::error(2, format!("option needs an argument: {name}"))
                    })?,
                };
                out.flags.insert(name, v);
            } else if bools.contains(&name) {
                out.flags.insert(name, inline.unwrap_or("true"));
            } else {
                return Err(ToolOutput::error(
                    2,
                    format!("option provided but not defined: {name}"),
                ));
            }
        } else {
            out.positional.push(a);
        }
    }
    Ok(out)
}

impl<'a> Args<'a> {
    pub(super) fn flag(&self, names: &[&str]) -> Option<&'a str> {
        names.iter().find_map(|n| self.flags.get(n).copied())
    }
    pub(super) fn bool(&self, names: &[&str]) -> bool {
        self.flag(names)
            .is_some_and(|v| matches!(v, "true" | "True" | "1"))
    }
}

pub(super) fn json(v: &impl Serialize) -> ToolOutput {
    let mut s = serde_json::to_vec(v).unwrap_or_default();
    s.push(b'\n');
    ToolOutput::ok(s)
}

/// A tool's `--format`: the formats it offers (the first is its default).
/// Another value is a flag error, as juju/cmd's.
pub(super) fn format<'a>(a: &Args<'a>, offered: &[&'a str]) -> Result<&'a str, ToolOutput> {
    match a.flag(&["--format"]) {
        None => Ok(offered.first().copied().unwrap_or("smart")),
        Some(f) if offered.contains(&f) => Ok(f),
        Some(f) => Err(ToolOutput::error(
            2,
            format!("invalid value \"{f}\" for option --format: unknown format \"{f}\""),
        )),
    }
}

/// `v` written as juju/cmd writes it in `format` (reference §2.0): `json`
/// compact; `smart` a string raw, a list of strings one per line, a bool
/// `True`/`False`, nothing for null; YAML otherwise.
pub(super) fn output(format: &str, v: &serde_json::Value) -> ToolOutput {
    use serde_json::Value as J;
    let text = match (format, v) {
        ("json", v) => return json(v),
        (_, J::Null) => String::new(),
        ("smart", J::String(s)) if s.is_empty() => String::new(),
        ("smart", J::String(s)) => format!("{s}\n"),
        ("smart", J::Bool(b)) => format!("{}\n", if *b { "True" } else { "False" }),
        ("smart", J::Array(items)) if items.iter().all(J::is_string) => items
            .iter()
            .filter_map(J::as_str)
            .map(|s| format!("{s}\n"))
            .collect(),
        (_, v) => serde_saphyr::to_string(v).unwrap_or_default(),
    };
    ToolOutput::ok(text)
}

/// `-r` takes `5` or `db:5`; Juju uses only the number.
pub(super) fn relation<'s>(
    state: &'s mut SimState,
    raw: Option<&str>,
) -> Result<(String, &'s mut SimRelation), ToolOutput> {
    let raw = raw.ok_or_else(|| ToolOutput::error(2, "no relation id specified"))?;
    let id = raw.rsplit(':').next().unwrap_or(raw);
    let not_found = || {
        ToolOutput::error(
            2,
            format!("invalid value \"{raw}\" for option -r: relation not found"),
        )
    };
    let key = state
        .model
        .relations
        .keys()
        .find(|k| k.rsplit(':').next() == Some(id))
        .cloned()
        .ok_or_else(not_found)?;
    let rel = state.model.relations.get_mut(&key).ok_or_else(not_found)?;
    Ok((key, rel))
}

/// juju/cmd's CheckEmpty for arguments past the last one a tool takes,
/// which prints them with Go's %q: exit 2.
pub(super) fn unrecognized(extra: &[&str]) -> ToolOutput {
    let quoted: Vec<String> = extra
        .iter()
        .map(|e| serde_json::Value::from(*e).to_string())
        .collect();
    ToolOutput::error(2, format!("unrecognized args: [{}]", quoted.join(" ")))
}

/// The YAML map of strings `--file` gives (JSON is YAML too): `-` is
/// stdin, another value a file the tool reads, as Juju's tool client does;
/// an empty text, or no `--file`, is no pair.
pub(super) fn settings_file(
    file: Option<&str>,
    stdin: Option<&[u8]>,
) -> Result<BTreeMap<String, String>, ToolOutput> {
    let bytes = match file {
        None => return Ok(BTreeMap::new()),
        Some("-") => stdin.unwrap_or_default().to_vec(),
        Some(path) => std::fs::read(path)
            .map_err(|e| ToolOutput::error(1, format!("open {path}: {}", io_words(&e))))?,
    };
    let text = String::from_utf8_lossy(&bytes);
    if text.trim().is_empty() {
        return Ok(BTreeMap::new());
    }
    serde_saphyr::from_str(&text)
        .map_err(|e| ToolOutput::error(1, format!("cannot parse settings: {e}")))
}

/// An I/O error as Go words it (`no such file or directory`).
fn io_words(e: &std::io::Error) -> String {
    let text = e.to_string();
    let words = text.split(" (os error").next().unwrap_or(&text);
    words.to_lowercase()
}
