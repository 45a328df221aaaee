//! Where a matrix named on the command line is: the path as given (from
//! the working directory), else the same relative path in the source tree
//! dvemc was built from (`beem/matrices/quick.toml` works from any
//! directory), else, for a bare name (`quick` or `quick.toml`), the
//! matrices directory: `$DVEMC_MATRICES`, else the source tree's
//! `beem/matrices`. Paths inside a matrix are relative to its file
//! (`Matrix::expand`), so they hold wherever it was found.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

/// The environment variable naming a directory of matrices looked up by
/// bare name.
pub const MATRICES_ENV: &str = "DVEMC_MATRICES";

/// The source tree's root (two folders above this crate), as built.
fn source_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// The places `arg` may name, in the order they are tried.
fn candidates(arg: &Path) -> Vec<PathBuf> {
    let mut out = vec![arg.to_path_buf()];
    if arg.is_absolute() {
        return out;
    }
    let root = source_root();
    out.push(root.join(arg));
    let bare = arg.components().count() == 1;
    if bare {
        let dirs = match std::env::var_os(MATRICES_ENV) {
            Some(d) => vec![PathBuf::from(d)],
            None => vec![root.join("beem/matrices")],
        };
        for d in dirs {
            out.push(d.join(arg));
            if arg.extension().is_none() {
                out.push(d.join(arg).with_extension("toml"));
            }
        }
    }
    out
}

/// The file `arg` names (see the module's doc), or an error listing where
/// it was looked for.
pub fn locate(arg: &Path) -> Result<PathBuf> {
    let tried = candidates(arg);
    if let Some(found) = tried.iter().find(|p| p.is_file()) {
        // Tidy (`.../harness/../beem`) for the messages and the runs'
        // provenance; the file exists, so this succeeds but for odd
        // permissions.
        return Ok(if found == arg {
            found.clone()
        } else {
            found.canonicalize().unwrap_or_else(|_| found.clone())
        });
    }
    let list: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
    bail!(
        "matrix {} not found (looked for {}; a bare name is looked up in ${MATRICES_ENV} or the source tree's beem/matrices)",
        arg.display(),
        list.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_name_and_a_clone_path_find_the_source_trees_matrix() {
        let want = source_root()
            .join("beem/matrices/quick.toml")
            .canonicalize()
            .unwrap();
        if std::env::var_os(MATRICES_ENV).is_none() {
            assert_eq!(locate(Path::new("quick")).unwrap(), want);
            assert_eq!(locate(Path::new("quick.toml")).unwrap(), want);
        }
        assert_eq!(
            locate(Path::new("beem/matrices/quick.toml"))
                .unwrap()
                .canonicalize()
                .unwrap(),
            want
        );
        assert_eq!(locate(&want).unwrap(), want);
        let err = locate(Path::new("no-such-matrix")).unwrap_err().to_string();
        assert!(err.starts_with("matrix no-such-matrix not found"), "{err}");
        assert!(err.contains("no-such-matrix.toml"), "{err}");
        // A path with a directory is not looked up as a bare name.
        assert!(locate(Path::new("elsewhere/quick.toml")).is_err());
    }
}
