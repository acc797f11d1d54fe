//! A `juju` command line as Juju's flag package reads it: flags anywhere
//! among the arguments (`--flag value`, `--flag=value`, `-n 3`), a flag
//! Juju does not know for the command refused with its words, `--` ending
//! the flags. Pure.

use std::collections::BTreeMap;

/// A usage error: exit 2, as Juju's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usage(pub String);

/// What one command takes: flags with a value, and flags without.
pub struct Spec<'a> {
    pub valued: &'a [&'a str],
    pub switches: &'a [&'a str],
}

/// The parsed line: each flag's values in order, and the positional
/// arguments.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    pub flags: BTreeMap<String, Vec<String>>,
    pub positional: Vec<String>,
}

impl Parsed {
    /// The last value of the first of `names` given.
    pub fn value(&self, names: &[&str]) -> Option<&str> {
        names
            .iter()
            .find_map(|n| self.flags.get(*n).and_then(|v| v.last()))
            .map(String::as_str)
    }

    /// Every value given to any of `names`, in order.
    pub fn values(&self, names: &[&str]) -> Vec<String> {
        names
            .iter()
            .flat_map(|n| self.flags.get(*n).cloned().unwrap_or_default())
            .collect()
    }

    pub fn has(&self, names: &[&str]) -> bool {
        names.iter().any(|n| self.flags.contains_key(*n))
    }
}

/// Parse `args` by `spec`; `-m`/`--model` are every model command's.
pub fn parse(args: &[String], spec: &Spec) -> Result<Parsed, Usage> {
    let mut out = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            out.positional.extend(args[i..].iter().cloned());
            break;
        }
        if !arg.starts_with('-') || arg == "-" {
            out.positional.push(arg.clone());
            continue;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (arg.clone(), None),
        };
        let valued =
            spec.valued.contains(&name.as_str()) || ["-m", "--model"].contains(&name.as_str());
        if valued {
            let value = match inline {
                Some(v) => v,
                None => {
                    let Some(v) = args.get(i) else {
                        return Err(Usage(format!("option needs an argument: {name}")));
                    };
                    i += 1;
                    v.clone()
                }
            };
            out.flags.entry(name).or_default().push(value);
        } else if spec.switches.contains(&name.as_str()) {
            let value = inline.unwrap_or_else(|| "true".to_string());
            out.flags.entry(name).or_default().push(value);
        } else {
            return Err(Usage(format!("option provided but not defined: {name}")));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn strings(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn flags_go_anywhere_and_take_both_forms() {
        let spec = Spec {
            valued: &["-n", "--num-units", "--config"],
            switches: &["--trust"],
        };
        let p = parse(
            &strings(&[
                "./x.charm",
                "-n",
                "3",
                "app",
                "--config=a=1",
                "--trust",
                "-m",
                "dev",
            ]),
            &spec,
        )
        .unwrap();
        assert_eq!(p.positional, ["./x.charm", "app"]);
        assert_eq!(p.value(&["-n", "--num-units"]), Some("3"));
        assert_eq!(p.values(&["--config"]), ["a=1"]);
        assert!(p.has(&["--trust"]));
        assert_eq!(p.value(&["-m", "--model"]), Some("dev"));
        let err = parse(&strings(&["--frobnicate"]), &spec).unwrap_err();
        assert_eq!(err.0, "option provided but not defined: --frobnicate");
        let err = parse(&strings(&["-n"]), &spec).unwrap_err();
        assert_eq!(err.0, "option needs an argument: -n");
    }

    proptest! {
        /// Words that are not flags come out as they went in, in order.
        #[test]
        fn positional_words_are_kept_in_order(words in proptest::collection::vec("[a-z0-9/.]{1,8}", 0..6)) {
            let spec = Spec { valued: &[], switches: &[] };
            let p = parse(&words, &spec).unwrap();
            prop_assert_eq!(p.positional, words);
        }
    }
}
