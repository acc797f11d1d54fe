//! `wasm-charm init`: a new charm project that builds on its own, as
//! `charmcraft init` makes one for ops: a Cargo workspace of its own
//! depending on the SDK, the files Juju reads (metadata.yaml, config.yaml,
//! actions.yaml), the runtime manifest, a first handler with its unit
//! tests, harness tests of whole events (`tests/charm.rs`), a scenario
//! (`tests/scenario.yaml`), a README saying how to test, pack and deploy
//! it, and a .gitignore. A profile chooses the charm: a machine charm, or
//! a Kubernetes sidecar charm driving a workload container through Pebble.
//! A language chooses the handlers': Rust, or Python (`src/charm.py`, built
//! by componentize-py, with pytest tests through the Python harness and a
//! `tests/conftest.py` naming the harness and SDK of this source tree).
//!
//! The templates are the files under `init/` (those of one profile under
//! `init/<profile>/`, a Python project's own under `init/python/`),
//! compiled into the binary; `{{name}}` is the charm's name, `{{sdk}}` and
//! `{{harness}}` the dependency lines of the SDK and of the harness
//! (`{{sdk_py}}` and `{{harness_py}}` their paths for Python), and `{{about}}`, `{{event}}` and `{{deploy}}` the README's
//! words for the profile.

use anyhow::{Context as _, bail};
use std::path::{Path, PathBuf};

/// The kind of charm `init` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Profile {
    /// A machine charm: a handler checking config, and the host's actions.
    #[default]
    Machine,
    /// A Kubernetes sidecar charm: a workload container, its image
    /// resource, a Pebble layer, a probe on Pebble's check and a container
    /// command run by an action.
    Kubernetes,
}

/// The language of the charm's handlers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Language {
    /// A Cargo package built for wasm32-wasip2, tested with `cargo test`.
    #[default]
    Rust,
    /// `src/charm.py` built with componentize-py, tested with pytest.
    Python,
}

/// The files every Rust profile has: path in the project, template.
const SHARED: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("init/Cargo.toml.tmpl")),
    ("config.yaml", include_str!("init/config.yaml")),
    ("README.md", include_str!("init/README.md.tmpl")),
    (".gitignore", include_str!("init/gitignore")),
];

/// The files of the machine profile that Juju, the host and the scenario
/// runner read: the same whatever the charm's language.
const MACHINE_CHARM: &[(&str, &str)] = &[
    (
        "tests/scenario.yaml",
        include_str!("init/machine/scenario.yaml"),
    ),
    (
        "metadata.yaml",
        include_str!("init/machine/metadata.yaml.tmpl"),
    ),
    ("actions.yaml", include_str!("init/machine/actions.yaml")),
    (
        "wasm-charm.yaml",
        include_str!("init/machine/wasm-charm.yaml"),
    ),
];

/// The same for the Kubernetes profile; its `wasm-charm.yaml` names the
/// source file of its command, so it is the language's.
const KUBERNETES_CHARM: &[(&str, &str)] = &[
    (
        "tests/scenario.yaml",
        include_str!("init/kubernetes/scenario.yaml"),
    ),
    (
        "metadata.yaml",
        include_str!("init/kubernetes/metadata.yaml.tmpl"),
    ),
    ("actions.yaml", include_str!("init/kubernetes/actions.yaml")),
];

/// The Rust machine profile's code and tests.
const MACHINE: &[(&str, &str)] = &[
    ("src/lib.rs", include_str!("init/machine/lib.rs.tmpl")),
    ("tests/charm.rs", include_str!("init/machine/charm.rs.tmpl")),
];

/// The Rust Kubernetes profile's code and tests.
const KUBERNETES: &[(&str, &str)] = &[
    ("src/lib.rs", include_str!("init/kubernetes/lib.rs.tmpl")),
    (
        "tests/charm.rs",
        include_str!("init/kubernetes/charm.rs.tmpl"),
    ),
    (
        "wasm-charm.yaml",
        include_str!("init/kubernetes/wasm-charm.yaml"),
    ),
];

/// The files every Python profile has.
const PYTHON_SHARED: &[(&str, &str)] = &[
    ("config.yaml", include_str!("init/config.yaml")),
    ("README.md", include_str!("init/python/README.md.tmpl")),
    (".gitignore", include_str!("init/python/gitignore")),
    (
        "tests/conftest.py",
        include_str!("init/python/conftest.py.tmpl"),
    ),
];

/// The Python machine profile's code and tests.
const PYTHON_MACHINE: &[(&str, &str)] = &[
    (
        "src/charm.py",
        include_str!("init/python/machine/charm.py.tmpl"),
    ),
    (
        "tests/test_charm.py",
        include_str!("init/python/machine/test_charm.py.tmpl"),
    ),
];

/// The Python Kubernetes profile's code and tests.
const PYTHON_KUBERNETES: &[(&str, &str)] = &[
    (
        "src/charm.py",
        include_str!("init/python/kubernetes/charm.py.tmpl"),
    ),
    (
        "tests/test_charm.py",
        include_str!("init/python/kubernetes/test_charm.py.tmpl"),
    ),
    (
        "wasm-charm.yaml",
        include_str!("init/python/kubernetes/wasm-charm.yaml"),
    ),
];

impl Profile {
    /// The profile's templates in `language`, its own and the shared ones.
    fn templates(
        self,
        language: Language,
    ) -> impl Iterator<Item = &'static (&'static str, &'static str)> {
        let (own, shared) = match (language, self) {
            (Language::Rust, Profile::Machine) => (MACHINE, SHARED),
            (Language::Rust, Profile::Kubernetes) => (KUBERNETES, SHARED),
            (Language::Python, Profile::Machine) => (PYTHON_MACHINE, PYTHON_SHARED),
            (Language::Python, Profile::Kubernetes) => (PYTHON_KUBERNETES, PYTHON_SHARED),
        };
        let charm = match self {
            Profile::Machine => MACHINE_CHARM,
            Profile::Kubernetes => KUBERNETES_CHARM,
        };
        own.iter().chain(charm).chain(shared)
    }

    /// The README's words for the profile: `{{about}}`, `{{event}}` (an
    /// event to try with `run`) and `{{deploy}}`.
    fn readme(self) -> [(&'static str, &'static str); 3] {
        match self {
            Profile::Machine => [
                (
                    "{{about}}",
                    "A Juju machine charm whose logic is a WebAssembly component, run by wasm-charm.",
                ),
                ("{{event}}", "install"),
                ("{{deploy}}", "juju deploy ./build/{{name}}.charm"),
            ],
            Profile::Kubernetes => [
                (
                    "{{about}}",
                    "A Juju Kubernetes (sidecar) charm whose logic is a WebAssembly component, \
                     run by wasm-charm: it runs a web server in its container `app` through Pebble.",
                ),
                ("{{event}}", "app-pebble-ready"),
                (
                    "{{deploy}}",
                    "juju deploy ./build/{{name}}.charm --resource app-image=python:3.12-slim",
                ),
            ],
        }
    }
}

/// The SDK's package name, as its Cargo.toml spells it.
const SDK_PACKAGE: &str = "wasm-charm-sdk";

/// The harness's package name, and its directory beside the SDK's in a
/// wasm-charm source tree.
const HARNESS_PACKAGE: &str = "wasm-charm-testing";
const HARNESS_DIR: &str = "testing";

/// Names Juju accepts but cargo refuses for a package (its own crates and
/// Rust's keywords).
const RESERVED: &[&str] = &[
    "alloc", "as", "async", "await", "break", "const", "continue", "core", "crate", "dyn", "else",
    "enum", "extern", "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match",
    "mod", "move", "mut", "pub", "ref", "return", "self", "static", "std", "struct", "super",
    "test", "trait", "true", "type", "unsafe", "use", "where", "while", "yield",
];

/// Where the project's SDK dependency points, and with it the harness's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sdk {
    /// The `guest-sdk` directory of a wasm-charm source tree (whose
    /// `testing` directory holds the harness).
    Path(PathBuf),
    /// A git URL of the wasm-charm repository (cargo finds both packages in it).
    Git(String),
}

impl Sdk {
    /// `--sdk`'s value: a URL is a git repository, anything else a path
    /// that must hold the SDK's Cargo.toml, with the harness's beside it.
    /// Without one, the guest-sdk of the source tree this binary was built
    /// from, when it is still there.
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
        check_package(
            &path,
            SDK_PACKAGE,
            "--sdk must name wasm-charm's guest-sdk directory",
        )?;
        let path = path
            .canonicalize()
            .with_context(|| format!("{}: cannot resolve", path.display()))?;
        check_package(
            &harness_path(&path),
            HARNESS_PACKAGE,
            "the harness is taken from the SDK's source tree: --sdk must name the guest-sdk \
             directory of a wasm-charm source tree",
        )?;
        Ok(Sdk::Path(path))
    }

    /// The SDK's dependency line in the project's Cargo.toml.
    pub fn dependency(&self) -> String {
        match self {
            Sdk::Path(path) => path_dependency(SDK_PACKAGE, path),
            Sdk::Git(url) => git_dependency(SDK_PACKAGE, url),
        }
    }

    /// The harness's dev-dependency line, from the same source tree or
    /// repository as the SDK.
    pub fn harness_dependency(&self) -> String {
        match self {
            Sdk::Path(path) => path_dependency(HARNESS_PACKAGE, &harness_path(path)),
            Sdk::Git(url) => git_dependency(HARNESS_PACKAGE, url),
        }
    }
}

/// Where a Python project's pytest imports the SDK and the harness from:
/// the `guest-sdk-py` and `testing-py` directories of a wasm-charm source
/// tree, written into its `tests/conftest.py` (as a Rust project's
/// Cargo.toml names the SDK's path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonTree {
    /// `guest-sdk-py`, holding the package `wasm_charm`.
    pub sdk: PathBuf,
    /// `testing-py`, holding the package `wasm_charm_testing`.
    pub harness: PathBuf,
}

impl PythonTree {
    /// `--sdk`'s value for a Python project: the path of wasm-charm's
    /// `guest-sdk-py` (the harness is `testing-py` beside it). Without
    /// one, the source tree this binary was built from, when it is still
    /// there. pytest imports them from disk: a git URL cannot do.
    pub fn choose(given: Option<&str>) -> anyhow::Result<PythonTree> {
        let sdk = match given {
            Some(url) if url.contains("://") || url.starts_with("git@") => bail!(
                "--sdk {url}: a Python project's pytest imports the SDK and the harness from a \
                 wasm-charm source tree; pass --sdk <path to its guest-sdk-py>"
            ),
            Some(path) => PathBuf::from(path),
            None => {
                let built_from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../guest-sdk-py");
                if !built_from.join("wasm_charm/__init__.py").is_file() {
                    bail!(
                        "no Python SDK to test with: this binary's source tree ({}) is gone; \
                         pass --sdk <path to wasm-charm's guest-sdk-py>",
                        built_from.display()
                    );
                }
                built_from
            }
        };
        let package = |dir: &Path, name: &str, hint: &str| -> anyhow::Result<()> {
            let init = dir.join(name).join("__init__.py");
            if !init.is_file() {
                bail!("{}: no such file; {hint}", init.display());
            }
            Ok(())
        };
        let hint = "--sdk must name the guest-sdk-py directory of a wasm-charm source tree";
        package(&sdk, "wasm_charm", hint)?;
        let sdk = sdk
            .canonicalize()
            .with_context(|| format!("{}: cannot resolve", sdk.display()))?;
        let harness = sdk.parent().unwrap_or(&sdk).join("testing-py");
        package(
            &harness,
            "wasm_charm_testing",
            "the harness is taken from the SDK's source tree (testing-py beside guest-sdk-py)",
        )?;
        Ok(PythonTree { sdk, harness })
    }
}

/// Where the project's SDK (and harness) come from, by language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sources {
    Rust(Sdk),
    Python(PythonTree),
}

impl Sources {
    /// `--sdk`'s value, read for `language`.
    pub fn choose(language: Language, given: Option<&str>) -> anyhow::Result<Sources> {
        Ok(match language {
            Language::Rust => Sources::Rust(Sdk::choose(given)?),
            Language::Python => Sources::Python(PythonTree::choose(given)?),
        })
    }

    fn language(&self) -> Language {
        match self {
            Sources::Rust(_) => Language::Rust,
            Sources::Python(_) => Language::Python,
        }
    }

    /// The templates' placeholders for the sources, and their values.
    fn placeholders(&self) -> Vec<(&'static str, String)> {
        match self {
            Sources::Rust(sdk) => vec![
                ("{{sdk}}", sdk.dependency()),
                ("{{harness}}", sdk.harness_dependency()),
            ],
            Sources::Python(tree) => vec![
                ("{{sdk_py}}", python_string(&tree.sdk)),
                ("{{harness_py}}", python_string(&tree.harness)),
            ],
        }
    }
}

/// A Python string literal of `path`: JSON's escapes are Python's.
fn python_string(path: &Path) -> String {
    serde_json::Value::String(path.to_string_lossy().into_owned()).to_string()
}

/// The harness's directory in the source tree of the SDK at `sdk`.
fn harness_path(sdk: &Path) -> PathBuf {
    sdk.parent().unwrap_or(sdk).join(HARNESS_DIR)
}

/// That `dir`'s Cargo.toml is the package `package`'s; `hint` says what
/// was expected when it is not.
fn check_package(dir: &Path, package: &str, hint: &str) -> anyhow::Result<()> {
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)
        .with_context(|| format!("{}: cannot read; {hint}", manifest.display()))?;
    if !text.contains(&format!("name = \"{package}\"")) {
        bail!(
            "{}: not {package}'s (its package is not `{package}`); {hint}",
            manifest.display()
        );
    }
    Ok(())
}

fn path_dependency(package: &str, path: &Path) -> String {
    format!(
        "{package} = {{ path = {} }}",
        toml_string(&path.to_string_lossy())
    )
}

fn git_dependency(package: &str, url: &str) -> String {
    format!("{package} = {{ git = {} }}", toml_string(url))
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
    check_name_for(name, Language::Rust)
}

/// [`check_name`] for a project in `language`: cargo's reserved names
/// matter only to a Cargo package.
pub fn check_name_for(name: &str, language: Language) -> Result<(), String> {
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
    if language == Language::Rust && RESERVED.contains(&name) {
        return Err(format!(
            "`{name}` is reserved in Rust, and cargo refuses it for a package"
        ));
    }
    Ok(())
}

/// The Rust project's files for the charm `name` of `profile` depending
/// on `sdk`: path in the project, content.
pub fn files(name: &str, profile: Profile, sdk: &Sdk) -> Vec<(&'static str, String)> {
    files_of(name, profile, &Sources::Rust(sdk.clone()))
}

/// The project's files for the charm `name` of `profile`, in the language
/// of `sources`: path in the project, content.
pub fn files_of(name: &str, profile: Profile, sources: &Sources) -> Vec<(&'static str, String)> {
    let placeholders = sources.placeholders();
    profile
        .templates(sources.language())
        .map(|(path, template)| {
            let mut text = template.to_string();
            // The README's words first: they hold `{{name}}` themselves.
            for (placeholder, words) in profile.readme() {
                text = text.replace(placeholder, words);
            }
            text = text.replace("{{name}}", name);
            for (placeholder, value) in &placeholders {
                text = text.replace(placeholder, value);
            }
            (*path, text)
        })
        .collect()
}

/// `wasm-charm init <dir> [--name <name>] [--profile <profile>] [--language <language>] [--sdk <path or URL>]`.
pub fn main(
    dir: &Path,
    name: Option<&str>,
    profile: Profile,
    language: Language,
    sdk: Option<&str>,
) -> anyhow::Result<()> {
    let name = match name {
        Some(name) => name.to_string(),
        None => dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .with_context(|| format!("{}: names no directory; pass --name", dir.display()))?,
    };
    check_name_for(&name, language).map_err(|why| {
        anyhow::anyhow!("{why} (the name comes from the directory unless --name gives it)")
    })?;
    let sources = Sources::choose(language, sdk)?;
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                bail!("{}: not empty; init creates a new project", dir.display());
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("{}: cannot read", dir.display())),
    }
    for (path, content) in files_of(&name, profile, &sources) {
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
    let kind = match profile {
        Profile::Machine => "machine",
        Profile::Kubernetes => "Kubernetes",
    };
    let (language, tests) = match language {
        Language::Rust => ("Rust", "cargo test"),
        Language::Python => ("Python", "python -m pytest tests"),
    };
    println!(
        "created the {kind} charm project {name} ({language}) in {}",
        dir.display()
    );
    println!(
        "next: cd {} && {tests} && wasm-charm test tests/scenario.yaml && wasm-charm pack . --out build/{name}",
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

    /// The project's files for `profile`, written to a temporary directory
    /// and loaded as the host loads a charm directory.
    fn written(
        profile: Profile,
        sdk: &Sdk,
    ) -> (
        Vec<(&'static str, String)>,
        crate::charm_dir::CharmDir,
        tempfile::TempDir,
    ) {
        let files = files("my-charm", profile, sdk);
        for (path, content) in &files {
            assert!(!content.contains("{{"), "{path} keeps a placeholder");
        }
        let dir = tempfile::tempdir().unwrap();
        for (path, content) in &files {
            let file = dir.path().join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, content).unwrap();
        }
        let charm = crate::charm_dir::CharmDir::load(dir.path()).unwrap();
        (files, charm, dir)
    }

    fn get<'a>(files: &'a [(&str, String)], path: &str) -> &'a str {
        &files.iter().find(|(p, _)| *p == path).unwrap().1
    }

    #[test]
    fn templates_are_filled_and_parse() {
        let sdk = Sdk::Path(PathBuf::from("/src/wasm \"charm\"/guest-sdk"));
        let (files, charm, _dir) = written(Profile::Machine, &sdk);
        let manifest = get(&files, "Cargo.toml");
        assert!(
            manifest.contains(r#"wasm-charm-sdk = { path = "/src/wasm \"charm\"/guest-sdk" }"#),
            "{manifest}"
        );
        assert!(
            manifest.contains(
                "[dev-dependencies]\nwasm-charm-testing = { path = \"/src/wasm \\\"charm\\\"/testing\" }\n"
            ),
            "{manifest}"
        );
        assert_eq!(charm.metadata.name, "my-charm");
        assert_eq!(charm.config.defaults["port"], serde_json::json!(8080));
        assert_eq!(charm.actions.names, ["self-check", "show-status"]);
        assert_eq!(charm.manifest.ready_message, "Ready");
        assert!(charm.metadata.containers.is_empty());
        assert!(
            get(&files, "tests/charm.rs").contains("Charm::build(env!(\"CARGO_MANIFEST_DIR\"))")
        );
        assert!(get(&files, "tests/scenario.yaml").starts_with("# The charm's story"));
        let readme = get(&files, "README.md");
        assert!(
            readme.contains("\njuju deploy ./build/my-charm.charm\n"),
            "{readme}"
        );
        assert_eq!(
            Sdk::Git("https://example.com/wasm-charm.git".into()).dependency(),
            r#"wasm-charm-sdk = { git = "https://example.com/wasm-charm.git" }"#
        );
        assert_eq!(
            Sdk::Git("https://example.com/wasm-charm.git".into()).harness_dependency(),
            r#"wasm-charm-testing = { git = "https://example.com/wasm-charm.git" }"#
        );
    }

    #[test]
    fn the_kubernetes_profile_declares_a_container_its_probe_and_command() {
        use crate::charm_dir::probes::Target;
        let sdk = Sdk::Path(PathBuf::from("/src/wasm-charm/guest-sdk"));
        let (files, charm, _dir) = written(Profile::Kubernetes, &sdk);
        assert_eq!(charm.metadata.containers, ["app"]);
        assert_eq!(charm.metadata.resources, ["app-image"]);
        assert_eq!(
            charm.actions.names,
            ["self-check", "show-status", "workload-version"]
        );
        assert_eq!(charm.manifest.ready_message, "Serving");
        let probe = &charm.manifest.probes["app-alive"];
        assert_eq!(
            probe.target,
            Target::PebbleCheck {
                container: "app".into(),
                check: "alive".into()
            }
        );
        let commands = &charm.manifest.workload.containers["app"].commands;
        assert_eq!(commands["version"].argv, ["python3", "--version"]);
        let readme = get(&files, "README.md");
        assert!(
            readme.contains("--resource app-image=python:3.12-slim"),
            "{readme}"
        );
        assert!(readme.contains("--event app-pebble-ready"), "{readme}");
        // The files only one profile has differ; the shared ones do not.
        let machine = super::files("my-charm", Profile::Machine, &sdk);
        for (path, content) in &files {
            let same = machine.iter().any(|(p, c)| p == path && c == content);
            let shared = ["Cargo.toml", "config.yaml", ".gitignore"].contains(path);
            assert_eq!(same, shared, "{path}");
        }
    }

    #[test]
    fn python_templates_are_filled_and_parse() {
        let tree = PythonTree {
            sdk: PathBuf::from("/src/wasm \"charm\"/guest-sdk-py"),
            harness: PathBuf::from("/src/wasm \"charm\"/testing-py"),
        };
        for profile in [Profile::Machine, Profile::Kubernetes] {
            let files = files_of("my-charm", profile, &Sources::Python(tree.clone()));
            let dir = tempfile::tempdir().unwrap();
            for (path, content) in &files {
                assert!(!content.contains("{{"), "{path} keeps a placeholder");
                let file = dir.path().join(path);
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(file, content).unwrap();
            }
            assert!(!dir.path().join("Cargo.toml").exists());
            let charm = crate::charm_dir::CharmDir::load(dir.path()).unwrap();
            assert_eq!(charm.metadata.name, "my-charm");
            let conftest = get(&files, "tests/conftest.py");
            assert!(
                conftest.contains("    \"/src/wasm \\\"charm\\\"/testing-py\",\n"),
                "{conftest}"
            );
            // The files Juju and the host read are the Rust profile's.
            let rust = super::files("my-charm", profile, &Sdk::Git("x".into()));
            for path in ["metadata.yaml", "actions.yaml", "tests/scenario.yaml"] {
                assert_eq!(get(&files, path), get(&rust, path), "{path}");
            }
        }
        assert!(
            PythonTree::choose(Some("https://example.com/x.git"))
                .unwrap_err()
                .to_string()
                .contains("guest-sdk-py")
        );
    }

    #[test]
    fn the_sdk_is_found_or_named() {
        let Ok(Sdk::Path(sdk)) = Sdk::choose(None) else {
            panic!("this source tree's SDK");
        };
        assert!(
            Sdk::Path(sdk)
                .harness_dependency()
                .ends_with("/testing\" }"),
        );
        assert_eq!(
            Sdk::choose(Some("https://example.com/x.git")).unwrap(),
            Sdk::Git("https://example.com/x.git".into())
        );
        let tree = tempfile::tempdir().unwrap();
        let dir = tree.path().join("guest-sdk");
        std::fs::create_dir(&dir).unwrap();
        let e = Sdk::choose(Some(dir.to_str().unwrap())).unwrap_err();
        assert!(
            e.to_string().contains("guest-sdk/Cargo.toml: cannot read"),
            "{e}"
        );
        std::fs::write(dir.join("Cargo.toml"), "[package]\nname = \"other\"\n").unwrap();
        let e = Sdk::choose(Some(dir.to_str().unwrap())).unwrap_err();
        assert!(e.to_string().contains("not wasm-charm-sdk's"), "{e}");
        // An SDK with no harness beside it.
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"wasm-charm-sdk\"\n",
        )
        .unwrap();
        let e = Sdk::choose(Some(dir.to_str().unwrap())).unwrap_err();
        assert!(
            e.to_string().contains("testing/Cargo.toml: cannot read"),
            "{e}"
        );
        std::fs::create_dir(tree.path().join("testing")).unwrap();
        std::fs::write(
            tree.path().join("testing/Cargo.toml"),
            "[package]\nname = \"wasm-charm-testing\"\n",
        )
        .unwrap();
        assert!(matches!(
            Sdk::choose(Some(dir.to_str().unwrap())),
            Ok(Sdk::Path(_))
        ));
    }
}
