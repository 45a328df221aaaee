//! The documentation, run: every ```console block of README.md and of
//! docs/src/**/*.md is a trycmd case (`$ dvemc ...`, `? CODE` for a
//! non-zero exit, then the output), executed against the built binary, so
//! that the pages cannot drift from the tool; and every relative link of
//! those pages names a file of the repository.
//!
//! Convention: a page shows a real run's output whole. The figures that vary
//! from run to run (times, rates, memory, the BEEM directory's path) are
//! masked as `[..]` in a copy of each page ([`MASKS`]) before trycmd
//! compares it; everything else is checked as shown. Commands run in a
//! fresh directory holding a link to the repository's `beem/` (so
//! `beem/matrices/...` works as from the repository's root), with
//! `BEEM_DIR` set to the workspace's `../shared/beem`, `DVEMC_THREADS=2`
//! (the pages were recorded on two cores) and no progress line.
//! `TRYCMD=overwrite cargo test --release -p harness --test docs` records
//! every block again from a fresh run, into the pages themselves.

use std::path::{Path, PathBuf};

use regex::Regex;

/// (pattern, replacement) applied to each output line of a copy, in order.
const MASKS: &[(&str, &str)] = &[
    // Summary lines whose value is a time, a rate or a size.
    (
        r"^(time|states/s|compile ms|store bytes|frontier bytes|bytes/state|peak resident mem|resident after setup|get state time|por select cpu|full time):(\s+).*$",
        "${1}:${2}[..]",
    ),
    // The BEEM directory's and the executable's places on this machine.
    (r#"[^\s"]*/beem/dve/"#, "[..]/beem/dve/"),
    (r"--beem \S+", "--beem [..]"),
    (r"\S*/dvemc explore ", "[..]/dvemc explore "),
    // Durations, with the blanks that align them.
    (r" *\b\d+(\.\d+)? ?(µs|ms|s)\b *", "[..]"),
    // bench run: the estimate of the time left, and the summary's
    // median states/s and wall seconds.
    (r"~[0-9.]+ [a-z]+ left", "[..]"),
    (r"\d+ +\d+\.\d+$", "[..]"),
    // JSON fields that are times, rates or sizes.
    (
        r#""(time_s|states_per_s|compile_ms|peak_rss_bytes|setup_rss_bytes|store_bytes|frontier_bytes|bytes_per_state|get_state_time_s|por_select_s|por_check_full_s|cpu_s|wall_s|bytes)":[-0-9.e+]+"#,
        "\"${1}\":[..]",
    ),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("workspace root")
}

/// README.md and every page under docs/src, as paths relative to the root.
fn pages(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("dir entry").path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let mut out = vec![root.join("README.md")];
    walk(&root.join("docs/src"), &mut out);
    out.into_iter()
        .map(|p| p.strip_prefix(root).expect("under root").to_path_buf())
        .collect()
}

/// `text` with the output lines of its console blocks masked.
fn masked(text: &str, masks: &[(Regex, &str)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_console = false;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        let mut body = body.to_string();
        if body.starts_with("```") {
            in_console = !in_console && body.trim_start_matches('`').trim() == "console";
        } else if in_console && !["$ ", "> ", "? "].iter().any(|p| body.starts_with(p)) {
            for (re, with) in masks {
                body = re.replace_all(&body, *with).into_owned();
            }
            while body.contains("[..][..]") {
                body = body.replace("[..][..]", "[..]");
            }
        }
        out.push_str(&body);
        if line.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// A page's copy's name in the scratch directory.
fn flat(page: &Path) -> String {
    page.to_string_lossy().replace('/', "__")
}

#[test]
fn every_command_of_the_docs_gives_the_output_shown() {
    let root = root();
    let beem = root.join("../shared/beem");
    assert!(beem.join("dve").is_dir(), "BEEM not found at {}", beem.display());
    let overwrite = std::env::var("TRYCMD").is_ok_and(|v| v == "overwrite");
    let masks: Vec<(Regex, &str)> = MASKS
        .iter()
        .map(|(p, w)| (Regex::new(p).expect("mask"), *w))
        .collect();

    let scratch = std::env::temp_dir().join(format!("dvemc-docs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).expect("scratch directory");
    let pages = pages(&root);
    for page in &pages {
        let text = std::fs::read_to_string(root.join(page)).expect("page");
        let copy = scratch.join(flat(page));
        std::fs::write(&copy, if overwrite { text } else { masked(&text, &masks) }).expect("copy");
        // The commands' working directory (trycmd's `NAME.in`).
        let cwd = copy.with_extension("in");
        std::fs::create_dir_all(&cwd).expect("cwd");
        std::os::unix::fs::symlink(root.join("beem"), cwd.join("beem")).expect("beem link");
    }

    trycmd::TestCases::new()
        .register_bin("dvemc", Path::new(env!("CARGO_BIN_EXE_dvemc")))
        .env("BEEM_DIR", beem.canonicalize().expect("BEEM").to_string_lossy())
        .env("DVEMC_THREADS", "2")
        .env("DVEMC_NO_PROGRESS", "1")
        .case(scratch.join("*.md"))
        .run();

    if overwrite {
        for page in &pages {
            let recorded = std::fs::read_to_string(scratch.join(flat(page))).expect("copy");
            std::fs::write(root.join(page), recorded).expect("page");
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn every_relative_link_of_the_docs_names_a_file() {
    let root = root();
    let link = Regex::new(r"\]\(([^)\s]+)\)|^\[[^\]]+\]:\s*(\S+)").expect("regex");
    let mut broken = Vec::new();
    for page in pages(&root) {
        let text = std::fs::read_to_string(root.join(&page)).expect("page");
        let mut in_code = false;
        for (n, line) in text.lines().enumerate() {
            if line.starts_with("```") {
                in_code = !in_code;
            }
            if in_code {
                continue;
            }
            for c in link.captures_iter(line) {
                let target = c.get(1).or(c.get(2)).expect("a group").as_str();
                if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
                    continue;
                }
                let file = target.split('#').next().expect("path");
                let dir = root.join(&page).parent().expect("dir").to_path_buf();
                if !dir.join(file).exists() {
                    broken.push(format!("{}:{}: {target}", page.display(), n + 1));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to files not in the repository:\n{}",
        broken.join("\n")
    );
}

/// Every file of the repository (its path from the root), but the build's
/// and git's.
fn repository_files(root: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let p = e.expect("dir entry").path();
            let name = p.file_name().expect("name").to_string_lossy();
            if name.starts_with('.') || name == "target" {
                continue;
            }
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.push(
                    p.strip_prefix(root)
                        .expect("under root")
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out
}

/// A source or document file the guide names in backquotes
/// (`harness/run/src/run/mod.rs`, `sema/mod.rs`, `grammar.lalrpop`) is in the
/// repository: at that path from the root or the page, or as the end of a
/// path in it. (Data files, `instances.csv`, are BEEM's.)
#[test]
fn every_source_file_the_docs_name_is_in_the_repository() {
    let root = root();
    let files = repository_files(&root);
    let named = Regex::new(r"`([A-Za-z0-9_./-]+\.(?:rs|md|toml|py|lalrpop))`").expect("regex");
    let mut missing = Vec::new();
    for page in pages(&root) {
        let text = std::fs::read_to_string(root.join(&page)).expect("page");
        let dir = root.join(&page).parent().expect("dir").to_path_buf();
        let mut in_code = false;
        for (n, line) in text.lines().enumerate() {
            if line.starts_with("```") {
                in_code = !in_code;
            }
            if in_code {
                continue;
            }
            for c in named.captures_iter(line) {
                let f = &c[1];
                let found = root.join(f).exists()
                    || dir.join(f).exists()
                    || files.iter().any(|p| p == f || p.ends_with(&format!("/{f}")));
                if !found {
                    missing.push(format!("{}:{}: {f}", page.display(), n + 1));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "files the docs name that are not in the repository:\n{}",
        missing.join("\n")
    );
}

/// The README's list of the guide names every page of the guide's table of
/// contents (but the introduction, which the README itself is).
#[test]
fn the_readme_lists_every_page_of_the_guide() {
    let root = root();
    let summary = std::fs::read_to_string(root.join("docs/src/SUMMARY.md")).expect("SUMMARY.md");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let link = Regex::new(r"\]\(([^)\s#]+)\)").expect("regex");
    let unlisted: Vec<String> = link
        .captures_iter(&summary)
        .map(|c| c[1].to_string())
        .filter(|page| page != "introduction.md")
        .filter(|page| !readme.contains(&format!("](docs/src/{page})")))
        .collect();
    assert!(
        unlisted.is_empty(),
        "pages of docs/src/SUMMARY.md the README's documentation list omits: {unlisted:?}"
    );
}
