//! msgpackr's records (their format is in `structures.rs`): a definition's keys and first
//! record, and each later record of a defined structure, decoded exactly like a map with
//! those keys.

use std::rc::Rc;

use arrowsmith_core::ErrorCode;

use crate::builder::{Builder, Data};
use crate::structures::Structure;
use crate::tags::TAGS;

use super::{err, Parser, Result};

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
