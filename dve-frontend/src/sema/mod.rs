//! Semantic analysis: resolves names, checks types and structure, folds
//! constants, lays out the state vector (§4) and lowers the syntax tree to
//! the IR. Every problem found is recorded and analysis goes on, so several
//! errors are reported at once.

/// The longest state vector a model may have (4 MiB). Successor
/// generation copies whole states, and the model's description holds a
/// named slot per array element, so a longer vector costs seconds and
/// gigabytes before the search starts (measurements in
/// `results/jit/NOTES.md`).
pub const MAX_STATE_BYTES: usize = 4 << 20;

mod declare;
mod expr;
mod fold;
mod layout;
mod process_order;
mod transitions;

use std::collections::HashMap;

use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::ir::{self, Channel, Expr, SystemKind, Var};

use process_order::in_divine_order;

/// What a name stands for.
#[derive(Clone, Debug)]
enum Sym {
    Var(usize),
    Const(i32),
    ConstArray(Vec<i32>),
    Channel(usize),
    Process,
}

/// The analysis of one model: what is declared so far and the errors
/// found. Its methods are defined in the submodules, one concern each.
struct Ctx<'a> {
    ast: &'a ast::Model,
    errors: Vec<Diagnostic>,
    globals: HashMap<String, Sym>,
    /// Per process: local names (variables, constants and state names).
    locals: Vec<HashMap<String, Sym>>,
    vars: Vec<Var>,
    global_vars: Vec<usize>,
    /// Initialised flag per variable (reading an uninitialised variable in an
    /// initialiser is an error).
    initialised: Vec<bool>,
    initial: Vec<u8>,
    offset: usize,
    channels: Vec<Channel>,
    channel_spans: Vec<Span>,
    /// Arity fixed by the first use of an untyped channel.
    channel_arity: Vec<Option<usize>>,
    process_index: HashMap<String, usize>,
    processes: Vec<ir::Process>,
    property: Option<usize>,
}

/// Where an expression is being lowered.
#[derive(Clone, Copy)]
struct Scope {
    process: Option<usize>,
    /// Lowering an initialiser: only constants and initialised variables may be read.
    initialiser: bool,
}

pub fn analyse(name: &str, m: &ast::Model) -> Result<ir::Model, Vec<Diagnostic>> {
    analyse_with_exprs(name, m, &[]).map(|(model, _)| model)
}

/// Analyses a model and lowers extra expressions (goals) in its global
/// scope, where `P.s` and `P->v` name any process. Each expression gets its
/// own result, with diagnostics whose spans point into that expression.
#[allow(clippy::type_complexity)]
pub fn analyse_with_exprs(
    name: &str,
    m: &ast::Model,
    exprs: &[ast::Expr],
) -> Result<(ir::Model, Vec<Result<Expr, Vec<Diagnostic>>>), Vec<Diagnostic>> {
    let reordered = in_divine_order(m);
    let m = &reordered;
    let mut cx = Ctx {
        ast: m,
        errors: Vec::new(),
        globals: HashMap::new(),
        locals: vec![HashMap::new(); m.processes.len()],
        vars: Vec::new(),
        global_vars: Vec::new(),
        initialised: Vec::new(),
        initial: Vec::new(),
        offset: 0,
        channels: Vec::new(),
        channel_spans: Vec::new(),
        channel_arity: Vec::new(),
        process_index: HashMap::new(),
        processes: Vec::new(),
        property: None,
    };
    cx.declare_processes();
    for d in &m.decls {
        match d {
            ast::GlobalDecl::Var(v) => cx.declare_vars(v, None),
            ast::GlobalDecl::Channel(c) => cx.declare_channels(c),
        }
    }
    cx.place_buffers();
    cx.layout_processes();
    if cx.offset > MAX_STATE_BYTES && cx.errors.is_empty() {
        cx.error(
            m.system.span,
            format!(
                "the state vector would take {} bytes, more than the {MAX_STATE_BYTES} a state may have",
                cx.offset
            ),
        );
    }
    cx.resolve_system();
    let transitions = cx.lower_transitions();
    if !cx.errors.is_empty() {
        let mut errors = cx.errors;
        errors.sort_by_key(|d| d.span.start);
        return Err(errors);
    }
    let lowered = exprs
        .iter()
        .map(|e| {
            let x = cx.lower_expr(
                e,
                Scope {
                    process: None,
                    initialiser: false,
                },
            );
            let errors = std::mem::take(&mut cx.errors);
            match x {
                Some(x) if errors.is_empty() => Ok(x),
                _ => Err(errors),
            }
        })
        .collect();
    let model = ir::Model {
        name: name.to_string(),
        state_len: cx.offset,
        vars: cx.vars,
        globals: cx.global_vars,
        channels: cx.channels,
        processes: cx.processes,
        transitions,
        property: cx.property,
        system: if m.system.is_sync {
            SystemKind::Sync
        } else {
            SystemKind::Async
        },
        initial: cx.initial,
    };
    Ok((model, lowered))
}

impl Ctx<'_> {
    /// Whether `bytes` more fit in the state vector after what is laid out.
    fn state_room(&self, bytes: u64) -> bool {
        self.offset as u64 + bytes <= MAX_STATE_BYTES as u64
    }

    fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.errors.push(Diagnostic::new(span, msg));
    }
}
