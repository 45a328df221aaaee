//! Table 2 of Evangelista and Kristensen as the paper prints it: the figures
//! our runs are compared with, never fitted to. The figures live in
//! `table2.txt` (one instance a line), read once.

use std::sync::OnceLock;

/// One cell pair of the paper's Table 2: (S, V) for no CR and CR per family.
pub struct PaperRow {
    pub instance: &'static str,
    pub states: u64,
    pub degree: f64,
    /// [DFS, BFS, BBFS, Alt] × [no CR, CR] → (S, V, parameter).
    pub cells: [[(u32, u32, &'static str); 2]; 4],
}

/// The paper's figures, as printed; the format is described at its top.
const TABLE2: &str = include_str!("table2.txt");

/// Table 2 of the paper (rows: instance, |S|, d; DFS S V no/yes; BFS S V
/// no/yes; BBFS S V w no/yes; Alt S V (b,d) no/yes).
pub fn paper_table2() -> &'static [PaperRow] {
    static ROWS: OnceLock<Vec<PaperRow>> = OnceLock::new();
    ROWS.get_or_init(|| {
        TABLE2
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(parse_row)
            .collect()
    })
}

/// One line of `table2.txt`; the file is part of the source, so a malformed
/// line is a programming error.
fn parse_row(line: &'static str) -> PaperRow {
    let f: Vec<&'static str> = line.split_whitespace().collect();
    assert_eq!(f.len(), 23, "table2.txt: 23 fields expected in {line:?}");
    let n = |i: usize| -> u32 {
        f[i].parse()
            .unwrap_or_else(|_| panic!("table2.txt: field {i} of {line:?}"))
    };
    // The two families without a parameter have S V S V, the two with one S V p S V p.
    let plain = |at: usize| [(n(at), n(at + 1), ""), (n(at + 2), n(at + 3), "")];
    let with_param = |at: usize| [(n(at), n(at + 1), f[at + 2]), (n(at + 3), n(at + 4), f[at + 5])];
    PaperRow {
        instance: f[0],
        states: f[1].parse().expect("table2.txt: |S|"),
        degree: f[2].parse().expect("table2.txt: d"),
        cells: [plain(3), plain(7), with_param(11), with_param(17)],
    }
}

pub const FAMILIES: [&str; 4] = ["DFS", "BFS", "BBFS", "Alt"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_every_instance_once_with_its_figures() {
        let rows = paper_table2();
        assert_eq!(rows.len(), 25);
        let mut names: Vec<&str> = rows.iter().map(|r| r.instance).collect();
        names.dedup();
        assert_eq!(names.len(), 25);
        let first = &rows[0];
        assert_eq!((first.instance, first.states, first.degree), ("at.2", 49443, 2.9));
        assert_eq!(first.cells[0], [(35, 228, ""), (30, 428, "")]);
        assert_eq!(first.cells[1], [(40, 130, ""), (40, 130, "")]);
        assert_eq!(first.cells[2], [(30, 369, "4"), (30, 373, "4")]);
        assert_eq!(first.cells[3], [(30, 219, "8,4"), (30, 222, "8,4")]);
        let last = &rows[24];
        assert_eq!(
            (last.instance, last.states, last.degree),
            ("train-gate.5", 803458, 2.1)
        );
        assert_eq!(last.cells[2], [(10, 110, "4"), (10, 105, "256")]);
        assert_eq!(last.cells[3], [(10, 102, "4,1"), (10, 102, "4,1")]);
    }
}
