//! A slice written out as Aldebaran (`.aut`) or Graphviz (`.dot`).

use super::runs::*;
use super::slice::*;
use dve_frontend::model::ModelInfo;
use std::io::Write;

pub(crate) fn edge_label(info: &ModelInfo, e: &SliceEdge) -> String {
    let mut text = info.label_text(&e.label);
    if text.is_empty() {
        text = format!("t{}", e.label.trans);
    }
    if e.error {
        text.push_str(" [error]");
    }
    text
}

/// The slice in Aldebaran format: `des (initial, transitions, states)` and
/// one `(from, "label", to)` line per transition; state 0 is the initial
/// state. Double quotes inside labels become single quotes.
pub fn write_aut(out: &mut impl Write, slice: &Slice, info: &ModelInfo) -> std::io::Result<()> {
    writeln!(out, "des (0, {}, {})", slice.edges.len(), slice.len())?;
    for e in &slice.edges {
        writeln!(
            out,
            "({}, \"{}\", {})",
            e.from,
            edge_label(info, e).replace('"', "'"),
            e.to
        )?;
    }
    Ok(())
}

/// The slice in Graphviz DOT: one rank per queue; single steps solid, back
/// edges dotted, jumps dashed (the paper's Fig. 2); deadlocks as boxes,
/// accepting states as double circles.
pub fn write_dot(out: &mut impl Write, slice: &Slice, info: &ModelInfo) -> std::io::Result<()> {
    let esc = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    writeln!(out, "digraph slice {{")?;
    writeln!(
        out,
        "  // {} states, {} transitions, {} queues",
        slice.len(),
        slice.edges.len(),
        slice.queues()
    )?;
    writeln!(out, "  node [shape=circle, fontsize=10];")?;
    writeln!(out, "  edge [fontsize=8];")?;
    for (q, &lo) in slice.queue_starts.iter().enumerate() {
        let hi = slice.queue_starts.get(q + 1).map_or(slice.len() as u32, |&h| h);
        write!(out, "  {{ rank=same;")?;
        for v in lo..hi {
            write!(out, " {v};")?;
        }
        writeln!(out, " }}")?;
    }
    for v in 0..slice.len() as u32 {
        let s = slice.states.get(v);
        let mut attrs = vec![format!(
            "tooltip=\"Q{}: {}\"",
            slice.queue[v as usize],
            esc(&info.state_text(s))
        )];
        if slice.model_degree[v as usize] == 0 {
            attrs.push("shape=box".into());
        } else if info.is_accepting(s) {
            attrs.push("shape=doublecircle".into());
        }
        if v == 0 {
            attrs.push("style=bold".into());
        }
        writeln!(out, "  {v} [{}];", attrs.join(", "))?;
    }
    for e in &slice.edges {
        let style = match e.kind {
            EdgeKind::SingleStep => "solid",
            EdgeKind::BackEdge => "dotted",
            EdgeKind::Jump => "dashed",
        };
        writeln!(
            out,
            "  {} -> {} [label=\"{}\", style={style}];",
            e.from,
            e.to,
            esc(&edge_label(info, e))
        )?;
    }
    writeln!(out, "}}")
}

/// Why a slice could not be exported.
#[derive(Debug)]
pub enum ExportError {
    /// DOT is for small slices.
    TooBig(String),
    /// The file could not be written.
    Io(String),
}

/// Writes `slice` as Aldebaran (`.aut`) or Graphviz (`.dot`, at most
/// [`DOT_MAX_STATES`] states) by the file's extension.
pub fn export(path: &std::path::Path, slice: &Slice, info: &ModelInfo) -> Result<(), ExportError> {
    let is_dot = path.extension().is_some_and(|e| e == "dot");
    if is_dot && slice.len() > DOT_MAX_STATES {
        return Err(ExportError::TooBig(format!(
            "the slice has {} states: DOT export is for slices of at most {DOT_MAX_STATES} states; use a .aut file",
            slice.len()
        )));
    }
    let io = |e: std::io::Error| ExportError::Io(format!("writing {}: {e}", path.display()));
    let file = std::fs::File::create(path)
        .map_err(|e| ExportError::Io(format!("cannot create {}: {e}", path.display())))?;
    let mut w = std::io::BufWriter::new(file);
    if is_dot {
        write_dot(&mut w, slice, info).map_err(io)?;
    } else {
        write_aut(&mut w, slice, info).map_err(io)?;
    }
    w.flush().map_err(io)
}
