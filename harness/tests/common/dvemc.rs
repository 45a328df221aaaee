//! Running the `dvemc` binary from a test: a command builder, what its
//! output says (exit code, text, the JSON record), and the files a test
//! writes for it.

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_dvemc");

/// The repository's root (models are named relative to it).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The path of a model of `beem/examples`, as an argument.
pub fn example(name: &str) -> String {
    let path = workspace().join("beem/examples").join(name);
    path.to_str().expect("utf-8 path").to_string()
}

/// `dvemc args`, as [`Dvemc::run`] runs it.
pub fn dvemc(args: &[&str]) -> Output {
    Dvemc::new().args(args).run()
}

/// A `dvemc` command: `Dvemc::new().args(..).env(..).stdin(..).run()`.
pub struct Dvemc {
    cmd: Command,
    input: Option<Vec<u8>>,
}

impl Default for Dvemc {
    fn default() -> Dvemc {
        Dvemc::new()
    }
}

impl Dvemc {
    pub fn new() -> Dvemc {
        Dvemc {
            cmd: Command::new(BIN),
            input: None,
        }
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Dvemc {
        self.cmd.arg(arg);
        self
    }

    pub fn args<S: AsRef<OsStr>>(mut self, args: impl IntoIterator<Item = S>) -> Dvemc {
        self.cmd.args(args);
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Dvemc {
        self.cmd.env(key, value);
        self
    }

    pub fn env_remove(mut self, key: &str) -> Dvemc {
        self.cmd.env_remove(key);
        self
    }

    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Dvemc {
        self.cmd.current_dir(dir);
        self
    }

    /// Runs in the repository's root.
    pub fn in_workspace(mut self) -> Dvemc {
        self.cmd.current_dir(workspace());
        self
    }

    /// Feeds `input` on standard input (else it is inherited).
    pub fn stdin(mut self, input: &str) -> Dvemc {
        self.input = Some(input.as_bytes().to_vec());
        self
    }

    /// Runs it to its end.
    pub fn run(mut self) -> Output {
        let Some(input) = self.input else {
            return self.cmd.output().expect("running dvemc");
        };
        let mut child = self.cmd.stdin(Stdio::piped()).spawn_piped();
        let mut pipe = child.stdin.take().expect("stdin");
        // dvemc may exit before reading (usage errors): ignore a closed pipe.
        let _ = pipe.write_all(&input);
        drop(pipe);
        child.wait_with_output().expect("waiting for dvemc")
    }

    /// The command as built, for what the builder does not offer.
    pub fn command(self) -> Command {
        self.cmd
    }

    /// Starts it with its output piped, for a test that signals it.
    pub fn spawn(mut self) -> Child {
        self.cmd.spawn_piped()
    }
}

trait SpawnPiped {
    fn spawn_piped(&mut self) -> Child;
}

impl SpawnPiped for Command {
    fn spawn_piped(&mut self) -> Child {
        self.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("running dvemc")
    }
}

/// The exit code (-1 if killed by a signal).
pub fn exit_code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The JSON record: standard output is one line, one JSON object.
pub fn json(o: &Output) -> serde_json::Value {
    let text = stdout(o);
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("no output; stderr: {}", stderr(o)));
    assert!(lines.next().is_none(), "more than one line on stdout: {text}");
    serde_json::from_str(first).unwrap_or_else(|e| panic!("not JSON ({e}): {first}\nstderr: {}", stderr(o)))
}

/// The JSON record if standard output is one, else `Null`.
pub fn json_or_null(o: &Output) -> serde_json::Value {
    serde_json::from_str(stdout(o).trim()).unwrap_or(serde_json::Value::Null)
}

/// A fresh directory of the temporary directory, with a name unique to
/// this run, removed on drop unless the test failed (to look into).
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("dvemc-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("creating a temporary directory");
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// The path of `file` in it.
    pub fn join(&self, file: impl AsRef<Path>) -> PathBuf {
        self.0.join(file)
    }

    /// The path of `file` in it, as an argument.
    pub fn s(&self, file: &str) -> String {
        self.join(file)
            .to_str()
            .expect("utf-8 temporary path")
            .to_string()
    }

    /// Writes `contents` to `file` in it; its path, as an argument.
    pub fn write(&self, file: &str, contents: impl AsRef<[u8]>) -> String {
        std::fs::write(self.join(file), contents).expect("writing a temporary file");
        self.s(file)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// A file of its own temporary directory, for tests that keep a model
/// file as long as a value lives.
pub struct TempFile {
    _dir: TempDir,
    path: String,
}

impl TempFile {
    /// `stem.dve` holding `contents`.
    pub fn new(stem: &str, contents: impl AsRef<[u8]>) -> TempFile {
        let dir = TempDir::new("file");
        let path = dir.write(&format!("{stem}.dve"), contents);
        TempFile { _dir: dir, path }
    }

    pub fn path(&self) -> &str {
        &self.path
    }
}
