//! The man pages and the shell completions, both generated from the clap
//! definitions (`make man` commits them; a test checks they are current).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap_mangen::roff::{roman, Roff};
use clap_mangen::Man;

/// Writes a man page for `dvemc` and one for each of its commands, theirs
/// included (`dvemc.1`, `dvemc-explore.1`, `dvemc-bench-run.1`, ...), into
/// `dir`; returns the files written.
pub fn write_pages(cmd: clap::Command, dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    let source = format!("dvemc {}", cmd.get_version().unwrap_or_default());
    write_tree(&cmd, None, &source, dir, &mut written)?;
    Ok(written)
}

/// Writes the page of `cmd` and those of its commands; `source` is every
/// page's footer (clap_mangen would give a command's page its name only).
fn write_tree(
    cmd: &clap::Command,
    parent: Option<&str>,
    source: &str,
    dir: &Path,
    written: &mut Vec<PathBuf>,
) -> io::Result<()> {
    // clap_mangen prints the long help, else the short one unless it is
    // hidden: an option left out of `-h` would have no text.
    let cmd = cmd.clone().mut_args(|a| {
        match (
            a.is_hide_short_help_set(),
            a.get_long_help(),
            a.get_help().cloned(),
        ) {
            (true, None, Some(help)) => a.long_help(help),
            _ => a,
        }
    });
    let man = Man::new(cmd.clone()).source(source);
    let path = dir.join(man.get_filename());
    let mut page = Vec::new();
    render(&man, &cmd, parent, &mut page)?;
    std::fs::write(&path, page)?;
    written.push(path);
    let name = page_name(&cmd);
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_tree(sub, Some(&name), source, dir, written)?;
    }
    Ok(())
}

/// `dvemc-bench-run` for `dvemc bench run`.
fn page_name(cmd: &clap::Command) -> String {
    cmd.get_display_name().unwrap_or(cmd.get_name()).to_string()
}

/// clap_mangen's sections, with the exit codes as EXIT STATUS (clap_mangen
/// would print the help's closing text as EXTRA) and a SEE ALSO.
fn render(man: &Man, cmd: &clap::Command, parent: Option<&str>, out: &mut impl Write) -> io::Result<()> {
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(out)?;
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(out)?;
    }
    let mut roff = Roff::default();
    let after = cmd
        .get_after_long_help()
        .map(|t| t.to_string())
        .unwrap_or_default();
    let codes = crate::exit_codes::parse(&after);
    if !codes.is_empty() {
        roff.control("SH", ["EXIT STATUS"]);
        for (code, meaning) in codes {
            roff.control("TP", []);
            roff.text([roman(code.to_string())]);
            roff.text([roman(meaning)]);
        }
    }
    if let Some(parent) = parent {
        roff.control("SH", ["SEE ALSO"]);
        roff.text([roman(format!("{parent}(1)"))]);
    }
    roff.to_writer(out)?;
    if cmd.get_version().is_some() {
        man.render_version_section(out)?;
    }
    Ok(())
}

/// Prints the completion script of `shell` for `cmd`.
pub fn print_completions(shell: clap_complete::Shell, mut cmd: clap::Command) -> io::Result<()> {
    let name = cmd.get_name().to_string();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, name, &mut out);
    crate::explore::write_stdout(&out)
}
