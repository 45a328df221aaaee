//! A slice written out as Aldebaran (`.aut`) or Graphviz (`.dot`), by the
//! shared writer of `crate::lts`.

use super::runs::*;
use super::slice::*;
use crate::lts::{self, DotStyle, Format, LtsEdge};
use dve_frontend::model::ModelInfo;
use std::io::Write;

fn edges(slice: &Slice) -> Vec<LtsEdge> {
    slice
        .edges
        .iter()
        .map(|e| LtsEdge {
            from: e.from,
            to: e.to,
            label: e.label,
            error: e.error,
        })
        .collect()
}

/// The slice in Aldebaran format ([`lts::write_aut`]); state 0 is the
/// initial state.
pub fn write_aut(out: &mut impl Write, slice: &Slice, info: &ModelInfo) -> std::io::Result<()> {
    lts::write_aut(out, info, slice.len(), &edges(slice))
}

/// The slice in Graphviz DOT: one rank per queue; single steps solid, back
/// edges dotted, jumps dashed (the paper's Fig. 2); deadlocks as boxes,
/// accepting states as double circles.
pub fn write_dot(out: &mut impl Write, slice: &Slice, info: &ModelInfo) -> std::io::Result<()> {
    let ranks = (0..slice.queue_starts.len())
        .map(|q| {
            let hi = slice.queue_starts.get(q + 1).map_or(slice.len() as u32, |&h| h);
            slice.queue_starts[q]..hi
        })
        .collect();
    let node = |v: u32| {
        let s = slice.states.get(v);
        let mut attrs = vec![format!(
            "tooltip=\"Q{}: {}\"",
            slice.queue[v as usize],
            lts::dot_escape(&info.state_text(s))
        )];
        if slice.model_degree[v as usize] == 0 {
            attrs.push("shape=box".into());
        } else if info.is_accepting(s) {
            attrs.push("shape=doublecircle".into());
        }
        if v == 0 {
            attrs.push("style=bold".into());
        }
        attrs
    };
    let edge_style = |i: usize| {
        Some(match slice.edges[i].kind {
            EdgeKind::SingleStep => "solid",
            EdgeKind::BackEdge => "dotted",
            EdgeKind::Jump => "dashed",
        })
    };
    let style = DotStyle {
        name: "slice",
        comment: format!(
            "{} states, {} transitions, {} queues",
            slice.len(),
            slice.edges.len(),
            slice.queues()
        ),
        ranks,
        node: &node,
        edge_style: &edge_style,
    };
    lts::write_dot(out, info, slice.len(), &edges(slice), &style)
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
    let is_dot = Format::of(path) == Some(Format::Dot);
    if is_dot && slice.len() > DOT_MAX_STATES {
        return Err(ExportError::TooBig(format!(
            "the slice has {} states: DOT export is for slices of at most {DOT_MAX_STATES} states; use a .aut file",
            slice.len()
        )));
    }
    lts::write_file(path, |w| {
        if is_dot {
            write_dot(w, slice, info)
        } else {
            write_aut(w, slice, info)
        }
    })
    .map_err(ExportError::Io)
}
