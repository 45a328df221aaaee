//! Iterative depth-bounded DFS (`algo::dbdfs`): dbdfs.

use super::{threads_refusal, Algorithm, Found, Search};
use crate::algo::dbdfs::{self, FrontierKind, Variant};
use crate::output::record::{DbdfsMetrics, RunRecord};
use crate::run::request::{Request, RunError};
use crate::run::strategy::{Params, Strategy};

/// dbdfs.
pub(super) struct DepthBounded;

impl Algorithm for DepthBounded {
    fn validate(&self, strategy: Strategy, _: &[&str], p: &Params) -> Result<(), String> {
        if let Some(why) = p.store.and_then(dbdfs::store_refusal) {
            return Err(why);
        }
        threads_refusal(self, strategy, p)
    }

    fn sequential(&self, strategy: Strategy) -> Option<String> {
        Some(format!(
            "{strategy} is sequential, each iteration one depth-first search"
        ))
    }

    fn product_refusal(&self, strategy: Strategy) -> Option<String> {
        Some(format!("--strategy {strategy} explores plain systems"))
    }

    fn run(&self, s: Search<'_>, rec: &mut RunRecord) -> Result<Found, RunError> {
        let opts = options(s.req, s.p);
        let r = dbdfs::dbdfs(s.model, &opts).map_err(RunError::usage)?;
        record(&r, &opts, rec);
        Ok(Found::default())
    }
}

/// The search's options from the request.
fn options(req: &Request, p: &Params) -> dbdfs::Options {
    dbdfs::Options {
        depth_cutoff: p.dbdfs.depth_cutoff,
        increment: p.dbdfs.increment.unwrap_or(50),
        variant: p.dbdfs.variant.unwrap_or(Variant::Threshold),
        frontier: p.dbdfs.frontier.unwrap_or(FrontierKind::Tree),
        limits: req.limits,
        meter: req.meter.clone(),
        record_frontiers: false,
        verify_rebuild: false,
        store: p.store.unwrap_or_default(),
    }
}

/// The search's report into the run's record.
fn record(r: &dbdfs::Report, opts: &dbdfs::Options, rec: &mut RunRecord) {
    rec.core.store = opts.store.to_string();
    rec.core.result = r.result;
    rec.core.states = r.states;
    rec.core.expansions = Some(r.expansions);
    rec.core.revisits = Some(r.revisits);
    rec.core.transitions = r.transitions;
    rec.core.max_depth = Some(r.max_depth_explored as u64);
    rec.details.frontier_sizes = Some(r.frontier_sizes.clone());
    rec.cost.store_bytes = Some(r.store_bytes + r.table_bytes);
    rec.cost.frontier_bytes = Some(r.frontier_bytes);
    rec.cost.peak_rss_bytes = r.peak_rss_bytes;
    rec.details.iterations = serde_json::to_value(&r.iterations).ok();
    rec.dbdfs = Some(DbdfsMetrics {
        dbdfs: Some(r.dbdfs.to_string()),
        frontier: Some(r.frontier.to_string()),
        depth_cutoff: r.depth_cutoff.map(u64::from),
        increment: Some(r.increment as u64),
        state_space_exhausted: Some(r.state_space_exhausted),
        get_state_time_s: Some(r.get_state_time_s),
        replay_steps: Some(r.replay_steps),
    });
    rec.finish_rates(r.time_s);
}
