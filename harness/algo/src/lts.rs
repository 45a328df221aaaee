//! A labelled transition system written out: Aldebaran `.aut` (read by
//! mCRL2, CADP and LTSmin) or Graphviz DOT (for figures). One writer for
//! the whole state space of `explore --export` and for bbmc's slices
//! (`--export-lts`), so both label transitions alike: the transition's
//! text, `P: a -> b` (`P: a -> b | Q: c -> d` for a synchronisation), with
//! ` [error]` after a transition that raised a run-time error.
//!
//! States are numbered densely from 0, the initial state 0, as `.aut`
//! wants. [`EdgeLog`] collects the transitions as a search takes them (one
//! thread or several) and renumbers the states at the end.

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use dve_frontend::model::{Label, ModelInfo, Succ};

/// One transition, between dense state numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LtsEdge {
    pub from: u32,
    pub to: u32,
    pub label: Label,
    pub error: bool,
}

/// The file formats, by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Aut,
    Dot,
}

impl Format {
    /// The format of `path` by its extension, `.aut` or `.dot`.
    pub fn of(path: &Path) -> Option<Format> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("aut") => Some(Format::Aut),
            Some("dot") => Some(Format::Dot),
            _ => None,
        }
    }
}

/// A transition's label in both formats.
pub fn edge_label(info: &ModelInfo, label: &Label, error: bool) -> String {
    let mut text = info.label_text(label);
    if text.is_empty() {
        text = format!("t{}", label.trans);
    }
    if error {
        text.push_str(" [error]");
    }
    text
}

/// Aldebaran: `des (0, transitions, states)`, then one `(from, "label",
/// to)` line per transition. Double quotes inside labels become single
/// quotes.
pub fn write_aut(
    out: &mut impl Write,
    info: &ModelInfo,
    states: usize,
    edges: &[LtsEdge],
) -> std::io::Result<()> {
    writeln!(out, "des (0, {}, {states})", edges.len())?;
    for e in edges {
        let label = edge_label(info, &e.label, e.error).replace('"', "'");
        writeln!(out, "({}, \"{label}\", {})", e.from, e.to)?;
    }
    Ok(())
}

/// What a DOT drawing adds to the states and transitions.
pub struct DotStyle<'a> {
    /// The graph's name.
    pub name: &'a str,
    /// A comment line after the header (the sizes).
    pub comment: String,
    /// Ranges of states drawn on one rank.
    pub ranks: Vec<std::ops::Range<u32>>,
    /// Attributes of state `v`.
    pub node: &'a dyn Fn(u32) -> Vec<String>,
    /// The `style` of transition `i`, if any.
    pub edge_style: &'a dyn Fn(usize) -> Option<&'static str>,
}

/// Escapes a string for a DOT double-quoted string.
pub fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Graphviz DOT: the states (attributes by `style.node`), each rank of
/// `style.ranks` on one line, the transitions labelled.
pub fn write_dot(
    out: &mut impl Write,
    info: &ModelInfo,
    states: usize,
    edges: &[LtsEdge],
    style: &DotStyle<'_>,
) -> std::io::Result<()> {
    writeln!(out, "digraph {} {{", style.name)?;
    writeln!(out, "  // {}", style.comment)?;
    writeln!(out, "  node [shape=circle, fontsize=10];")?;
    writeln!(out, "  edge [fontsize=8];")?;
    for r in &style.ranks {
        write!(out, "  {{ rank=same;")?;
        for v in r.clone() {
            write!(out, " {v};")?;
        }
        writeln!(out, " }}")?;
    }
    for v in 0..states as u32 {
        let attrs = (style.node)(v);
        if attrs.is_empty() {
            writeln!(out, "  {v};")?;
        } else {
            writeln!(out, "  {v} [{}];", attrs.join(", "))?;
        }
    }
    for (i, e) in edges.iter().enumerate() {
        let label = dot_escape(&edge_label(info, &e.label, e.error));
        match (style.edge_style)(i) {
            Some(s) => writeln!(out, "  {} -> {} [label=\"{label}\", style={s}];", e.from, e.to)?,
            None => writeln!(out, "  {} -> {} [label=\"{label}\"];", e.from, e.to)?,
        }
    }
    writeln!(out, "}}")
}

/// Creates `path` and writes it with `write`; the message names the file.
pub fn write_file(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    let mut w = std::io::BufWriter::new(file);
    write(&mut w)
        .and_then(|_| w.flush())
        .map_err(|e| format!("writing {}: {e}", path.display()))
}

/// The transitions of a search as it takes them, from any number of
/// threads: store ids, and the states themselves when their labels are
/// wanted.
pub struct EdgeLog {
    shards: Vec<Mutex<Shard>>,
    state_labels: bool,
}

#[derive(Default)]
struct Shard {
    edges: Vec<LtsEdge>,
    states: Vec<(u32, Vec<u8>)>,
}

/// Shards of the log: threads recording different states rarely wait.
const SHARDS: usize = 64;

impl EdgeLog {
    pub fn new(state_labels: bool) -> EdgeLog {
        EdgeLog {
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
            state_labels,
        }
    }

    /// Transition `e` from `src` to `dst` (store ids); `new` is `dst`'s
    /// state when this transition stored it.
    pub fn record(&self, src: u32, e: Succ, dst: u32, new: Option<&[u8]>) {
        let mut shard = self.shards[src as usize % SHARDS]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        shard.edges.push(LtsEdge {
            from: src,
            to: dst,
            label: e.label,
            error: e.error,
        });
        if let (true, Some(s)) = (self.state_labels, new) {
            shard.states.push((dst, s.to_vec()));
        }
    }

    /// The state space: states renumbered densely in the order of their
    /// store ids (the root, id 0, first), transitions by source; the
    /// states' bytes if labels were asked, `initial` being the root's.
    pub fn finish(self, initial: &[u8]) -> Lts {
        let mut edges = Vec::new();
        let mut states = Vec::new();
        for s in self.shards {
            let s = s.into_inner().unwrap_or_else(|e| e.into_inner());
            edges.extend(s.edges);
            states.extend(s.states);
        }
        let mut ids: Vec<u32> = std::iter::once(0).chain(edges.iter().map(|e| e.to)).collect();
        ids.sort_unstable();
        ids.dedup();
        let number = |id: u32| ids.binary_search(&id).expect("a recorded state") as u32;
        for e in &mut edges {
            e.from = number(e.from);
            e.to = number(e.to);
        }
        // Stable: one state's transitions keep the order they were taken in.
        edges.sort_by_key(|e| e.from);
        let labels = self.state_labels.then(|| {
            let mut bytes = vec![Vec::new(); ids.len()];
            bytes[0] = initial.to_vec();
            for (id, s) in states {
                bytes[number(id) as usize] = s;
            }
            bytes
        });
        Lts {
            states: ids.len(),
            edges,
            labels,
        }
    }
}

/// A whole state space, numbered densely.
#[derive(Debug)]
pub struct Lts {
    pub states: usize,
    pub edges: Vec<LtsEdge>,
    /// Each state's bytes, when state labels were asked.
    pub labels: Option<Vec<Vec<u8>>>,
}

impl Lts {
    /// Writes the state space in `format` into `path`: DOT marks the
    /// initial state bold and deadlocks as boxes, and labels each state
    /// with its variables when they were kept.
    pub fn write(&self, path: &Path, format: Format, info: &ModelInfo) -> Result<(), String> {
        match format {
            Format::Aut => write_file(path, |w| write_aut(w, info, self.states, &self.edges)),
            Format::Dot => {
                let mut out_degree = vec![0u32; self.states];
                for e in &self.edges {
                    out_degree[e.from as usize] += 1;
                }
                let node = |v: u32| {
                    let mut attrs = Vec::new();
                    if let Some(labels) = &self.labels {
                        attrs.push(format!(
                            "label=\"{v}\\n{}\"",
                            dot_escape(&info.state_text(&labels[v as usize]))
                        ));
                    }
                    if out_degree[v as usize] == 0 {
                        attrs.push("shape=box".into());
                    }
                    if v == 0 {
                        attrs.push("style=bold".into());
                    }
                    attrs
                };
                let style = DotStyle {
                    name: "lts",
                    comment: format!("{} states, {} transitions", self.states, self.edges.len()),
                    ranks: Vec::new(),
                    node: &node,
                    edge_style: &|_| None,
                };
                write_file(path, |w| write_dot(w, info, self.states, &self.edges, &style))
            }
        }
    }
}
