//! Where a row came from: dvemc's version, the source tree's commit, the
//! machine. Gathered once per `bench run`.

use std::path::Path;
use std::process::Command;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// `CARGO_PKG_VERSION` of the harness crate.
    pub version: String,
    /// `git rev-parse HEAD` of the source tree the binary was built from,
    /// with `-dirty` when tracked files differ from it; `unknown` when the
    /// tree is not there (a binary moved to another machine).
    pub git_commit: String,
    /// `uname -n`.
    pub host: String,
    /// `model name` of /proc/cpuinfo, with the number of online CPUs.
    pub cpu: String,
}

impl Provenance {
    pub fn gather() -> Provenance {
        Provenance {
            version: env!("CARGO_PKG_VERSION").to_string(),
            git_commit: git_commit(Path::new(env!("CARGO_MANIFEST_DIR"))),
            host: hostname(),
            cpu: cpu_model(),
        }
    }
}

/// The commit of the git work tree at `dir` (run time: the tree the binary
/// was built from, found through the crate's manifest directory).
pub fn git_commit(dir: &Path) -> String {
    if let Ok(v) = std::env::var("DVEMC_GIT_COMMIT") {
        if !v.is_empty() {
            return v;
        }
    }
    let run = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let Some(head) = run(&["rev-parse", "HEAD"]).filter(|h| !h.is_empty()) else {
        return "unknown".into();
    };
    let dirty = run(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    if dirty {
        format!("{head}-dirty")
    } else {
        head
    }
}

fn hostname() -> String {
    // SAFETY: utsname is plain old data; uname fills it.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut u) } == 0 {
        let bytes: Vec<u8> = u
            .nodename
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        let s = String::from_utf8_lossy(&bytes).into_owned();
        if !s.is_empty() {
            return s;
        }
    }
    "unknown".into()
}

fn cpu_model() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name") || l.starts_with("Model") || l.starts_with("cpu model"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.split_whitespace().collect::<Vec<_>>().join(" "))
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let n = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    format!("{model} ({n} CPUs)")
}
