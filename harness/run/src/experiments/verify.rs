//! `dvemc verify-beem`: explore every complete BEEM instance up to a size
//! and compare the state count with `instances.csv`.
//!
//! The CSV is written to a temporary file beside the target and renamed
//! when the run ends, so an interrupted run leaves no partial report.

use crate::model::beem::Beem;
use crate::run::exhaustive::{explore, ExploreOptions, Limits, Outcome, Traversal};
use anyhow::{Context, Result};
use dve_frontend::model::NextState;
use serde::Serialize;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// One row of `results/beem-verify.csv`.
#[derive(Clone, Debug, Serialize)]
pub struct VerifyRow {
    pub instance: String,
    pub expected: u64,
    pub got: u64,
    #[serde(rename = "match")]
    pub matches: bool,
    pub seconds: f64,
    pub bytes_per_state: f64,
    /// `complete`, or the budget or error that ended the run.
    pub result: String,
}

pub struct VerifySummary {
    pub rows: Vec<VerifyRow>,
    pub skipped_larger: usize,
}

impl VerifySummary {
    pub fn matched(&self) -> usize {
        self.rows.iter().filter(|r| r.matches).count()
    }
}

/// Explores, with BFS, every `complete=yes` instance of at most `max_states`
/// states (by BEEM's count), smallest first. `memory_limit` bounds each run.
pub fn verify_beem(
    beem: &Beem,
    max_states: u64,
    memory_limit: Option<u64>,
    store: crate::engine::StoreKind,
    out: &Path,
    mut progress: impl FnMut(&VerifyRow),
) -> Result<VerifySummary> {
    let rows = beem.instances().context("reading instances.csv")?;
    let mut todo: Vec<(String, u64)> = rows
        .iter()
        .filter(|r| r.complete)
        .filter_map(|r| r.states.map(|s| (r.instance.clone(), s)))
        .collect();
    let total = todo.len();
    todo.retain(|(_, s)| *s <= max_states);
    todo.sort_by_key(|(_, s)| *s);
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let tmp = out.with_extension("csv.tmp");
    let mut writer = csv::Writer::from_path(&tmp).with_context(|| format!("writing {}", tmp.display()))?;
    let mut done = Vec::new();
    for (name, expected) in todo {
        let start = Instant::now();
        let row = match dve_frontend::load_file(&beem.model_path(&name)) {
            Err(e) => VerifyRow {
                instance: name.clone(),
                expected,
                got: 0,
                matches: false,
                seconds: 0.0,
                bytes_per_state: 0.0,
                result: format!("load error: {}", e.to_string().lines().next().unwrap_or("")),
            },
            Ok(ir) => {
                let model: Box<dyn NextState> = Box::new(dve_frontend::interp::Interpreter::new(ir));
                let opts = ExploreOptions {
                    traversal: Traversal::Bfs,
                    limits: Limits {
                        memory_bytes: memory_limit,
                        ..Default::default()
                    },
                    level_table: false,
                    meter: None,
                    store,
                    threads: 1,
                };
                let r = explore(model.as_ref(), &opts);
                VerifyRow {
                    instance: name.clone(),
                    expected,
                    got: r.core.states,
                    matches: r.core.result.is_complete() && r.core.states == expected,
                    seconds: start.elapsed().as_secs_f64(),
                    bytes_per_state: r.cost.bytes_per_state.unwrap_or(0.0),
                    result: r.core.result.name().to_string(),
                }
            }
        };
        writer.serialize(&row)?;
        writer.flush()?;
        progress(&row);
        done.push(row);
    }
    writer.flush()?;
    drop(writer);
    std::fs::rename(&tmp, out).with_context(|| format!("renaming {} to {}", tmp.display(), out.display()))?;
    Ok(VerifySummary {
        skipped_larger: total - done.len(),
        rows: done,
    })
}

/// One row of `results/jit-verify.csv`.
#[derive(Clone, Debug, Serialize)]
pub struct JitVerifyRow {
    /// The file name without `.dve` (instances and their `.propN` products).
    pub model: String,
    /// `same` (whole state space compared, no difference), `too_large`
    /// (more than the limit: the first states compared, no difference),
    /// `differs`, `unsupported`, `compile_error`, `load_error`.
    pub result: String,
    pub states: u64,
    pub transitions: u64,
    pub compile_ms: f64,
    pub seconds: f64,
    /// The first difference or error.
    pub detail: String,
}

/// Compares the JIT with the interpreter on every file of the suite
/// (`dve/*.dve`: instances and property products), on whole state spaces of
/// up to `max_states` states (larger ones: their first `max_states` states,
/// marked `too_large`), `jobs` files at a time. Written to `out` (through a
/// temporary file) in file-name order.
pub fn verify_jit(
    beem: &Beem,
    max_states: usize,
    jobs: usize,
    out: &Path,
    progress: impl Fn(&JitVerifyRow) + Sync,
) -> Result<Vec<JitVerifyRow>> {
    use jit::differential::{compare_file, Verdict};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let dir = beem.root().join("dve");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "dve"))
        .collect();
    files.sort();
    let next = AtomicUsize::new(0);
    let rows = Mutex::new(Vec::new());
    std::thread::scope(|sc| {
        for _ in 0..jobs.max(1) {
            sc.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(i) else { break };
                let c = compare_file(path, max_states);
                let first_line = |m: &str| m.lines().next().unwrap_or("").to_string();
                let (result, detail) = match &c.verdict {
                    Verdict::Same { complete: true } => ("same", String::new()),
                    Verdict::Same { complete: false } => ("too_large", String::new()),
                    Verdict::Differs(m) => ("differs", m.clone()),
                    Verdict::Unsupported(m) => ("unsupported", m.clone()),
                    Verdict::CompileError(m) => ("compile_error", first_line(m)),
                    Verdict::LoadError(m) => ("load_error", first_line(m)),
                };
                let row = JitVerifyRow {
                    model: path
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    result: result.to_string(),
                    states: c.states,
                    transitions: c.transitions,
                    compile_ms: c.compile_time.as_secs_f64() * 1e3,
                    seconds: c.time.as_secs_f64(),
                    detail,
                };
                progress(&row);
                rows.lock().expect("no panic while holding the lock").push(row);
            });
        }
    });
    let mut rows = rows.into_inner().expect("no panic while holding the lock");
    rows.sort_by(|a, b| a.model.cmp(&b.model));
    if let Some(d) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    let tmp = out.with_extension("csv.tmp");
    let mut writer = csv::Writer::from_path(&tmp).with_context(|| format!("writing {}", tmp.display()))?;
    for r in &rows {
        writer.serialize(r)?;
    }
    writer.flush()?;
    drop(writer);
    std::fs::rename(&tmp, out).with_context(|| format!("renaming {} to {}", tmp.display(), out.display()))?;
    Ok(rows)
}

/// The closing summary, one paragraph.
pub fn print_summary(out: &mut impl Write, s: &VerifySummary, max_states: u64) -> std::io::Result<()> {
    let states: u64 = s.rows.iter().map(|r| r.got).sum();
    let secs: f64 = s.rows.iter().map(|r| r.seconds).sum();
    writeln!(
        out,
        "{} of {} complete instances up to {} states match BEEM exactly ({} states in {:.1} s); {} larger instances not run",
        s.matched(),
        s.rows.len(),
        max_states,
        states,
        secs,
        s.skipped_larger
    )?;
    for r in s.rows.iter().filter(|r| !r.matches) {
        writeln!(
            out,
            "MISMATCH {}: expected {}, got {} ({})",
            r.instance, r.expected, r.got, r.result
        )?;
    }
    Ok(())
}

/// One row of `results/properties-verify.csv`.
#[derive(Clone, Debug, Serialize)]
pub struct PropertyRowResult {
    pub instance: String,
    pub prop_id: u32,
    #[serde(rename = "type")]
    pub kind: String,
    pub beem_answer: String,
    /// Our answer in BEEM's terms (reachability: goal reachable; LTL: the
    /// formula holds).
    pub answer: String,
    #[serde(rename = "match")]
    pub matches: bool,
    pub beem_cex_length: Option<u64>,
    pub cex_length: Option<usize>,
    pub states: u64,
    pub seconds: f64,
    pub result: String,
    /// Why a row does not count: the product did not fit the budget, or a
    /// documented discrepancy of BEEM's own data.
    pub note: String,
}

impl PropertyRowResult {
    /// A difference that is not explained (and so a failure).
    pub fn unexplained(&self) -> bool {
        !self.matches && self.note.is_empty()
    }
}

/// Properties whose recorded BEEM answer comes from a different formula
/// than properties.csv shows.
pub fn known_discrepancy(family: &str, prop_id: u32) -> Option<&'static str> {
    match (family, prop_id) {
        ("brp2", 1) => Some(
            "BEEM substituted rb1 = (Receiver->triple & 4) == 4 into rfsf && (not rb1) without parentheses; \
             `not` binds tighter than `==`, so BEEM's goal is never true",
        ),
        _ => None,
    }
}

/// Checks every BEEM property with a recorded answer whose instance has at
/// most `max_states` states (BEEM's count for the plain instance; the
/// product of an LTL property is bounded by the same number of states):
/// reachability goals by BFS (shortest counterexamples), LTL properties by
/// nested DFS on `<instance>.propN.dve`.
pub fn verify_properties(
    beem: &Beem,
    max_states: u64,
    out: &Path,
    mut progress: impl FnMut(&PropertyRowResult),
) -> Result<Vec<PropertyRowResult>> {
    use crate::algo::check::{check, CheckOptions, Checks, Goal, Search, Verdict};
    use crate::model::beem::{Answer, PropertyKind};
    let sizes: std::collections::HashMap<String, u64> = beem
        .instances()?
        .into_iter()
        .filter(|r| r.complete)
        .filter_map(|r| r.states.map(|s| (r.instance, s)))
        .collect();
    let mut props: Vec<_> = beem
        .properties()?
        .into_iter()
        .filter(|p| p.beem_answer != Answer::Unknown)
        .filter(|p| sizes.get(&p.instance).is_some_and(|&s| s <= max_states))
        .collect();
    props.sort_by_key(|p| (sizes[&p.instance], p.instance.clone(), p.prop_id));
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = out.with_extension("csv.tmp");
    let mut writer = csv::Writer::from_path(&tmp).with_context(|| format!("writing {}", tmp.display()))?;
    let mut rows = Vec::new();
    for p in props {
        let start = Instant::now();
        let ltl = p.kind == PropertyKind::Ltl;
        let (path, exprs) = if ltl {
            (beem.property_model_path(&p.instance, p.prop_id), vec![])
        } else {
            (beem.model_path(&p.instance), vec![p.formula.clone()])
        };
        let mut row = PropertyRowResult {
            instance: p.instance.clone(),
            prop_id: p.prop_id,
            kind: if ltl { "LTL" } else { "reachability" }.into(),
            beem_answer: if p.beem_answer == Answer::Yes { "yes" } else { "no" }.into(),
            answer: String::new(),
            matches: false,
            beem_cex_length: p.cex_length,
            cex_length: None,
            states: 0,
            seconds: 0.0,
            result: String::new(),
            note: String::new(),
        };
        let opts = dve_frontend::LoadOptions {
            exprs,
            ..Default::default()
        };
        match dve_frontend::load_file_with(&path, &opts) {
            Err(e) => row.result = format!("load error: {}", e.to_string().lines().next().unwrap_or("")),
            Ok(loaded) => {
                let goals = loaded
                    .exprs
                    .iter()
                    .map(|e| Goal {
                        text: p.formula.clone(),
                        expr: e.clone(),
                    })
                    .collect();
                let model = dve_frontend::interp::Interpreter::new(loaded.model.clone());
                let opts = CheckOptions {
                    search: if ltl { Search::Ndfs } else { Search::Bfs },
                    checks: Checks::default(),
                    goals,
                    all_violations: false,
                    limits: Limits {
                        max_states: Some(max_states),
                        ..Default::default()
                    },
                    meter: None,
                };
                let r = check(&model, &loaded.model, &opts);
                row.states = r.counters.states;
                row.cex_length = r.cex_length;
                row.result = r.counters.result.name().into();
                let violated = r.verdict == Verdict::Violated;
                row.answer = match r.verdict {
                    Verdict::Unknown => "unknown".into(),
                    // LTL: BEEM records whether the formula holds.
                    _ if ltl => if violated { "no" } else { "yes" }.into(),
                    _ => if violated { "yes" } else { "no" }.into(),
                };
                row.matches = row.answer == row.beem_answer;
                if !row.matches {
                    if r.counters.result != Outcome::Complete {
                        row.note = format!("not decided within {max_states} states");
                    } else if let Some(why) = known_discrepancy(&p.family, p.prop_id) {
                        row.note = format!("known: {why}");
                    }
                }
            }
        }
        row.seconds = start.elapsed().as_secs_f64();
        writer.serialize(&row)?;
        writer.flush()?;
        progress(&row);
        rows.push(row);
    }
    drop(writer);
    std::fs::rename(&tmp, out)?;
    Ok(rows)
}
