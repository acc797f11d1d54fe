//! No import cycles between the host's modules (issue 15).
//!
//! The host's modules are meant to form layers: the lower ones (text,
//! durations, the charm directory's parsed files, the HTTP client, the event)
//! never reach up into the higher ones (status, probe, model, workload,
//! Pebble, recording, the runtime, dispatch, the simulated Juju …). A type
//! that lives away from its home shows up as an import running back up the
//! layers, and soon as a cycle. This test reads every `.rs` file of
//! `host/src`, collects the module paths each one reaches in code, and fails
//! on a cycle, naming it with the files and lines of each arrow:
//!
//! - [`top_level_modules_form_no_cycle`]: between the top-level modules
//!   (`status -> model -> status`);
//! - [`sibling_files_form_no_cycle`]: the same rule between the files (and
//!   subdirectories) side by side inside each directory module
//!   (`offline/sim.rs` ↔ `offline/secrets.rs`).
//!
//! What counts as an arrow: a path that starts with `crate::`, `super::` or
//! `self::`, in a `use` declaration (`use crate::a::b`, `use crate::{a,
//! b::c}`, `use super::sim::Sim`) or inline in code (`crate::a::f()`), and a
//! path that starts with a name the file bound itself: a child module it
//! declares (`mod http;` … `http::exchange`) or a name it imported (`use
//! crate::probe;` … `probe::scope_name(..)`). Comments, doc comments and
//! string, character and byte literals are not code and are skipped. A path
//! through a directory module's own file (`super::Sim` in `offline/secrets.rs`,
//! `crate::offline::Sim`) counts as an arrow to the sibling that `mod.rs`
//! imports the name from (`use sim::Sim;` there); a name `mod.rs` defines
//! itself is the parent's, not a sibling's, and draws no arrow: the parent
//! declares its children, so arrows between it and them are the tree's
//! shape, not a layering.
//!
//! Test code is left out of the graph: the files named `tests.rs` or
//! `*_tests.rs`, the files under a `tests/` directory, a file that starts
//! `#![cfg(test)]`, and every item under `#[cfg(test)]` (the `mod tests {…}`
//! blocks, a test-only `use`). Tests legitimately reach across the layers —
//! a unit test of the status store builds an event, a probe test a manifest —
//! and that is not a dependency of the code they test. `main.rs`, the binary,
//! sits on top of everything and is not read.

// The reader is test machinery: its lexer and path walk are each one pass,
// read top to bottom.
#![allow(clippy::too_many_lines)]

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// Between the top-level modules of `host/src` (`status`, `model`,
/// `charm_dir`, …): no cycle.
#[test]
fn top_level_modules_form_no_cycle() {
    let graph = Graph::read(&host_sources());
    let report = graph.cycles_under(&[]);
    assert!(
        report.is_empty(),
        "the host's top-level modules import each other in a cycle; move the type to its \
         home so imports run down the layers only\n\n{report}"
    );
}

/// Between the files side by side inside each directory module of
/// `host/src` (`offline/sim.rs` and `offline/secrets.rs`, `probe/run.rs` and
/// `probe/http.rs`, a subdirectory counting as one sibling): no cycle.
///
/// When this was written it failed only inside `host/src/offline/` (the
/// simulated Juju's `sim.rs`, `secrets.rs`, `context.rs` … reach into each
/// other), which the "split" work of issue 15 is untangling. That is the
/// only failure expected here; a cycle named in any other directory is new.
#[test]
fn sibling_files_form_no_cycle() {
    let graph = Graph::read(&host_sources());
    let mut report = String::new();
    for module in graph.directory_modules() {
        if module.is_empty() {
            continue; // the top level: the test above
        }
        report.push_str(&graph.cycles_under(&module));
    }
    assert!(
        report.is_empty(),
        "files inside a directory module import each other in a cycle (inside \
         host/src/offline/ this is known: the split of issue 15 untangles it)\n\n{report}"
    );
}

/// Every `.rs` file under `host/src` but `main.rs`, as (path relative to
/// `src`, text).
fn host_sources() -> Vec<(PathBuf, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let mut dirs = vec![src.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(&src).unwrap().to_path_buf();
                if relative == Path::new("main.rs") {
                    continue;
                }
                let text =
                    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                files.push((relative, text));
            }
        }
    }
    files.sort();
    assert!(
        files.len() > 20,
        "host/src has the host's files: {}",
        src.display()
    );
    files
}

// ---------------------------------------------------------------------------
// The graph reader.

/// A module path, from the crate root: `["offline", "sim"]`.
type ModPath = Vec<String>;

/// One arrow's evidence: the file and line of a path that draws it.
type Site = (PathBuf, usize);

/// What the files of a crate reach: for each file read as code, its module
/// path and the absolute module paths it uses, and the names the file of
/// each module binds (its `use`s and `mod`s), to follow a parent's imports.
struct Graph {
    files: Vec<FileUses>,
    /// Module path → the absolute path each name bound in its file stands for.
    bindings: BTreeMap<ModPath, BTreeMap<String, ModPath>>,
}

struct FileUses {
    path: PathBuf,
    module: ModPath,
    /// (absolute path reached, line).
    uses: Vec<(ModPath, usize)>,
}

impl Graph {
    /// Reads `files` (path relative to the crate's `src`, text); test code
    /// is left out (see the top of this file).
    fn read(files: &[(PathBuf, String)]) -> Graph {
        let mut graph = Graph {
            files: Vec::new(),
            bindings: BTreeMap::new(),
        };
        for (path, text) in files {
            if is_test_file(path) {
                continue;
            }
            let module = module_path(path);
            let tokens = lex(text);
            if starts_cfg_test(&tokens) {
                continue;
            }
            let tokens = without_test_items(tokens);
            let (uses, bindings) = file_uses(&tokens, &module);
            graph.bindings.insert(module.clone(), bindings);
            graph.files.push(FileUses {
                path: path.clone(),
                module,
                uses,
            });
        }
        graph
    }

    /// Every module that has children (the crate root `[]` too), in order.
    fn directory_modules(&self) -> Vec<ModPath> {
        let mut modules = BTreeSet::new();
        for file in &self.files {
            for n in 0..file.module.len() {
                modules.insert(file.module[..n].to_vec());
            }
        }
        modules.into_iter().collect()
    }

    /// The children of `parent`: the next segment of every file's module
    /// path under it.
    fn children(&self, parent: &[String]) -> BTreeSet<String> {
        self.files
            .iter()
            .filter(|f| f.module.len() > parent.len() && f.module.starts_with(parent))
            .map(|f| f.module[parent.len()].clone())
            .collect()
    }

    /// The arrows between the children of `parent`: from the child a file
    /// sits in, to the child a path it uses reaches, each with its sites.
    fn arrows_under(&self, parent: &[String]) -> BTreeMap<(String, String), Vec<Site>> {
        let children = self.children(parent);
        let mut arrows: BTreeMap<(String, String), Vec<Site>> = BTreeMap::new();
        for file in &self.files {
            if file.module.len() <= parent.len() || !file.module.starts_with(parent) {
                continue; // the parent's own file, or elsewhere
            }
            let from = &file.module[parent.len()];
            for (used, line) in &file.uses {
                let Some(to) = self.child_reached(parent, &children, used) else {
                    continue;
                };
                if &to != from {
                    arrows
                        .entry((from.clone(), to))
                        .or_default()
                        .push((file.path.clone(), *line));
                }
            }
        }
        for sites in arrows.values_mut() {
            sites.sort();
            sites.dedup();
        }
        arrows
    }

    /// The child of `parent` that `used` reaches: its next segment when that
    /// is a child; when it is a name the parent's file imported from one of
    /// its children (`use sim::Sim;` in `offline/mod.rs`, reached as
    /// `super::Sim`), that child; otherwise none.
    fn child_reached(
        &self,
        parent: &[String],
        children: &BTreeSet<String>,
        used: &[String],
    ) -> Option<String> {
        let mut used = used.to_vec();
        // A name imported from a name imported …: a few steps at most.
        for _ in 0..4 {
            if used.len() <= parent.len() || !used.starts_with(parent) {
                return None;
            }
            let next = &used[parent.len()];
            if children.contains(next) {
                return Some(next.clone());
            }
            let bound = self.bindings.get(parent)?.get(next)?;
            let mut resolved = bound.clone();
            resolved.extend_from_slice(&used[parent.len() + 1..]);
            used = resolved;
        }
        None
    }

    /// The cycles between the children of `parent`, one paragraph each
    /// (empty when there is none): each strongly connected group of
    /// children, a shortest cycle through it, and the files and lines of
    /// every arrow of that cycle.
    fn cycles_under(&self, parent: &[String]) -> String {
        let arrows = self.arrows_under(parent);
        let mut next: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for (from, to) in arrows.keys() {
            next.entry(from).or_default().insert(to);
            next.entry(to).or_default();
        }
        let place = if parent.is_empty() {
            "top-level modules of host/src".to_string()
        } else {
            format!("host/src/{}/", parent.join("/"))
        };
        let mut report = String::new();
        for group in strongly_connected(&next) {
            if group.len() < 2 {
                continue;
            }
            let cycle = shortest_cycle(&next, &group);
            let _ = writeln!(report, "cycle among the {place}: {}", cycle.join(" -> "));
            if group.len() > cycle.len() - 1 {
                let _ = writeln!(report, "  (one of the cycles through {})", group.join(", "));
            }
            for pair in cycle.windows(2) {
                let sites = &arrows[&(pair[0].to_string(), pair[1].to_string())];
                let _ = writeln!(report, "  {} -> {}:", pair[0], pair[1]);
                for (path, line) in sites {
                    let _ = writeln!(report, "    host/src/{}:{line}", path.display());
                }
            }
            report.push('\n');
        }
        report
    }
}

/// Test code by its file: `tests.rs`, `*_tests.rs`, anything under a
/// `tests/` directory.
fn is_test_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "tests.rs"
        || name.ends_with("_tests.rs")
        || path
            .parent()
            .is_some_and(|dir| dir.components().any(|c| c.as_os_str() == "tests"))
}

/// The module a file holds: `lib.rs` the root, `a/mod.rs` and `a.rs` module
/// `a`, `a/b.rs` module `a::b`.
fn module_path(path: &Path) -> ModPath {
    let mut module: ModPath = path
        .parent()
        .into_iter()
        .flat_map(|p| p.components())
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
    if !(stem == "mod" || (module.is_empty() && stem == "lib")) {
        module.push(stem);
    }
    module
}

// ---------------------------------------------------------------------------
// Tokens: Rust's, as far as paths need — identifiers, `::` and punctuation;
// comments and literals leave nothing but their lines.

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    PathSep,
    Punct(char),
    /// A string, character, byte or number literal, or a lifetime.
    Literal,
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    line: usize,
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn lex(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start_line = line;
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            // Line comments, `///` and `//!` docs among them.
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            // Block comments nest.
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if is_ident_start(c) {
            let begin = i;
            while i < chars.len() && is_ident_char(chars[i]) {
                i += 1;
            }
            let word: String = chars[begin..i].iter().collect();
            let raw_string = matches!(word.as_str(), "r" | "br" | "cr")
                && (at(i) == '"' || (at(i) == '#' && matches!(at(i + 1), '"' | '#')));
            if raw_string {
                let mut hashes = 0;
                while at(i) == '#' {
                    hashes += 1;
                    i += 1;
                }
                i += 1; // the opening quote
                loop {
                    if i >= chars.len() {
                        break;
                    }
                    if chars[i] == '"' && (1..=hashes).all(|h| at(i + h) == '#') {
                        i += 1 + hashes;
                        break;
                    }
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
                tokens.push(Token {
                    tok: Tok::Literal,
                    line: start_line,
                });
            } else if word == "r" && at(i) == '#' && is_ident_start(at(i + 1)) {
                // A raw identifier, `r#type`.
                let begin = i + 1;
                i += 1;
                while i < chars.len() && is_ident_char(chars[i]) {
                    i += 1;
                }
                tokens.push(Token {
                    tok: Tok::Ident(chars[begin..i].iter().collect()),
                    line: start_line,
                });
            } else if matches!(word.as_str(), "b" | "c") && at(i) == '"' {
                i = skip_quoted(&chars, i, '"', &mut line);
                tokens.push(Token {
                    tok: Tok::Literal,
                    line: start_line,
                });
            } else if word == "b" && at(i) == '\'' {
                i = skip_quoted(&chars, i, '\'', &mut line);
                tokens.push(Token {
                    tok: Tok::Literal,
                    line: start_line,
                });
            } else {
                tokens.push(Token {
                    tok: Tok::Ident(word),
                    line: start_line,
                });
            }
        } else if c == '"' {
            i = skip_quoted(&chars, i, '"', &mut line);
            tokens.push(Token {
                tok: Tok::Literal,
                line: start_line,
            });
        } else if c == '\'' {
            if at(i + 1) == '\\' || at(i + 2) == '\'' {
                // A character: `'x'`, `'\n'`, `'\''`, `'\u{1F600}'`.
                i = skip_quoted(&chars, i, '\'', &mut line);
            } else {
                // A lifetime or a label: `'a`, `'static`.
                i += 1;
                while i < chars.len() && is_ident_char(chars[i]) {
                    i += 1;
                }
            }
            tokens.push(Token {
                tok: Tok::Literal,
                line: start_line,
            });
        } else if c.is_ascii_digit() {
            while i < chars.len() && is_ident_char(chars[i]) {
                i += 1;
            }
            tokens.push(Token {
                tok: Tok::Literal,
                line: start_line,
            });
        } else if c == ':' && at(i + 1) == ':' {
            i += 2;
            tokens.push(Token {
                tok: Tok::PathSep,
                line: start_line,
            });
        } else {
            i += 1;
            tokens.push(Token {
                tok: Tok::Punct(c),
                line: start_line,
            });
        }
    }
    tokens
}

/// Past a quoted literal that opens at `chars[open]`, escapes honoured.
fn skip_quoted(chars: &[char], open: usize, quote: char, line: &mut usize) -> usize {
    let mut i = open + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                if chars.get(i + 1) == Some(&'\n') {
                    *line += 1;
                }
                i += 2;
            }
            '\n' => {
                *line += 1;
                i += 1;
            }
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    i
}

fn is_ident(token: Option<&Token>, word: &str) -> bool {
    matches!(token, Some(Token { tok: Tok::Ident(w), .. }) if w == word)
}

fn is_punct(token: Option<&Token>, c: char) -> bool {
    matches!(token, Some(Token { tok: Tok::Punct(p), .. }) if *p == c)
}

/// Whether `#[cfg(test)]` (or with `!`, `inner`) starts at `tokens[i]`;
/// the index past it.
fn cfg_test_at(tokens: &[Token], i: usize, inner: bool) -> Option<usize> {
    let mut j = i;
    if !is_punct(tokens.get(j), '#') {
        return None;
    }
    j += 1;
    if inner {
        if !is_punct(tokens.get(j), '!') {
            return None;
        }
        j += 1;
    }
    let pattern = [
        Tok::Punct('['),
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    for want in pattern {
        if tokens.get(j).map(|t| &t.tok) != Some(&want) {
            return None;
        }
        j += 1;
    }
    Some(j)
}

/// A file that is test code as a whole: `#![cfg(test)]`.
fn starts_cfg_test(tokens: &[Token]) -> bool {
    (0..tokens.len()).any(|i| cfg_test_at(tokens, i, true).is_some())
}

/// Past the bracketed group that opens at `tokens[open]`.
fn past_group(tokens: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    while i < tokens.len() {
        match tokens[i].tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// The tokens without the items under `#[cfg(test)]`: from the attribute
/// to the item's `;` or the end of its `{…}` body.
fn without_test_items(tokens: Vec<Token>) -> Vec<Token> {
    let mut kept = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let Some(mut j) = cfg_test_at(&tokens, i, false) else {
            kept.push(tokens[i].clone());
            i += 1;
            continue;
        };
        // Further attributes of the same item.
        while is_punct(tokens.get(j), '#') && is_punct(tokens.get(j + 1), '[') {
            j = past_group(&tokens, j + 1);
        }
        // `use` after the visibility (`pub`, `pub(crate)`): its `{…}` is a
        // group of paths, not a body.
        let mut k = j;
        if is_ident(tokens.get(k), "pub") {
            k += 1;
            if is_punct(tokens.get(k), '(') {
                k = past_group(&tokens, k);
            }
        }
        let is_use = is_ident(tokens.get(k), "use");
        let mut depth = 0usize;
        while j < tokens.len() {
            match tokens[j].tok {
                Tok::Punct(';') if depth == 0 => {
                    j += 1;
                    break;
                }
                Tok::Punct('{') if depth == 0 && !is_use => {
                    j = past_group(&tokens, j);
                    break;
                }
                Tok::Punct('(' | '[' | '{') => depth += 1,
                Tok::Punct(')' | ']' | '}') => depth = depth.saturating_sub(1),
                _ => {}
            }
            j += 1;
        }
        i = j;
    }
    kept
}

// ---------------------------------------------------------------------------
// Paths.

/// A path as written: its segments (`crate`, `super`, names) and its line.
#[derive(Debug)]
struct Written {
    segments: Vec<String>,
    line: usize,
    /// The module the path is written in (a file's, or an inline `mod`'s
    /// inside it), which `self` and `super` start from.
    module: ModPath,
}

/// The absolute paths a file's code uses, with lines, and the names its
/// file binds at its top (to absolute paths), for the files below it.
fn file_uses(
    tokens: &[Token],
    file_module: &ModPath,
) -> (Vec<(ModPath, usize)>, BTreeMap<String, ModPath>) {
    // Where each token sits: the inline `mod name {…}` blocks.
    let mut module_at = Vec::with_capacity(tokens.len());
    let mut stack: Vec<(String, usize)> = Vec::new(); // (name, brace depth inside)
    let mut depth = 0usize;
    let mut children = BTreeSet::new();
    for (i, token) in tokens.iter().enumerate() {
        let mut module = file_module.clone();
        module.extend(stack.iter().map(|(name, _)| name.clone()));
        module_at.push(module);
        match token.tok {
            Tok::Punct('{') => {
                depth += 1;
                if i >= 2
                    && is_ident(tokens.get(i - 2), "mod")
                    && let Tok::Ident(name) = &tokens[i - 1].tok
                {
                    stack.push((name.clone(), depth));
                }
            }
            Tok::Punct('}') => {
                if stack.last().is_some_and(|(_, d)| *d == depth) {
                    stack.pop();
                }
                depth = depth.saturating_sub(1);
            }
            Tok::Punct(';') => {
                // `mod name;`: a child module in a file of its own.
                if i >= 2
                    && stack.is_empty()
                    && is_ident(tokens.get(i - 2), "mod")
                    && let Tok::Ident(name) = &tokens[i - 1].tok
                {
                    children.insert(name.clone());
                }
            }
            _ => {}
        }
    }

    // The `use` declarations: their paths, and the names they bind.
    let mut written = Vec::new();
    let mut binds: Vec<(String, Written)> = Vec::new();
    let mut in_use = vec![false; tokens.len()];
    let mut i = 0;
    while i < tokens.len() {
        let starts_use = is_ident(tokens.get(i), "use")
            && !matches!(
                tokens.get(i.wrapping_sub(1)).map(|t| &t.tok),
                Some(Tok::PathSep)
            );
        if !starts_use {
            i += 1;
            continue;
        }
        let end = (i..tokens.len())
            .find(|&j| is_punct(tokens.get(j), ';'))
            .unwrap_or(tokens.len());
        for flag in &mut in_use[i..end] {
            *flag = true;
        }
        let mut leaves = Vec::new();
        let mut at = i + 1;
        use_tree(tokens, &mut at, end, Vec::new(), &mut leaves);
        for (segments, bound, line) in leaves {
            let path = Written {
                segments,
                line,
                module: module_at[i].clone(),
            };
            if let Some(name) = bound
                && name != "_"
            {
                binds.push((
                    name,
                    Written {
                        segments: path.segments.clone(),
                        line,
                        module: path.module.clone(),
                    },
                ));
            }
            written.push(path);
        }
        i = end;
    }

    // What each bound name stands for, in order: a `use` may start from a
    // name bound before it.
    let mut bound: BTreeMap<String, ModPath> = children
        .iter()
        .map(|c| {
            let mut path = file_module.clone();
            path.push(c.clone());
            (c.clone(), path)
        })
        .collect();
    for (name, path) in &binds {
        if let Some(absolute) = absolute(path, &bound) {
            bound.insert(name.clone(), absolute);
        } else {
            bound.remove(name); // an outside crate's name shadows
        }
    }

    // Paths inline in code: `crate::a::f()`, `super::X`, `probe::scope_name(..)`.
    for i in 0..tokens.len() {
        if in_use[i] || tokens.get(i + 1).map(|t| &t.tok) != Some(&Tok::PathSep) {
            continue;
        }
        if i > 0 && matches!(tokens[i - 1].tok, Tok::PathSep | Tok::Punct('$')) {
            continue; // the middle of a path, or a macro's `$crate`
        }
        let Tok::Ident(first) = &tokens[i].tok else {
            continue;
        };
        if !(matches!(first.as_str(), "crate" | "super" | "self") || bound.contains_key(first)) {
            continue;
        }
        let mut segments = vec![first.clone()];
        let mut j = i + 1;
        while tokens.get(j).map(|t| &t.tok) == Some(&Tok::PathSep) {
            match tokens.get(j + 1).map(|t| &t.tok) {
                Some(Tok::Ident(name)) => {
                    segments.push(name.clone());
                    j += 2;
                }
                _ => break,
            }
        }
        written.push(Written {
            segments,
            line: tokens[i].line,
            module: module_at[i].clone(),
        });
    }

    let uses = written
        .iter()
        .filter_map(|w| absolute(w, &bound).map(|path| (path, w.line)))
        .collect();
    // A parent's bindings, for its children's `super::Name`: only those at
    // its top matter, and a name bound deeper is rarely reached that way.
    (uses, bound)
}

/// The absolute module path a written path stands for, or none when it
/// starts outside the crate (`std::…`, `serde::…`).
fn absolute(path: &Written, bound: &BTreeMap<String, ModPath>) -> Option<ModPath> {
    let mut segments = path.segments.iter().peekable();
    let mut absolute = match segments.peek()?.as_str() {
        "crate" => {
            segments.next();
            Vec::new()
        }
        "self" => {
            segments.next();
            path.module.clone()
        }
        "super" => {
            let mut module = path.module.clone();
            while segments.peek().is_some_and(|s| *s == "super") {
                segments.next();
                module.pop()?;
            }
            module
        }
        name => {
            let start = bound.get(name)?.clone();
            segments.next();
            start
        }
    };
    absolute.extend(segments.cloned());
    Some(absolute)
}

/// Reads one use tree from `tokens[*at..end]` under `prefix`, pushing its
/// leaves: (path, the name it binds, line). A `{…}` group gives each of its
/// trees the prefix; `self` in a group is the prefix itself; a glob binds
/// nothing.
fn use_tree(
    tokens: &[Token],
    at: &mut usize,
    end: usize,
    prefix: Vec<String>,
    leaves: &mut Vec<(Vec<String>, Option<String>, usize)>,
) {
    let mut path = prefix;
    let line = tokens.get(*at).map_or(0, |t| t.line);
    if tokens.get(*at).map(|t| &t.tok) == Some(&Tok::PathSep) {
        *at += 1; // `use ::std::…`: an outside crate
        path.push("::".into());
    }
    while *at < end {
        match &tokens[*at].tok {
            Tok::Ident(name) if name == "self" && !path.is_empty() => {
                *at += 1;
                let mut bound = path.last().cloned();
                if is_ident(tokens.get(*at), "as") {
                    bound = ident_at(tokens, *at + 1);
                    *at += 2;
                }
                leaves.push((path, bound, line));
                return;
            }
            Tok::Ident(name) => {
                path.push(name.clone());
                *at += 1;
                if tokens.get(*at).map(|t| &t.tok) == Some(&Tok::PathSep) {
                    *at += 1;
                    continue;
                }
                let mut bound = path.last().cloned();
                if is_ident(tokens.get(*at), "as") {
                    bound = ident_at(tokens, *at + 1);
                    *at += 2;
                }
                leaves.push((path, bound, line));
                return;
            }
            Tok::Punct('*') => {
                *at += 1;
                leaves.push((path, None, line));
                return;
            }
            Tok::Punct('{') => {
                *at += 1;
                while *at < end && !is_punct(tokens.get(*at), '}') {
                    use_tree(tokens, at, end, path.clone(), leaves);
                    if is_punct(tokens.get(*at), ',') {
                        *at += 1;
                    } else if !is_punct(tokens.get(*at), '}') {
                        *at += 1; // something this reader does not know; go on
                    }
                }
                *at += 1; // the `}`
                return;
            }
            _ => {
                *at += 1;
                return;
            }
        }
    }
}

fn ident_at(tokens: &[Token], i: usize) -> Option<String> {
    match tokens.get(i).map(|t| &t.tok) {
        Some(Tok::Ident(name)) => Some(name.clone()),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Cycles.

/// The strongly connected groups of a graph (Tarjan's), each sorted.
fn strongly_connected<'a>(next: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> Vec<Vec<&'a str>> {
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        groups: Vec<Vec<&'a str>>,
    }
    fn visit<'a>(node: &'a str, next: &BTreeMap<&'a str, BTreeSet<&'a str>>, s: &mut State<'a>) {
        let n = s.index.len();
        s.index.insert(node, n);
        s.low.insert(node, n);
        s.stack.push(node);
        s.on_stack.insert(node);
        for &to in &next[node] {
            if !s.index.contains_key(to) {
                visit(to, next, s);
                let low = s.low[node].min(s.low[to]);
                s.low.insert(node, low);
            } else if s.on_stack.contains(to) {
                let low = s.low[node].min(s.index[to]);
                s.low.insert(node, low);
            }
        }
        if s.low[node] == s.index[node] {
            let mut group = Vec::new();
            while let Some(top) = s.stack.pop() {
                s.on_stack.remove(top);
                group.push(top);
                if top == node {
                    break;
                }
            }
            group.sort();
            s.groups.push(group);
        }
    }
    let mut state = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        groups: Vec::new(),
    };
    for &node in next.keys() {
        if !state.index.contains_key(node) {
            visit(node, next, &mut state);
        }
    }
    state.groups.sort();
    state.groups
}

/// A shortest cycle through the group's first node, within the group:
/// `[a, b, a]`.
fn shortest_cycle<'a>(
    next: &BTreeMap<&'a str, BTreeSet<&'a str>>,
    group: &[&'a str],
) -> Vec<&'a str> {
    let start = group[0];
    let inside: BTreeSet<&str> = group.iter().copied().collect();
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for &to in &next[node] {
            if !inside.contains(to) {
                continue;
            }
            if to == start {
                let mut cycle = vec![start, node];
                let mut at = node;
                while at != start {
                    at = came_from[at];
                    cycle.push(at);
                }
                cycle.reverse();
                return cycle;
            }
            if to != start && !came_from.contains_key(to) {
                came_from.insert(to, node);
                queue.push_back(to);
            }
        }
    }
    unreachable!("a strongly connected group of two or more has a cycle through each node")
}

// ---------------------------------------------------------------------------
// The reader's own tests.

fn files(list: &[(&str, &str)]) -> Vec<(PathBuf, String)> {
    list.iter()
        .map(|(path, text)| (PathBuf::from(path), text.to_string()))
        .collect()
}

#[test]
fn reader_finds_a_tiny_cycle_and_names_its_arrows() {
    let graph = Graph::read(&files(&[
        ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
        ("a.rs", "use crate::b::Thing;\n"),
        (
            "b.rs",
            "pub struct Thing;\n\nfn f() {\n    crate::a::g();\n}\n",
        ),
        ("c.rs", "use crate::{a, b::Thing};\n"),
    ]));
    let report = graph.cycles_under(&[]);
    assert!(report.contains("a -> b -> a"), "{report}");
    assert!(
        report.contains("a -> b:\n    host/src/a.rs:1\n"),
        "{report}"
    );
    assert!(
        report.contains("b -> a:\n    host/src/b.rs:4\n"),
        "{report}"
    );
    assert!(!report.contains("c ->"), "c is outside the cycle: {report}");
}

#[test]
fn reader_ignores_comments_docs_strings_and_test_code() {
    let graph = Graph::read(&files(&[
        ("a.rs", "use crate::b::Thing;\n"),
        (
            "b.rs",
            concat!(
                "//! Seen by [`crate::a::g`].\n",
                "// use crate::a::g;\n",
                "/* crate::a::g() /* nested */ crate::a::h() */\n",
                "/// `crate::a::g`\n",
                "pub struct Thing;\n",
                "const S: &str = \"crate::a::g\";\n",
                "const R: &str = r#\"use crate::a::g; \"#;\n",
                "const C: char = '\\'';\n",
                "fn f<'a>(x: &'a str) -> &'a str { x }\n",
                "#[cfg(test)]\n",
                "mod tests {\n    use crate::a::g;\n}\n",
                "#[cfg(test)]\n",
                "use crate::a::h;\n",
            ),
        ),
        ("tests/x.rs", "use crate::a;\n"),
        ("b_tests.rs", "use crate::a;\n"),
    ]));
    assert_eq!(graph.cycles_under(&[]), "");
    let arrows = graph.arrows_under(&[]);
    assert_eq!(
        arrows.keys().cloned().collect::<Vec<_>>(),
        vec![("a".to_string(), "b".to_string())]
    );
}

#[test]
fn reader_sees_siblings_through_super_the_parent_and_bound_names() {
    let graph = Graph::read(&files(&[
        ("lib.rs", "pub mod m;\n"),
        (
            "m/mod.rs",
            "mod one;\nmod two;\nmod three;\nuse two::Two;\n",
        ),
        // Through a name `mod.rs` imported from `two`.
        ("m/one.rs", "fn f() -> super::Two { todo!() }\n"),
        // Through an imported module and an inline path after it.
        ("m/two.rs", "use crate::m::three;\nfn f() { three::go() }\n"),
        ("m/three.rs", "use super::{one::f};\n"),
    ]));
    let arrows = graph.arrows_under(&["m".to_string()]);
    let pairs: Vec<_> = arrows.keys().cloned().collect();
    let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        pairs,
        vec![
            pair("one", "two"),
            pair("three", "one"),
            pair("two", "three")
        ]
    );
    assert_eq!(
        arrows[&pair("two", "three")],
        vec![
            (PathBuf::from("m/two.rs"), 1),
            (PathBuf::from("m/two.rs"), 2)
        ]
    );
    let report = graph.cycles_under(&["m".to_string()]);
    assert!(report.contains("one -> two -> three -> one"), "{report}");
    assert!(report.contains("host/src/m/"), "{report}");
}
