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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;
    use dvemc_run::run::options::config_text;
    use dvemc_run::run::strategy::Strategy;

    /// The parameters of `explore --strategy STRATEGY ARGS`.
    fn parsed(strategy: &str, args: &[&str]) -> dvemc_run::run::strategy::Params {
        let argv = ["dvemc", "explore", "--strategy", strategy]
            .into_iter()
            .chain(args.iter().copied());
        let matches = crate::Cli::command()
            .try_get_matches_from(argv)
            .expect("a valid command line");
        super::params(matches.subcommand_matches("explore").expect("explore"))
    }

    /// Each option the configuration text shows, given on the command
    /// line, sets the parameters so that the text gives it back as it was
    /// written (in the table's order), and the text parses to the same
    /// parameters: a record's `config` re-runs the search.
    #[test]
    fn the_config_text_gives_back_the_options_given() {
        let cases: &[(&str, &[&str])] = &[
            ("bfs", &["--store", "tree", "--threads", "3", "--por"]),
            ("dfs", &["--por-check"]),
            (
                "bfs",
                &[
                    "--cache",
                    "10%",
                    "--replacement",
                    "depth-max+random",
                    "--chain-reduction",
                    "--edge-lean",
                    "--max-visits",
                    "3",
                    "--seed",
                    "4",
                ],
            ),
            ("dfs", &["--sweep-measure", "a,b"]),
            ("dfs", &["--sweep-level", "2", "--sweep-derivation", "greedy"]),
            (
                "dbdfs",
                &[
                    "--depth-cutoff",
                    "9",
                    "--increment",
                    "3",
                    "--dbdfs",
                    "naive-sound",
                    "--frontier",
                    "states",
                ],
            ),
            (
                "bbmc",
                &[
                    "--seed",
                    "2",
                    "--breadth",
                    "4",
                    "--degrade-depth",
                    "5",
                    "--runs",
                    "3",
                ],
            ),
            (
                "rurs",
                &[
                    "--runs",
                    "2",
                    "--memory-states",
                    "9",
                    "--steps",
                    "100",
                    "--mixing",
                    "0.5",
                    "--restart",
                    "random",
                    "--successor-choice",
                    "transition",
                    "--cover-targets",
                    "50,90",
                    "--stop-when-covered",
                    "--sample-interval",
                    "0.5",
                ],
            ),
        ];
        for (strategy, args) in cases {
            let p = parsed(strategy, args);
            let s: Strategy = strategy.parse().expect("a strategy");
            let text = config_text(s, &p);
            assert_eq!(text, format!("{strategy} {}", args.join(" ")));
            let words: Vec<&str> = text.split(' ').skip(1).collect();
            assert_eq!(parsed(strategy, &words), p, "{text}");
        }
    }

    /// A file option (`--checkpoint`, `--export`) and a switch that the
    /// text does not show still set the parameters.
    #[test]
    fn options_the_text_leaves_out_set_the_parameters() {
        let p = parsed(
            "bfs",
            &[
                "--checkpoint",
                "c.ckpt",
                "--export",
                "x.dot",
                "--export-state-labels",
            ],
        );
        assert_eq!(p.checkpoint.as_deref(), Some(std::path::Path::new("c.ckpt")));
        assert_eq!(p.export.as_deref(), Some(std::path::Path::new("x.dot")));
        assert!(p.export_state_labels);
        assert_eq!(config_text(Strategy::Bfs, &p), "bfs");
    }
}
