//! A run's statistics in the element form of BEEM's stat.xml files
//! (`explore --stats`), each figure flagged where it differs from BEEM's.

use std::io::Write;

use crate::model::beem::StatFile;
use crate::output::record::RunRecord;

/// The statistics in the element form of BEEM's stat.xml files; with a
/// reference, mismatching values are flagged.
pub fn write(out: &mut impl Write, r: &RunRecord, reference: Option<&StatFile>) -> std::io::Result<()> {
    fn cmp(ours: u64, theirs: Option<u64>) -> String {
        match theirs {
            Some(t) if t == ours => "  <!-- = BEEM -->".to_string(),
            Some(t) => format!("  <!-- BEEM: {t} -->"),
            None => String::new(),
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "<states>{}</states>{}",
        r.core.states,
        cmp(r.core.states, reference.map(|s| s.states))
    )?;
    writeln!(
        out,
        "<edges>{}</edges>{}",
        r.core.transitions,
        cmp(r.core.transitions, reference.map(|s| s.edges))
    )?;
    if let Some(levels) = r.bfs.as_ref().and_then(|g| g.levels) {
        writeln!(out, "<bfs-info>")?;
        writeln!(
            out,
            " <levels>{levels}</levels>{}",
            cmp(levels, reference.map(|s| s.levels))
        )?;
        if let Some(m) = r.bfs.as_ref().and_then(|g| g.max_level_states) {
            writeln!(
                out,
                "<max-level>{m}</max-level>{}",
                cmp(m, reference.and_then(|s| s.max_level))
            )?;
        }
        if let Some(b) = r.bfs.as_ref().and_then(|g| g.back_level_edges) {
            writeln!(
                out,
                "<back-level-edges>{b}</back-level-edges>{}",
                cmp(b, reference.map(|s| s.back_level_edges))
            )?;
        }
        if let Some(m) = r.bfs.as_ref().and_then(|g| g.max_back_level_edge) {
            writeln!(
                out,
                "<max-back-level-edge>{m}</max-back-level-edge>{}",
                cmp(m, reference.and_then(|s| s.max_back_level_edge))
            )?;
        }
        if let Some(table) = &r.details.level_table {
            writeln!(out, "<bfs-levels>")?;
            for l in table {
                let theirs = reference.and_then(|s| s.bfs_levels.get(l.level as usize));
                let note = match theirs {
                    Some(t) if t.states == l.states && t.edges == l.edges => String::new(),
                    Some(t) => format!("  <!-- BEEM: {} states, {} edges -->", t.states, t.edges),
                    None if reference.is_some() => "  <!-- BEEM: no such level -->".to_string(),
                    None => String::new(),
                };
                writeln!(
                    out,
                    "<level id=\"{}\"><states>{}</states><edges>{}</edges><back-level-edges>{}</back-level-edges></level>{note}",
                    l.level, l.states, l.edges, l.back_level_edges
                )?;
            }
            writeln!(out, "</bfs-levels>")?;
        }
        writeln!(out, "</bfs-info>")?;
    }
    if let (Some(max_stack), Some(front), Some(back), Some(cross)) = (
        r.dfs.as_ref().and_then(|g| g.dfs_max_stack),
        r.dfs.as_ref().and_then(|g| g.dfs_front_edges),
        r.dfs.as_ref().and_then(|g| g.dfs_back_edges),
        r.dfs.as_ref().and_then(|g| g.dfs_cross_edges),
    ) {
        let rd = reference.and_then(|s| s.dfs);
        writeln!(out, "<dfs-info>")?;
        writeln!(
            out,
            "<max-stack>{max_stack}</max-stack>{}",
            cmp(max_stack, rd.map(|x| x.max_stack))
        )?;
        writeln!(
            out,
            "<front-edges>{front}</front-edges>{}",
            cmp(front, rd.map(|x| x.front_edges))
        )?;
        writeln!(
            out,
            "<back-edges>{back}</back-edges>{}",
            cmp(back, rd.map(|x| x.back_edges))
        )?;
        writeln!(
            out,
            "<cross-edges>{cross}</cross-edges>{}",
            cmp(cross, rd.map(|x| x.cross_edges))
        )?;
        writeln!(out, "</dfs-info>")?;
    }
    Ok(())
}
