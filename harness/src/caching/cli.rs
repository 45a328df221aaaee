//! `dvemc explore` with state caching: the options, and the run behind
//! them. `bbfs:W` and `alt:B,D` always run here; `bfs` and `dfs` do when
//! any caching option is given (`--cache`, `--replacement`,
//! `--chain-reduction`, `--edge-lean`, `--max-visits`, `--progress`,
//! `--progress-level`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use dve_frontend::model::NextState;

use super::sweep::{derive_progress, full_graph, Derivation, Progress};
use super::{run, CacheSize, CachingOutcome, CachingReport, Independence, Options, Order, Replacement};
use crate::explore::{bfs, Limits};
use crate::manifest::Beem;
use crate::spec::Spec;

/// The caching options of `dvemc explore` (flattened into its arguments).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct CachingArgs {
    /// State caching: keep at most SIZE states in memory, or P% of the state
    /// space (|S| from instances.csv, else from an exhaustive run first).
    #[arg(long, value_name = "SIZE|P%")]
    pub cache: Option<CacheSize>,
    /// Cache replacement strategy: random, depth-min, depth-max, indegree,
    /// outdegree, visits, stratified[:K], age [default: random].
    #[arg(long, value_name = "NAME")]
    pub replacement: Option<Replacement>,
    /// Single-successor chain reduction (state-caching paper, Sect. 4.1).
    #[arg(long)]
    pub chain_reduction: bool,
    /// Edge-lean reduction with static transition independence.
    #[arg(long)]
    pub edge_lean: bool,
    /// End the run `out_of_time` when visits exceed F × |S| [default: 5].
    #[arg(long, value_name = "F")]
    pub max_visits: Option<f64>,
    /// Sweep-line method with this progress measure: DVE expressions
    /// compared lexicographically (comma-separated or repeated).
    #[arg(long, value_name = "EXPR", value_delimiter = ',')]
    pub progress: Vec<String>,
    /// Sweep-line method with the automatic progress measure of level L
    /// (0: no regress transition; 1-5: at most 1, 2, 5, 10, 20 %), derived
    /// from an exhaustive run first.
    #[arg(long, value_name = "L", value_parser = clap::value_parser!(u8).range(0..=5))]
    pub progress_level: Option<u8>,
    /// How the automatic measure is derived: `projection` (the paper's:
    /// the components that each decrease on at most the level's share of
    /// the transitions changing them) or `greedy` (refined while the whole
    /// vector's regress transitions stay within the level's share)
    /// [default: projection].
    #[arg(long, value_name = "HOW")]
    pub progress_derivation: Option<Derivation>,
    /// Seed of the random choices (replacement strategies) [default: 0].
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
}

impl CachingArgs {
    fn any(&self) -> bool {
        self.cache.is_some()
            || self.replacement.is_some()
            || self.chain_reduction
            || self.edge_lean
            || self.max_visits.is_some()
            || !self.progress.is_empty()
            || self.progress_level.is_some()
            || self.progress_derivation.is_some()
    }
}

/// Whether `explore` runs the caching algorithm.
pub fn wanted(strategy: &Spec, args: &CachingArgs) -> bool {
    matches!(strategy, Spec::Bbfs(_) | Spec::Alt(..)) || args.any()
}

/// What `explore` hands over.
pub struct Input<'a> {
    pub model: Option<&'a Path>,
    pub beem: Option<&'a Path>,
    pub strategy: &'a Spec,
    pub time_limit: Option<Duration>,
    pub json: bool,
    pub ignore_property: bool,
    /// The built-in model used without MODEL: (name, source).
    pub embedded: (&'a str, &'a str),
    pub caching: &'a CachingArgs,
    /// The successor generator to use.
    pub backend: crate::backend::Backend,
}

#[derive(Debug)]
pub enum CliError {
    /// A bad combination of options (exit 2).
    Usage(String),
    /// A missing or malformed input (exit 3).
    Input(anyhow::Error),
}

impl From<anyhow::Error> for CliError {
    fn from(e: anyhow::Error) -> Self {
        CliError::Input(e)
    }
}

fn resolve(model: &Path, beem: Option<&Path>) -> (PathBuf, Option<String>) {
    let s = model.to_string_lossy();
    if !model.exists() && !s.contains('/') && !s.ends_with(".dve") && !s.is_empty() {
        if let Ok(b) = Beem::locate(beem) {
            let p = b.model_path(&s);
            if p.is_file() {
                return (p, Some(s.into_owned()));
            }
        }
    }
    let inst = model
        .file_name()
        .and_then(|f| f.to_str())
        .and_then(|f| f.strip_suffix(".dve"))
        .filter(|f| !f.contains(".prop"))
        .map(str::to_string);
    (model.to_path_buf(), inst)
}

/// `|S|` of a BEEM instance from instances.csv.
pub fn known_size(instance: &str, beem: Option<&Path>) -> Option<u64> {
    let b = Beem::locate(beem).ok()?;
    let rows = b.instances().ok()?;
    rows.into_iter()
        .find(|r| r.instance == instance && r.complete)
        .and_then(|r| r.states)
}

/// Runs `explore` with caching; returns the exit code.
pub fn explore(input: &Input) -> Result<u8, CliError> {
    let a = input.caching;
    let order = match input.strategy {
        Spec::Bfs => Order::Bfs,
        Spec::Dfs => Order::Dfs,
        Spec::Bbfs(w) => Order::Bbfs(*w),
        Spec::Alt(b, d) => Order::Alt(*b, *d),
        other => {
            return Err(CliError::Usage(format!(
                "--strategy {other} cannot be combined with the caching options"
            )))
        }
    };
    let sweep = !a.progress.is_empty() || a.progress_level.is_some();
    if sweep && !matches!(order, Order::Bfs | Order::Dfs) {
        return Err(CliError::Usage(
            "the sweep-line method (--progress, --progress-level) orders the open set by progress: use it with --strategy bfs or dfs (FIFO or LIFO among equal progress values)".into(),
        ));
    }
    if !a.progress.is_empty() && a.progress_level.is_some() {
        return Err(CliError::Usage(
            "give --progress or --progress-level, not both".into(),
        ));
    }
    if a.progress_derivation.is_some() && a.progress_level.is_none() {
        return Err(CliError::Usage(
            "--progress-derivation chooses how --progress-level derives its measure: give --progress-level too".into(),
        ));
    }
    if let Some(f) = a.max_visits {
        if !(f > 0.0 && f.is_finite()) {
            return Err(CliError::Usage("--max-visits must be a positive number".into()));
        }
    }
    if a.replacement.is_some() && a.cache.is_none() {
        return Err(CliError::Usage("--replacement needs --cache".into()));
    }
    let load_opts = dve_frontend::LoadOptions {
        ignore_property: input.ignore_property,
        exprs: a.progress.clone(),
    };
    let (loaded, instance, display) = match input.model {
        Some(m) => {
            let (path, inst) = resolve(m, input.beem);
            let l = dve_frontend::load_file_with(&path, &load_opts).map_err(|e| anyhow::anyhow!("{e}"))?;
            (l, inst, path.display().to_string())
        }
        None => {
            let (name, src) = input.embedded;
            let l = dve_frontend::load_str_with(name, src, &load_opts).map_err(|e| anyhow::anyhow!("{e}"))?;
            (l, None, format!("{name} (built-in)"))
        }
    };
    if loaded.model.property.is_some() {
        return Err(CliError::Usage(
            "the caching algorithms explore plain systems: this model has a property process (use --ignore-property)"
                .into(),
        ));
    }
    let ir = loaded.model;
    let independence = a.edge_lean.then(|| Independence::from_model(&ir));
    let built = crate::backend::build(ir, input.backend);
    if let Some(why) = &built.fallback {
        eprintln!("dvemc: the JIT declined this model ({why}); using the interpreter");
    }
    let backend = built.backend;
    let model = built.model;
    let model: &dyn NextState = model.as_ref();

    let mut size = instance.as_deref().and_then(|i| known_size(i, input.beem));
    let mut progress: Option<Progress> = (!a.progress.is_empty()).then(|| Progress {
        exprs: loaded.exprs.clone(),
        names: a.progress.clone(),
    });
    if let Some(level) = a.progress_level {
        eprintln!("dvemc: exhaustive run to derive the progress measure of level {level}");
        let g = full_graph(model, usize::MAX).expect("unbounded");
        size = Some(g.store.len() as u64);
        let ap = derive_progress(
            model,
            &g,
            level,
            a.progress_derivation.unwrap_or(Derivation::Projection),
        );
        eprintln!(
            "dvemc: progress measure: ({}) — {} classes, largest {}, {:.2} % regress transitions",
            ap.progress.names.join(", "),
            ap.classes,
            ap.largest_class,
            100.0 * ap.regress
        );
        progress = Some(ap.progress);
    }
    if size.is_none() && a.cache.is_some() {
        eprintln!("dvemc: |S| is not in instances.csv: exhaustive run first");
        let r = bfs(model, &Limits::default(), false);
        size = Some(r.states);
    }
    let opts = Options {
        order,
        cache: a.cache,
        replacement: a.replacement.unwrap_or(Replacement::Random),
        chain_reduction: a.chain_reduction,
        edge_lean: independence.as_ref(),
        progress: progress.as_ref(),
        max_visits_factor: Some(a.max_visits.unwrap_or(5.0)),
        state_space_size: size,
        time_limit: input.time_limit,
        seed: a.seed.unwrap_or(0),
        track_distinct: true,
        check_invariants: false,
    };
    let mut report = run(model, &opts, None);
    report.model = display.clone();

    let mut out = Vec::new();
    if input.json {
        let mut v = serde_json::to_value(&report).map_err(|e| CliError::Input(e.into()))?;
        if let Some(o) = v.as_object_mut() {
            o.insert("backend".into(), backend.name().into());
            o.insert("state_len".into(), model.state_len().into());
        }
        writeln!(out, "{v}").ok();
    } else {
        print_human(&mut out, &report).ok();
    }
    let mut so = std::io::stdout().lock();
    match so.write_all(&out).and_then(|()| so.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r.map_err(|e| CliError::Input(e.into()))?,
    }
    Ok(match report.result {
        CachingOutcome::Complete => 0,
        r => {
            eprintln!("dvemc: search incomplete ({r})");
            4
        }
    })
}

fn pct(p: Option<f64>) -> String {
    p.map(|v| format!(" ({v:.1} % of |S|)")).unwrap_or_default()
}

/// The human-readable report.
pub fn print_human(out: &mut impl Write, r: &CachingReport) -> std::io::Result<()> {
    writeln!(out, "model:               {}", r.model)?;
    writeln!(
        out,
        "strategy:            {} (general algorithm with state caching)",
        r.strategy
    )?;
    writeln!(out, "result:              {}", r.result)?;
    match r.cache_size {
        Some(c) => writeln!(
            out,
            "cache:               {c} states{}, replacement {}",
            pct(r.cache_pct),
            r.replacement.as_deref().unwrap_or("-")
        )?,
        None => writeln!(out, "cache:               unlimited")?,
    }
    let mut red = Vec::new();
    if r.chain_reduction {
        red.push("chain");
    }
    if r.edge_lean {
        red.push("edge-lean");
    }
    writeln!(
        out,
        "reductions:          {}",
        if red.is_empty() {
            "none".into()
        } else {
            red.join(", ")
        }
    )?;
    writeln!(out, "states:              {}", r.states)?;
    if let Some(s) = r.state_space_size {
        writeln!(out, "|S|:                 {s}")?;
    }
    writeln!(out, "stored peak:         {}{}", r.stored_peak, pct(r.stored_pct))?;
    writeln!(out, "visits:              {}{}", r.visits, pct(r.visits_pct))?;
    writeln!(out, "revisits:            {}", r.revisits)?;
    writeln!(
        out,
        "events executed:     {} ({} pruned)",
        r.events, r.pruned_events
    )?;
    writeln!(out, "TD-tree peak:        {}", r.td_peak)?;
    if let Some(p) = &r.progress {
        writeln!(out, "progress measure:    ({})", p.join(", "))?;
        writeln!(
            out,
            "persistent states:   {}{}",
            r.persistent.unwrap_or(0),
            pct(r.persistent_pct)
        )?;
        writeln!(
            out,
            "largest class:       {}{}",
            r.largest_class.unwrap_or(0),
            pct(r.largest_class_pct)
        )?;
    }
    writeln!(out, "time:                {:.3} s", r.time_s)?;
    Ok(())
}
