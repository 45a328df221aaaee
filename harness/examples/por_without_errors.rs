//! What preserving run-time errors costs the reduction: explores a model
//! (one thread, breadth-first, deadlocks only) reduced as `explore --por`
//! reduces it, and reduced as if no step could err, as LTSmin's DVE front
//! end assumes (it has no error state); prints both counts as JSON.
//!
//! ```text
//! cargo run --release --example por_without_errors -- MODEL.dve
//! ```
//!
//! The second reduction may lose the error state, so dvemc does not offer
//! it; `scripts/bench_por.py --attribute` runs this beside LTSmin to say
//! why dvemc keeps more states than LTSmin where it does.

use std::process::ExitCode;

use dvemc_run::algo::por::Por;
use dvemc_run::engine::Outcome;
use dvemc_run::model::backend::{build, Backend};
use dvemc_run::run::exhaustive::{explore, ExploreOptions};

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: por_without_errors MODEL.dve");
        return ExitCode::from(2);
    };
    let ir = match dve_frontend::load_file(std::path::Path::new(&path)) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(3);
        }
    };
    let opts = ExploreOptions::default();
    let with = explore(
        &Por::new(&ir, build(ir.clone(), Backend::Jit).into_model()),
        &opts,
    );
    let without = explore(
        &Por::assuming_no_errors(&ir, build(ir.clone(), Backend::Jit).into_model()),
        &opts,
    );
    let complete = |o: Outcome| o == Outcome::Complete;
    let out = serde_json::json!({
        "model": path,
        "complete": complete(with.core.result) && complete(without.core.result),
        "states": with.core.states,
        "states_without_errors": without.core.states,
        "time_s": with.cost.time_s,
        "time_without_errors_s": without.cost.time_s,
    });
    println!("{out}");
    ExitCode::SUCCESS
}
