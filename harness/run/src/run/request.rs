//! What a run is asked ([`Request`]), what it gives back ([`Ran`]), and
//! why it could not happen ([`RunError`]: a usage or an input error).

use crate::algo::check::Checks;
use crate::engine::{self, Limits, Trace};
use crate::model::backend::Backend;
use crate::output::record::RunRecord;
use crate::run::strategy::{Params, Strategy};
use dve_frontend::model::ModelInfo;
use std::path::PathBuf;

/// What to run.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// A `.dve` file or a BEEM instance name; `None`: the built-in example.
    pub model: Option<PathBuf>,
    pub beem: Option<PathBuf>,
    pub strategy: Option<Strategy>,
    pub params: Params,
    pub limits: Limits,
    pub backend: Backend,
    /// Reachability goals (DVE expressions).
    pub goals: Vec<String>,
    /// A BEEM property of the instance (properties.csv).
    pub property: Option<u32>,
    /// An LTL property (`--ltl`, `--ltl-file`): its automaton becomes the
    /// model's property process. A formula without definitions over a BEEM
    /// instance gets its family's propositions.
    pub ltl: Option<dve_frontend::ltl::Spec>,
    pub checks: Checks,
    pub all_violations: bool,
    pub ignore_property: bool,
    /// The BFS level table and the BEEM reference figures.
    pub stats: bool,
    /// The options given on the command line (flags without dashes), for
    /// the registry's checks.
    pub given: Vec<String>,
    /// Where the search publishes its counters (the progress line).
    pub meter: Option<engine::progress::Meter>,
    /// Threads of an exhaustive breadth-first run (search or check, exact
    /// store, no LTL property) when `params.threads` is not set; `None`:
    /// one. The command line sets it to the machine's cores.
    pub default_threads: Option<usize>,
    /// The ranks of a distributed search (`--distributed`, an MPI job):
    /// an exhaustive BFS or safety check over all of them.
    pub cluster: Option<engine::comm::Cluster>,
}

/// What a run gives back.
pub struct Ran {
    pub record: RunRecord,
    /// The counterexample or witness, if any.
    pub trace: Option<Trace>,
    /// To print the trace.
    pub info: ModelInfo,
    /// Things worth telling on standard error (the property checked, a JIT
    /// fallback, an exhaustive run made first).
    pub notes: Vec<String>,
    /// The BEEM figures of the instance (`--stats`).
    pub reference: Option<crate::model::beem::StatFile>,
}

/// Why a run could not happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// A bad option or combination (exit 2).
    Usage,
    /// A missing or unreadable file, a malformed model (exit 3).
    Input,
}

#[derive(Debug, Clone)]
pub struct RunError {
    pub kind: ErrorKind,
    pub message: String,
    pub file: Option<String>,
    pub line: Option<u64>,
    pub column: Option<u64>,
}

impl RunError {
    pub fn usage(m: impl Into<String>) -> RunError {
        RunError {
            kind: ErrorKind::Usage,
            message: m.into(),
            file: None,
            line: None,
            column: None,
        }
    }
    pub fn input(m: impl Into<String>) -> RunError {
        RunError {
            kind: ErrorKind::Input,
            ..RunError::usage(m)
        }
    }
    pub(crate) fn load(e: dve_frontend::LoadError) -> RunError {
        match &e {
            dve_frontend::LoadError::Io { path, .. }
            | dve_frontend::LoadError::NoSuchProperty { path, .. } => RunError {
                file: Some(path.display().to_string()),
                ..RunError::input(e.to_string())
            },
            dve_frontend::LoadError::Model(d) => {
                let pos = d.first_position();
                RunError {
                    file: Some(d.file.clone()),
                    line: pos.map(|p| p.0 as u64),
                    column: pos.map(|p| p.1 as u64),
                    ..RunError::input(e.to_string())
                }
            }
        }
    }
    pub fn exit_code(&self) -> u8 {
        match self.kind {
            ErrorKind::Usage => 2,
            ErrorKind::Input => 3,
        }
    }
    pub fn to_record(&self) -> crate::output::record::ErrorRecord {
        crate::output::record::ErrorRecord {
            error: match self.kind {
                ErrorKind::Usage => "usage",
                ErrorKind::Input => "input",
            },
            message: self.message.clone(),
            file: self.file.clone(),
            line: self.line,
            column: self.column,
            exit_code: self.exit_code(),
        }
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RunError {}

/// The threads of an exhaustive breadth-first run without --threads: the
/// environment's `DVEMC_THREADS` (the bench runner sets 1 for its
/// children), else every core.
pub fn default_threads() -> Result<usize, RunError> {
    match std::env::var("DVEMC_THREADS") {
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(t) if (1..=1024).contains(&t) => Ok(t),
            _ => Err(RunError::usage(format!(
                "DVEMC_THREADS={v}: must be a number of threads from 1 to 1024"
            ))),
        },
        Err(_) => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}
