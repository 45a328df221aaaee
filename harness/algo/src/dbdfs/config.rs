//! What a dbdfs search is asked: its variant, its frontier representation
//! and its options, and the stores it can search in.

use dvemc_engine::names::either;
use dvemc_engine::progress::Meter;
use dvemc_engine::{Limits, StoreKind};
use serde::Serialize;
use strum::VariantNames;

/// The bounded DFS procedure of each iteration.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    strum::Display,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::VariantNames,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case", parse_err_ty = String, parse_err_fn = unknown_variant)]
pub enum Variant {
    /// Fig. 3: explore each state once (unsound).
    NaiveUnsound,
    /// Fig. 5: keep minimum depths, re-explore at smaller depths.
    NaiveSound,
    /// Fig. 6: keep thresholds.
    Threshold,
}

impl Variant {
    pub const ALL: [Variant; 3] = [Variant::NaiveUnsound, Variant::NaiveSound, Variant::Threshold];
    pub fn name(self) -> &'static str {
        self.into()
    }
}

fn unknown_variant(s: &str) -> String {
    format!(
        "unknown dbdfs variant `{s}` (expected {})",
        either(Variant::VARIANTS)
    )
}

/// How frontier states are kept between iterations.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    strum::Display,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::VariantNames,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case", parse_err_ty = String, parse_err_fn = unknown_frontier)]
pub enum FrontierKind {
    States,
    Traces,
    Tree,
}

impl FrontierKind {
    pub const ALL: [FrontierKind; 3] = [FrontierKind::States, FrontierKind::Traces, FrontierKind::Tree];
    pub fn name(self) -> &'static str {
        self.into()
    }
}

fn unknown_frontier(s: &str) -> String {
    format!(
        "unknown frontier representation `{s}` (expected {})",
        either(FrontierKind::VARIANTS)
    )
}

#[derive(Clone, Debug)]
pub struct Options {
    /// The paper's `depthCutoff`; `None`: go on until a frontier is empty.
    pub depth_cutoff: Option<u32>,
    /// The paper's `inc` (at least 1).
    pub increment: u32,
    pub variant: Variant,
    pub frontier: FrontierKind,
    pub limits: Limits,
    /// Where the progress line reads the counters.
    pub meter: Option<Meter>,
    /// Keep the ids of every iteration's `outFrontier` in [`Run::frontiers`].
    pub record_frontiers: bool,
    /// Compare every rebuilt frontier state with the stored one (tests).
    pub verify_rebuild: bool,
    /// The visited set: exact or tree (the others give states no number,
    /// or no way back to them; [`dbdfs`] refuses them).
    pub store: StoreKind,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            depth_cutoff: None,
            increment: 50,
            variant: Variant::Threshold,
            frontier: FrontierKind::Tree,
            limits: Limits::default(),
            meter: None,
            record_frontiers: false,
            verify_rebuild: false,
            store: StoreKind::Exact,
        }
    }
}

/// Why dbdfs cannot search in `store`, if it cannot (checked by the
/// strategy registry before a run, and by [`dbdfs`]).
pub fn store_refusal(store: StoreKind) -> Option<String> {
    (!matches!(store, StoreKind::Exact | StoreKind::Tree)).then(|| {
        format!(
            "--store {store}: dbdfs keeps a number per state (its thresholds, its frontiers) and goes back to stored states, so it takes --store exact or tree"
        )
    })
}
