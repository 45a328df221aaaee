//! Durations and byte counts as people read and write them.

pub fn human_secs(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.0} µs", s * 1e6)
    }
}

pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// `123`, `1.5G`, `512MiB`, `2GB`: K/M/G/T and KiB/MiB/GiB/TiB are powers of
/// 1024, KB/MB/GB/TB powers of 1000 (the grammar of `explore --memory-limit`).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let (num, unit) = number_and_unit(s);
    let value: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a byte count (e.g. 512M, 2GiB)"))?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024.0 * 1024.0,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        other => {
            return Err(format!(
                "unknown unit `{other}` in `{s}` (use K, M, G, T, KiB, MiB, GiB, KB, MB, GB)"
            ))
        }
    };
    let bytes = value * mult;
    if !bytes.is_finite() || bytes > u64::MAX as f64 {
        return Err(format!("`{s}` is too large"));
    }
    Ok(bytes as u64)
}

/// `90`, `2.5`, `30s`, `500ms`, `5m`, `1h` (the grammar of `explore --time-limit`).
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let (num, unit) = number_and_unit(s);
    let value: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a duration (e.g. 90, 2.5, 30s, 5m, 1h)"))?;
    let mult = match unit.trim() {
        "" | "s" => 1.0,
        "ms" => 1e-3,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        other => return Err(format!("unknown time unit `{other}` in `{s}` (use ms, s, m, h)")),
    };
    std::time::Duration::try_from_secs_f64(value * mult).map_err(|_| format!("`{s}` is not a valid duration"))
}

/// An amount as written, `1.5G` or `500ms`: its number and its unit.
fn number_and_unit(s: &str) -> (&str, &str) {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    t.split_at(split)
}
