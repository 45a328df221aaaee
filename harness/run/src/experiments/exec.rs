//! Running one cell as a child process, and reading what became of it.
//!
//! The child is `dvemc explore ... --json` (the same executable). Before
//! `exec` it gets an address-space limit (`RLIMIT_AS` = the memory budget),
//! no core dumps, `PR_SET_PDEATHSIG = SIGKILL` so that it dies with the
//! runner, and a process group of its own; when the run is interrupted
//! (SIGINT or SIGTERM) the runner sends it one SIGINT, so that it stops
//! as it would at a Ctrl-C (writing its checkpoint, if it keeps one). The runner reaps it with `wait4`, which also gives its peak
//! resident set and CPU time whatever way it ended, and kills it with
//! `SIGKILL` at the deadline.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::matrix::Cell;
use crate::engine::limits::interrupt;

/// How the child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    Exited(i32),
    Signaled(i32),
    /// Killed by the runner at the deadline.
    Deadline,
}

/// What a child left behind.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildResult {
    pub termination: Termination,
    pub stdout: String,
    /// At most the last [`STDERR_KEEP`] bytes.
    pub stderr: String,
    pub wall_s: f64,
    /// `ru_maxrss` of the child, in bytes (0 if unknown).
    pub max_rss_bytes: u64,
    /// User plus system CPU time.
    pub cpu_s: f64,
}

/// How much of the child's stderr is kept.
pub const STDERR_KEEP: usize = 16 * 1024;

/// Runs cells; the real one spawns processes, tests substitute their own.
pub trait Executor: Sync {
    fn execute(&self, cell: &Cell) -> std::io::Result<ChildResult>;
}

/// Runs each cell as `exe explore ...` (normally `std::env::current_exe()`).
pub struct ProcessExecutor {
    pub exe: std::path::PathBuf,
    pub beem: Option<std::path::PathBuf>,
    /// Where the cells keep their checkpoints (a matrix with
    /// `checkpoints = true`; `matrix::Cell::checkpoint_in`).
    pub checkpoints: Option<std::path::PathBuf>,
}

/// The directory of the checkpoints of the cells of results file `out`:
/// its name with `.checkpoints` for its extension.
pub fn checkpoint_dir(out: &Path) -> std::path::PathBuf {
    out.with_extension("checkpoints")
}

impl Executor for ProcessExecutor {
    fn execute(&self, cell: &Cell) -> std::io::Result<ChildResult> {
        let mut argv = cell.argv(self.beem.as_deref());
        if let Some(dir) = &self.checkpoints {
            std::fs::create_dir_all(dir)?;
            argv.push("--checkpoint".into());
            argv.push(cell.checkpoint_in(dir).display().to_string());
        }
        run_child(&self.exe, &argv, cell.budgets.memory, cell.budgets.deadline())
    }
}

/// Spawns `exe args`, limits its address space to `memory` bytes, kills it
/// after `deadline`, and waits for it.
pub fn run_child(
    exe: &Path,
    args: &[String],
    memory: Option<u64>,
    deadline: Option<Duration>,
) -> std::io::Result<ChildResult> {
    let mut cmd = command(exe, args, memory);
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    let pid = child.id() as libc::pid_t;
    let mut out = child.stdout.take().expect("piped stdout");
    let err = child.stderr.take().expect("piped stderr");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || stderr_tail(err));
    let (status, usage, killed) = reap(pid, start, deadline)?;
    let wall_s = start.elapsed().as_secs_f64();
    // The child is reaped: dropping `child` neither waits nor kills.
    drop(child);
    let stdout = String::from_utf8_lossy(&out_reader.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned();
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Ok(ChildResult {
        termination: termination(status, killed),
        stdout,
        stderr,
        wall_s,
        max_rss_bytes: (usage.ru_maxrss.max(0) as u64) * 1024,
        cpu_s: tv(usage.ru_utime) + tv(usage.ru_stime),
    })
}

/// The command `exe args` with the child's environment and, before `exec`,
/// its death signal, process group, no core dumps and address-space limit.
fn command(exe: &Path, args: &[String], memory: Option<u64>) -> Command {
    let mut cmd = Command::new(exe);
    // One thread unless the cell says --threads: the runner's --jobs
    // count cores (see `runner`).
    // No progress lines: the runner shows its own, and keeps the child's
    // stderr for its errors.
    cmd.env("DVEMC_THREADS", "1")
        .env("DVEMC_NO_PROGRESS", "1")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: the closure runs in the forked child before exec and calls only
    // async-signal-safe functions (getppid, prctl, setrlimit, _exit).
    let parent = unsafe { libc::getpid() };
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The runner may have died between fork and prctl.
            if libc::getppid() != parent {
                libc::_exit(125);
            }
            // A process group of its own: a Ctrl-C at the terminal reaches
            // the runner only, which passes one SIGINT on (a second would
            // end the child at once, its checkpoint unwritten).
            libc::setpgid(0, 0);
            let no_core = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &no_core);
            if let Some(m) = memory {
                let lim = libc::rlimit {
                    rlim_cur: m as libc::rlim_t,
                    rlim_max: m as libc::rlim_t,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    cmd
}

/// The last [`STDERR_KEEP`] bytes of the child's stderr, read to its end.
fn stderr_tail(mut err: impl Read) -> Vec<u8> {
    // Keep the tail only: a chatty child cannot fill our memory.
    let mut kept: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        match err.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                kept.extend_from_slice(&chunk[..n]);
                if kept.len() > 2 * STDERR_KEEP {
                    kept.drain(..kept.len() - STDERR_KEEP);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    if kept.len() > STDERR_KEEP {
        kept.drain(..kept.len() - STDERR_KEEP);
    }
    kept
}

/// Waits for child `pid` (started at `start`), passing an interrupt on and
/// killing it at `deadline`: its wait status, its resource usage, and
/// whether the runner killed it.
fn reap(
    pid: libc::pid_t,
    start: Instant,
    deadline: Option<Duration>,
) -> std::io::Result<(libc::c_int, libc::rusage, bool)> {
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let mut killed = false;
    let mut forwarded = false;
    let mut nap = Duration::from_millis(1);
    loop {
        // SAFETY: plain syscall on our own child.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break;
        }
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if interrupt::requested() && !forwarded {
            // The run is being stopped: the child stops too, as from a
            // Ctrl-C at the terminal (a search with a checkpoint writes
            // it), rather than run to its end unrecorded.
            // SAFETY: `pid` is our unreaped child, so it cannot have been reused.
            unsafe { libc::kill(pid, libc::SIGINT) };
            forwarded = true;
        }
        let elapsed = start.elapsed();
        if let Some(d) = deadline {
            if !killed && elapsed >= d {
                // SAFETY: `pid` is our unreaped child, so it cannot have been reused.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                killed = true;
                continue;
            }
        }
        let mut sleep = nap;
        if let Some(d) = deadline {
            if !killed {
                sleep = sleep
                    .min(d.saturating_sub(elapsed))
                    .max(Duration::from_micros(100));
            }
        }
        std::thread::sleep(sleep);
        nap = (nap * 2).min(Duration::from_millis(20));
    }
    Ok((status, usage, killed))
}

/// How the child ended, from its wait status (`killed`: the runner sent
/// SIGKILL at the deadline).
fn termination(status: libc::c_int, killed: bool) -> Termination {
    if killed && libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGKILL {
        Termination::Deadline
    } else if libc::WIFEXITED(status) {
        Termination::Exited(libc::WEXITSTATUS(status))
    } else if libc::WIFSIGNALED(status) {
        Termination::Signaled(libc::WTERMSIG(status))
    } else {
        Termination::Exited(-1)
    }
}

/// The conventional name of a signal.
pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGABRT => "SIGABRT",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGINT => "SIGINT",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGHUP => "SIGHUP",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGTRAP => "SIGTRAP",
        _ => "signal",
    }
}
