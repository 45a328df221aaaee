//! The system alone of a model with a property process, from the product's
//! code: the reduction under an LTL property explores it first, and
//! compiling it as a model of its own would compile the model twice.

use dve_frontend::ir::Model;
use dve_frontend::model::{Label, ModelInfo, NextState, SuccBuf, NONE};
use dve_frontend::property::system_view;

use crate::{Backend, JitModel};

/// A compiled model with its property process held in its initial state:
/// the successors of [`system_view`] (the same bytes, labels and error
/// flags in the same order, see `tests/differential.rs`), computed by the
/// product's successor function told not to move the property.
pub struct PropertyHeld<'a> {
    jit: &'a JitModel,
    system: Model,
    /// `system`'s description: the held loop's text in labels.
    info: ModelInfo,
    property: usize,
    init: u16,
    /// The property's transition that [`system_view`] makes its loop.
    held: u32,
}

impl JitModel {
    /// The system alone ([`system_view`]), without compiling it: `None`
    /// without a property process, with one that has no transition, or for
    /// `system sync` (whose product is driven from Rust).
    pub fn property_held(&self) -> Option<PropertyHeld<'_>> {
        let Backend::Async(_) = self.backend else {
            return None;
        };
        let property = self.model.property?;
        let system = system_view(&self.model)?;
        let pr = &self.model.processes[property];
        Some(PropertyHeld {
            jit: self,
            info: dve_frontend::interp::model_info(&system),
            system,
            property,
            init: pr.init,
            held: *pr.all.first()? as u32,
        })
    }
}

impl PropertyHeld<'_> {
    /// The model whose successors these are ([`system_view`]).
    pub fn system(&self) -> &Model {
        &self.system
    }
}

impl NextState for PropertyHeld<'_> {
    fn info(&self) -> &ModelInfo {
        &self.info
    }

    fn initial_state(&self, out: &mut [u8]) {
        self.jit.initial_state(out);
    }

    fn successors(&self, src: &[u8], out: &mut SuccBuf) {
        out.clear();
        // The held loop leaves only the initial state: elsewhere the
        // property has no move, so the product has no successor.
        if self.info.control_state(self.property, src) != self.init {
            return;
        }
        self.jit.successors_held(src, out, true);
        let (_, entries) = out.raw_parts_mut();
        for e in entries.iter_mut() {
            e.label.prop = self.held;
        }
        if out.is_empty() {
            // A deadlocked system: the property's loop alone.
            out.push_copy(
                src,
                Label {
                    trans: NONE,
                    partner: NONE,
                    prop: self.held,
                },
                false,
            );
        }
    }

    fn fingerprint(&self, state: &[u8]) -> u64 {
        self.jit.fingerprint(state)
    }

    fn state_functions(&self) -> usize {
        self.jit.state_functions()
    }

    fn state_function(&self, i: usize, state: &[u8]) -> Option<i32> {
        self.jit.state_function(i, state)
    }
}
