//! `wasm-charm pack`: the charm directory Juju runs (DESIGN §8), its
//! `.charm` archive, and the static `dispatch` that runs on every base.

use crate::support;

use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use support::{Unit, artifact, assert_failure, assert_success, replaced, workspace_root};
use wasm_charm_host::runtime::seal;

/// Packed with the debug CLI as dispatch (fast; the static dispatch
/// shipped by default is tested below).
fn pack(project: &Path, out: &Path) -> Output {
    pack_with(
        project,
        out,
        &[
            "--dispatch".as_ref(),
            env!("CARGO_BIN_EXE_wasm-charm").as_ref(),
        ],
    )
}

fn pack_with(project: &Path, out: &Path, args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .arg("pack")
        .arg(project)
        .arg("--out")
        .arg(out)
        .args(args)
        .env(
            "CARGO_TARGET_DIR",
            workspace_root().join("target/wasm-guests"),
        )
        .output()
        .expect("run wasm-charm pack")
}

fn cache_entries(out: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(out.join(".wasm-charm/cache"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn assembles_the_charm_directory_and_replaces_a_stale_cache() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gateway");
    assert_success(&pack(&workspace_root().join("examples/gateway"), &out));

    for f in [
        "metadata.yaml",
        "config.yaml",
        "wasm-charm.yaml",
        "charm.wasm",
        "dispatch",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let mode = std::fs::metadata(out.join("dispatch"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755, "Juju needs an executable dispatch");
    assert_eq!(
        std::fs::read(out.join("dispatch")).unwrap(),
        std::fs::read(env!("CARGO_BIN_EXE_wasm-charm")).unwrap(),
        "dispatch is the host binary itself"
    );
    let wasm = std::fs::read(out.join("charm.wasm")).unwrap();
    assert_eq!(
        &wasm[..8],
        b"\0asm\x0d\x00\x01\x00",
        "a component, not a core module"
    );
    // Precompiled: the first event loads an artifact instead of compiling;
    // native for this architecture's baseline CPU, and portable (Pulley).
    let first = cache_entries(&out);
    assert_eq!(first.len(), 2, "{first:?}");
    assert!(first[0].ends_with(".native.cwasm"), "{first:?}");
    assert!(first[1].ends_with(".portable.cwasm"), "{first:?}");

    // A re-pack leaves no entry of an older build behind.
    let cache = out.join(".wasm-charm/cache");
    std::fs::write(cache.join("0000.cwasm"), b"old").unwrap();
    std::fs::write(cache.join("0000.handlers.json"), b"[]").unwrap();
    assert_success(&pack(&workspace_root().join("examples/gateway"), &out));
    assert_eq!(cache_entries(&out), first);
}

/// A pack of a component packed before ships the artifacts compiled then
/// (kept beside the component's build output, `host/src/pack/reuse.rs`),
/// byte for byte, instead of compiling it again; the charm runs on them.
#[test]
fn packing_an_unchanged_component_again_ships_the_artifacts_compiled_before() {
    let dir = tempfile::tempdir().unwrap();
    let project = workspace_root().join("examples/gateway");
    let first = dir.path().join("first");
    assert_success(&pack(&project, &first));
    let second = dir.path().join("second");
    let output = pack(&project, &second);
    assert_success(&output);
    let err = stderr_of(&output);
    assert!(
        err.contains("reusing the artifacts compiled earlier for this component"),
        "{err}"
    );
    let artifacts = cache_entries(&second);
    assert_eq!(artifacts, cache_entries(&first));
    assert_eq!(artifacts.len(), 2, "{artifacts:?}");
    for name in &artifacts {
        let cache = Path::new(".wasm-charm/cache").join(name);
        assert!(
            std::fs::read(first.join(&cache)).unwrap()
                == std::fs::read(second.join(&cache)).unwrap(),
            "{name} differs"
        );
    }
    let unit = Unit::on_simulator(&second, "gateway/0");
    assert_success(&unit.dispatch("install"));
}

#[test]
fn refuses_what_is_not_a_charm_project_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");

    let out1 = pack(dir.path(), &out);
    assert_failure(&out1);
    let err = String::from_utf8_lossy(&out1.stderr);
    assert!(err.contains("Cargo.toml: not found"), "{err}");

    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
    let out2 = pack(&project, &out);
    assert_failure(&out2);
    let err = String::from_utf8_lossy(&out2.stderr);
    assert!(
        err.contains("metadata.yaml: not found; Juju requires it"),
        "{err}"
    );

    std::fs::write(project.join("metadata.yaml"), "name: x\n").unwrap();
    std::fs::write(project.join("wasm-charm.yaml"), "on-error: sometimes\n").unwrap();
    let out3 = pack(&project, &out);
    assert_failure(&out3);
    let err = String::from_utf8_lossy(&out3.stderr);
    assert!(err.contains("wasm-charm.yaml"), "{err}");
    assert!(!out.exists(), "nothing is assembled from a bad project");
}

// ------------------------------------------------------------ the .charm

/// Every entry of the zip `archive` as Python's zipfile reads it (not the
/// crate that wrote it): name, the system that made it (3: Unix, whose
/// external attributes carry the mode), the mode, and its bytes' SHA-256.
fn zip_listing(archive: &Path) -> Vec<(String, u64, u32, String)> {
    let script = "import hashlib, json, sys, zipfile\n\
                  z = zipfile.ZipFile(sys.argv[1])\n\
                  print(json.dumps([[i.filename, i.create_system, i.external_attr >> 16,\n\
                  hashlib.sha256(z.read(i)).hexdigest()] for i in z.infolist()]))\n";
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(archive)
        .output()
        .expect("run python3");
    assert_success(&out);
    let rows: Vec<(String, u64, u32, String)> =
        serde_json::from_slice(&out.stdout).expect("python's listing");
    rows
}

fn sha256(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Juju's name of the architecture these tests run on.
fn juju_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => panic!("no Juju architecture for {other}"),
    }
}

/// The charm directory's manifest.yaml, as JSON.
fn manifest(charm: &Path) -> Value {
    let text = std::fs::read_to_string(charm.join("manifest.yaml")).expect("manifest.yaml");
    serde_saphyr::from_str(&text).expect("manifest.yaml is YAML")
}

#[test]
fn the_charm_archive_holds_the_directory_with_modes_and_a_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gateway");
    let output = pack(&workspace_root().join("examples/gateway"), &out);
    assert_success(&output);
    let archive = dir.path().join("gateway.charm");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!("wrote {}: ubuntu ", archive.display())),
        "{stdout}"
    );

    // The directory's files, each with its mode, made by Unix: Juju applies
    // the modes when it unpacks the charm, so dispatch stays executable.
    let artifacts = cache_entries(&out);
    let file = |name: &str, mode: u32| (name.to_string(), 3, mode, sha256(&out.join(name)));
    let directory = |name: &str| {
        (
            name.to_string(),
            3,
            0o040755,
            sha256(Path::new("/dev/null")),
        )
    };
    assert_eq!(
        zip_listing(&archive),
        [
            file("metadata.yaml", 0o100644),
            file("config.yaml", 0o100644),
            file("actions.yaml", 0o100644),
            file("wasm-charm.yaml", 0o100644),
            file("charm.wasm", 0o100644),
            file("dispatch", 0o100755),
            file("manifest.yaml", 0o100644),
            directory(".wasm-charm/"),
            directory(".wasm-charm/cache/"),
            file(&format!(".wasm-charm/cache/{}", artifacts[0]), 0o100644),
            file(&format!(".wasm-charm/cache/{}", artifacts[1]), 0o100644),
        ]
    );
    assert_eq!(
        std::fs::metadata(&archive).unwrap().permissions().mode() & 0o777,
        0o644
    );

    // charmcraft's manifest: the one architecture inside, and the Ubuntu
    // releases whose glibc loads this (dynamically linked) test host.
    let manifest = manifest(&out);
    assert!(manifest["charmcraft-version"].is_string(), "{manifest}");
    assert!(manifest["charmcraft-started-at"].is_string(), "{manifest}");
    let bases = manifest["bases"].as_array().expect("bases");
    let channels: Vec<&str> = bases
        .iter()
        .map(|b| {
            assert_eq!(b["name"], "ubuntu", "{manifest}");
            assert_eq!(b["architectures"], json!([juju_arch()]), "{manifest}");
            b["channel"].as_str().expect("channel")
        })
        .collect();
    assert!(
        ["20.04", "22.04", "24.04"].ends_with(&channels) && !channels.is_empty(),
        "{channels:?}"
    );
}

#[test]
fn a_dispatch_that_runs_on_no_base_is_refused_before_the_build() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("dispatch.sh");
    std::fs::write(&script, "#!/bin/sh\n").unwrap();
    let out = dir.path().join("gateway");
    let output = pack_with(
        &workspace_root().join("examples/gateway"),
        &out,
        &["--dispatch".as_ref(), script.as_os_str()],
    );
    assert_failure(&output);
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains(&format!(
            "{}: cannot ship it as dispatch: not an ELF executable",
            script.display()
        )),
        "{err}"
    );
    assert!(!err.contains("building"), "refused before the build: {err}");
    assert!(!out.exists(), "nothing is assembled");
}

// ------------------------------------------------------- the static dispatch

/// Where `pack` builds the static dispatch it ships by default
/// (host/src/pack/static_dispatch.rs, scripts/build-dispatch).
fn static_dispatch() -> PathBuf {
    let target = format!("{}-unknown-linux-musl", std::env::consts::ARCH);
    workspace_root().join(format!("target/dispatch/{target}/dispatch/dispatch"))
}

/// Asserts that the executable at `path` is static: no `PT_INTERP` (read
/// here, apart from the host's own ELF reader), and what `ldd` and `file`
/// say of it where the system has them.
#[track_caller]
fn assert_static(path: &Path) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    assert!(
        !has_interpreter(&bytes),
        "{}: a static executable has no PT_INTERP",
        path.display()
    );
    if let Ok(out) = Command::new("ldd").arg(path).output() {
        let said = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(
            said.contains("statically linked") || said.contains("not a dynamic executable"),
            "ldd {}: {said}",
            path.display()
        );
    }
    if let Ok(out) = Command::new("file").arg(path).output() {
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(said.contains("static"), "file: {said}");
    }
}

/// Whether the ELF executable `bytes` asks the kernel for an interpreter
/// (`PT_INTERP`): every dynamically linked one does. Read here, apart from
/// the host's own ELF reader.
fn has_interpreter(bytes: &[u8]) -> bool {
    assert_eq!(&bytes[..4], b"\x7fELF");
    assert_eq!(bytes[4], 2, "ELF64");
    assert_eq!(bytes[5], 1, "little endian");
    let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]) as usize;
    let phoff = u64::from_le_bytes(bytes[32..40].try_into().unwrap()) as usize;
    let (size, count) = (u16_at(54), u16_at(56));
    (0..count).any(|i| {
        let at = phoff + i * size;
        u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) == 3
    })
}

/// The target for the shipped dispatch: 8 MB, in the decimal
/// megabytes `inspect` and the benchmark print (8 MiB would allow 0.39 MB
/// more).
const DISPATCH_MAX_BYTES: u64 = 8_000_000;

/// Without `--dispatch`, `pack` ships the runtime-only dispatch built for
/// musl: static, on every base, at most 8 MB, and it runs the gateway's
/// first events and an action from the unpacked `.charm` as Juju would,
/// loading the native artifact. The first run builds it (a few minutes);
/// later ones reuse it.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[test]
fn the_static_dispatch_shipped_by_default_runs_the_gateway_on_every_base() {
    let dir = tempfile::tempdir().unwrap();
    let archive = packed_with_static_dispatch(dir.path());
    let out = dir.path().join("gateway");
    let shipped = static_dispatch();
    assert_eq!(sha256(&out.join("dispatch")), sha256(&shipped));
    assert_static(&shipped);
    let size = std::fs::metadata(&shipped).unwrap().len();
    assert!(
        size <= DISPATCH_MAX_BYTES,
        "{}: {size} bytes",
        shipped.display()
    );
    assert_no_compiler(&shipped);
    // inspect says so, and which artifacts the charm carries.
    let inspected = Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .arg("inspect")
        .arg(&archive)
        .output()
        .expect("run wasm-charm inspect");
    assert_success(&inspected);
    let report = String::from_utf8_lossy(&inspected.stdout);
    assert!(
        report.lines().any(|l| l.starts_with("dispatch: ")
            && l.contains("statically linked, ")
            && l.contains(" MB, the runtime alone (no compiler);")),
        "{report}"
    );
    assert!(
        report
            .lines()
            .any(|l| l.starts_with("artifacts: native (baseline CPU) ")
                && l.contains("portable (Pulley, interpreted)")),
        "{report}"
    );
    let bases = &manifest(&out)["bases"];
    assert_eq!(
        *bases,
        json!([
            {"name": "ubuntu", "channel": "20.04", "architectures": ["amd64"]},
            {"name": "ubuntu", "channel": "22.04", "architectures": ["amd64"]},
            {"name": "ubuntu", "channel": "24.04", "architectures": ["amd64"]},
        ])
    );

    let unit = unpacked_unit(&archive, &dir.path().join("unit"), |_| {});
    let out = unit.dispatch("install");
    assert_success(&out);
    assert!(stderr_of(&out).is_empty(), "{}", stderr_of(&out));
    assert_eq!(
        unit.calls_of("status-set"),
        [[
            "status-set",
            "blocked",
            "--",
            "Config item `kind` must be set (+1 more)"
        ]]
    );
    unit.clear_calls();
    unit.update_state(|s| s["config"]["kind"] = json!("ingress"));
    let out = unit.dispatch("config-changed");
    assert_success(&out);
    assert_eq!(
        unit.calls_of("status-set"),
        [[
            "status-set",
            "blocked",
            "--",
            "Waiting for istio-pilot relation"
        ]]
    );
    unit.clear_calls();
    let out = unit.dispatch_with(
        "actions/show-status",
        &[
            ("JUJU_ACTION_NAME", "show-status"),
            ("JUJU_ACTION_UUID", "1"),
        ],
    );
    assert_success(&out);
    let calls = unit.calls_of("action-set");
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert!(calls[0][1].starts_with("report=unit: blocked"), "{calls:?}");
}

/// The `.charm` `pack` ships, untouched, is verified: its artifacts are
/// the compilation of its component and its `dispatch` the static runtime
/// this source tree builds (docs/trust.md).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[test]
fn an_untouched_charm_with_the_static_dispatch_is_verified() {
    let dir = tempfile::tempdir().unwrap();
    let archive = packed_with_static_dispatch(dir.path());
    let out = Command::new(env!("CARGO_BIN_EXE_wasm-charm"))
        .arg("verify")
        .arg(&archive)
        .stdin(Stdio::null())
        .output()
        .expect("run wasm-charm verify");
    assert_success(&out);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.starts_with(&format!("verify .charm {}\n", archive.display())),
        "{report}"
    );
    for part in [
        "  ok       charm.wasm: the component `inspect` reads, sha256 ",
        ".native.cwasm: the compilation of the component for x86_64-unknown-linux-gnu by wasmtime 48.0.8, byte for byte",
        ".portable.cwasm: the compilation of the component for pulley64 by wasmtime 48.0.8, byte for byte",
        &format!(
            "  ok       dispatch: the runtime of wasm-charm {} (sha256 {}",
            env!("CARGO_PKG_VERSION"),
            sha256(&static_dispatch())
        ),
        "\nverified: this charm runs the code `wasm-charm inspect` shows",
    ] {
        assert!(report.contains(part), "{part} in {report}");
    }
}

/// Where the native artifact does not load (here: damaged), dispatch
/// runs the portable one, saying so; where neither loads (missing, or of
/// another wasmtime), the hook fails naming the command that rebuilds them.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[test]
fn the_static_dispatch_falls_back_to_pulley_and_names_pack_when_artifacts_are_unusable() {
    let dir = tempfile::tempdir().unwrap();
    let archive = packed_with_static_dispatch(dir.path());

    let unit = unpacked_unit(&archive, &dir.path().join("portable"), |cache| {
        std::fs::write(artifact(cache, "native"), b"not an artifact").unwrap();
    });
    let out = unit.dispatch("install");
    assert_success(&out);
    let err = stderr_of(&out);
    assert!(
        err.contains("running the portable (interpreted) artifact")
            && err.contains(".native.cwasm"),
        "{err}"
    );
    assert_eq!(
        unit.calls_of("status-set"),
        [[
            "status-set",
            "blocked",
            "--",
            "Config item `kind` must be set (+1 more)"
        ]]
    );

    let missing = unpacked_unit(&archive, &dir.path().join("missing"), |cache| {
        std::fs::remove_dir_all(cache).unwrap();
    });
    // Sealed as another release's pack would have sealed them: wasmtime's
    // own check of the version is what refuses them.
    let stale = unpacked_unit(&archive, &dir.path().join("stale"), |cache| {
        for kind in ["native", "portable"] {
            let path = artifact(cache, kind);
            let bytes = std::fs::read(&path).unwrap();
            let (elf, sealed) = seal::split(&bytes).expect("a sealed artifact");
            let older = replaced(elf, b"wasmtime 48.0.8", b"wasmtime 48.0.0");
            std::fs::write(&path, seal::append(older, &sealed.component)).unwrap();
        }
    });
    // Another component's, under this one's names: the seals refuse them.
    let foreign = unpacked_unit(&archive, &dir.path().join("foreign"), |cache| {
        for kind in ["native", "portable"] {
            let path = artifact(cache, kind);
            let bytes = std::fs::read(&path).unwrap();
            let (elf, _) = seal::split(&bytes).expect("a sealed artifact");
            std::fs::write(&path, seal::append(elf.to_vec(), &"0".repeat(64))).unwrap();
        }
    });
    for (unit, says) in [
        (missing, "not found"),
        (stale, "incompatible version"),
        (
            foreign,
            "refused: it is the compilation of another component (sha256 0000",
        ),
    ] {
        let out = unit.dispatch("install");
        assert_failure(&out);
        let err = stderr_of(&out);
        assert!(err.contains(says), "{err}");
        assert!(
            err.contains("charm.wasm: no precompiled artifact this dispatch can load")
                && err.contains("rebuild the charm with `wasm-charm pack`"),
            "{err}"
        );
        assert!(unit.calls_of("status-set").is_empty());
    }
}

/// Asserts that the dispatch at `path` cannot compile: the build that made it
/// resolves no cranelift (the `dispatch` binary without default features,
/// as scripts/build-dispatch and `pack` build it), and the binary holds none
/// of cranelift's code (its source paths, which panic locations keep even
/// in a stripped executable, name every crate compiled in).
fn assert_no_compiler(path: &Path) {
    let target = format!("{}-unknown-linux-musl", std::env::consts::ARCH);
    let tree = Command::new(env!("CARGO"))
        .args(["tree", "--locked", "-e", "normal", "--prefix", "none"])
        .args([
            "-p",
            "wasm-charm",
            "--no-default-features",
            "--target",
            &target,
        ])
        .current_dir(workspace_root())
        .output()
        .expect("run cargo tree");
    assert_success(&tree);
    let tree = String::from_utf8_lossy(&tree.stdout);
    assert!(tree.contains("wasmtime v48"), "{tree}");
    // The compilers' crates; wasmtime's runtime keeps cranelift's small
    // data-structure crates (bitset, entity, bforest), which compile nothing.
    let compilers = [
        "cranelift-codegen ",
        "cranelift-frontend ",
        "cranelift-native ",
        "wasmtime-internal-cranelift ",
        "wasmtime-internal-winch ",
        "winch-codegen ",
    ];
    for compiler in compilers {
        assert!(
            !tree.lines().any(|l| l.starts_with(compiler)),
            "the runtime-only dispatch depends on {compiler}:\n{tree}"
        );
    }
    let bytes = std::fs::read(path).unwrap();
    // A crate compiled in leaves its source paths (panic locations); the
    // same check on the CLI finds them, so the needle is not vacuous.
    let needle = b"cranelift-codegen";
    let cli = std::fs::read(env!("CARGO_BIN_EXE_wasm-charm")).unwrap();
    assert!(cli.windows(needle.len()).any(|w| w == needle));
    assert!(
        !bytes.windows(needle.len()).any(|w| w == needle),
        "{}: holds cranelift's code",
        path.display()
    );
}

/// The gateway packed into `dir` with the dispatch `pack` ships by default;
/// the `.charm`.
fn packed_with_static_dispatch(dir: &Path) -> PathBuf {
    let archive = dir.join("static-gateway.charm");
    let output = pack_with(
        &workspace_root().join("examples/gateway"),
        &dir.join("gateway"),
        &["--charm".as_ref(), archive.as_os_str()],
    );
    assert_success(&output);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("ubuntu 20.04, 22.04, 24.04 on amd64"),
        "{stdout}"
    );
    archive
}

/// The `.charm` unpacked as Juju unpacks it into `into` (modes applied),
/// its artifact cache changed by `edit`, as a unit on the simulator that
/// has not seen an event: the leader, `kind` unset.
fn unpacked_unit(archive: &Path, into: &Path, edit: impl FnOnce(&Path)) -> Unit {
    unpack(archive, into);
    edit(&into.join(".wasm-charm/cache"));
    let unit = Unit::with_charm_dir_on_simulator(into, "gateway/0", &[], &[]);
    unit.set_state(json!({
        "leader": true,
        "config": {"kind": ""},
        "relations": {},
        "status": {"unit": null, "app": null},
    }));
    unit
}

fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Unpack `archive` into `into`, each entry with the mode its external
/// attributes carry, as Juju does on the unit.
fn unpack(archive: &Path, into: &Path) {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(archive).unwrap()).unwrap();
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).unwrap();
        let path = into.join(entry.enclosed_name().expect("an enclosed name"));
        if entry.is_dir() {
            std::fs::create_dir_all(&path).unwrap();
            continue;
        }
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut file = std::fs::File::create(&path).unwrap();
        std::io::copy(&mut entry, &mut file).unwrap();
        let mode = entry.unix_mode().expect("a Unix mode") & 0o777;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
}
