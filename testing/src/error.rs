//! Why a charm could not be built or an event not run.

/// Why a charm could not be built or an event not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The project could not be packed, or the directory is no charm.
    Build(String),
    /// `wasm-charm run` refuses the run (it would exit 2): an event the
    /// charm cannot receive, a flag or parameter that does not fit it, a
    /// state naming what the charm does not declare.
    Usage(String),
    /// A state or section the state file does not take.
    State(String),
    /// The temporary state or workload root could not be written or read,
    /// or `wasm-charm` could not be started (the message says how to
    /// install it) or answered out of the protocol.
    Io(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Error::Build(m) | Error::Usage(m) | Error::State(m) | Error::Io(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}
