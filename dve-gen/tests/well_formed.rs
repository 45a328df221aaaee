//! Every generated model parses and passes the front end's checks, with
//! its goal and its LTL formula; a seed gives the same model every time.

use dve_frontend::{ltl::Spec, LoadOptions};

fn loads(seed: u64) -> Result<(), String> {
    let g = dve_gen::generate(seed);
    let what =
        |e: &dyn std::fmt::Display| format!("seed {seed}: {e}\n{}\ngoal {}\nltl {}", g.text, g.goal, g.ltl);
    let opts = LoadOptions {
        exprs: vec![g.goal.clone()],
        ..Default::default()
    };
    dve_frontend::load_str_with("gen.dve", &g.text, &opts).map_err(|e| what(&e))?;
    let opts = LoadOptions {
        ltl: Some(Spec::Formula {
            text: g.ltl.clone(),
            definitions: vec![],
        }),
        ..Default::default()
    };
    dve_frontend::load_str_with("gen.dve", &g.text, &opts).map_err(|e| what(&e))?;
    Ok(())
}

#[test]
fn every_generated_model_loads() {
    let bad: Vec<String> = (0..2000).filter_map(|s| loads(s).err()).collect();
    assert!(
        bad.is_empty(),
        "{} of 2000 do not load; the first:\n{}",
        bad.len(),
        bad[0]
    );
}

#[test]
fn a_seed_replays() {
    for seed in [0, 1, 12345, u64::MAX] {
        assert_eq!(dve_gen::generate(seed).text, dve_gen::generate(seed).text);
    }
    assert_ne!(dve_gen::generate(1).text, dve_gen::generate(2).text);
}

#[test]
fn shrinking_keeps_the_failure_and_gets_smaller() {
    // A model with a committed state: shrunk, still one, and shorter.
    let seed = (0..)
        .find(|&s| dve_gen::generate(s).features().committed)
        .unwrap();
    let first = dve_gen::generate(seed);
    let (small, steps) = dve_gen::shrink(seed, 2000, |g| g.features().committed);
    assert!(steps > 0);
    assert!(small.features().committed);
    assert!(
        small.text.len() < first.text.len(),
        "{}\n---\n{}",
        first.text,
        small.text
    );
    assert!(loads_text(&small.text), "{}", small.text);
}

fn loads_text(t: &str) -> bool {
    dve_frontend::load_str("gen.dve", t).is_ok()
}
