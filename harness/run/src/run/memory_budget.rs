//! The memory budget of `explore` without `--memory-limit`: four fifths of
//! the memory available when the run starts, so that a search that would
//! fill the machine stops with `memory_limit` and its counters instead of
//! swapping or being killed by the kernel. The fifth left is the margin:
//! the allocator's cap (`engine::guard`, a quarter above the budget) then
//! sits at what was available ([`memory_cap`]).
//!
//! Available: the least of `MemAvailable` (/proc/meminfo) and the room left
//! in the process's cgroup (cgroup v2: `memory.max` less `memory.current`),
//! or `$DVEMC_MEMORY_AVAILABLE` (a byte count, as `--memory-limit` takes)
//! in their place.

use crate::engine::units::parse_bytes;

/// The environment variable that replaces what the system says is available.
pub const AVAILABLE_ENV: &str = "DVEMC_MEMORY_AVAILABLE";

/// The default budget in bytes; `Ok(None)` when the available memory is
/// unknown (no /proc), an error for a malformed `$DVEMC_MEMORY_AVAILABLE`.
pub fn default_limit() -> Result<Option<u64>, String> {
    Ok(available()?.map(limit_of))
}

/// The allocator's cap for a search budget of `limit` bytes: L plus slack
/// for what the search's own accounting does not count (successor
/// buffers, the model, the compiler's working memory): a quarter of L, at
/// least 64 MiB.
pub fn memory_cap(limit: u64) -> u64 {
    limit.saturating_add((limit / 4).max(64 << 20))
}

/// The budget from the available bytes.
fn limit_of(available: u64) -> u64 {
    available / 5 * 4
}

fn available() -> Result<Option<u64>, String> {
    if let Ok(v) = std::env::var(AVAILABLE_ENV) {
        return parse_bytes(&v)
            .map(Some)
            .map_err(|e| format!("{AVAILABLE_ENV}={v}: {e}"));
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| mem_available(&t));
    let cgroup = cgroup_room(
        std::fs::read_to_string("/sys/fs/cgroup/memory.max")
            .ok()
            .as_deref(),
        std::fs::read_to_string("/sys/fs/cgroup/memory.current")
            .ok()
            .as_deref(),
    );
    Ok(match (meminfo, cgroup) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    })
}

/// `MemAvailable` of /proc/meminfo, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// What the cgroup still allows (`None`: no limit, `max`).
fn cgroup_room(max: Option<&str>, current: Option<&str>) -> Option<u64> {
    let max: u64 = max?.trim().parse().ok()?;
    let current: u64 = current.and_then(|c| c.trim().parse().ok()).unwrap_or(0);
    Some(max.saturating_sub(current))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_meminfo_and_the_cgroup() {
        let info = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   20000000 kB\n";
        assert_eq!(mem_available(info), Some(20_000_000 * 1024));
        assert_eq!(mem_available("MemTotal: 5 kB\n"), None);
        assert_eq!(cgroup_room(Some("max\n"), Some("123\n")), None);
        assert_eq!(cgroup_room(Some("1000\n"), Some("300\n")), Some(700));
        assert_eq!(cgroup_room(Some("1000\n"), Some("3000\n")), Some(0));
        assert_eq!(cgroup_room(None, None), None);
        assert_eq!(limit_of(1000), 800);
    }
}
