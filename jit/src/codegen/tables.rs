//! What expression code needs besides the builder: the constant arrays
//! whose addresses are baked into the code, and the big guard
//! subexpressions that are compiled once, as functions of their own.

use std::collections::HashMap;

use cranelift_codegen::ir::{FuncRef, Signature};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::FuncId;

use dve_frontend::ir::{Expr, Model};

use super::measure::expr_size;

/// What expression code needs besides the builder: constant-array tables
/// (their addresses are baked into the code) and the subexpressions
/// compiled once as functions of their own.
#[derive(Default)]
pub(super) struct Tables {
    pub(super) consts: Vec<Box<[i32]>>,
    /// Node address (inside the model being compiled) -> function computing
    /// it: big subexpressions that occur several times among the guards
    /// (generated models such as plc repeat one of 1,800 nodes 20 times).
    pub(super) shared: HashMap<usize, FuncId>,
    pub(super) shared_sig: Option<Signature>,
    /// Callee references of the function being built.
    pub(super) refs: HashMap<FuncId, FuncRef>,
    /// The node whose own function is being built (not a call to itself).
    pub(super) building: Option<usize>,
}

impl Tables {
    pub(super) fn key(e: &Expr) -> usize {
        e as *const Expr as usize
    }

    pub(super) fn is_shared(&self, e: &Expr) -> bool {
        let k = Tables::key(e);
        self.building != Some(k) && self.shared.contains_key(&k)
    }

    /// A reference to `e`'s function in the function being built, if `e` is
    /// a shared subexpression.
    pub(super) fn shared_ref(&mut self, b: &mut FunctionBuilder, e: &Expr) -> Option<FuncRef> {
        if !self.is_shared(e) {
            return None;
        }
        let id = self.shared[&Tables::key(e)];
        let sig = self.shared_sig.clone().expect("set with `shared`");
        Some(*self.refs.entry(id).or_insert_with(|| {
            // What `Module::declare_func_in_func` does, without the module.
            let signature = b.import_signature(sig);
            let name = b
                .func
                .declare_imported_user_function(cranelift_codegen::ir::UserExternalName {
                    namespace: 0,
                    index: id.as_u32(),
                });
            b.import_function(cranelift_codegen::ir::ExtFuncData {
                name: cranelift_codegen::ir::ExternalName::user(name),
                signature,
                colocated: true,
                patchable: false,
            })
        }))
    }
}

/// Subexpressions of at least this many nodes that occur more than once
/// among the guards are compiled once, as functions.
const SHARED_MIN: usize = 64;

/// The repeated big subexpressions of the guards of `m`: one representative
/// of each (the first met) and all its occurrences.
pub(super) fn repeated_subexpressions(m: &Model) -> Vec<(&Expr, Vec<&Expr>)> {
    use std::hash::{Hash, Hasher};
    // Post-order: (structural hash, size) of every node, grouping the big ones.
    fn walk<'e>(e: &'e Expr, groups: &mut HashMap<(u64, usize), Vec<&'e Expr>>) -> (u64, usize) {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        let size = match e {
            Expr::Const(c) => {
                (0u8, c).hash(&mut h);
                1
            }
            Expr::Load { ty, offset } => {
                (1u8, *ty as u8, offset).hash(&mut h);
                1
            }
            Expr::InState { offset, state } => {
                (2u8, offset, state).hash(&mut h);
                1
            }
            Expr::LoadIndex {
                ty,
                offset,
                len,
                index,
            } => {
                let (ih, is) = walk(index, groups);
                (3u8, *ty as u8, offset, len, ih).hash(&mut h);
                1 + is
            }
            Expr::ConstIndex { values, index } => {
                let (ih, is) = walk(index, groups);
                (4u8, values, ih).hash(&mut h);
                1 + is
            }
            Expr::Unary(op, a) => {
                let (ah, asz) = walk(a, groups);
                (5u8, *op as u8, ah).hash(&mut h);
                1 + asz
            }
            Expr::Binary(op, a, c) => {
                let (ah, asz) = walk(a, groups);
                let (ch, csz) = walk(c, groups);
                (6u8, *op as u8, ah, ch).hash(&mut h);
                1 + asz + csz
            }
        };
        let hash = h.finish();
        if size >= SHARED_MIN {
            groups.entry((hash, size)).or_default().push(e);
        }
        (hash, size)
    }
    let mut groups: HashMap<(u64, usize), Vec<&Expr>> = HashMap::new();
    for t in &m.transitions {
        if let Some(g) = &t.guard {
            walk(g, &mut groups);
        }
    }
    let mut out = Vec::new();
    for (_, members) in groups {
        // Equal hashes are confirmed structurally.
        let mut rest = members;
        while rest.len() > 1 {
            let first = rest[0];
            let (same, other): (Vec<&Expr>, Vec<&Expr>) = rest.into_iter().partition(|e| *e == first);
            if same.len() > 1 {
                out.push((first, same));
            }
            rest = other;
        }
    }
    // Only the biggest: a repeated subexpression all of whose occurrences
    // lie inside occurrences of a bigger chosen one is left inline (else a
    // chain `a || b || c ...` would become a chain of calls).
    out.sort_by_key(|(e, all)| (std::cmp::Reverse(expr_size(e)), Tables::key(e), all.len()));
    fn cover(e: &Expr, covered: &mut std::collections::HashSet<usize>) {
        covered.insert(Tables::key(e));
        match e {
            Expr::LoadIndex { index, .. } | Expr::ConstIndex { index, .. } | Expr::Unary(_, index) => {
                cover(index, covered)
            }
            Expr::Binary(_, a, c) => {
                cover(a, covered);
                cover(c, covered);
            }
            _ => {}
        }
    }
    let mut covered = std::collections::HashSet::new();
    let mut chosen = Vec::new();
    for (e, all) in out {
        if all.iter().all(|m| covered.contains(&Tables::key(m))) {
            continue;
        }
        for m in &all {
            cover(m, &mut covered);
        }
        chosen.push((e, all));
    }
    // A deterministic order (function ids, hence code layout).
    chosen.sort_by_key(|(e, _)| Tables::key(e));
    chosen
}
