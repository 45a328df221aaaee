//! The boundary between models and algorithms.
//!
//! Everything an exploration algorithm may know about a model goes through
//! [`NextState`]: the length of a state vector, the initial state, the
//! successors of a state (in a fixed, documented order, each with a
//! transition [`Label`]) and a fingerprint. The reference interpreter and the
//! JIT both implement it; tests also implement it with small hand-written
//! graphs. This module depends on nothing else in the crate.

pub mod fingerprint;

/// Marks "no transition" in a [`Label`] field.
pub const NONE: u32 = u32::MAX;

/// Which transitions of the model produced a successor.
///
/// `trans` is the model-wide index of the local transition or of the
/// rendezvous sender, `partner` that of the rendezvous receiver, `prop` that
/// of the property-process transition of the product step. A step in which
/// only the property process moves (the system is deadlocked) has
/// `trans == NONE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label {
    pub trans: u32,
    pub partner: u32,
    pub prop: u32,
}

impl Label {
    pub const fn local(trans: u32) -> Label {
        Label {
            trans,
            partner: NONE,
            prop: NONE,
        }
    }
}

/// One entry of a [`SuccBuf`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Succ {
    pub label: Label,
    /// The transition raised a run-time error; its successor is the error state.
    pub error: bool,
}

/// Caller-owned, reused output of [`NextState::successors`]: the successor
/// states back to back in one byte area plus one entry per successor.
#[derive(Clone, Debug, Default)]
pub struct SuccBuf {
    state_len: usize,
    states: Vec<u8>,
    entries: Vec<Succ>,
    /// Working memory a backend may reuse between calls (kept here so that
    /// `successors` can take `&self` and still allocate nothing per state).
    pub scratch: Vec<u32>,
}

impl SuccBuf {
    /// Bytes allocated (for memory accounting).
    pub fn bytes(&self) -> usize {
        self.states.capacity()
            + self.entries.capacity() * std::mem::size_of::<Succ>()
            + self.scratch.capacity() * 4
    }

    pub fn new(state_len: usize) -> SuccBuf {
        SuccBuf {
            state_len,
            states: Vec::new(),
            entries: Vec::new(),
            scratch: Vec::new(),
        }
    }
    pub fn state_len(&self) -> usize {
        self.state_len
    }
    pub fn clear(&mut self) {
        self.states.clear();
        self.entries.clear();
    }
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// Appends a successor whose bytes are a copy of `src`, and returns them
    /// for the caller to modify.
    pub fn push_copy(&mut self, src: &[u8], label: Label, error: bool) -> &mut [u8] {
        debug_assert_eq!(src.len(), self.state_len);
        let start = self.states.len();
        self.states.extend_from_slice(src);
        self.entries.push(Succ { label, error });
        &mut self.states[start..]
    }
    /// Appends a zeroed successor and returns its bytes.
    pub fn push_zeroed(&mut self, label: Label, error: bool) -> &mut [u8] {
        let start = self.states.len();
        self.states.resize(start + self.state_len, 0);
        self.entries.push(Succ { label, error });
        &mut self.states[start..]
    }
    /// Removes the last entry (used when a successor turns out not to exist).
    pub fn pop(&mut self) {
        if self.entries.pop().is_some() {
            self.states.truncate(self.states.len() - self.state_len);
        }
    }
    /// Keeps only the entries `i` for which `keep(i)` holds, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(usize) -> bool) {
        let n = self.state_len;
        let mut kept = 0;
        for i in 0..self.entries.len() {
            if keep(i) {
                self.entries[kept] = self.entries[i];
                self.states.copy_within(i * n..(i + 1) * n, kept * n);
                kept += 1;
            }
        }
        self.entries.truncate(kept);
        self.states.truncate(kept * n);
    }
    pub fn state(&self, i: usize) -> &[u8] {
        &self.states[i * self.state_len..(i + 1) * self.state_len]
    }
    pub fn state_mut(&mut self, i: usize) -> &mut [u8] {
        &mut self.states[i * self.state_len..(i + 1) * self.state_len]
    }
    pub fn entry(&self, i: usize) -> Succ {
        self.entries[i]
    }
    pub fn entries(&self) -> &[Succ] {
        &self.entries
    }
    /// Raw access for backends that fill the buffer in bulk (the JIT).
    pub fn raw_parts_mut(&mut self) -> (&mut Vec<u8>, &mut Vec<Succ>) {
        (&mut self.states, &mut self.entries)
    }
    pub fn iter(&self) -> impl Iterator<Item = (Succ, &[u8])> + '_ {
        self.entries
            .iter()
            .copied()
            .zip(self.states.chunks_exact(self.state_len.max(1)))
    }
}

/// A named region of the state vector, for printing states and traces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// `x`, `a[3]`, `P.x`, `P.a[0]`, `P` (a control state), `ch.len`, ...
    pub name: String,
    pub offset: usize,
    /// 1 or 2 bytes.
    pub width: usize,
    pub signed: bool,
    pub kind: SlotKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SlotKind {
    Variable,
    /// A process's control state; the value indexes `ProcessInfo::states`.
    ControlState {
        process: usize,
    },
    ChannelLength,
    ChannelItem,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessInfo {
    pub name: String,
    pub states: Vec<String>,
    /// Offset of the 2-byte control-state field.
    pub state_offset: usize,
    pub accepting: Vec<bool>,
    pub is_property: bool,
}

/// Static description of a model: enough to decode states and labels.
#[derive(Clone, Debug, Default)]
pub struct ModelInfo {
    pub name: String,
    pub state_len: usize,
    pub slots: Vec<Slot>,
    pub processes: Vec<ProcessInfo>,
    /// Human-readable text of every transition, indexed like `Label::trans`.
    pub transitions: Vec<String>,
    /// The body of every transition as DVE text (`guard ...; effect ...`),
    /// indexed like `Label::trans`.
    pub transition_bodies: Vec<String>,
    /// Process of every transition, indexed like `Label::trans`.
    pub transition_process: Vec<usize>,
    /// Index into `processes` of the property process, if any.
    pub property: Option<usize>,
}

impl ModelInfo {
    /// Reads the slot at `slot` from a state vector.
    pub fn slot_value(&self, slot: &Slot, state: &[u8]) -> i32 {
        read_slot(state, slot.offset, slot.width, slot.signed)
    }

    /// Control state of process `p` in `state`.
    pub fn control_state(&self, p: usize, state: &[u8]) -> u16 {
        let off = self.processes[p].state_offset;
        u16::from_le_bytes([state[off], state[off + 1]])
    }

    /// True when the property process is in an accepting state.
    pub fn is_accepting(&self, state: &[u8]) -> bool {
        match self.property {
            None => false,
            Some(p) => {
                let s = self.control_state(p, state) as usize;
                self.processes[p].accepting.get(s).copied().unwrap_or(false)
            }
        }
    }

    /// Renders a label as `P: a -> b` / `P: a -> b ! ch | Q: c -> d ? ch`.
    pub fn label_text(&self, label: &Label) -> String {
        let mut parts = Vec::new();
        for t in [label.trans, label.partner, label.prop] {
            if t != NONE {
                parts.push(
                    self.transitions
                        .get(t as usize)
                        .cloned()
                        .unwrap_or_else(|| format!("#{t}")),
                );
            }
        }
        parts.join(" | ")
    }

    /// Like `label_text`, with each transition's body:
    /// `P: a -> b {guard x < 3; effect x = x + 1}`.
    pub fn label_detail(&self, label: &Label) -> String {
        let mut parts = Vec::new();
        for t in [label.trans, label.partner, label.prop] {
            if t == NONE {
                continue;
            }
            let text = self
                .transitions
                .get(t as usize)
                .cloned()
                .unwrap_or_else(|| format!("#{t}"));
            match self.transition_bodies.get(t as usize).filter(|b| !b.is_empty()) {
                Some(b) => parts.push(format!("{text} {{{b}}}")),
                None => parts.push(text),
            }
        }
        parts.join(" | ")
    }

    /// Renders a state as `x=1, a=[0,2], P=idle, P.k=3`.
    pub fn state_text(&self, state: &[u8]) -> String {
        let out: Vec<String> = self
            .slots
            .iter()
            .map(|slot| format!("{}={}", slot.name, self.value_text(slot, state)))
            .collect();
        out.join(", ")
    }

    /// A slot's value in `state` as people read it: a number, or a control
    /// state's name (`<error>` in the error state).
    pub fn value_text(&self, slot: &Slot, state: &[u8]) -> String {
        let v = self.slot_value(slot, state);
        match slot.kind {
            SlotKind::ControlState { process } => match self.processes[process].states.get(v as usize) {
                Some(n) => n.clone(),
                None => "<error>".into(),
            },
            _ => v.to_string(),
        }
    }
}

/// Reads a little-endian 1- or 2-byte value, sign-extending when `signed`.
#[inline]
pub fn read_slot(state: &[u8], offset: usize, width: usize, signed: bool) -> i32 {
    match (width, signed) {
        (1, false) => state[offset] as i32,
        (1, true) => state[offset] as i8 as i32,
        (_, false) => u16::from_le_bytes([state[offset], state[offset + 1]]) as i32,
        (_, true) => i16::from_le_bytes([state[offset], state[offset + 1]]) as i32,
    }
}

/// The next-state interface: the one abstraction between models and
/// exploration algorithms.
///
/// Contract: `successors` is deterministic (same source, same entries in the
/// same order: DiVinE's order, see `docs` §7.7), every state is exactly
/// `info().state_len` bytes, errors are entries (never panics), and all
/// methods take `&self` so a model can be shared between threads.
pub trait NextState: Send + Sync {
    fn info(&self) -> &ModelInfo;

    fn state_len(&self) -> usize {
        self.info().state_len
    }

    /// Writes the initial state into `out` (`state_len` bytes).
    fn initial_state(&self, out: &mut [u8]);

    /// Clears `out` and fills it with every successor of `src`, in order.
    fn successors(&self, src: &[u8], out: &mut SuccBuf);

    /// The 64-bit fingerprint of a state; never 0.
    fn fingerprint(&self, state: &[u8]) -> u64 {
        fingerprint::reference(state)
    }

    /// Number of *state functions* built with the model: expressions over a
    /// state (reachability goals, assertions) the algorithms evaluate
    /// through this boundary, so that every backend evaluates them its own
    /// way (the JIT compiles them).
    fn state_functions(&self) -> usize {
        0
    }

    /// Evaluates state function `i` on `state`: its 32-bit value, or
    /// `None` when the evaluation raises a run-time error.
    fn state_function(&self, i: usize, state: &[u8]) -> Option<i32> {
        let _ = (i, state);
        None
    }

    /// Convenience: the initial state as a vector.
    fn initial_vec(&self) -> Vec<u8> {
        let mut v = vec![0u8; self.state_len()];
        self.initial_state(&mut v);
        v
    }
}
