//! docs/tutorial.md, done as a reader would do it, so that it cannot rot
//! unseen: every `$` command of its ```` ```console ```` blocks is run in
//! order in an empty directory (`cd` moves on), with the edits it shows
//! applied between them, and must succeed and print what the page shows.
//!
//! * A ```` ```diff edit=<file> ```` block is an edit of `<file>`: its
//!   context (` `) and removed (`-`) lines, exactly once in the file, become
//!   its context and added (`+`) lines.
//! * A ```` ```<language> append=<file> ```` block is appended to `<file>`.
//! * Under a `$` line, each line shown (`…` standing for anything, a line
//!   of `…` for any lines) is part of one line the command printed, on
//!   stdout or stderr.
//!
//! Other blocks (setup, deployment, excerpts) are not run. The environment
//! is `tests/init.rs`'s: this workspace's builds and the binary under test.

use crate::support;
use crate::support::new_project;

use new_project::{lock_like_the_workspace, with_workspace_builds};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use support::workspace_root;

/// One thing the tutorial has the reader do, with its line in the page.
#[derive(Debug, PartialEq)]
enum Step {
    Run {
        line: usize,
        command: String,
        shown: Vec<String>,
    },
    Edit {
        line: usize,
        file: String,
        old: String,
        new: String,
    },
    Append {
        line: usize,
        file: String,
        text: String,
    },
}

/// The steps of a page, in order.
fn steps(page: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut lines = page.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let body: Vec<&str> = lines
            .by_ref()
            .map(|(_, l)| l)
            .take_while(|l| !l.starts_with("```"))
            .collect();
        let line = n + 1;
        let language = info.split_whitespace().next().unwrap_or_default();
        let target = |key: &str| {
            info.split_whitespace()
                .find_map(|w| w.strip_prefix(key).map(str::to_string))
        };
        if language == "console" {
            commands(line, &body, &mut steps);
        } else if let Some(file) = target("edit=") {
            assert_eq!(
                language, "diff",
                "docs/tutorial.md:{line}: edit= is for diffs"
            );
            // One side of the diff: its context lines and those marked `keep`.
            let side = |keep: char| {
                let mut text = String::new();
                for l in &body {
                    let mut chars = l.chars();
                    match chars.next() {
                        None => {}
                        Some(mark) if mark == ' ' || mark == keep => text.push_str(chars.as_str()),
                        Some('-' | '+') => continue,
                        Some(_) => panic!("docs/tutorial.md:{line}: {l:?} is no diff line"),
                    }
                    text.push('\n');
                }
                text
            };
            steps.push(Step::Edit {
                line,
                file,
                old: side('-'),
                new: side('+'),
            });
        } else if let Some(file) = target("append=") {
            let mut text = body.join("\n");
            text.push('\n');
            steps.push(Step::Append { line, file, text });
        }
    }
    steps
}

/// The `$` commands of a console block, each with the lines shown under it.
fn commands(line: usize, body: &[&str], steps: &mut Vec<Step>) {
    let mut current = None;
    for (i, l) in body.iter().enumerate() {
        if let Some(command) = l.strip_prefix("$ ") {
            steps.push(Step::Run {
                line: line + 1 + i,
                command: command.to_string(),
                shown: Vec::new(),
            });
            current = Some(steps.len() - 1);
        } else if !l.trim().is_empty() && l.trim() != "…" {
            let at = line + 1 + i;
            match current.map(|c| &mut steps[c]) {
                Some(Step::Run { shown, .. }) => shown.push((*l).to_string()),
                _ => panic!("docs/tutorial.md:{at}: output before any command"),
            }
        }
    }
}

/// Whether the line `shown` (`…` for anything) is part of a line of `printed`.
fn shown_in(shown: &str, printed: &str) -> bool {
    let pieces: Vec<&str> = shown.split('…').filter(|p| !p.is_empty()).collect();
    printed.lines().any(|line| {
        let mut rest = line;
        pieces.iter().all(|piece| match rest.find(piece) {
            Some(at) => {
                rest = &rest[at + piece.len()..];
                true
            }
            None => false,
        })
    })
}

/// The project directory a `wasm-charm init` command creates, relative to
/// where it runs: its first argument that is no flag or a flag's value.
fn init_dir(command: &str) -> Option<&str> {
    let mut words = command
        .split_whitespace()
        .skip_while(|w| *w != "init")
        .skip(1);
    while let Some(word) = words.next() {
        if word.starts_with("--") {
            words.next();
        } else {
            return Some(word);
        }
    }
    None
}

fn run(line: usize, command: &str, shown: &[String], cwd: &mut PathBuf) {
    if let Some(dir) = command.strip_prefix("cd ") {
        *cwd = cwd.join(dir.trim());
        assert!(cwd.is_dir(), "docs/tutorial.md:{line}: no directory {dir}");
        return;
    }
    let out = with_workspace_builds(&mut Command::new("sh"))
        .args(["-c", command])
        .current_dir(&*cwd)
        .stdin(Stdio::null())
        .output()
        .expect("run sh");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "docs/tutorial.md:{line}: `{command}` failed ({}):\n{printed}",
        out.status
    );
    for l in shown {
        assert!(
            shown_in(l, &printed),
            "docs/tutorial.md:{line}: `{command}` did not print {l:?}; it printed:\n{printed}"
        );
    }
    if command.starts_with("wasm-charm init") {
        let dir = init_dir(command)
            .unwrap_or_else(|| panic!("docs/tutorial.md:{line}: init names no directory"));
        // The tests' environment trick: this workspace's versions.
        lock_like_the_workspace(&cwd.join(dir));
    }
}

fn edit(line: usize, file: &Path, old: &str, new: &str) {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("docs/tutorial.md:{line}: {}: {e}", file.display()));
    assert_eq!(
        text.matches(old).count(),
        1,
        "docs/tutorial.md:{line}: {} must hold once:\n{old}\nit is:\n{text}",
        file.display()
    );
    std::fs::write(file, text.replacen(old, new, 1)).unwrap();
}

#[test]
fn the_tutorial_runs_as_written() {
    let page = std::fs::read_to_string(workspace_root().join("docs/tutorial.md")).unwrap();
    let steps = steps(&page);
    let commands: Vec<&str> = steps
        .iter()
        .filter_map(|s| match s {
            Step::Run { command, .. } => Some(command.as_str()),
            _ => None,
        })
        .collect();
    // The page's story, so that a block whose fence changed is not skipped
    // unseen.
    for expected in [
        "wasm-charm init",
        "cargo test",
        "wasm-charm test",
        "wasm-charm run",
        "wasm-charm pack",
    ] {
        assert!(
            commands.iter().any(|c| c.starts_with(expected)),
            "docs/tutorial.md runs no `{expected}`: {commands:?}"
        );
    }
    assert!(steps.iter().any(|s| matches!(s, Step::Edit { .. })));
    assert!(steps.iter().any(|s| matches!(s, Step::Append { .. })));

    let dir = tempfile::tempdir().unwrap();
    let mut cwd = dir.path().to_path_buf();
    for step in &steps {
        match step {
            Step::Run {
                line,
                command,
                shown,
            } => run(*line, command, shown, &mut cwd),
            Step::Edit {
                line,
                file,
                old,
                new,
            } => edit(*line, &cwd.join(file), old, new),
            Step::Append { line, file, text } => {
                let file = cwd.join(file);
                let mut all = std::fs::read_to_string(&file)
                    .unwrap_or_else(|e| panic!("docs/tutorial.md:{line}: {}: {e}", file.display()));
                all.push_str(text);
                std::fs::write(&file, all).unwrap();
            }
        }
    }
}

#[test]
fn a_page_is_read_as_steps() {
    let page = "intro\n\
        ```console\n$ wasm-charm init --profile kubernetes hi\ncreated …\n…\n$ cd hi\n```\n\
        ```sh\nnot run\n```\n\
        ```diff edit=src/lib.rs\n a\n-b\n+c\n\n d\n```\n\
        ```rust append=tests/charm.rs\nfn x() {}\n```\n";
    assert_eq!(
        steps(page),
        [
            Step::Run {
                line: 3,
                command: "wasm-charm init --profile kubernetes hi".into(),
                shown: vec!["created …".into()],
            },
            Step::Run {
                line: 6,
                command: "cd hi".into(),
                shown: Vec::new(),
            },
            Step::Edit {
                line: 11,
                file: "src/lib.rs".into(),
                old: "a\nb\n\nd\n".into(),
                new: "a\nc\n\nd\n".into(),
            },
            Step::Append {
                line: 18,
                file: "tests/charm.rs".into(),
                text: "fn x() {}\n".into(),
            },
        ]
    );
    assert_eq!(
        init_dir("wasm-charm init --profile kubernetes hi"),
        Some("hi")
    );
    assert_eq!(
        init_dir("wasm-charm init hi --profile kubernetes"),
        Some("hi")
    );
    assert!(shown_in(
        "wrote …/build/x.charm: …",
        "a\nwrote /t/build/x.charm: ubuntu\n"
    ));
    assert!(!shown_in(
        "wrote …/build/x.charm: …",
        "wrote /t/build/y.charm: ubuntu\n"
    ));
    assert!(!shown_in("b … a", "a b\n"));
}
