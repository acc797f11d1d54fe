//! The hook-tool calls a deadline cut: a handler stopped at its deadline
//! while it waited on a tool is reported naming that tool, not only the
//! deadline.

use crate::hook_tools::{HookTools, ToolOutput};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The event's hook tools, remembering the tools whose call was stopped at
/// its deadline (`ErrorKind::TimedOut`) since the last [`CutCalls::take`].
pub struct CutCalls {
    inner: Arc<dyn HookTools>,
    cut: Mutex<Vec<String>>,
}

impl CutCalls {
    pub fn new(inner: Arc<dyn HookTools>) -> Self {
        CutCalls {
            inner,
            cut: Mutex::default(),
        }
    }

    /// The tools cut since the last call, oldest first.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.cut.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl HookTools for CutCalls {
    fn call(
        &self,
        tool: &str,
        args: &[&str],
        stdin: Option<&[u8]>,
        deadline: Instant,
    ) -> std::io::Result<ToolOutput> {
        let result = self.inner.call(tool, args, stdin, deadline);
        if let Err(e) = &result
            && e.kind() == std::io::ErrorKind::TimedOut
        {
            self.cut
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(tool.to_string());
        }
        result
    }
}

/// `why` a handler trapped, naming the tool a deadline cut while it ran.
pub fn naming_the_cut(why: String, cut: &[String]) -> String {
    match cut.last() {
        Some(tool) if why.contains("time limit") => {
            format!("{why}; it was waiting for `{tool}`, which was killed")
        }
        _ => why,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Slow;

    impl HookTools for Slow {
        fn call(
            &self,
            _: &str,
            _: &[&str],
            _: Option<&[u8]>,
            _: Instant,
        ) -> std::io::Result<ToolOutput> {
            Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "killed"))
        }
    }

    #[test]
    fn a_call_cut_at_its_deadline_is_named() {
        let tools = CutCalls::new(Arc::new(Slow));
        assert!(tools.call("config-get", &[], None, Instant::now()).is_err());
        let cut = tools.take();
        assert_eq!(cut, ["config-get"]);
        assert!(tools.take().is_empty());
        let why = naming_the_cut("exceeded its time limit of 5 ms".into(), &cut);
        assert_eq!(
            why,
            "exceeded its time limit of 5 ms; it was waiting for `config-get`, which was killed"
        );
        assert_eq!(naming_the_cut("panicked".into(), &cut), "panicked");
    }
}
