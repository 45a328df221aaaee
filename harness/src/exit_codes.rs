//! What each command's exit codes mean: the "Exit codes" section of its
//! `--help` and the EXIT STATUS section of its man page (`crate::man`
//! reads it back from the help).

/// Exit codes and their meaning, for one command: "CODE meaning".
pub type Codes = &'static [&'static str];

/// The heading the section starts with.
pub const HEADING: &str = "Exit codes:";

const USAGE: &str = "2 usage error: unknown option or bad value";
const INTERRUPTED: &str = "130 bench run was interrupted (Ctrl-C); run it again with --resume";
/// The verify commands' input errors.
const VERIFY_INPUT: &str = "3 input error: BEEM directory not found, the report could not be written";

/// `dvemc` itself: a summary of its commands'.
pub const DVEMC: Codes = &[
    "0 success",
    "1 something was found: a violation or a reached goal (explore), a difference from BEEM or \
     the baseline (verify-*, bench compare), a crashed cell (bench run)",
    USAGE,
    "3 input error: missing or unreadable file, malformed model or matrix, BEEM directory not found",
    "4 explore stopped before its end: a budget (states, time, memory) or Ctrl-C",
    "5 explore --por-check: the reduced and the full search differ",
    INTERRUPTED,
];

pub const EXPLORE: Codes = &[
    "0 the search ran to its end and found no violation (bounded and randomized searches: no \
     witness)",
    "1 a check failed or a goal was reached: the search found a counterexample or a witness",
    "2 usage error: unknown option, bad value, or an option the strategy does not take",
    "3 input error: missing or malformed model, a malformed --goal, --sweep-measure or --ltl \
     (named with its position), unknown BEEM instance or property, BEEM directory not found, \
     the report could not be written",
    "4 the search stopped before its end: --max-states, --time-limit, --memory-limit, \
     --max-visits, a full cache, or Ctrl-C",
    "5 --por-check: the reduced and the full search differ (deadlock states, verdict, or a \
     counterexample that does not replay)",
];

pub const CHECK: Codes = &[
    "0 the model parsed and checked",
    USAGE,
    "3 input error: missing or unreadable file, malformed model (the message gives file, line \
     and column)",
];

pub const SIMULATE: Codes = &[
    "0 the run was printed (it ended after --steps steps, at a deadlock, at `quit` or at the \
     end of the input); --replay: every step of the file agrees with the model",
    "1 --random: a check failed or a goal was reached; the path to it is printed",
    USAGE,
    "3 input error: missing or malformed model or --goal, BEEM directory not found, standard \
     input or output failed; --replay: a file that is not a counterexample, or a step where \
     the file and the model disagree (named on standard error)",
];

pub const GEN: Codes = &["0 the model was printed", USAGE];

pub const LTL2BA: Codes = &[
    "0 the automaton was printed",
    USAGE,
    "3 input error: malformed formula, an atom the model does not have (the message gives the \
     position in the formula), missing or malformed model",
];

pub const STRATEGIES: Codes = &["0 the list was printed", USAGE];

/// `dvemc bench`: a summary of its subcommands'.
pub const BENCH: Codes = &[
    "0 done",
    "1 bench run: a cell crashed or could not run; bench compare: a difference from the baseline",
    USAGE,
    "3 input error: unreadable matrix or results file, a cell explore would reject, a file not \
     written",
    INTERRUPTED,
];

pub const BENCH_RUN: Codes = &[
    "0 every cell ran (whatever each one's result)",
    "1 a cell crashed or could not run (result `crashed` or `error`; see its `message`)",
    USAGE,
    "3 input error: unreadable matrix, a cell explore would reject, BEEM directory not found, \
     results not written",
    "130 interrupted (Ctrl-C): the cells not run are left for --resume",
];

/// `bench list`, `bench report`, `bench merge`, `bench slurm`.
pub const BENCH_FILES: Codes = &[
    "0 done",
    USAGE,
    "3 input error: a file could not be read or written, a malformed matrix or results file, a \
     cell explore would reject",
];

pub const BENCH_COMPARE: Codes = &[
    "0 every deterministic counter equals the baseline's, no speed ratio fell beyond the \
     tolerance",
    "1 a difference (each printed on a REGRESSION line)",
    USAGE,
    "3 input error: a results file could not be read or is malformed",
];

pub const VERIFY_BEEM: Codes = &[
    "0 every instance's state count equals BEEM's",
    "1 an instance's count differs from BEEM's, or its run did not end (a budget, a load error)",
    USAGE,
    VERIFY_INPUT,
];

pub const VERIFY_PROPERTIES: Codes = &[
    "0 every answer equals BEEM's, or differs for a reason the report gives",
    "1 an answer differs from BEEM's for no known reason",
    USAGE,
    VERIFY_INPUT,
];

pub const VERIFY_JIT: Codes = &[
    "0 every file is identical under both (whole, or on its first --max-states states)",
    "1 a file differs, is unsupported by the JIT, or failed to load or compile",
    USAGE,
    VERIFY_INPUT,
];

pub const COMPLETIONS: Codes = &["0 the script was printed", USAGE];

pub const MAN: Codes = &[
    "0 the pages were written",
    USAGE,
    "3 the directory could not be written",
];

/// Where a code's meaning starts on its line, and the width its lines
/// are wrapped to (the help's, `max_term_width`).
const INDENT: usize = 7;
const WIDTH: usize = 100;

/// The section as `--help` ends with it: a line a code, its meaning
/// wrapped under itself.
pub fn text(codes: Codes) -> String {
    let mut t = HEADING.to_string();
    for entry in codes.iter() {
        let (code, meaning) = entry.split_once(' ').expect("a code and its meaning");
        let mut line = format!("  {code:<3}  ");
        for word in meaning.split(' ') {
            if line.len() > INDENT && line.len() + 1 + word.len() > WIDTH {
                t += "\n";
                t += &line;
                line = " ".repeat(INDENT);
            } else if line.len() > INDENT {
                line.push(' ');
            }
            line += word;
        }
        t += "\n";
        t += &line;
    }
    t
}

/// The codes of a section [`text`] wrote, each meaning on one line.
pub fn parse(text: &str) -> Vec<(u8, String)> {
    let mut codes: Vec<(u8, String)> = Vec::new();
    for l in text.lines().skip_while(|l| *l != HEADING).skip(1) {
        let words = l.trim();
        match (l.starts_with(&" ".repeat(INDENT)), codes.last_mut()) {
            (true, Some((_, meaning))) => {
                meaning.push(' ');
                meaning.push_str(words);
            }
            _ => {
                let Some((code, meaning)) = words.split_once(' ') else {
                    continue;
                };
                let Ok(code) = code.parse() else { continue };
                codes.push((code, meaning.trim().to_string()));
            }
        }
    }
    codes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_reads_back() {
        for codes in [DVEMC, EXPLORE, BENCH_RUN, VERIFY_JIT] {
            let t = text(codes);
            assert!(t.lines().all(|l| l.len() <= WIDTH), "{t}");
            let back: Vec<(u8, String)> = codes
                .iter()
                .map(|e| e.split_once(' ').expect("a code"))
                .map(|(c, m)| (c.parse().expect("a number"), m.to_string()))
                .collect();
            assert_eq!(parse(&t), back);
        }
    }
}
