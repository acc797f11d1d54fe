//! `wasm-charm init`: a new charm project that builds on its own, as
//! `charmcraft init` makes one for ops: a Cargo workspace of its own
//! depending on the SDK, the files Juju reads (metadata.yaml, config.yaml,
//! actions.yaml), the runtime manifest, a first handler with its unit test,
//! a README saying how to test, pack and deploy it, and a .gitignore.
//!
//! The templates are the files under `init/`, compiled into the binary;
//! `{{name}}` is the charm's name and `{{sdk}}` the SDK dependency line.

use anyhow::{Context as _, bail};
use std::path::{Path, PathBuf};

/// The project's files: path in the project, template.
const FILES: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("init/Cargo.toml.tmpl")),
    ("src/lib.rs", include_str!("init/lib.rs.tmpl")),
    ("metadata.yaml", include_str!("init/metadata.yaml.tmpl")),
    ("config.yaml", include_str!("init/config.yaml")),
    ("actions.yaml", include_str!("init/actions.yaml")),
    ("wasm-charm.yaml", include_str!("init/wasm-charm.yaml")),
    ("README.md", include_str!("init/README.md.tmpl")),
    (".gitignore", include_str!("init/gitignore")),
];

/// The SDK's package name, as its Cargo.toml spells it.
const SDK_PACKAGE: &str = "wasm-charm-sdk";

/// Names Juju accepts but cargo refuses for a package (its own crates and
/// Rust's keywords).
const RESERVED: &[&str] = &[
    "alloc", "as", "async", "await", "break", "const", "continue", "core", "crate", "dyn", "else",
    "enum", "extern", "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match",
    "mod", "move", "mut", "pub", "ref", "return", "self", "static", "std", "struct", "super",
    "test", "trait", "true", "type", "unsafe", "use", "where", "while", "yield",
];

/// Where the project's SDK dependency points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sdk {
    /// The `guest-sdk` directory of a wasm-charm source tree.
    Path(PathBuf),
    /// A git URL of the wasm-charm repository (cargo finds the package in it).
    Git(String),
}

impl Sdk {
    /// `--sdk`'s value: a URL is a git repository, anything else a path
    /// that must hold the SDK's Cargo.toml. Without one, the guest-sdk of
    /// the source tree this binary was built from, when it is still there.
    pub fn choose(given: Option<&str>) -> anyhow::Result<Sdk> {
        let path = match given {
            Some(url)
                if ["https://", "http://", "ssh://", "git@", "file://"]
                    .iter()
                    .any(|scheme| url.starts_with(scheme)) =>
            {
                return Ok(Sdk::Git(url.to_string()));
            }
            Some(path) => PathBuf::from(path),
            None => {
                let built_from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../guest-sdk");
                if !built_from.join("Cargo.toml").is_file() {
                    bail!(
                        "no SDK to depend on: this binary's source tree ({}) is gone; \
                         pass --sdk <path to wasm-charm's guest-sdk> or --sdk <git URL of the wasm-charm repository>",
                        built_from.display()
                    );
                }
                built_from
            }
        };
        let manifest = path.join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).with_context(|| {
            format!(
                "{}: cannot read; --sdk must name wasm-charm's guest-sdk directory",
                manifest.display()
            )
        })?;
        if !text.contains(&format!("name = \"{SDK_PACKAGE}\"")) {
            bail!(
                "{}: not the SDK's (its package is not `{SDK_PACKAGE}`); --sdk must name wasm-charm's guest-sdk directory",
                manifest.display()
            );
        }
        let path = path
            .canonicalize()
            .with_context(|| format!("{}: cannot resolve", path.display()))?;
        Ok(Sdk::Path(path))
    }

    /// The dependency line of the project's Cargo.toml.
    pub fn dependency(&self) -> String {
        match self {
            Sdk::Path(path) => format!(
                "wasm-charm-sdk = {{ path = {} }}",
                toml_string(&path.to_string_lossy())
            ),
            Sdk::Git(url) => format!("wasm-charm-sdk = {{ git = {} }}", toml_string(url)),
        }
    }
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Why `name` is no charm name, if it is not: Juju's rule (lowercase
/// letters and digits in hyphen-separated words, starting with a letter,
/// each word holding a letter), and no name cargo refuses for a package.
pub fn check_name(name: &str) -> Result<(), String> {
    let juju_rule = "lowercase letters and digits in words joined by single hyphens, \
                     starting with a letter, each word with a letter";
    let starts_with_letter = name.starts_with(|c: char| c.is_ascii_lowercase());
    let words_ok = name.split('-').all(|word| {
        !word.is_empty()
            && word
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            && word.chars().any(|c| c.is_ascii_lowercase())
    });
    if !starts_with_letter || !words_ok {
        return Err(format!("`{name}` is no charm name: {juju_rule}"));
    }
    if RESERVED.contains(&name) {
        return Err(format!(
            "`{name}` is reserved in Rust, and cargo refuses it for a package"
        ));
    }
    Ok(())
}

/// The project's files for the charm `name` depending on `sdk`: path in the
/// project, content.
pub fn files(name: &str, sdk: &Sdk) -> Vec<(&'static str, String)> {
    FILES
        .iter()
        .map(|(path, template)| {
            (
                *path,
                template
                    .replace("{{name}}", name)
                    .replace("{{sdk}}", &sdk.dependency()),
            )
        })
        .collect()
}

/// `wasm-charm init <dir> [--name <name>] [--sdk <path or URL>]`.
pub fn main(dir: &Path, name: Option<&str>, sdk: Option<&str>) -> anyhow::Result<()> {
    let name = match name {
        Some(name) => name.to_string(),
        None => dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .with_context(|| format!("{}: names no directory; pass --name", dir.display()))?,
    };
    check_name(&name).map_err(|why| {
        anyhow::anyhow!("{why} (the name comes from the directory unless --name gives it)")
    })?;
    let sdk = Sdk::choose(sdk)?;
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                bail!("{}: not empty; init creates a new project", dir.display());
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("{}: cannot read", dir.display())),
    }
    for (path, content) in files(&name, &sdk) {
        let file = dir.join(path);
        std::fs::create_dir_all(crate::atomic_file::parent(&file)).with_context(|| {
            format!(
                "{}: cannot create",
                crate::atomic_file::parent(&file).display()
            )
        })?;
        std::fs::write(&file, content)
            .with_context(|| format!("{}: cannot write", file.display()))?;
    }
    println!("created the charm project {name} in {}", dir.display());
    println!(
        "next: cd {} && cargo test && wasm-charm pack . --out build/{name}",
        dir.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charm_names_follow_juju_and_cargo() {
        for ok in ["gateway", "my-charm", "k8s-app2", "a"] {
            assert_eq!(check_name(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "My-charm",
            "2fast",
            "my--charm",
            "my-charm-",
            "my_charm",
            "a-42",
        ] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        assert!(check_name("test").unwrap_err().contains("reserved"));
    }

    #[test]
    fn templates_are_filled_and_parse() {
        let sdk = Sdk::Path(PathBuf::from("/src/wasm \"charm\"/guest-sdk"));
        let files = files("my-charm", &sdk);
        for (path, content) in &files {
            assert!(!content.contains("{{"), "{path} keeps a placeholder");
        }
        let get = |p: &str| &files.iter().find(|(path, _)| *path == p).unwrap().1;
        assert!(
            get("Cargo.toml")
                .contains(r#"wasm-charm-sdk = { path = "/src/wasm \"charm\"/guest-sdk" }"#),
            "{}",
            get("Cargo.toml")
        );
        // The charm files are what the host accepts.
        let dir = tempfile::tempdir().unwrap();
        for (path, content) in &files {
            let file = dir.path().join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, content).unwrap();
        }
        let charm = crate::charm_dir::CharmDir::load(dir.path()).unwrap();
        assert_eq!(charm.metadata.name, "my-charm");
        assert_eq!(charm.config.defaults["port"], serde_json::json!(8080));
        assert_eq!(charm.actions.names, ["self-check", "show-status"]);
        assert_eq!(charm.manifest.ready_message, "Ready");
        assert_eq!(
            Sdk::Git("https://example.com/wasm-charm.git".into()).dependency(),
            r#"wasm-charm-sdk = { git = "https://example.com/wasm-charm.git" }"#
        );
    }

    #[test]
    fn the_sdk_is_found_or_named() {
        assert!(matches!(Sdk::choose(None), Ok(Sdk::Path(_))));
        assert_eq!(
            Sdk::choose(Some("https://example.com/x.git")).unwrap(),
            Sdk::Git("https://example.com/x.git".into())
        );
        let dir = tempfile::tempdir().unwrap();
        let e = Sdk::choose(Some(dir.path().to_str().unwrap())).unwrap_err();
        assert!(e.to_string().contains("Cargo.toml: cannot read"), "{e}");
        std::fs::write(
            dir.path().join("Cargo.toml"),
            "[package]\nname = \"other\"\n",
        )
        .unwrap();
        let e = Sdk::choose(Some(dir.path().to_str().unwrap())).unwrap_err();
        assert!(e.to_string().contains("not the SDK's"), "{e}");
    }
}
