//! One run of one configuration: the library behind `dvemc explore` and
//! every cell of `dvemc bench`.
//!
//! A [`Request`] names the model, the strategy and its parameters (checked
//! by [`validate`]: the option table, `options`, then the strategy's
//! family, `family`), the budgets and the properties. [`run`] loads the
//! model, builds the backend, runs the family's algorithm
//! (`family::Algorithm`) and returns one [`RunRecord`] (`crate::output::record`) with the
//! counterexample, if any. Nothing here prints: the command line does.
//!
//! Uses: `algo`, `output`, `model`, `engine`.

pub mod distributed;
pub mod exhaustive;
pub mod por_check;
pub mod replay;
pub mod simulate;
pub mod strategy;

mod check_states;
mod export;
mod family;
mod guards;
mod ltl_por;
pub mod memory_budget;
pub mod options;
mod request;
mod resolve;

pub use family::validate;
pub use guards::arm_guard_reports;
pub use request::{default_threads, ErrorKind, Ran, Request, RunError};
pub use resolve::{known_size, ltl_definitions, resolve_model};
use resolve::{load, Loaded};

use dve_frontend::model::NextState;

use crate::algo::caching::Independence;
use crate::algo::check::{self};
use crate::engine::{self};
use crate::model::backend::{self, Backend};
use crate::output::record::{Core, Cost, RunRecord};
use strategy::{Family, Params, Strategy};

/// The run's configuration: the strategy and its parameters
/// ([`options::config_text`]), then the properties it checks, so that
/// `dvemc explore MODEL --strategy CONFIG` re-runs the same search. An
/// option is given where the registry takes it, and `--check` where the
/// checks differ from explore's default (the assertions, if the model has
/// any): a library request that checks nothing explores as `bfs` does.
fn config_text(strategy: Strategy, p: &Params, req: &Request, has_asserts: bool) -> String {
    let takes = |flag: &str| family::validate(strategy, &[flag], p).is_ok();
    let mut parts = vec![options::config_text(strategy, p)];
    if let Some(c) = &req.cluster {
        parts.push("--distributed".into());
        if c.1 == crate::engine::comm::Partitioning::Local {
            parts.push("--partition local".into());
        }
    }
    if takes("goal") {
        parts.extend(
            req.goals
                .iter()
                .map(|g| format!("--goal {}", strategy::shell_word(g))),
        );
    }
    if let Some(n) = req.property.filter(|_| takes("property")) {
        parts.push(format!("--property {n}"));
    }
    match &req.ltl {
        Some(dve_frontend::ltl::Spec::Formula { text, .. }) => {
            parts.push(format!("--ltl {}", strategy::shell_word(text)));
        }
        Some(dve_frontend::ltl::Spec::File { path, index }) => parts.push(format!(
            "--ltl-file {} --ltl-property {index}",
            strategy::shell_word(&path.display().to_string())
        )),
        None => {}
    }
    let c = req.checks;
    if (c.deadlock || c.error || (has_asserts && !c.assert)) && takes("check") {
        parts.push(format!("--check {}", req.checks.option_value()));
    }
    if req.all_violations && takes("all-violations") {
        parts.push("--all-violations".into());
    }
    if req.ignore_property {
        parts.push("--ignore-property".into());
    }
    parts.join(" ")
}

/// The parameters as the run takes them: an exhaustive breadth-first run
/// takes the default threads unless told (the parallel search has the same
/// counters); a property process needs a strategy that searches products.
fn resolve_params(req: &Request, strategy: Strategy, general: bool, ltl: bool) -> Result<Params, RunError> {
    let p = &req.params;
    let mut resolved = p.clone();
    if p.threads.is_none()
        && req.cluster.is_none()
        && strategy == Strategy::Bfs
        && !general
        && !ltl
        && p.store.unwrap_or_default() == engine::StoreKind::Exact
    {
        resolved.threads = req.default_threads.filter(|&t| t > 1);
    }
    if let Some(why) = family::algorithm(strategy, p)
        .product_refusal(strategy)
        .filter(|_| ltl)
    {
        return Err(RunError::usage(format!(
            "{why}: this model has a property process (LTL needs bfs, dfs or bbmc; or use --ignore-property)"
        )));
    }
    Ok(resolved)
}

/// The backend the request names, with the goals and assertions as state
/// functions (the JIT compiles them with the model).
fn build_backend(
    req: &Request,
    ir: &dve_frontend::ir::Model,
    goals: &[check::Goal],
    notes: &mut Vec<String>,
) -> Result<backend::Built, engine::Outcome> {
    if let Some(m) = &req.meter {
        m.set_phase(if req.backend == Backend::Jit {
            "compiling"
        } else {
            "building"
        });
    }
    let built = backend::build_guarded(ir.clone(), req.backend, check::state_functions(ir, goals))?;
    if let Some(why) = &built.fallback {
        notes.push(format!(
            "the JIT declined this model ({why}); using the interpreter"
        ));
    }
    Ok(built)
}

/// The record of a run stopped before its search began (Ctrl-C or the time
/// budget while the model was loaded or compiled; a signal while loading is
/// seen once the model is loaded): no counters, the result.
fn stopped_before_search(
    req: &Request,
    strategy: Strategy,
    config: String,
    ir: &dve_frontend::ir::Model,
    loaded: (String, Option<String>),
    result: engine::Outcome,
    mut notes: Vec<String>,
) -> Ran {
    let (model, instance) = loaded;
    notes.push(format!(
        "stopped ({result}) while the model was loaded or compiled, before the search"
    ));
    Ran {
        record: RunRecord {
            core: Core {
                model,
                instance,
                strategy: strategy.to_string(),
                config,
                backend: req.backend.name().to_string(),
                store: "exact".into(),
                state_len: ir.state_len as u64,
                seed: req.params.seed,
                result,
                ..Core::default()
            },
            cost: Cost {
                setup_rss_bytes: engine::peak_rss_bytes(),
                peak_rss_bytes: engine::peak_rss_bytes(),
                ..Cost::default()
            },
            ..RunRecord::default()
        },
        trace: None,
        info: dve_frontend::interp::model_info(ir),
        notes,
        reference: None,
    }
}

/// Runs the request; see the module documentation.
pub fn run(req: &Request) -> Result<Ran, RunError> {
    // The time budget covers the whole run.
    let _watchdog = crate::engine::guard::Watchdog::start(req.limits.time);
    let strategy = req.strategy.unwrap_or(Strategy::Bfs);
    let p = &req.params;
    family::validate_request(strategy, req)?;
    if let Some(b) = &req.beem {
        if !b.is_dir() {
            return Err(RunError::input(format!(
                "BEEM directory {} does not exist",
                b.display()
            )));
        }
    }
    let mut notes = Vec::new();

    let Loaded {
        ir,
        goals,
        progress_exprs,
        digest,
        instance,
        display_name,
        beem_ltl,
        formula,
    } = load(req, &p.caching.progress, &mut notes)?;
    let ltl = ir.property.is_some();
    let general = strategy.family() == Family::Caching || p.general_algorithm();
    let resolved = resolve_params(req, strategy, general, ltl)?;
    let p = &resolved;
    let independence = (general && p.caching.edge_lean).then(|| Independence::from_model(&ir));
    let has_asserts = ir.processes.iter().any(|pr| !pr.asserts.is_empty());
    let built = match build_backend(req, &ir, &goals, &mut notes) {
        Ok(b) => b,
        Err(stop) => {
            return Ok(stopped_before_search(
                req,
                strategy,
                config_text(strategy, p, req, has_asserts),
                &ir,
                (display_name, instance),
                stop,
                notes,
            ))
        }
    };
    let model: &dyn NextState = built.model();
    let system = (p.por && ir.property.is_some()).then(|| built.system()).flatten();
    let info = model.info().clone();
    if let Some(m) = &req.meter {
        m.set_phase("exploring");
    }
    crate::engine::guard::searching();

    let mut rec = RunRecord {
        core: Core {
            model: display_name,
            instance: instance.clone(),
            strategy: strategy.to_string(),
            config: config_text(strategy, p, req, has_asserts),
            backend: built.backend.name().to_string(),
            store: "exact".into(),
            state_len: model.state_len() as u64,
            seed: p.seed,
            ..Core::default()
        },
        cost: Cost {
            compile_ms: (built.backend == Backend::Jit).then_some(built.compile_ms),
            setup_rss_bytes: engine::peak_rss_bytes(),
            ..Cost::default()
        },
        ..RunRecord::default()
    };
    let search = family::Search {
        model,
        system: system.as_deref(),
        ir: &ir,
        info: &info,
        strategy,
        req,
        p,
        goals,
        has_asserts,
        digest,
        instance: instance.as_deref(),
        stated: (beem_ltl.as_deref(), formula.as_ref()),
        progress_exprs,
        independence: independence.as_ref(),
        notes: &mut notes,
    };
    let family::Found { trace, reference } = family::algorithm(strategy, p).run(search, &mut rec)?;
    if let Some((stem, cycle)) = trace.as_ref().and_then(engine::Trace::lasso) {
        rec.core.stem_length = Some(stem as u64);
        rec.core.cycle_length = Some(cycle as u64);
    }
    rec.details.trace = trace
        .as_ref()
        .map(|t| crate::output::counterexample::to_json(&info, t));
    Ok(Ran {
        record: rec,
        trace,
        info,
        notes,
        reference,
    })
}
