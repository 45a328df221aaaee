//! The values of strategy options that are more than a count: each
//! parser's error names what the option takes (the command line shows it
//! after the option).

use crate::run::strategy::parse_count;

/// `--threads`: 1 to 1024, in the words of clap's range check.
pub fn parse_threads(s: &str) -> Result<usize, String> {
    let n: i64 = s.parse().map_err(|e: std::num::ParseIntError| e.to_string())?;
    if !(1..=1024).contains(&n) {
        return Err(format!("{n} is not in 1..=1024"));
    }
    Ok(n as usize)
}

/// A probability: from 0 to 1.
pub fn fraction(s: &str) -> Result<f64, String> {
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

/// A positive finite number.
pub fn factor(s: &str) -> Result<f64, String> {
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

/// A percentage above 0 and at most 100.
pub fn percent(s: &str) -> Result<f64, String> {
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

/// A positive number of seconds that a `Duration` holds.
pub fn seconds(s: &str) -> Result<f64, String> {
    let x = factor(s).map_err(|_| "must be a positive number of seconds".to_string())?;
    std::time::Duration::try_from_secs_f64(x)
        .map(|_| x)
        .map_err(|_| "is too long a duration".to_string())
}

/// A sweep-line progress level: 0 to 5.
pub fn level(s: &str) -> Result<u8, String> {
    match parse_count(s) {
        Ok(l) if l <= 5 => Ok(l as u8),
        _ => Err("must be a level from 0 to 5".into()),
    }
}
