//! The structures of msgpackr's record extension, as `new Packr()` writes objects by
//! default, defined so far in one input (their decoding is `parser/msgpackr.rs`).
//!
//! `d4 72 id` (fixext1 of ext type 0x72, "r") followed by an array of keys defines
//! structure `id` (0x40..=0x7f), and the structure's first record follows at once: one
//! value per key. Later, the byte `id` followed by those values is another record, so once
//! a structure is defined, bytes 0x40..=0x7f that start a value are records (msgpackr then
//! writes ints 64..=127 as uint8). Records decode exactly like maps with those keys.

use std::rc::Rc;

/// One structure: its keys, in the order its records give their values.
#[derive(Debug)]
pub(crate) struct Structure {
    /// The keys (empty in a structural scan, which only needs `len`).
    pub names: Vec<String>,
    /// Values per record.
    pub len: usize,
    /// Unique per definition (ids are redefined when msgpackr cycles through them).
    pub serial: u32,
}

/// The structures defined so far in one input (a stream keeps them across batches).
#[derive(Debug, Clone, Default)]
pub(crate) struct Structures {
    /// Empty until the first definition, then one slot per id 0x40..=0x7f.
    slots: Vec<Option<Rc<Structure>>>,
    defined: u32,
}

impl Structures {
    /// Whether any structure is defined (bytes 0x40..=0x7f may then be records).
    #[inline]
    pub fn active(&self) -> bool {
        !self.slots.is_empty()
    }

    /// Whether the value byte `t` is a record of a defined structure.
    #[inline]
    pub fn refers(&self, t: u8) -> bool {
        matches!(t, 0x40..=0x7f) && self.get(t).is_some()
    }

    /// The structure that the value byte `t` (0x40..=0x7f) refers to, if defined.
    #[inline]
    pub(crate) fn get(&self, t: u8) -> Option<&Rc<Structure>> {
        self.slots.get((t & 0x3f) as usize)?.as_ref()
    }

    /// The number of values a record of `t` holds, if `t` refers to a structure.
    pub fn fields(&self, t: u8) -> Option<usize> {
        if !matches!(t, 0x40..=0x7f) {
            return None;
        }
        self.get(t).map(|s| s.len)
    }

    /// Define structure `id` (0x40..=0x7f) with `n` keys for a structural scan, which
    /// only needs the count (not yet proven by the input: nothing is allocated for it).
    pub fn define_count(&mut self, id: u8, n: usize) {
        self.define(id, Vec::new(), n);
    }

    /// Define structure `id` (0x40..=0x7f) with keys `names` and `len` values per record
    /// (replacing an earlier one of that id).
    pub(crate) fn define(&mut self, id: u8, names: Vec<String>, len: usize) -> Rc<Structure> {
        if self.slots.is_empty() {
            self.slots.resize(64, None);
        }
        self.defined += 1;
        let s = Rc::new(Structure {
            names,
            len,
            serial: self.defined,
        });
        self.slots[(id & 0x3f) as usize] = Some(s.clone());
        s
    }
}
