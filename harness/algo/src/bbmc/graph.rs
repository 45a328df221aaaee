//! A slice as a compressed adjacency graph, its strongly connected
//! components (Tarjan) and the states on a cycle.

/// No index, no component.
pub(crate) const NONE: u32 = u32::MAX;

/// A compressed adjacency list: the out-edges of node `v` are
/// `order[start[v]..start[v + 1]]`, indices into the edge sequence it was
/// built from; `target[i]` is the target of `order[i]`.
pub struct Csr {
    pub start: Vec<u32>,
    pub order: Vec<u32>,
    pub target: Vec<u32>,
}

impl Csr {
    pub fn build(n: usize, edges: impl Iterator<Item = (u32, u32)> + Clone) -> Csr {
        let mut start = vec![0u32; n + 1];
        let mut m = 0usize;
        for (f, _) in edges.clone() {
            start[f as usize + 1] += 1;
            m += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut order = vec![0u32; m];
        let mut target = vec![0u32; m];
        for (i, (f, t)) in edges.enumerate() {
            let at = fill[f as usize] as usize;
            fill[f as usize] += 1;
            order[at] = i as u32;
            target[at] = t;
        }
        Csr { start, order, target }
    }
    pub fn nodes(&self) -> usize {
        self.start.len() - 1
    }
    pub fn succ(&self, v: u32) -> std::ops::Range<usize> {
        self.start[v as usize] as usize..self.start[v as usize + 1] as usize
    }
}

/// Strongly connected components (Tarjan, iterative): a component number
/// per node.
pub fn sccs(g: &Csr) -> Vec<u32> {
    let n = g.nodes();
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut comp = vec![NONE; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut call: Vec<(u32, usize)> = Vec::new();
    let mut next_index = 0u32;
    let mut next_comp = 0u32;
    for root in 0..n as u32 {
        if index[root as usize] != NONE {
            continue;
        }
        call.push((root, g.succ(root).start));
        index[root as usize] = next_index;
        low[root as usize] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            let end = g.succ(v).end;
            if *i < end {
                let w = g.target[*i];
                *i += 1;
                if index[w as usize] == NONE {
                    index[w as usize] = next_index;
                    low[w as usize] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    call.push((w, g.succ(w).start));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
            } else {
                call.pop();
                if let Some(&(p, _)) = call.last() {
                    low[p as usize] = low[p as usize].min(low[v as usize]);
                }
                if low[v as usize] == index[v as usize] {
                    loop {
                        let w = stack.pop().expect("tarjan stack");
                        on_stack[w as usize] = false;
                        comp[w as usize] = next_comp;
                        if w == v {
                            break;
                        }
                    }
                    next_comp += 1;
                }
            }
        }
    }
    comp
}

/// The nodes lying on a cycle: in a component of two or more nodes, or
/// with a self-loop.
pub fn on_cycle(g: &Csr) -> Vec<bool> {
    let comp = sccs(g);
    let mut size = vec![0u32; comp.iter().map(|&c| c as usize + 1).max().unwrap_or(0)];
    for &c in &comp {
        size[c as usize] += 1;
    }
    (0..g.nodes() as u32)
        .map(|v| size[comp[v as usize] as usize] > 1 || g.succ(v).any(|i| g.target[i] == v))
        .collect()
}
