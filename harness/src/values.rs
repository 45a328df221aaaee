//! The values of `explore`'s options that clap does not parse itself:
//! each parser's error names what the option takes.

use std::time::Duration;

use dvemc_run::engine::units::parse_bytes;
use dvemc_run::run::strategy::parse_count;

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

pub(crate) fn fraction(s: &str) -> Result<f64, String> {
    let x: f64 = s
        .trim()
        .parse()
        .map_err(|_| "must be a number from 0 to 1".to_string())?;
    if (0.0..=1.0).contains(&x) {
        Ok(x)
    } else {
        Err("must be a number from 0 to 1".into())
    }
}
pub(crate) fn factor(s: &str) -> Result<f64, String> {
    let x: f64 = s
        .trim()
        .parse()
        .map_err(|_| "must be a positive number".to_string())?;
    if x > 0.0 && x.is_finite() {
        Ok(x)
    } else {
        Err("must be a positive number".into())
    }
}
pub(crate) fn percent(s: &str) -> Result<f64, String> {
    let x: f64 = s
        .trim()
        .parse()
        .map_err(|_| "must be a percentage above 0 and at most 100".to_string())?;
    if x > 0.0 && x <= 100.0 {
        Ok(x)
    } else {
        Err("must be a percentage above 0 and at most 100".into())
    }
}
pub(crate) fn seconds(s: &str) -> Result<f64, String> {
    let x = factor(s).map_err(|_| "must be a positive number of seconds".to_string())?;
    Duration::try_from_secs_f64(x)
        .map(|_| x)
        .map_err(|_| "is too long a duration".to_string())
}
pub(crate) fn level(s: &str) -> Result<u8, String> {
    match parse_count(s) {
        Ok(l) if l <= 5 => Ok(l as u8),
        _ => Err("must be a level from 0 to 5".into()),
    }
}
