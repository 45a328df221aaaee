//! Which strategies take which option of `explore` ([`OPTIONS`], declared
//! once in `table`: flag, help, heading, how a value sets the parameters
//! and how the configuration text shows it), the first check of what was
//! given ([`refuse_untaken`]; the combinations are the families' own,
//! `crate::run::validate`), the configuration text ([`config_text`]) and
//! the registry as `dvemc strategies` prints it.

pub mod heading;
mod table;
pub mod values;

pub(crate) use table::MEMORY_BOUNDED;
pub use table::OPTIONS;

use crate::engine::StoreKind;
use crate::run::strategy::*;

/// Which strategies take an option.
#[derive(Clone, Copy, Debug)]
pub enum Takers {
    /// Every strategy.
    All,
    /// These strategy names.
    Only(&'static [&'static str]),
}

impl Takers {
    pub fn take(self, s: Strategy) -> bool {
        match self {
            Takers::All => true,
            Takers::Only(names) => names.contains(&s.name()),
        }
    }
}

/// One option of `explore` and the strategies that take it.
#[derive(Clone, Copy, Debug)]
pub struct OptionInfo {
    /// The flag without dashes (`cache`).
    pub flag: &'static str,
    pub takers: Takers,
    /// How the command line declares it, and how its value sets the
    /// [`Params`]; `None`: a general option of `explore` (a property, the
    /// output), which the command line declares with the others.
    pub arg: Option<ArgInfo>,
    /// How the configuration text ([`config_text`]) shows it (`None`: it
    /// does not, or it returns `None` when the option was not given).
    pub show: Option<fn(&Params) -> Option<Shown>>,
}

/// How `explore` declares a strategy option.
#[derive(Clone, Copy, Debug)]
pub struct ArgInfo {
    /// The value's name in the help (`None`: a switch, without value).
    pub value_name: Option<&'static str>,
    /// The line of `-h`; `--help` adds [`ArgInfo::more`].
    pub help: &'static str,
    /// The paragraphs `--help` adds after the line.
    pub more: Option<&'static str>,
    /// The heading of `explore --help` it is listed under.
    pub heading: &'static str,
    /// Listed by `-h` too (else only by `--help`, so that `-h` fits a screen).
    pub short_help: bool,
    /// An older name still accepted.
    pub alias: Option<&'static str>,
    /// Comma-separated values, and the option repeatable.
    pub list: bool,
    /// A value may look like a negative number (so that the parser, not
    /// the command line, says what is wrong with it).
    pub negative: bool,
    /// A value may start with a hyphen.
    pub hyphen: bool,
    /// The option is taken only with this one (a flag without dashes).
    pub requires: Option<&'static str>,
    pub set: Set,
}

impl ArgInfo {
    /// What most options are, the fields each gives aside: listed by `-h`,
    /// no alias, one value that looks like no number nor option.
    pub const PLAIN: ArgInfo = ArgInfo {
        value_name: None,
        help: "",
        more: None,
        heading: "",
        short_help: true,
        alias: None,
        list: false,
        negative: false,
        hyphen: false,
        requires: None,
        set: Set::Switch(|_| {}),
    };
}

/// How an option sets the parameters.
#[derive(Clone, Copy, Debug)]
pub enum Set {
    /// A switch, given.
    Switch(fn(&mut Params)),
    /// A value (for a list: one of its values), or why it is not one.
    Value(fn(&mut Params, &str) -> Result<(), String>),
    /// A file name (any bytes the system takes).
    Path(fn(&mut Params, std::path::PathBuf)),
}

/// An option as the configuration text shows it.
#[derive(Clone, Debug, PartialEq)]
pub enum Shown {
    Switch,
    Value(String),
}

impl OptionInfo {
    /// The option's help with `--help`: the line, then the paragraphs.
    pub fn long_help(&self) -> Option<String> {
        let a = self.arg.as_ref()?;
        a.more.map(|more| format!("{}\n\n{more}", a.help))
    }
}

/// The normalised configuration: the strategy, then its parameters as
/// flags in the order of the option table, each value a shell word (the
/// start of what reports carry in `config`).
pub fn config_text(strategy: Strategy, p: &Params) -> String {
    let mut parts = vec![strategy.to_string()];
    for o in OPTIONS {
        match o.show.and_then(|show| show(p)) {
            Some(Shown::Switch) => parts.push(format!("--{}", o.flag)),
            Some(Shown::Value(v)) => parts.push(format!("--{} {}", o.flag, shell_word(&v))),
            None => {}
        }
    }
    parts.join(" ")
}

/// The registry as `dvemc strategies` prints it: a paragraph a strategy
/// (its form, family and summary, the paper it implements, the options it
/// takes), so that `--help`'s list of names has the details one command
/// away.
pub fn registry_text() -> String {
    let mut out = String::new();
    for (info, s) in REGISTRY.iter().zip(Strategy::EXAMPLES) {
        out += &format!("{:<12} {} ({})\n", info.form, info.summary, info.family.name());
        if !info.paper.is_empty() {
            out += &format!("{:<12} paper: {}\n", "", info.paper);
        }
        out += &format!("{:<12} options: {}\n", "", options_of(s).join(" "));
    }
    out + "Every strategy also takes --backend, the budgets --max-states, --time-limit and\n\
           --memory-limit, and --json (`dvemc explore --help` says what each option does).\n"
}

/// The registry as JSON: one object a strategy (`form`, `family`,
/// `summary`, `paper`, `options`).
pub fn registry_json() -> serde_json::Value {
    REGISTRY
        .iter()
        .zip(Strategy::EXAMPLES)
        .map(|(info, s)| {
            serde_json::json!({
                "form": info.form,
                "family": info.family.name(),
                "summary": info.summary,
                "paper": info.paper,
                "options": options_of(s),
            })
        })
        .collect()
}

/// The options `strategy` takes, as `--flag` texts.
pub fn options_of(strategy: Strategy) -> Vec<String> {
    OPTIONS
        .iter()
        .filter(|o| o.takers.take(strategy))
        .map(|o| format!("--{}", o.flag))
        .collect()
}

/// Why a search on one machine cannot write the checkpoint `p` asks for
/// (`None`: it can, or there is none); a distributed one says its own.
pub fn checkpoint_refusal(p: &Params) -> Option<String> {
    (p.checkpoint.is_some() && (p.store != Some(StoreKind::CTree) || p.threads.is_some_and(|t| t > 1))).then(|| {
        "--checkpoint: the breadth-first search of the ctree store on one thread writes checkpoints (--store ctree), and so does --distributed".into()
    })
}

/// The first option given (`given`: flags without dashes, as in
/// [`OPTIONS`]; others are ignored) that `strategy` does not take: the
/// check every request passes first, before its family's
/// (`crate::run::validate`).
pub fn refuse_untaken(strategy: Strategy, given: &[&str]) -> Result<(), String> {
    for flag in given {
        let Some(o) = OPTIONS.iter().find(|o| o.flag == *flag) else {
            continue;
        };
        if !o.takers.take(strategy) {
            let takes = options_of(strategy);
            let takes = if takes.is_empty() {
                "no strategy options".to_string()
            } else {
                takes.join(", ")
            };
            let takers = match o.takers {
                Takers::All => String::new(),
                Takers::Only(names) => names.join(", "),
            };
            return Err(format!(
                "--{flag} is not an option of --strategy {strategy} (it is one of: {takers}); {strategy} takes {takes}, and the budgets --max-states, --time-limit, --memory-limit"
            ));
        }
    }
    Ok(())
}
