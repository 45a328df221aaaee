//! The state cache `C ∪ O` with the attributes of the termination detection
//! tree (TD-tree) of Fig. 3: `pred`, `refs`, and the procedure `unref`.
//!
//! States live in numbered *slots* (state bytes packed in one arena, one
//! [`Meta`] record per slot) and are found through an open-addressing table
//! with linear probing; unlike [`dvemc_engine::store::StateStore`] a state can be
//! deleted (backward-shift deletion, the slot goes to a free list). Every
//! deletion bumps the slot's generation, so a `pred` or `ancestor` link
//! (slot, generation) to a deleted state is recognised as dead even after
//! the slot has been reused.

pub const NIL: u32 = u32::MAX;

/// `s ∈ O` (still has events to execute).
pub const OPEN: u8 = 1;
/// `s ∈ D` (candidate for replacement).
pub const IN_D: u8 = 2;
/// Marked persistent by the sweep-line method (never deleted).
pub const PERSISTENT: u8 = 4;

/// Per-state attributes.
#[derive(Clone, Copy, Debug)]
pub struct Meta {
    pub fp: u64,
    /// Value of the visit counter when the state was (re)inserted (age).
    pub born: u64,
    /// Generation of the slot: bumped at every deletion.
    pub gen: u32,
    /// Generating predecessor in the TD-tree (`NIL` for `s0`).
    pub pred: u32,
    pub pred_gen: u32,
    /// `s.refs` of Fig. 3: successors in the TD-tree, plus 1 while open (I4).
    pub refs: u32,
    /// Depth at which the state was generated (`depth(pred) + 1`).
    pub depth: u32,
    /// Index of the next event to execute (`s.evts` is the suffix from here).
    pub next_evt: u32,
    /// The transition that generated the state (for the edge-lean
    /// reduction); `NONE` for `s0` and for states reached by an erroneous
    /// transition (nothing is pruned from them).
    pub in_trans: u32,
    pub in_partner: u32,
    /// `s.ancestor` of Sect. 4.1 (chain reduction).
    pub ancestor: u32,
    pub ancestor_gen: u32,
    /// Transitions seen leading to this state while it was stored.
    pub hits: u32,
    /// Number of events (`|en(s)|` after reductions), once known.
    pub outdeg: u32,
    /// Progress class (sweep-line).
    pub class: u32,
    pub flags: u8,
    pub alive: bool,
}

impl Meta {
    const EMPTY: Meta = Meta {
        fp: 0,
        born: 0,
        gen: 0,
        pred: NIL,
        pred_gen: 0,
        refs: 0,
        depth: 0,
        next_evt: 0,
        in_trans: dve_frontend::model::NONE,
        in_partner: dve_frontend::model::NONE,
        ancestor: NIL,
        ancestor_gen: 0,
        hits: 0,
        outdeg: 0,
        class: 0,
        flags: 0,
        alive: false,
    };

    #[inline]
    pub fn is_open(&self) -> bool {
        self.flags & OPEN != 0
    }
    #[inline]
    pub fn in_d(&self) -> bool {
        self.flags & IN_D != 0
    }
    #[inline]
    pub fn persistent(&self) -> bool {
        self.flags & PERSISTENT != 0
    }
}

/// The cache: stored states with their attributes.
pub struct Cache {
    state_len: usize,
    bytes: Vec<u8>,
    pub meta: Vec<Meta>,
    free: Vec<u32>,
    /// `tag << 32 | (slot + 1)`, 0 = empty.
    table: Vec<u64>,
    bits: u32,
    live: usize,
}

impl Cache {
    pub fn new(state_len: usize) -> Cache {
        Cache {
            state_len,
            bytes: Vec::new(),
            meta: Vec::new(),
            free: Vec::new(),
            table: vec![0; 16],
            bits: 4,
            live: 0,
        }
    }

    /// `|C ∪ O|`: states in memory.
    #[inline]
    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Number of slots ever allocated (live or free).
    pub fn slots(&self) -> usize {
        self.meta.len()
    }

    #[inline]
    pub fn get(&self, slot: u32) -> &[u8] {
        let o = slot as usize * self.state_len;
        &self.bytes[o..o + self.state_len]
    }

    /// Whether `(slot, gen)` names a state still in memory.
    #[inline]
    pub fn is_live(&self, slot: u32, gen: u32) -> bool {
        let m = &self.meta[slot as usize];
        m.alive && m.gen == gen
    }

    #[inline]
    fn home(&self, fp: u64) -> usize {
        ((fp >> 32) >> (32 - self.bits)) as usize
    }

    /// The slot holding `state`, if it is stored.
    pub fn find(&self, state: &[u8], fp: u64) -> Option<u32> {
        let tag = fp >> 32;
        let mask = self.table.len() - 1;
        let mut i = self.home(fp);
        loop {
            let e = self.table[i];
            if e == 0 {
                return None;
            }
            if e >> 32 == tag {
                let slot = (e as u32) - 1;
                if self.get(slot) == state {
                    return Some(slot);
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Stores `state` (which must not be stored) and returns its slot; its
    /// attributes are reset except the generation.
    pub fn insert(&mut self, state: &[u8], fp: u64) -> u32 {
        debug_assert!(self.find(state, fp).is_none());
        if (self.live + 1) * 10 > self.table.len() * 7 {
            self.grow();
        }
        let slot = match self.free.pop() {
            Some(s) => {
                let o = s as usize * self.state_len;
                self.bytes[o..o + self.state_len].copy_from_slice(state);
                s
            }
            None => {
                let s = self.meta.len() as u32;
                assert!(s < NIL - 1, "too many slots");
                self.bytes.extend_from_slice(state);
                self.meta.push(Meta::EMPTY);
                s
            }
        };
        let gen = self.meta[slot as usize].gen;
        self.meta[slot as usize] = Meta {
            fp,
            gen,
            alive: true,
            ..Meta::EMPTY
        };
        let mask = self.table.len() - 1;
        let mut i = self.home(fp);
        while self.table[i] != 0 {
            i = (i + 1) & mask;
        }
        self.table[i] = ((fp >> 32) << 32) | (slot as u64 + 1);
        self.live += 1;
        slot
    }

    /// Deletes the state in `slot` from memory.
    pub fn remove(&mut self, slot: u32) {
        let m = self.meta[slot as usize];
        debug_assert!(m.alive);
        let mask = self.table.len() - 1;
        let want = slot as u64 + 1;
        let mut i = self.home(m.fp);
        while self.table[i] & 0xFFFF_FFFF != want {
            debug_assert!(self.table[i] != 0, "slot not in the table");
            i = (i + 1) & mask;
        }
        // Backward-shift deletion keeps every probe run unbroken.
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            let e = self.table[j];
            if e == 0 {
                break;
            }
            let k = ((e >> 32) >> (32 - self.bits)) as usize;
            let stays = if i <= j { i < k && k <= j } else { i < k || k <= j };
            if !stays {
                self.table[i] = e;
                i = j;
            }
        }
        self.table[i] = 0;
        let meta = &mut self.meta[slot as usize];
        meta.alive = false;
        meta.flags = 0;
        meta.gen = meta.gen.wrapping_add(1);
        self.free.push(slot);
        self.live -= 1;
    }

    fn grow(&mut self) {
        let bits = self.bits + 1;
        assert!(bits <= 32);
        let old = std::mem::replace(&mut self.table, vec![0; 1 << bits]);
        self.bits = bits;
        let mask = self.table.len() - 1;
        for e in old {
            if e != 0 {
                let mut i = ((e >> 32) >> (32 - bits)) as usize;
                while self.table[i] != 0 {
                    i = (i + 1) & mask;
                }
                self.table[i] = e;
            }
        }
    }

    /// Bytes the next insertion could allocate (a full arena or attribute
    /// vector doubling, the table doubling).
    pub fn next_growth_bytes(&self) -> usize {
        let mut g = 0;
        if self.free.is_empty() {
            if self.bytes.len() + self.state_len > self.bytes.capacity() {
                g += self.bytes.capacity().max(self.state_len * 4);
            }
            if self.meta.len() == self.meta.capacity() {
                g += self.meta.capacity().max(4) * std::mem::size_of::<Meta>();
            }
        }
        if (self.live + 1) * 10 > self.table.len() * 7 {
            g += self.table.len() * 2 * 8;
        }
        g
    }

    /// Bytes allocated by the cache (arena, attributes, table).
    pub fn bytes_used(&self) -> usize {
        self.bytes.capacity()
            + self.meta.capacity() * std::mem::size_of::<Meta>()
            + self.table.len() * 8
            + self.free.capacity() * 4
    }

    /// Checks invariant I4 of the paper for every stored state:
    /// `s.refs = |{s' ∈ C ∪ O : s'.pred = s ∧ s'.refs > 0}| + (s ∈ O ? 1 : 0)`,
    /// and that `D` holds exactly the stored, unreferenced, non-persistent
    /// states (when `d_tracked`). Returns the first violation.
    pub fn check_i4(&self, d_tracked: bool) -> Result<(), String> {
        let mut children = vec![0u32; self.meta.len()];
        for m in self.meta.iter().filter(|m| m.alive && m.refs > 0) {
            if m.pred != NIL && self.is_live(m.pred, m.pred_gen) {
                children[m.pred as usize] += 1;
            }
        }
        for (s, m) in self.meta.iter().enumerate().filter(|(_, m)| m.alive) {
            let expected = children[s] + u32::from(m.is_open());
            if m.refs != expected {
                return Err(format!(
                    "I4 violated at slot {s}: refs {} but {} TD-tree successors{}",
                    m.refs,
                    children[s],
                    if m.is_open() { " + open" } else { "" }
                ));
            }
            if d_tracked {
                let should = m.refs == 0 && !m.persistent();
                if m.in_d() != should {
                    return Err(format!(
                        "slot {s}: in D = {} but refs = {}, persistent = {}",
                        m.in_d(),
                        m.refs,
                        m.persistent()
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(x: u32) -> u64 {
        dve_frontend::model::fingerprint::reference(&x.to_le_bytes())
    }

    #[test]
    fn insert_find_remove_reuse() {
        let mut c = Cache::new(4);
        let mut slots = Vec::new();
        for x in 0..5000u32 {
            slots.push(c.insert(&x.to_le_bytes(), fp(x)));
        }
        assert_eq!(c.len(), 5000);
        for x in (0..5000u32).step_by(3) {
            let s = c.find(&x.to_le_bytes(), fp(x)).unwrap();
            assert_eq!(s, slots[x as usize]);
            c.remove(s);
        }
        for x in 0..5000u32 {
            let found = c.find(&x.to_le_bytes(), fp(x));
            assert_eq!(found.is_some(), x % 3 != 0, "{x}");
        }
        let g = c.meta[slots[0] as usize].gen;
        assert_eq!(g, 1);
        let s = c.insert(&9999u32.to_le_bytes(), fp(9999));
        assert!(c.meta[s as usize].gen >= 1 || s as usize >= 5000);
        assert_eq!(c.find(&9999u32.to_le_bytes(), fp(9999)), Some(s));
    }

    #[test]
    fn colliding_tags_survive_deletion() {
        let mut c = Cache::new(2);
        let f = |i: u16| 0xABCD_0000_0000_0000u64 | (i as u64 % 5 + 1);
        for i in 0..300u16 {
            c.insert(&i.to_le_bytes(), f(i));
        }
        for i in (0..300u16).filter(|i| i % 2 == 0) {
            let s = c.find(&i.to_le_bytes(), f(i)).unwrap();
            c.remove(s);
        }
        for i in 0..300u16 {
            assert_eq!(c.find(&i.to_le_bytes(), f(i)).is_some(), i % 2 == 1);
        }
    }
}
