//! Semantic analysis: resolves names, checks types and structure, folds
//! constants, lays out the state vector (§4) and lowers the syntax tree to
//! the IR. Every problem found is recorded and analysis goes on, so several
//! errors are reported at once.

use crate::ast::{self, ExprKind, Ident, Span, SyncDir, TypeName};
use crate::diag::Diagnostic;
use crate::interp;
use crate::ir::{self, BinOp, Buffer, Channel, Expr, Place, SyncKind, SystemKind, Ty, UnOp, Var};
use std::collections::HashMap;

/// What a name stands for.
#[derive(Clone, Debug)]
enum Sym {
    Var(usize),
    Const(i32),
    ConstArray(Vec<i32>),
    Channel(usize),
    Process,
}

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

fn ty_of(t: TypeName) -> Ty {
    match t {
        TypeName::Byte => Ty::Byte,
        TypeName::Int => Ty::Int,
    }
}

impl<'a> Ctx<'a> {
    fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.errors.push(Diagnostic::new(span, msg));
    }

    fn declare_global(&mut self, id: &Ident, sym: Sym) {
        if self.globals.contains_key(&id.name) {
            self.error(id.span, format!("`{}` is declared twice", id.name));
        } else {
            self.globals.insert(id.name.clone(), sym);
        }
    }

    fn declare_processes(&mut self) {
        for (i, p) in self.ast.processes.iter().enumerate() {
            if self.globals.contains_key(&p.name.name) {
                self.error(p.name.span, format!("`{}` is declared twice", p.name.name));
                continue;
            }
            self.globals.insert(p.name.name.clone(), Sym::Process);
            self.process_index.insert(p.name.name.clone(), i);
        }
    }

    /// Declares variables or constants, global (`process == None`) or local,
    /// allocating state space and evaluating initialisers in order.
    fn declare_vars(&mut self, d: &ast::VarDecl, process: Option<usize>) {
        let ty = ty_of(d.ty);
        for decl in &d.declarators {
            let len = match decl.array_size {
                None => None,
                Some((n, span)) => {
                    if !(1..i32::MAX as i64).contains(&n) {
                        self.error(span, format!("array size {n} is out of range (1 to 2147483646)"));
                        continue;
                    }
                    Some(n as u32)
                }
            };
            let scope = Scope {
                process,
                initialiser: true,
            };
            // Evaluate the initial values (32-bit) before declaring the name,
            // so `byte a = a;` does not see itself.
            let values: Option<Vec<i32>> = match (&decl.init, len) {
                (None, None) => Some(vec![0]),
                (None, Some(n)) => Some(vec![0; n as usize]),
                (Some(ast::Initializer::Scalar(e)), None) => self.eval_init(e, scope, ty).map(|v| vec![v]),
                (Some(ast::Initializer::List(_, span)), None) => {
                    self.error(
                        *span,
                        format!(
                            "`{}` is not an array; it needs a single initial value",
                            decl.name.name
                        ),
                    );
                    None
                }
                (Some(ast::Initializer::Scalar(e)), Some(_)) => {
                    self.error(
                        e.span,
                        format!("array `{}` needs a list initialiser `{{...}}`", decl.name.name),
                    );
                    None
                }
                (Some(ast::Initializer::List(items, _)), Some(n)) => {
                    // Shorter lists are zero-filled, longer ones truncated (§3.2).
                    let mut vals = Vec::with_capacity(n as usize);
                    let mut ok = true;
                    for e in items.iter().take(n as usize) {
                        match self.eval_init(e, scope, ty) {
                            Some(v) => vals.push(v),
                            None => ok = false,
                        }
                    }
                    vals.resize(n as usize, 0);
                    ok.then_some(vals)
                }
            };
            let values = values.unwrap_or_else(|| vec![0; len.unwrap_or(1) as usize]);
            if d.is_const {
                let sym = match len {
                    None => Sym::Const(values[0]),
                    Some(_) => Sym::ConstArray(values),
                };
                self.bind(&decl.name, sym, process);
                continue;
            }
            let idx = self.vars.len();
            let name = match process {
                None => decl.name.name.clone(),
                Some(p) => format!("{}.{}", self.ast.processes[p].name.name, decl.name.name),
            };
            let global_index = if process.is_none() {
                Some(self.global_vars.len())
            } else {
                None
            };
            self.vars.push(Var {
                name,
                ty,
                offset: self.offset,
                array_len: len,
                process,
                global_index,
            });
            self.initialised.push(decl.init.is_some());
            if process.is_none() {
                self.global_vars.push(idx);
            }
            self.initial
                .resize(self.offset + ty.width() * len.unwrap_or(1) as usize, 0);
            for (i, v) in values.iter().enumerate() {
                let off = self.offset + i * ty.width();
                match ty {
                    Ty::Byte => self.initial[off] = *v as u8,
                    Ty::Int => self.initial[off..off + 2].copy_from_slice(&(*v as i16).to_le_bytes()),
                }
            }
            self.offset += ty.width() * len.unwrap_or(1) as usize;
            self.bind(&decl.name, Sym::Var(idx), process);
        }
    }

    fn bind(&mut self, id: &Ident, sym: Sym, process: Option<usize>) {
        match process {
            None => self.declare_global(id, sym),
            Some(p) => {
                if self.locals[p].contains_key(&id.name) {
                    self.error(
                        id.span,
                        format!(
                            "`{}` is declared twice in process `{}`",
                            id.name, self.ast.processes[p].name.name
                        ),
                    );
                } else {
                    self.locals[p].insert(id.name.clone(), sym);
                }
            }
        }
    }

    /// Evaluates an initialiser at load time; out-of-range values are errors.
    fn eval_init(&mut self, e: &ast::Expr, scope: Scope, ty: Ty) -> Option<i32> {
        let lowered = self.lower_expr(e, scope)?;
        match interp::eval(&lowered, &self.initial) {
            Ok(v) if ty.contains(v) => Some(v),
            Ok(v) => {
                self.error(
                    e.span,
                    format!(
                        "initial value {v} is out of range for {} ({} to {})",
                        ty.name(),
                        ty.min(),
                        ty.max()
                    ),
                );
                None
            }
            Err(_) => {
                self.error(
                    e.span,
                    "evaluating this initial value fails (division by zero or index out of range)",
                );
                None
            }
        }
    }

    fn declare_channels(&mut self, c: &ast::ChannelDecl) {
        for (id, size) in &c.channels {
            let idx = self.channels.len();
            let (item_types, capacity) = match &c.types {
                None => (None, 0),
                Some(types) => {
                    let cap = match size {
                        Some((n, span)) if !(0..=u16::MAX as i64).contains(n) => {
                            self.error(
                                *span,
                                format!("channel buffer size {n} is out of range (0 to 65535)"),
                            );
                            0
                        }
                        Some((n, _)) => *n as u32,
                        None => 0,
                    };
                    (Some(types.iter().map(|t| ty_of(*t)).collect::<Vec<_>>()), cap)
                }
            };
            let arity = item_types.as_ref().map(|t| t.len());
            let buffer = if capacity > 0 {
                let types = item_types.as_ref().expect("buffered channels are typed");
                let mut item_offsets = Vec::new();
                let mut size = 0;
                for t in types {
                    item_offsets.push(size);
                    size += t.width();
                }
                // The offset is assigned after all global variables (§4).
                Some(Buffer {
                    capacity,
                    offset: 0,
                    item_size: size,
                    item_offsets,
                })
            } else {
                None
            };
            self.channels.push(Channel {
                name: id.name.clone(),
                arity: arity.unwrap_or(0),
                item_types,
                buffer,
            });
            self.channel_spans.push(id.span);
            self.channel_arity.push(arity);
            self.declare_global(id, Sym::Channel(idx));
        }
    }

    /// Buffered channels follow all global variables, in declaration order.
    fn place_buffers(&mut self) {
        for ch in &mut self.channels {
            if let Some(b) = &mut ch.buffer {
                b.offset = self.offset;
                self.offset += 2 + b.capacity as usize * b.item_size;
            }
        }
        self.initial.resize(self.offset, 0);
    }

    /// Per process: its control state, then its locals (§4); states, init,
    /// commit and accept resolved.
    fn layout_processes(&mut self) {
        for (p, ap) in self.ast.processes.iter().enumerate() {
            let state_offset = self.offset;
            self.offset += 2;
            self.initial.resize(self.offset, 0);
            let mut states = Vec::new();
            let mut index = HashMap::new();
            for s in &ap.states {
                if index.contains_key(&s.name) {
                    self.error(
                        s.span,
                        format!(
                            "state `{}` is declared twice in process `{}`",
                            s.name, ap.name.name
                        ),
                    );
                    continue;
                }
                index.insert(s.name.clone(), states.len() as u16);
                states.push(s.name.clone());
            }
            if states.len() > u16::MAX as usize {
                self.error(ap.name.span, "too many states in one process (at most 65535)");
            }
            for v in &ap.vars {
                self.declare_vars(v, Some(p));
            }
            for s in &ap.states {
                if self.locals[p].contains_key(&s.name) {
                    self.error(
                        s.span,
                        format!(
                            "`{}` is declared twice in process `{}` (a state and a variable)",
                            s.name, ap.name.name
                        ),
                    );
                }
            }
            let lookup = |cx: &mut Ctx, id: &Ident| -> Option<u16> {
                let r = index.get(&id.name).copied();
                if r.is_none() {
                    cx.error(
                        id.span,
                        format!("process `{}` has no state `{}`", ap.name.name, id.name),
                    );
                }
                r
            };
            let init = lookup(self, &ap.init).unwrap_or(0);
            self.initial[state_offset..state_offset + 2].copy_from_slice(&init.to_le_bytes());
            let mut committed = vec![false; states.len()];
            for c in &ap.commit {
                if let Some(s) = lookup(self, c) {
                    committed[s as usize] = true;
                }
            }
            let mut accepting = vec![false; states.len()];
            let accept_ids: Vec<&Ident> = match &ap.accept {
                ast::Accept::None => Vec::new(),
                ast::Accept::Buchi(ids) => ids.iter().collect(),
                ast::Accept::Sets { sets, .. } => sets.iter().flatten().collect(),
                ast::Accept::Pairs { pairs, .. } => {
                    pairs.iter().flat_map(|(a, b)| a.iter().chain(b)).collect()
                }
            };
            for a in accept_ids {
                if let Some(s) = lookup(self, a) {
                    // Only plain Büchi acceptance is used; for the generalised
                    // forms the names are checked but mark nothing.
                    if matches!(ap.accept, ast::Accept::Buchi(_)) {
                        accepting[s as usize] = true;
                    }
                }
            }
            self.processes.push(ir::Process {
                name: ap.name.name.clone(),
                states,
                init,
                committed,
                accepting,
                state_offset,
                range: (state_offset, self.offset - state_offset),
                local: Vec::new(),
                recv: Vec::new(),
                send: Vec::new(),
                buf_recv: Vec::new(),
                buf_send: Vec::new(),
                all: Vec::new(),
                asserts: Vec::new(),
            });
        }
    }

    fn resolve_system(&mut self) {
        let sys = &self.ast.system;
        if let Some(pid) = &sys.property {
            match self.process_index.get(&pid.name) {
                Some(&p) => self.property = Some(p),
                None => self.error(
                    pid.span,
                    format!("property process `{}` is not declared", pid.name),
                ),
            }
        }
        let system_processes = self.ast.processes.len() - self.property.is_some() as usize;
        if system_processes == 0 {
            self.error(
                sys.span,
                "the model needs at least one process besides the property process",
            );
        }
    }

    fn state_of(&self, p: usize, name: &str) -> Option<u16> {
        self.ast.processes[p]
            .states
            .iter()
            .position(|s| s.name == name)
            .map(|i| i as u16)
    }

    fn lower_transitions(&mut self) -> Vec<ir::Transition> {
        let mut out = Vec::new();
        for (p, ap) in self.ast.processes.iter().enumerate() {
            let scope = Scope {
                process: Some(p),
                initialiser: false,
            };
            let is_property = self.property == Some(p);
            for (sid, e) in &ap.asserts {
                let Some(s) = self.state_of(p, &sid.name) else {
                    self.error(
                        sid.span,
                        format!("process `{}` has no state `{}`", ap.name.name, sid.name),
                    );
                    continue;
                };
                if let Some(x) = self.lower_expr(e, scope) {
                    let text = format!("{}: assert in {}: {e}", ap.name.name, sid.name);
                    self.processes[p].asserts.push((s, x, text));
                }
            }
            let mut prev_from: Option<&Ident> = None;
            for t in &ap.transitions {
                let from_id = match &t.from {
                    Some(f) => f,
                    None => match prev_from {
                        Some(f) => f,
                        None => {
                            self.error(t.span, "a short transition `-> s` needs a previous transition");
                            continue;
                        }
                    },
                };
                prev_from = Some(from_id);
                let from = self.state_of(p, &from_id.name);
                let to = self.state_of(p, &t.to.name);
                for (id, r) in [(from_id, from), (&t.to, to)] {
                    if r.is_none() {
                        self.error(
                            id.span,
                            format!("process `{}` has no state `{}`", ap.name.name, id.name),
                        );
                    }
                }
                let guard = t.guard.as_ref().map(|g| self.lower_expr(g, scope));
                let mut effects = Vec::new();
                let mut global_writes = Vec::new();
                let mut ok = true;
                for a in &t.effects {
                    let place =
                        self.lower_place(&a.target.name, a.target.index.as_deref(), a.target.span, scope);
                    let value = self.lower_expr(&a.value, scope);
                    match (place, value) {
                        (Some(place), Some(value)) => {
                            if let Some(g) = self.vars[place.var].global_index {
                                if is_property {
                                    self.error(a.span, "the property process cannot assign global variables");
                                }
                                if !global_writes.contains(&g) {
                                    global_writes.push(g);
                                }
                            }
                            effects.push(ir::Assign { place, value });
                        }
                        _ => ok = false,
                    }
                }
                let sync = match &t.sync {
                    None => Some(SyncKind::None),
                    Some(s) => self.lower_sync(s, scope, is_property),
                };
                let (Some(from), Some(to), Some(sync), true) = (from, to, sync, ok) else {
                    continue;
                };
                let guard = match guard {
                    None => None,
                    Some(Some(g)) => Some(g),
                    Some(None) => continue,
                };
                let id = out.len();
                let suffix = match &t.sync {
                    None => String::new(),
                    Some(s) => format!(
                        " {}{}",
                        s.channel.name,
                        if s.dir == SyncDir::Send { "!" } else { "?" }
                    ),
                };
                let proc_ = &mut self.processes[p];
                let text = format!(
                    "{}: {} -> {}{}",
                    ap.name.name, proc_.states[from as usize], proc_.states[to as usize], suffix
                );
                match &sync {
                    SyncKind::None => proc_.local.push(id),
                    SyncKind::Send { .. } => proc_.send.push(id),
                    SyncKind::Recv { .. } => proc_.recv.push(id),
                    SyncKind::BufSend { .. } => proc_.buf_send.push(id),
                    SyncKind::BufRecv { .. } => proc_.buf_recv.push(id),
                }
                proc_.all.push(id);
                out.push(ir::Transition {
                    id,
                    process: p,
                    control_offset: proc_.state_offset,
                    from,
                    to,
                    guard,
                    sync,
                    effects,
                    global_writes,
                    text,
                    body: t.body_text(),
                });
            }
        }
        out
    }

    fn lower_sync(&mut self, s: &ast::Sync, scope: Scope, is_property: bool) -> Option<SyncKind> {
        let ch = match self.globals.get(&s.channel.name) {
            Some(Sym::Channel(c)) => *c,
            Some(_) => {
                self.error(s.channel.span, format!("`{}` is not a channel", s.channel.name));
                return None;
            }
            None => {
                self.error(s.channel.span, format!("unknown channel `{}`", s.channel.name));
                return None;
            }
        };
        let n = s.values.len();
        match self.channel_arity[ch] {
            None => {
                self.channel_arity[ch] = Some(n);
                self.channels[ch].arity = n;
            }
            Some(a) if a != n => {
                self.error(
                    s.span,
                    format!(
                        "channel `{}` carries {} value(s) but this sync passes {}",
                        s.channel.name, a, n
                    ),
                );
                return None;
            }
            Some(_) => {}
        }
        let buffered = self.channels[ch].buffer.is_some();
        if is_property {
            if s.dir == SyncDir::Send {
                self.error(s.span, "the property process cannot send (`!`) on a channel");
                return None;
            }
            if n > 0 || self.channels[ch].item_types.is_some() {
                self.error(
                    s.span,
                    "the property process may only receive without values on an untyped channel",
                );
                return None;
            }
        }
        match s.dir {
            SyncDir::Send => {
                let values: Option<Vec<Expr>> = s.values.iter().map(|e| self.lower_expr(e, scope)).collect();
                let values = values?;
                Some(if buffered {
                    SyncKind::BufSend { channel: ch, values }
                } else {
                    SyncKind::Send { channel: ch, values }
                })
            }
            SyncDir::Recv => {
                let mut targets = Vec::new();
                for e in &s.values {
                    let place = match &e.kind {
                        ExprKind::Var(id) => self.lower_place(id, None, e.span, scope),
                        ExprKind::Index(id, i) => self.lower_place(id, Some(i), e.span, scope),
                        _ => {
                            self.error(e.span, "a receive target must be a variable or an array element");
                            None
                        }
                    };
                    targets.push(place?);
                }
                Some(if buffered {
                    SyncKind::BufRecv { channel: ch, targets }
                } else {
                    SyncKind::Recv { channel: ch, targets }
                })
            }
        }
    }

    fn lookup(&self, name: &str, process: Option<usize>) -> Option<&Sym> {
        process
            .and_then(|p| self.locals[p].get(name))
            .or_else(|| self.globals.get(name))
    }

    fn lower_place(
        &mut self,
        id: &Ident,
        index: Option<&ast::Expr>,
        span: Span,
        scope: Scope,
    ) -> Option<Place> {
        let sym = self.lookup(&id.name, scope.process).cloned();
        let var = match sym {
            Some(Sym::Var(v)) => v,
            Some(Sym::Const(_)) | Some(Sym::ConstArray(_)) => {
                self.error(id.span, format!("cannot assign to constant `{}`", id.name));
                return None;
            }
            Some(_) => {
                self.error(id.span, format!("`{}` is not a variable", id.name));
                return None;
            }
            None => {
                self.error(id.span, format!("unknown variable `{}`", id.name));
                return None;
            }
        };
        let v = self.vars[var].clone();
        let index = match (index, v.array_len) {
            (None, None) => None,
            (Some(i), Some(len)) => Some((len, Box::new(self.lower_expr(i, scope)?))),
            // An array named without an index means its element 0, as in
            // DiVinE's evaluator (BEEM's `train-gate` relies on it).
            (None, Some(_)) => None,
            (Some(_), None) => {
                self.error(span, format!("`{}` is not an array", id.name));
                return None;
            }
        };
        Some(Place {
            var,
            ty: v.ty,
            offset: v.offset,
            index,
        })
    }

    /// Reads variable `var`; in an initialiser it must be initialised.
    fn read_var(&mut self, var: usize, span: Span, scope: Scope) -> Option<()> {
        if scope.initialiser && !self.initialised[var] {
            self.error(
                span,
                format!(
                    "initialiser reads `{}`, which has no initial value",
                    self.vars[var].name
                ),
            );
            return None;
        }
        Some(())
    }

    fn lower_expr(&mut self, e: &ast::Expr, scope: Scope) -> Option<Expr> {
        let x = match &e.kind {
            ExprKind::Num(n) => Expr::Const(*n),
            ExprKind::Var(id) => match self.lookup(&id.name, scope.process).cloned() {
                Some(Sym::Var(v)) => {
                    // An array without an index reads element 0 (see `lower_place`).
                    self.read_var(v, id.span, scope)?;
                    Expr::Load {
                        ty: self.vars[v].ty,
                        offset: self.vars[v].offset,
                    }
                }
                Some(Sym::Const(c)) => Expr::Const(c),
                Some(Sym::ConstArray(_)) => {
                    self.error(id.span, format!("array `{}` used without an index", id.name));
                    return None;
                }
                Some(Sym::Channel(_)) | Some(Sym::Process) => {
                    self.error(id.span, format!("`{}` is not a variable", id.name));
                    return None;
                }
                None => {
                    self.error(id.span, format!("unknown variable `{}`", id.name));
                    return None;
                }
            },
            ExprKind::Index(id, i) => {
                let index = self.lower_expr(i, scope);
                match self.lookup(&id.name, scope.process).cloned() {
                    Some(Sym::Var(v)) => {
                        let var = &self.vars[v];
                        let (ty, offset) = (var.ty, var.offset);
                        let Some(len) = var.array_len else {
                            self.error(id.span, format!("`{}` is not an array", id.name));
                            return None;
                        };
                        self.read_var(v, id.span, scope)?;
                        Expr::LoadIndex {
                            ty,
                            offset,
                            len,
                            index: Box::new(index?),
                        }
                    }
                    Some(Sym::ConstArray(values)) => Expr::ConstIndex {
                        values,
                        index: Box::new(index?),
                    },
                    Some(Sym::Const(_)) => {
                        self.error(id.span, format!("`{}` is not an array", id.name));
                        return None;
                    }
                    Some(_) => {
                        self.error(id.span, format!("`{}` is not a variable", id.name));
                        return None;
                    }
                    None => {
                        self.error(id.span, format!("unknown variable `{}`", id.name));
                        return None;
                    }
                }
            }
            ExprKind::InState(pid, sid) => {
                let Some(&p) = self.process_index.get(&pid.name) else {
                    self.error(pid.span, format!("unknown process `{}`", pid.name));
                    return None;
                };
                let Some(s) = self.state_of(p, &sid.name) else {
                    self.error(
                        sid.span,
                        format!("process `{}` has no state `{}`", pid.name, sid.name),
                    );
                    return None;
                };
                if scope.initialiser {
                    self.error(e.span, "an initialiser cannot test process states");
                    return None;
                }
                // Forward references are fine: offsets of all processes are known.
                Expr::InState {
                    offset: self.processes.get(p).map(|x| x.state_offset)?,
                    state: s,
                }
            }
            ExprKind::Remote(pid, vid) | ExprKind::RemoteIndex(pid, vid, _) => {
                let Some(&p) = self.process_index.get(&pid.name) else {
                    self.error(pid.span, format!("unknown process `{}`", pid.name));
                    return None;
                };
                if let Some(cur) = scope.process {
                    if p >= cur {
                        self.error(
                            pid.span,
                            format!(
                                "`{}->{}` reads a process that is not declared before this one",
                                pid.name, vid.name
                            ),
                        );
                        return None;
                    }
                }
                let sym = self.locals[p].get(&vid.name).cloned();
                let index = match &e.kind {
                    ExprKind::RemoteIndex(_, _, i) => Some(self.lower_expr(i, scope)?),
                    _ => None,
                };
                match (sym, index) {
                    (Some(Sym::Var(v)), idx) => {
                        let var = self.vars[v].clone();
                        self.read_var(v, vid.span, scope)?;
                        match (var.array_len, idx) {
                            (None, None) => Expr::Load {
                                ty: var.ty,
                                offset: var.offset,
                            },
                            (Some(len), Some(i)) => Expr::LoadIndex {
                                ty: var.ty,
                                offset: var.offset,
                                len,
                                index: Box::new(i),
                            },
                            (Some(_), None) => Expr::Load {
                                ty: var.ty,
                                offset: var.offset,
                            },
                            (None, Some(_)) => {
                                self.error(vid.span, format!("`{}` is not an array", vid.name));
                                return None;
                            }
                        }
                    }
                    (Some(Sym::Const(c)), None) => Expr::Const(c),
                    (Some(Sym::ConstArray(values)), Some(i)) => Expr::ConstIndex {
                        values,
                        index: Box::new(i),
                    },
                    _ => {
                        self.error(
                            vid.span,
                            format!("process `{}` has no variable `{}`", pid.name, vid.name),
                        );
                        return None;
                    }
                }
            }
            ExprKind::Unary(op, a) => {
                let a = self.lower_expr(a, scope)?;
                let op = match op {
                    ast::UnOp::Neg => UnOp::Neg,
                    ast::UnOp::BitNot => UnOp::BitNot,
                    ast::UnOp::Not => UnOp::Not,
                };
                fold(Expr::Unary(op, Box::new(a)))
            }
            ExprKind::Binary(op, a, b) => {
                let a = self.lower_expr(a, scope);
                let b = self.lower_expr(b, scope);
                let op = match op {
                    ast::BinOp::Imply => BinOp::Imply,
                    ast::BinOp::And => BinOp::And,
                    ast::BinOp::Or => BinOp::Or,
                    ast::BinOp::BitAnd => BinOp::BitAnd,
                    ast::BinOp::BitOr => BinOp::BitOr,
                    ast::BinOp::BitXor => BinOp::BitXor,
                    ast::BinOp::Eq => BinOp::Eq,
                    ast::BinOp::Ne => BinOp::Ne,
                    ast::BinOp::Lt => BinOp::Lt,
                    ast::BinOp::Le => BinOp::Le,
                    ast::BinOp::Gt => BinOp::Gt,
                    ast::BinOp::Ge => BinOp::Ge,
                    ast::BinOp::Shl => BinOp::Shl,
                    ast::BinOp::Shr => BinOp::Shr,
                    ast::BinOp::Add => BinOp::Add,
                    ast::BinOp::Sub => BinOp::Sub,
                    ast::BinOp::Mul => BinOp::Mul,
                    ast::BinOp::Div => BinOp::Div,
                    ast::BinOp::Rem => BinOp::Rem,
                };
                fold(Expr::Binary(op, Box::new(a?), Box::new(b?)))
            }
        };
        Some(x)
    }
}

/// Folds an operator whose operands are constants. An operation that would
/// raise a run-time error (division by zero) is left in place: it is an
/// error only if it is evaluated.
fn fold(e: Expr) -> Expr {
    match &e {
        Expr::Unary(_, a) if matches!(**a, Expr::Const(_)) => match interp::eval(&e, &[]) {
            Ok(v) => Expr::Const(v),
            Err(_) => e,
        },
        Expr::Binary(_, a, b) if matches!(**a, Expr::Const(_)) && matches!(**b, Expr::Const(_)) => {
            match interp::eval(&e, &[]) {
                Ok(v) => Expr::Const(v),
                Err(_) => e,
            }
        }
        Expr::Binary(BinOp::And | BinOp::Or | BinOp::Imply, ..) => fold_logic(e),
        _ => e,
    }
}

/// Simplifies `and` / `or` / `imply` with one constant operand, following
/// their short-circuit semantics exactly (the left operand is tested with
/// `!= 0`, the right one with `> 0`; an operand that is evaluated keeps its
/// run-time errors). Generated BEEM models (plc) have guards of tens of
/// thousands of nodes that mostly fold away like this, e.g.
/// `(10==8) && (px[6]==0) && ...`.
fn fold_logic(e: Expr) -> Expr {
    let Expr::Binary(op, a, b) = e else { return e };
    match (op, &*a, &*b) {
        // Constant left operand: decides alone or hands over to the right.
        (BinOp::And, Expr::Const(0), _) => Expr::Const(0),
        (BinOp::Or, Expr::Const(x), _) if *x != 0 => Expr::Const(1),
        (BinOp::Imply, Expr::Const(0), _) => Expr::Const(1),
        (_, Expr::Const(_), _) => positive(*b),
        // Constant right operand: the left one is still evaluated.
        (BinOp::And, _, Expr::Const(y)) if *y > 0 => nonzero(*a),
        (BinOp::Or, _, Expr::Const(y)) if *y <= 0 => nonzero(*a),
        (BinOp::Imply, _, Expr::Const(y)) if *y <= 0 => Expr::Binary(BinOp::Eq, a, Box::new(Expr::Const(0))),
        (BinOp::And, _, Expr::Const(_)) if cannot_fail(&a) => Expr::Const(0),
        (BinOp::Or | BinOp::Imply, _, Expr::Const(_)) if cannot_fail(&a) => Expr::Const(1),
        _ => Expr::Binary(op, a, b),
    }
}

/// Whether `e`'s value is always 0 or 1 (comparisons and logical operators).
fn is_boolean(e: &Expr) -> bool {
    match e {
        Expr::Const(c) => *c == 0 || *c == 1,
        Expr::InState { .. } | Expr::Unary(UnOp::Not, _) => true,
        Expr::Binary(op, ..) => matches!(
            op,
            BinOp::Eq
                | BinOp::Ne
                | BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
                | BinOp::And
                | BinOp::Or
                | BinOp::Imply
        ),
        _ => false,
    }
}

/// `e > 0` as 0/1.
fn positive(e: Expr) -> Expr {
    match e {
        Expr::Const(c) => Expr::Const((c > 0) as i32),
        e if is_boolean(&e) => e,
        e => Expr::Binary(BinOp::Gt, Box::new(e), Box::new(Expr::Const(0))),
    }
}

/// `e != 0` as 0/1.
fn nonzero(e: Expr) -> Expr {
    match e {
        Expr::Const(c) => Expr::Const((c != 0) as i32),
        e if is_boolean(&e) => e,
        e => Expr::Binary(BinOp::Ne, Box::new(e), Box::new(Expr::Const(0))),
    }
}

/// Whether evaluating `e` can never raise a run-time error (no division,
/// remainder or dynamic indexing).
fn cannot_fail(e: &Expr) -> bool {
    match e {
        Expr::Const(_) | Expr::Load { .. } | Expr::InState { .. } => true,
        Expr::LoadIndex { .. } | Expr::ConstIndex { .. } => false,
        Expr::Unary(_, a) => cannot_fail(a),
        Expr::Binary(BinOp::Div | BinOp::Rem, ..) => false,
        Expr::Binary(_, a, b) => cannot_fail(a) && cannot_fail(b),
    }
}

/// DiVinE numbers processes in the order they are first mentioned: a
/// process header, or a `P.s` test naming a process declared later (its
/// parser creates a placeholder). That numbering, not the declaration order,
/// decides the layout and the successor order; BEEM's DFS figures for
/// `brp2` are reproduced only with it.
fn in_divine_order(m: &ast::Model) -> ast::Model {
    let mut order: Vec<usize> = Vec::with_capacity(m.processes.len());
    let index: HashMap<&str, usize> = m
        .processes
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name.name.as_str(), i))
        .collect();
    for (i, p) in m.processes.iter().enumerate() {
        if !order.contains(&i) {
            order.push(i);
        }
        let mut mentions: Vec<(usize, usize)> = Vec::new();
        let mut visit = |e: &ast::Expr| collect_state_tests(e, &index, &mut mentions);
        for v in &p.vars {
            for d in &v.declarators {
                match &d.init {
                    Some(ast::Initializer::Scalar(e)) => visit(e),
                    Some(ast::Initializer::List(es, _)) => es.iter().for_each(&mut visit),
                    None => {}
                }
            }
        }
        for (_, e) in &p.asserts {
            visit(e);
        }
        for t in &p.transitions {
            if let Some(g) = &t.guard {
                visit(g);
            }
            if let Some(sy) = &t.sync {
                sy.values.iter().for_each(&mut visit);
            }
            for a in &t.effects {
                if let Some(i) = &a.target.index {
                    visit(i);
                }
                visit(&a.value);
            }
        }
        mentions.sort();
        for (_, q) in mentions {
            if !order.contains(&q) {
                order.push(q);
            }
        }
    }
    let mut out = m.clone();
    out.processes = order.iter().map(|&i| m.processes[i].clone()).collect();
    out
}

fn collect_state_tests(e: &ast::Expr, index: &HashMap<&str, usize>, out: &mut Vec<(usize, usize)>) {
    match &e.kind {
        ExprKind::InState(p, _) => {
            if let Some(&q) = index.get(p.name.as_str()) {
                out.push((p.span.start, q));
            }
        }
        ExprKind::Index(_, a) | ExprKind::RemoteIndex(_, _, a) | ExprKind::Unary(_, a) => {
            collect_state_tests(a, index, out)
        }
        ExprKind::Binary(_, a, b) => {
            collect_state_tests(a, index, out);
            collect_state_tests(b, index, out);
        }
        ExprKind::Num(_) | ExprKind::Var(_) | ExprKind::Remote(..) => {}
    }
}
