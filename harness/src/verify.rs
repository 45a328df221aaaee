//! `dvemc verify-properties`, `verify-jit` and `verify-beem`: the
//! verifications over the whole BEEM suite (`make verify-...`), a line
//! per model as it is done, then the summary; exit 1 when something
//! differs that no note explains.

use std::path::Path;

use anyhow::Result;
use dvemc_run::engine::StoreKind;
use dvemc_run::model::beem::Beem;

use crate::{EXIT_OK, EXIT_VIOLATED};

/// Every BEEM property with a recorded answer, on instances of at most
/// `max_states` states.
pub fn properties(max_states: u64, out: &Path, beem: Option<&Path>) -> Result<u8> {
    let beem = Beem::locate(beem)?;
    let rows = dvemc_run::experiments::verify::verify_properties(&beem, max_states, out, |r| {
        eprintln!(
            "{:<24} #{:<2} {:<12} BEEM {:<3} ours {:<7} {:<5} cex {:>5} / BEEM {:>5} {:>8.2} s",
            r.instance,
            r.prop_id,
            r.kind,
            r.beem_answer,
            r.answer,
            if r.matches { "ok" } else { "DIFF" },
            r.cex_length.map(|c| c.to_string()).unwrap_or("-".into()),
            r.beem_cex_length.map(|c| c.to_string()).unwrap_or("-".into()),
            r.seconds
        );
    })?;
    let matched = rows.iter().filter(|r| r.matches).count();
    let by = |k: &str| rows.iter().filter(|r| r.kind == k).count();
    println!(
        "{matched} of {} properties match BEEM ({} reachability, {} LTL; instances up to {max_states} states)",
        rows.len(),
        by("reachability"),
        by("LTL")
    );
    for r in rows.iter().filter(|r| !r.matches) {
        let note = if r.note.is_empty() {
            "UNEXPLAINED".to_string()
        } else {
            r.note.clone()
        };
        println!(
            "differs: {} #{} ({}): BEEM {}, ours {}: {note}",
            r.instance, r.prop_id, r.kind, r.beem_answer, r.answer
        );
    }
    println!("report: {}", out.display());
    Ok(if rows.iter().any(|r| r.unexplained()) {
        EXIT_VIOLATED
    } else {
        EXIT_OK
    })
}

/// The JIT against the interpreter on every BEEM file.
pub fn jit(max_states: usize, jobs: usize, out: &Path, beem: Option<&Path>) -> Result<u8> {
    let beem = Beem::locate(beem)?;
    let rows = dvemc_run::experiments::verify::verify_jit(&beem, max_states, jobs, out, |r| {
        eprintln!(
            "{:<32} {:<13} {:>10} states {:>11} transitions {:>8.1} ms {:>8.2} s",
            r.model, r.result, r.states, r.transitions, r.compile_ms, r.seconds
        );
        if !r.detail.is_empty() && r.result != "unsupported" {
            eprintln!("{}", r.detail);
        }
    })?;
    let count = |what: &str| rows.iter().filter(|r| r.result == what).count();
    let (states, transitions) = rows
        .iter()
        .fold((0, 0), |(s, t), r| (s + r.states, t + r.transitions));
    let mut ms: Vec<f64> = rows
        .iter()
        .filter(|r| r.result == "same" || r.result == "too_large")
        .map(|r| r.compile_ms)
        .collect();
    ms.sort_by(f64::total_cmp);
    println!(
        "{} files: {} identical on their whole state space (up to {max_states} states), {} identical on their first {max_states} states, {} differ, {} unsupported, {} failed to load or compile; {states} states and {transitions} transitions compared",
        rows.len(),
        count("same"),
        count("too_large"),
        count("differs"),
        count("unsupported"),
        count("load_error") + count("compile_error"),
    );
    if let (Some(max), false) = (ms.last(), ms.is_empty()) {
        println!(
            "compile time: median {:.1} ms, max {:.1} ms",
            ms[ms.len() / 2],
            max
        );
    }
    println!("report: {}", out.display());
    let bad = rows.len() - count("same") - count("too_large");
    Ok(if bad == 0 { EXIT_OK } else { EXIT_VIOLATED })
}

/// Every complete BEEM instance of at most `max_states` states, explored
/// and compared with BEEM's counts.
pub fn beem(
    max_states: u64,
    out: &Path,
    memory_limit: Option<u64>,
    store: StoreKind,
    beem: Option<&Path>,
) -> Result<u8> {
    let beem = Beem::locate(beem)?;
    let summary =
        dvemc_run::experiments::verify::verify_beem(&beem, max_states, memory_limit, store, out, |r| {
            eprintln!(
                "{:<28} {:>10} {:>10} {:<5} {:>8.2} s",
                r.instance,
                r.expected,
                r.got,
                if r.matches { "ok" } else { "FAIL" },
                r.seconds
            );
        })?;
    dvemc_run::experiments::verify::print_summary(&mut std::io::stdout().lock(), &summary, max_states)?;
    println!("report: {}", out.display());
    Ok(if summary.matched() == summary.rows.len() {
        EXIT_OK
    } else {
        EXIT_VIOLATED
    })
}
