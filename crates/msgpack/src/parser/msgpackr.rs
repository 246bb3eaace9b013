//! msgpackr's record extension, as `new Packr()` writes objects by default.
//!
//! `d4 72 id` (fixext1 of ext type 0x72, "r") followed by an array of keys defines
//! structure `id` (0x40..=0x7f), and the structure's first record follows at once: one
//! value per key. Later, the byte `id` followed by those values is another record, so once
//! a structure is defined, bytes 0x40..=0x7f that start a value are records (msgpackr then
//! writes ints 64..=127 as uint8). Records decode exactly like maps with those keys.

use std::rc::Rc;

use arrowsmith_core::ErrorCode;

use crate::builder::{Builder, Data};
use crate::parser::{err, Parser, Result};
use crate::tags::TAGS;

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

    #[inline]
    fn get(&self, t: u8) -> Option<&Rc<Structure>> {
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

    fn define(&mut self, id: u8, names: Vec<String>, len: usize) -> Rc<Structure> {
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

impl Parser<'_> {
    /// After `d4 72 id` (read; `id` is 0x40..=0x7f and an array follows): the keys of
    /// structure `id`, then its first record.
    pub(crate) fn record_definition(
        &mut self,
        b: &mut Builder,
        id: u8,
        start: usize,
        depth: usize,
    ) -> Result {
        let keys = self.pos;
        let tag = &TAGS[self.buf[keys] as usize];
        self.pos += 1;
        let n = self.length(tag, keys)?;
        // n keys and n values, each at least one byte.
        self.check_count(n, 2, keys, tag.name, depth)?;
        let mut names = Vec::with_capacity(n);
        for _ in 0..n {
            let k = self.pos;
            let key = self.key(k)?;
            match std::str::from_utf8(&key) {
                Ok(name) => names.push(name.to_owned()),
                Err(e) => return Err(self.bad_utf8(k, k + e.valid_up_to(), "record key")),
            }
        }
        let s = self.structures.define(id, names, n);
        self.record_values(b, &s, start, depth)
    }

    /// The byte `t` (read) refers to a structure: one of its records.
    pub(crate) fn record_ref(
        &mut self,
        b: &mut Builder,
        t: u8,
        start: usize,
        depth: usize,
    ) -> Result {
        let Some(s) = self.structures.get(t).cloned() else {
            unreachable!("record_ref() is called for defined structures only")
        };
        self.check_count(s.names.len(), 1, start, "msgpackr record", depth)?;
        self.record_values(b, &s, start, depth)
    }

    /// A record's values, one per key of `st`, as a map with those keys.
    fn record_values(
        &mut self,
        b: &mut Builder,
        st: &Rc<Structure>,
        start: usize,
        depth: usize,
    ) -> Result {
        if matches!(b.data, Data::Empty) {
            self.start_maps(b);
        }
        let n = st.names.len();
        if let Data::Map(m) = &mut b.data {
            for name in &st.names {
                m.keys
                    .push_bytes(true, name.as_bytes())
                    .map_err(|e| self.reject(e, start, "map key"))?;
                self.field_value(&mut m.values, depth)?;
            }
            return b.end_map().map_err(|e| self.reject(e, start, "map"));
        }
        let (hint, left) = (b.hint, self.remaining());
        let rows = move || hint.min(left / (n + 1));
        let (s, row) = b.records().map_err(|e| self.reject(e, start, "map"))?;
        // The columns of this structure's keys, found once per records column.
        let at = match s.structures.iter().position(|(k, _)| *k == st.serial) {
            Some(at) => at,
            None => {
                let mut fields = Vec::with_capacity(n);
                for name in &st.names {
                    fields.push(match s.find(name) {
                        Some(f) => f,
                        None => self.new_field(s, name, row, rows, start)?,
                    });
                }
                s.structures.push((st.serial, fields));
                s.structures.len() - 1
            }
        };
        for i in 0..n {
            let f = s.structures[at].1[i];
            let child = &mut s.children[f];
            if !child.catch_up(row) {
                return Err(err(
                    self.at(start),
                    ErrorCode::Invalid,
                    format!(
                        "the msgpackr record at byte {} repeats the key \"{}\"",
                        self.at(start),
                        s.names[f]
                    ),
                ));
            }
            self.field_value(child, depth)?;
        }
        self.end_record(b, n, start)
    }
}
