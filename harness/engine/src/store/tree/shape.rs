//! The fixed binary tree over a state's 32-bit words: its nodes, which of
//! them a successor changed, and the words under a node.

/// A child of a tree node: a word (leaf) or a node of the tree.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Child {
    Word(usize),
    Node(usize),
}

/// An inner node of the fixed tree: its two children.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    pub left: Child,
    pub right: Child,
}

/// `state`'s words, little-endian, the last padded with zeros, then zeros
/// to the end of `out`.
pub(crate) fn read_words(state: &[u8], out: &mut [u32]) {
    let whole = state.chunks_exact(4);
    let tail = whole.remainder();
    let n = whole.len();
    for (w, b) in out.iter_mut().zip(whole) {
        *w = u32::from_le_bytes(b.try_into().expect("4 bytes"));
    }
    out[n..].fill(0);
    if !tail.is_empty() {
        // (Byte by byte: a copy into a 4-byte buffer read back whole
        // stalls the store-to-load forwarding.)
        out[n] = tail.iter().rev().fold(0, |w, &b| w << 8 | b as u32);
    }
}

/// The words a state of `state_len` bytes is read as: at least two, so
/// that there is a root pair.
pub(crate) fn words_for(state_len: usize) -> usize {
    state_len.div_ceil(4).max(2)
}

/// The words of a state of `state_len` bytes and the inner nodes of the
/// tree over them in the order `leaves` (children first, the root last).
/// Panics unless `leaves` is a permutation of the words.
pub(crate) fn shape(state_len: usize, leaves: &[usize]) -> (usize, Vec<Node>) {
    let words = words_for(state_len);
    let mut sorted = leaves.to_vec();
    sorted.sort_unstable();
    assert!(
        sorted.iter().copied().eq(0..words),
        "leaves: a permutation of the words"
    );
    let mut nodes = Vec::new();
    build(leaves, &mut nodes);
    (words, nodes)
}

/// Marks in `changed` the nodes of the tree `nodes` over `words` whose
/// subtree differs from the decoded tree `known` (its words and node
/// indices; every node if none), and copies the others' indices from it
/// into `idx`: equal subtrees, equal indices.
#[inline]
pub(crate) fn mark_changed(
    nodes: &[Node],
    words: &[u32],
    known: Option<(&[u32], &[u32])>,
    idx: &mut [u32],
    changed: &mut [bool],
) {
    let Some((last_words, last_idx)) = known else {
        changed[..nodes.len()].fill(true);
        return;
    };
    for (i, node) in nodes.iter().enumerate() {
        let differs = |c: Child| match c {
            Child::Word(w) => words[w] != last_words[w],
            Child::Node(n) => changed[n],
        };
        changed[i] = differs(node.left) || differs(node.right);
        if !changed[i] {
            idx[i] = last_idx[i];
        }
    }
}

/// For each of `nodes` (over `words` words), the words under it as bits;
/// none if there are more than 64 words.
pub(crate) fn word_masks(nodes: &[Node], words: usize) -> Vec<u64> {
    if words > 64 {
        return Vec::new();
    }
    let mut masks: Vec<u64> = Vec::with_capacity(nodes.len());
    for n in nodes {
        let m = |c: Child| match c {
            Child::Word(w) => 1u64 << w,
            Child::Node(k) => masks[k],
        };
        let v = m(n.left) | m(n.right);
        masks.push(v);
    }
    masks
}

/// The words under `c`, in the leaf order.
pub(crate) fn leaves_under(nodes: &[Node], c: Child) -> Vec<usize> {
    pub(crate) fn walk(nodes: &[Node], c: Child, out: &mut Vec<usize>) {
        match c {
            Child::Word(w) => out.push(w),
            Child::Node(n) => {
                walk(nodes, nodes[n].left, out);
                walk(nodes, nodes[n].right, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(nodes, c, &mut out);
    out
}

/// Appends the inner nodes over the words `leaves` (children first); the
/// child that stands for them.
pub(crate) fn build(leaves: &[usize], nodes: &mut Vec<Node>) -> Child {
    if leaves.len() == 1 {
        return Child::Word(leaves[0]);
    }
    let (l, r) = leaves.split_at(leaves.len().div_ceil(2));
    let left = build(l, nodes);
    let right = build(r, nodes);
    nodes.push(Node { left, right });
    Child::Node(nodes.len() - 1)
}
