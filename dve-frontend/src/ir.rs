//! The lowered, resolved model that the interpreter and the JIT consume.
//!
//! Every name is resolved to a place in the packed state vector (offsets in
//! bytes), constants are folded into literals, and transitions are grouped
//! per process in the categories that decide DiVinE's successor order
//! (`docs/dve-language.md` §7.7). Nothing here refers to syntax except the
//! human-readable `text` of a transition.

/// Storage type of a variable (`byte`: 1 byte unsigned, `int`: 2 bytes signed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Byte,
    Int,
}

impl Ty {
    pub fn width(self) -> usize {
        match self {
            Ty::Byte => 1,
            Ty::Int => 2,
        }
    }
    pub fn signed(self) -> bool {
        matches!(self, Ty::Int)
    }
    pub fn min(self) -> i32 {
        match self {
            Ty::Byte => 0,
            Ty::Int => -32768,
        }
    }
    pub fn max(self) -> i32 {
        match self {
            Ty::Byte => 255,
            Ty::Int => 32767,
        }
    }
    pub fn contains(self, v: i32) -> bool {
        v >= self.min() && v <= self.max()
    }
    pub fn name(self) -> &'static str {
        match self {
            Ty::Byte => "byte",
            Ty::Int => "int",
        }
    }
}

/// A non-constant variable placed in the state vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Var {
    /// `x` for a global, `P.x` for a local of process `P`.
    pub name: String,
    pub ty: Ty,
    pub offset: usize,
    /// `None` for a scalar, `Some(n)` for an array of `n` elements.
    pub array_len: Option<u32>,
    pub process: Option<usize>,
    /// Index in `Model::globals` order (globals only), used for the
    /// rendezvous global-write conflict test.
    pub global_index: Option<usize>,
}

/// A location an effect or a receive can store into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub var: usize,
    pub ty: Ty,
    pub offset: usize,
    /// Array length and index expression for `a[e]`.
    pub index: Option<(u32, Box<Expr>)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    /// Bitwise complement `~`.
    BitNot,
    /// Logical `not`.
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `and` / `&&`: short-circuit; the right operand is tested with `> 0`.
    And,
    /// `or` / `||`: short-circuit; the right operand is tested with `> 0`.
    Or,
    /// `imply`: short-circuit; the right operand is tested with `> 0`.
    Imply,
}

/// A typed expression; evaluation is in 32-bit signed arithmetic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Const(i32),
    /// A scalar variable (or a state-vector element at a fixed position).
    Load {
        ty: Ty,
        offset: usize,
    },
    /// `a[index]` with a bounds check against `len` (error when out of range).
    LoadIndex {
        ty: Ty,
        offset: usize,
        len: u32,
        index: Box<Expr>,
    },
    /// `K[index]` of a constant array: bounds-checked like a variable array.
    ConstIndex {
        values: Vec<i32>,
        index: Box<Expr>,
    },
    /// `P.s`: the 2-byte control state at `offset` equals `state`.
    InState {
        offset: usize,
        state: u16,
    },
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assign {
    pub place: Place,
    pub value: Expr,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyncKind {
    None,
    /// `c!v...` on a synchronous channel.
    Send {
        channel: usize,
        values: Vec<Expr>,
    },
    /// `c?x...` on a synchronous channel.
    Recv {
        channel: usize,
        targets: Vec<Place>,
    },
    /// `c!v...` on a buffered channel.
    BufSend {
        channel: usize,
        values: Vec<Expr>,
    },
    /// `c?x...` on a buffered channel.
    BufRecv {
        channel: usize,
        targets: Vec<Place>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transition {
    /// Model-wide index (the value of `Label::trans`).
    pub id: usize,
    pub process: usize,
    /// Offset of the process's 2-byte control state.
    pub control_offset: usize,
    pub from: u16,
    pub to: u16,
    pub guard: Option<Expr>,
    pub sync: SyncKind,
    pub effects: Vec<Assign>,
    /// Indices (in `Model::globals`) of the global variables the effects
    /// assign (an array element counts as the whole array; receive targets
    /// do not count) — DiVinE's rendezvous conflict test.
    pub global_writes: Vec<usize>,
    /// `P: a -> b c!` for labels.
    pub text: String,
    /// The body as DVE text (`guard ...; sync ...; effect ...`), for traces.
    pub body: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Process {
    pub name: String,
    pub states: Vec<String>,
    pub init: u16,
    pub committed: Vec<bool>,
    pub accepting: Vec<bool>,
    /// Offset of the 2-byte control state.
    pub state_offset: usize,
    /// Start and length of the process's part of the vector (control state
    /// and locals).
    pub range: (usize, usize),
    /// Transition ids by kind, each in declaration order.
    pub local: Vec<usize>,
    pub recv: Vec<usize>,
    pub send: Vec<usize>,
    pub buf_recv: Vec<usize>,
    pub buf_send: Vec<usize>,
    /// All transition ids of the process in declaration order.
    pub all: Vec<usize>,
    /// Assertions: (control state, expression, text: `P: assert in s: expr`).
    pub asserts: Vec<(u16, Expr, String)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Channel {
    pub name: String,
    /// Number of values passed (fixed by declaration or first use).
    pub arity: usize,
    /// Item types of a typed channel (`None` for untyped).
    pub item_types: Option<Vec<Ty>>,
    /// Buffered channel: capacity and the offset of its 2-byte count, followed
    /// by `capacity` slots of `item_size` bytes each.
    pub buffer: Option<Buffer>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    pub capacity: u32,
    pub offset: usize,
    pub item_size: usize,
    /// Offsets of the items inside one slot.
    pub item_offsets: Vec<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SystemKind {
    Async,
    Sync,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model {
    pub name: String,
    pub state_len: usize,
    pub vars: Vec<Var>,
    /// Variable indices of the global variables, in declaration order.
    pub globals: Vec<usize>,
    pub channels: Vec<Channel>,
    pub processes: Vec<Process>,
    pub transitions: Vec<Transition>,
    pub property: Option<usize>,
    pub system: SystemKind,
    /// The initial state vector.
    pub initial: Vec<u8>,
}

impl Model {
    /// The control state of process 0 that marks the error state: the
    /// number of states of process 0 (one past the last valid one).
    pub fn error_marker(&self) -> u16 {
        self.processes[0].states.len() as u16
    }

    /// Writes the error state (§8.3): all zero except process 0's control
    /// state, which holds `error_marker()`.
    pub fn write_error_state(&self, out: &mut [u8]) {
        out.fill(0);
        let off = self.processes[0].state_offset;
        out[off..off + 2].copy_from_slice(&self.error_marker().to_le_bytes());
    }

    /// `system sync` composition (§7.9): copies into `dst` process `p`'s
    /// part and the globals written by transition `t` from `part`, the
    /// state after `t` alone.
    pub fn compose_sync_part(&self, p: usize, t: &Transition, part: &[u8], dst: &mut [u8]) {
        let (start, len) = self.processes[p].range;
        dst[start..start + len].copy_from_slice(&part[start..start + len]);
        for &g in &t.global_writes {
            let v = &self.vars[self.globals[g]];
            let bytes = v.ty.width() * v.array_len.unwrap_or(1) as usize;
            dst[v.offset..v.offset + bytes].copy_from_slice(&part[v.offset..v.offset + bytes]);
        }
    }

    pub fn is_error_state(&self, state: &[u8]) -> bool {
        let off = self.processes[0].state_offset;
        u16::from_le_bytes([state[off], state[off + 1]]) == self.error_marker()
    }

    /// Whether process 0's non-existent control state in the error state
    /// counts as committed: DiVinE reads one entry past its committed-flag
    /// array there; BEEM's figures are reproduced when that reads "committed"
    /// exactly when process 0 has an even number of states (§8.3).
    pub fn error_state_committed(&self) -> bool {
        self.processes[0].states.len().is_multiple_of(2)
    }
}
