//! A model whose successors pass through something once generated: the
//! reduction that needs no proviso ([`super::Por`]), the deadlock states
//! `--por-check` records.

use std::ops::Deref;

use dve_frontend::model::{ModelInfo, NextState, SuccBuf};

/// What is done to a state's successors once generated.
pub trait Tap: Send + Sync {
    fn tap(&self, src: &[u8], out: &mut SuccBuf);
}

/// `inner`'s successors passed through `tap`; everything else is `inner`'s.
pub struct Tapped<M, T> {
    pub inner: M,
    pub tap: T,
}

impl<M: Deref<Target: NextState> + Send + Sync, T: Tap> NextState for Tapped<M, T> {
    fn info(&self) -> &ModelInfo {
        self.inner.info()
    }

    fn initial_state(&self, out: &mut [u8]) {
        self.inner.initial_state(out)
    }

    fn fingerprint(&self, state: &[u8]) -> u64 {
        self.inner.fingerprint(state)
    }

    fn state_functions(&self) -> usize {
        self.inner.state_functions()
    }

    fn state_function(&self, i: usize, state: &[u8]) -> Option<i32> {
        self.inner.state_function(i, state)
    }

    fn successors(&self, src: &[u8], out: &mut SuccBuf) {
        self.inner.successors(src, out);
        self.tap.tap(src, out);
    }
}
