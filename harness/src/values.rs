//! The values of `explore`'s options that clap does not parse itself:
//! each parser's error names what the option takes.

use dvemc_run::engine::units::parse_bytes;

/// `--memory-limit`: a byte count, or `none`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryArg {
    Bytes(u64),
    Unlimited,
}

pub(crate) fn parse_memory_limit(s: &str) -> Result<MemoryArg, String> {
    if s.trim().eq_ignore_ascii_case("none") {
        Ok(MemoryArg::Unlimited)
    } else {
        parse_bytes(s).map(MemoryArg::Bytes)
    }
}
