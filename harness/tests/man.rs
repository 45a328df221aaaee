//! The committed man pages (man/) and shell completions (completions/) are
//! what the command line generates now.

use std::path::Path;

mod common;
use common::dvemc::{workspace, Dvemc, TempDir};

const STALE: &str = "is not what the command line generates now: run `make man` and commit the result";

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            e.expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn man_pages_are_current() {
    let scratch = TempDir::new("man");
    let dir = scratch.join("man");
    let o = Dvemc::new().arg("man").arg(&dir).run();
    assert_eq!(
        o.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let committed = workspace().join("man");
    let generated = files_in(&dir);
    for page in [
        "dvemc.1",
        "dvemc-explore.1",
        "dvemc-verify-jit.1",
        "dvemc-bench-run.1",
    ] {
        assert!(
            generated.iter().any(|g| g == page),
            "{page} missing: {generated:?}"
        );
    }
    assert_eq!(files_in(&committed), generated, "the pages in man/ {STALE}");
    for page in &generated {
        let new = std::fs::read(dir.join(page)).expect("reading a generated page");
        let old = std::fs::read(committed.join(page)).expect("reading a committed page");
        assert!(new == old, "man/{page} {STALE}");
    }
    let explore = std::fs::read_to_string(dir.join("dvemc-explore.1")).expect("the page");
    for section in [".SH \"EXIT STATUS\"", ".SH BUDGETS", ".SH \"SEE ALSO\""] {
        assert!(explore.contains(section), "dvemc-explore.1 lacks {section}");
    }
}

#[test]
fn completions_are_current() {
    for (shell, file) in [("bash", "dvemc.bash"), ("zsh", "_dvemc"), ("fish", "dvemc.fish")] {
        let o = Dvemc::new().args(["completions", shell]).run();
        assert_eq!(o.status.code(), Some(0), "{shell}");
        let script = String::from_utf8_lossy(&o.stdout);
        assert!(script.contains("max-states"), "{shell}: {script}");
        let path = workspace().join("completions").join(file);
        let committed =
            std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}; run `make man`", path.display()));
        assert!(o.stdout == committed, "completions/{file} {STALE}");
    }
}
