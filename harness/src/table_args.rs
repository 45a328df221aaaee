//! `explore`'s strategy options as clap arguments, built from the run
//! layer's table (`dvemc_run::run::options::OPTIONS`: flag, help,
//! heading, value), and the [`Params`] read back from what was parsed.
//!
//! `TableArgs<AT>` is flattened into `ExploreArgs` at four places, so that
//! `--help`, the man page and the completions list the options where
//! explore's own (model, budgets, properties, output) leave room for them.

use std::path::PathBuf;

use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use dvemc_run::run::options::{ArgInfo, OptionInfo, Set, OPTIONS};
use dvemc_run::run::strategy::Params;

/// The options of the first three places, in their order: after `--beem`,
/// after `--trace-out` and after the progress options; every other one
/// (the fourth place, after `--partition`) in the table's order.
const PLACES: [&[&str]; 3] = [
    &["seed", "runs", "por", "por-check"],
    &["export", "export-state-labels", "sample-interval"],
    &["store", "threads"],
];

/// The table's options of place `AT` (0 to 3).
#[derive(Clone, Copy, Debug, Default)]
pub struct TableArgs<const AT: usize>;

fn place(flag: &str) -> usize {
    PLACES
        .iter()
        .position(|p| p.contains(&flag))
        .unwrap_or(PLACES.len())
}

impl<const AT: usize> TableArgs<AT> {
    fn options() -> Vec<(&'static OptionInfo, &'static ArgInfo)> {
        let mut here: Vec<_> = OPTIONS
            .iter()
            .filter_map(|o| Some((o, o.arg.as_ref()?)))
            .filter(|(o, _)| place(o.flag) == AT)
            .collect();
        if let Some(order) = PLACES.get(AT) {
            here.sort_by_key(|(o, _)| order.iter().position(|f| *f == o.flag));
        }
        here
    }
}

impl<const AT: usize> FromArgMatches for TableArgs<AT> {
    fn from_arg_matches(_: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(TableArgs)
    }
    fn update_from_arg_matches(&mut self, _: &ArgMatches) -> Result<(), clap::Error> {
        Ok(())
    }
}

impl<const AT: usize> Args for TableArgs<AT> {
    fn augment_args(cmd: Command) -> Command {
        cmd.args(Self::options().into_iter().map(|(o, a)| arg(o, a)))
    }
    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

/// The clap argument of option `o`.
fn arg(o: &'static OptionInfo, a: &'static ArgInfo) -> Arg {
    let mut arg = Arg::new(o.flag)
        .long(o.flag)
        .help(a.help)
        .help_heading(a.heading)
        .hide_short_help(!a.short_help)
        .allow_negative_numbers(a.negative)
        .allow_hyphen_values(a.hyphen);
    if let Some(long) = o.long_help() {
        arg = arg.long_help(long);
    }
    if let Some(alias) = a.alias {
        arg = arg.alias(alias);
    }
    if let Some(other) = a.requires {
        arg = arg.requires(other);
    }
    if let Some(name) = a.value_name {
        arg = arg.value_name(name);
    }
    arg = match a.set {
        Set::Switch(_) => return arg.action(ArgAction::SetTrue),
        Set::Path(_) => arg.value_parser(clap::value_parser!(PathBuf)),
        // The table's setter checks the value; the parameters are set
        // once all are parsed (`params`).
        Set::Value(set) => {
            arg.value_parser(move |s: &str| set(&mut Params::default(), s).map(|()| s.to_string()))
        }
    };
    if a.list {
        arg.action(ArgAction::Append).value_delimiter(',')
    } else {
        arg.action(ArgAction::Set)
    }
}

/// The parameters the table's options give (`matches`: the subcommand's).
pub fn params(matches: &ArgMatches) -> Params {
    let mut p = Params::default();
    for o in OPTIONS {
        let Some(a) = &o.arg else { continue };
        match a.set {
            Set::Switch(set) => {
                if matches.get_flag(o.flag) {
                    set(&mut p);
                }
            }
            Set::Path(set) => {
                if let Some(path) = matches.get_one::<PathBuf>(o.flag) {
                    set(&mut p, path.clone());
                }
            }
            Set::Value(set) => {
                for v in matches.get_many::<String>(o.flag).into_iter().flatten() {
                    set(&mut p, v).expect("a value the parser accepted");
                }
            }
        }
    }
    p
}
