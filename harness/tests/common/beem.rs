//! BEEM's properties as test cells: the instances small enough, the
//! properties with an answer on them, the options of a check, and the
//! report of the problems found.

use std::collections::HashMap;

use dvemc_run::algo::check::{CheckOptions, Checks, Search};
use dvemc_run::model::beem::{Answer, Beem, PropertyKind, PropertyRow};

/// The complete instances of at most `max_states` states (BEEM's count).
pub fn instances_up_to(beem: &Beem, max_states: u64) -> HashMap<String, u64> {
    beem.instances()
        .expect("instances.csv")
        .into_iter()
        .filter(|r| r.complete)
        .filter_map(|r| r.states.filter(|&s| s <= max_states).map(|s| (r.instance, s)))
        .collect()
}

/// The properties of `kind` with an answer on the instances of at most
/// `max_states` states; LTL ones only with their `.propN.dve` file.
pub fn properties_up_to(beem: &Beem, kind: PropertyKind, max_states: u64) -> Vec<PropertyRow> {
    let small = instances_up_to(beem, max_states);
    beem.properties()
        .expect("properties.csv")
        .into_iter()
        .filter(|p| p.kind == kind && p.beem_answer != Answer::Unknown)
        .filter(|p| small.contains_key(&p.instance))
        .filter(|p| kind != PropertyKind::Ltl || beem.property_model_path(&p.instance, p.prop_id).exists())
        .collect()
}

/// A check by `search` of nothing but what the model or the goals state,
/// without budgets.
pub fn check_options(search: Search) -> CheckOptions {
    CheckOptions {
        search,
        checks: Checks::default(),
        goals: vec![],
        all_violations: false,
        limits: Default::default(),
        meter: None,
    }
}

/// Fails with every problem found among `n` cells.
pub fn assert_none(problems: &[String], n: usize) {
    assert!(
        problems.is_empty(),
        "{} of {n}:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
