//! Deadlocks of the system under a property process. The product stutters
//! where the system is deadlocked (the property process moves alone, §7.6),
//! so a system deadlock shows as such steps; a product state without any
//! successor is either a system deadlock whose automaton cannot move or a
//! state where only the automaton is stuck (the formula's guards are false
//! there), which is no deadlock: [`SystemView`] tells the two apart.

use dve_frontend::interp::Interpreter;
use dve_frontend::ir;
use dve_frontend::model::{NextState, SuccBuf, NONE};

use dve_frontend::property::system_view;

/// The system of a model with a property process, to ask whether it can
/// move in a product state.
pub(crate) struct SystemView {
    /// The model whose property process has one move, always enabled, in
    /// its initial state ([`system_view`]).
    system: Interpreter,
    /// The property process's control state: its offset and initial state.
    offset: usize,
    init: u16,
}

impl SystemView {
    /// None when `model` has no property process.
    pub(crate) fn new(model: &ir::Model) -> Option<SystemView> {
        let p = &model.processes[model.property?];
        let (offset, init) = (p.state_offset, p.init);
        Some(SystemView {
            system: Interpreter::new(system_view(model)?),
            offset,
            init,
        })
    }

    /// Whether no process of the system can move in the product state
    /// `state` (the error state counts as deadlocked, as without a property).
    pub(crate) fn deadlocked(&self, state: &[u8]) -> bool {
        if self.system.model().is_error_state(state) {
            return true;
        }
        let mut s = state.to_vec();
        s[self.offset..self.offset + 2].copy_from_slice(&self.init.to_le_bytes());
        let mut buf = SuccBuf::new(s.len());
        self.system.successors(&s, &mut buf);
        (0..buf.len()).all(|i| buf.entry(i).label.trans == NONE)
    }
}
