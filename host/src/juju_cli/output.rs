//! What a command prints, gathered while it runs (one command at a time
//! on a thread), so the same command answers a terminal and the harness.

use std::cell::RefCell;

/// A command's output and exit code.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Answered {
    pub code: u8,
    pub stdout: String,
    pub stderr: String,
}

thread_local! {
    static GATHERED: RefCell<Option<Answered>> = const { RefCell::new(None) };
}

/// Append `text` to the running command's stderr (`err`) or stdout; out of
/// a command, straight to the process's.
pub fn push(err: bool, text: String) {
    let kept = GATHERED.with(|g| match g.borrow_mut().as_mut() {
        Some(a) => {
            if err {
                a.stderr.push_str(&text)
            } else {
                a.stdout.push_str(&text)
            }
            true
        }
        None => false,
    });
    if !kept {
        if err {
            eprint!("{text}");
        } else {
            print!("{text}");
        }
    }
}

/// What the running command has printed on stdout so far, taken from it
/// (`-o FILE` sends it there); empty out of a command.
pub fn take_stdout() -> String {
    GATHERED.with(|g| {
        g.borrow_mut()
            .as_mut()
            .map(|a| std::mem::take(&mut a.stdout))
            .unwrap_or_default()
    })
}

/// Run `command`, gathering what it prints; its return is the exit code.
pub fn capture(command: impl FnOnce() -> u8) -> Answered {
    GATHERED.with(|g| *g.borrow_mut() = Some(Answered::default()));
    let code = command();
    let mut answered = GATHERED.with(|g| g.borrow_mut().take()).unwrap_or_default();
    answered.code = code;
    answered
}
