//! Maps: as records (one column per key, keys found by position, see `keycache.rs`), or
//! as an Arrow Map column (`Maps::Map`, or records past `max_keys`).

use std::borrow::Cow;

use arrowsmith_core::{DecodeError, ErrorCode};

use crate::builder::{Builder, Data, Reject, Shape, StructData};
use crate::options::{ManyKeys, Maps};
use crate::plan::Restart;
use crate::tags::{Kind, TAGS};

use super::{err, take, Parser, Result};

/// Why records cannot stay one column per key.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TooWide {
    /// More distinct keys than `max_keys`.
    Keys,
    /// More null cells (missing keys) than the input justifies.
    Sparse,
}

impl<'a> Parser<'a> {
    /// A map of `count` entries (header read) into `b`.
    pub(crate) fn map(
        &mut self,
        b: &mut Builder,
        count: usize,
        start: usize,
        depth: usize,
        what: &str,
    ) -> Result {
        self.check_count(count, 2, start, what, depth)?;
        if !matches!(b.data, Data::Struct(_)) {
            if matches!(&b.data, Data::List { child, .. } if child.len == 0) {
                // Only empty arrays so far (PHP's empty arrays): they are empty maps.
                b.data = Data::Empty;
            }
            if matches!(b.data, Data::Empty) {
                self.start_maps(b);
            }
            if matches!(b.data, Data::Map(_)) {
                return self.entries(b, count, start, depth);
            }
        }
        // Columns created by the struct's first map may each expect one value per row:
        // at most the struct's own hint, and at most the rows that still fit in the input
        // if every row repeats this map (2 bytes per entry at least, plus the header).
        // (Worked out only when a field is created: a division per map is not free.)
        let (hint, left) = (b.hint, self.remaining());
        let rows = move || hint.min(left / (2 * count + 1));
        let (s, row) = match b.records() {
            Ok(r) => r,
            Err(e) => return Err(self.not_records(e, start)),
        };
        if s.shape != Shape::Records {
            return self.variant(b, count, start, depth);
        }
        // The field after the previous key's: where a positional miss looks first.
        let mut next = 0;
        for i in 0..count {
            let kstart = self.pos;
            let f = match s.keys.hit(i, &self.buf[kstart..]) {
                Some((f, len)) => {
                    self.pos += len;
                    f
                }
                None => self.key_miss(s, i, next, row, rows, start)?,
            };
            next = f + 1;
            let child = &mut s.children[f];
            if !child.catch_up(row) {
                return Err(self.duplicate_key(&s.names[f], kstart, start));
            }
            self.field_value(child, depth)?;
        }
        self.end_record(b, count, start)
    }

    /// A map joins a column of another kind: a column of str values may be Rust enums
    /// (a retry finds out), anything else is a type mismatch.
    #[cold]
    fn not_records(&mut self, e: Reject, start: usize) -> DecodeError {
        if let Reject::Mismatch {
            have: "str", id, ..
        } = e
        {
            if let Some(r) = self.enum_column(id) {
                return r;
            }
        }
        self.reject(e, start, "map")
    }

    /// A map in an enum column (`Shape::Tagged`): a variant with its payload, the map's
    /// one key naming the variant. (A map in a positional column is a type mismatch.)
    #[cold]
    fn variant(&mut self, b: &mut Builder, count: usize, start: usize, depth: usize) -> Result {
        let (hint, left, id) = (b.hint, self.remaining(), b.id);
        let rows = move || hint.min(left / 3);
        let (s, row) = b.records().map_err(|e| self.reject(e, start, "map"))?;
        if s.shape == Shape::Positional || count != 1 {
            let have = if s.shape == Shape::Positional {
                "array"
            } else {
                "enum"
            };
            let e = self.reject(
                Reject::Mismatch {
                    have,
                    got: "map",
                    id,
                },
                start,
                "map",
            );
            if count == 1 {
                return Err(e);
            }
            if s.shape == Shape::Tagged && self.restart.is_none() {
                // Not an enum after all: a retry reads the column by its kinds again
                // (an array of str and map items may then be positional).
                return Err(self.restart(Restart::NotEnum(id)));
            }
            return Err(DecodeError {
                message: format!(
                    "{}; a Rust enum (externally tagged) is a str or a map of one key, this map has {count}",
                    e.message
                ),
                ..e
            });
        }
        let kstart = self.pos;
        let key = self.key(kstart)?;
        let name = std::str::from_utf8(&key)
            .map_err(|e| self.bad_utf8(kstart, kstart + e.valid_up_to(), "map key"))?;
        if name == "variant" {
            return Err(err(
                self.at(kstart),
                ErrorCode::Unsupported,
                format!(
                    "the enum variant at byte {} is named \"variant\", the name of the field that names the variants",
                    self.at(kstart)
                ),
            ));
        }
        let f = match s.find(name) {
            Some(f) => f,
            None => self.new_field(s, name, row, rows, start)?,
        };
        let v = &mut s.children[0];
        v.catch_up(row);
        v.push_bytes(true, name.as_bytes())
            .map_err(|e| self.reject(e, kstart, "map key"))?;
        let child = &mut s.children[f];
        child.catch_up(row);
        self.field_value(child, depth)?;
        self.end_record(b, 2, start)
    }

    /// Storage for the first map of a column: records, or a Map column when asked for
    /// (`Maps::Map`) or when an earlier attempt found this records column too wide.
    pub(crate) fn start_maps(&mut self, b: &mut Builder) {
        if self.opts.maps == Maps::Map {
            return b.start_maps(Some(false), 0);
        }
        let serial = self.serials;
        self.serials += 1;
        let wide = self.plan.wide.contains(&serial);
        b.start_maps(wide.then_some(true), serial);
    }

    /// One field value: most are one scalar that the column takes as it is, or nil.
    #[inline(always)]
    pub(crate) fn field_value(&mut self, child: &mut Builder, depth: usize) -> Result {
        if self.peek() == Some(0xc0) {
            self.pos += 1;
            child.push_null();
        } else if !self.lane_one(child) {
            self.value(child, depth + 1)?;
        }
        Ok(())
    }

    /// End a record that set `present` fields: the others are null (written when their
    /// field next takes a value, see `Builder::catch_up`). Those nulls come from no input
    /// byte, so they are counted against the budget of such cells.
    #[inline(always)]
    pub(crate) fn end_record(&mut self, b: &mut Builder, present: usize, start: usize) -> Result {
        if let Data::Struct(s) = &b.data {
            if s.children.len() > present {
                self.fill(s.serial, s.children.len() - present, start)?;
            }
        }
        b.valid_n(1);
        Ok(())
    }

    /// `cells` null cells that no input byte stands for (missing keys, the leading nulls
    /// of a new column). Past the budget (`Parser::new`), the records are too sparse to be
    /// one column per key.
    #[inline]
    pub(crate) fn fill(&mut self, serial: usize, cells: usize, start: usize) -> Result {
        match self.fill_left.checked_sub(cells) {
            Some(left) => {
                self.fill_left = left;
                Ok(())
            }
            None => Err(self.too_wide(serial, start, TooWide::Sparse)),
        }
    }

    /// Records that cannot stay one column per key: a retry decodes them as one
    /// `Map<Utf8, value>` column, or (`ManyKeys::Error`) the error says why.
    #[cold]
    pub(crate) fn too_wide(&mut self, serial: usize, start: usize, why: TooWide) -> DecodeError {
        if self.opts.many_keys == ManyKeys::Map && serial != usize::MAX {
            return self.restart(Restart::Wide(serial));
        }
        let at = self.at(start);
        let what = match why {
            TooWide::Keys => format!(
                "the records column of the map at byte {at} has more than {} distinct keys (maxKeys)",
                self.opts.max_keys
            ),
            TooWide::Sparse => format!(
                "the records column of the map at byte {at} would hold more null cells for missing keys than the input justifies (4 per input byte)"
            ),
        };
        err(
            at,
            ErrorCode::Unsupported,
            if serial == usize::MAX {
                format!("{what}; positional rows cannot become a Map column")
            } else {
                format!("{what}; with manyKeys: 'map' (the default) they decode as one Map<Utf8, value> column")
            },
        )
    }

    /// The field of the key at `pos` when the key cache missed at map position `i` (first
    /// map, a changed key order, a long key): the fields from `next` on (the one after the
    /// previous key's) by their encodings, else decode, validate and look the key up. Kept
    /// out of line so that `map`'s hot loop stays small.
    #[inline(never)]
    fn key_miss(
        &mut self,
        s: &mut StructData,
        i: usize,
        next: usize,
        row: usize,
        rows: impl FnOnce() -> usize,
        start: usize,
    ) -> Result<usize> {
        let kstart = self.pos;
        if let Some((f, len)) = s.keys.scan(i, next, &self.buf[kstart..]) {
            self.pos += len;
            return Ok(f);
        }
        let key = self.key(kstart)?;
        let encoded = &self.buf[kstart..self.pos];
        if let Some(f) = s.same_as_last(i, encoded, &key) {
            return Ok(f);
        }
        let name = std::str::from_utf8(&key)
            .map_err(|e| self.bad_utf8(kstart, kstart + e.valid_up_to(), "map key"))?;
        let f = match s.find(name) {
            Some(f) => f,
            None => self.new_field(s, name, row, rows, start)?,
        };
        s.keys.remember(i, encoded, f);
        Ok(f)
    }

    /// A new column for key `name` (valid UTF-8) in records at row `row`, within the key
    /// and null budgets.
    pub(crate) fn new_field(
        &mut self,
        s: &mut StructData,
        name: &str,
        row: usize,
        rows: impl FnOnce() -> usize,
        start: usize,
    ) -> Result<usize> {
        if s.names.len() >= self.opts.max_keys {
            return Err(self.too_wide(s.serial, start, TooWide::Keys));
        }
        self.fill(s.serial, row, start)?;
        let hint = take(&mut self.budget, if row == 0 { rows() } else { 0 });
        Ok(s.add(name, row, hint))
    }

    #[cold]
    fn duplicate_key(&self, name: &str, kstart: usize, start: usize) -> DecodeError {
        err(
            self.at(kstart),
            ErrorCode::Invalid,
            format!(
                "the key \"{name}\" at byte {} repeats a key of the same map (at byte {})",
                self.at(kstart),
                self.at(start)
            ),
        )
    }

    /// A map's entries into a Map column: keys of their own type, or (`text_keys`) their
    /// text form as records would name them.
    fn entries(&mut self, b: &mut Builder, count: usize, start: usize, depth: usize) -> Result {
        let Data::Map(m) = &mut b.data else {
            unreachable!("entries() is called for Map columns only")
        };
        for _ in 0..count {
            let kstart = self.pos;
            if m.text_keys {
                let key = self.key(kstart)?;
                if let Err(e) = std::str::from_utf8(&key) {
                    return Err(self.bad_utf8(kstart, kstart + e.valid_up_to(), "map key"));
                }
                m.keys
                    .push_bytes(true, &key)
                    .map_err(|e| self.reject(e, kstart, "map key"))?;
            } else {
                if self.peek() == Some(0xc0) {
                    return Err(err(
                        self.at(kstart),
                        ErrorCode::Invalid,
                        format!(
                            "the map key at byte {} is nil; Arrow Map keys are never null",
                            self.at(kstart)
                        ),
                    ));
                }
                self.value(&mut m.keys, depth + 1)?;
            }
            self.field_value(&mut m.values, depth)?;
        }
        b.end_map().map_err(|e| self.reject(e, start, "map"))
    }

    /// The name of a map key: a str as it is; an int by its decimal text; a bin by its
    /// bytes (which must be UTF-8, as the caller checks).
    pub(crate) fn key(&mut self, start: usize) -> Result<Cow<'a, [u8]>> {
        let Some(t) = self.peek() else {
            return Err(err(
                self.at(start),
                ErrorCode::Truncated,
                format!(
                    "the input ends at byte {} where a map key was expected",
                    self.at(start)
                ),
            ));
        };
        self.pos += 1;
        let tag = &TAGS[t as usize];
        match tag.kind {
            Kind::Str | Kind::Bin => {
                let len = self.length(tag, start)?;
                self.payload(len, start, tag.name).map(Cow::Borrowed)
            }
            Kind::Int => {
                self.pos = start;
                let mut one = Builder::new();
                self.value(&mut one, 0)?;
                Ok(Cow::Owned(int_text(&one).into_bytes()))
            }
            _ => Err(err(
                self.at(start),
                ErrorCode::Invalid,
                format!(
                    "the map key at byte {} is a {}; records take str, int and bin keys (maps: 'map' keeps any key in a Map column)",
                    self.at(start),
                    tag.kind.name()
                ),
            )),
        }
    }
}

/// The decimal text of the one int in `b`.
fn int_text(b: &Builder) -> String {
    match &b.data {
        Data::I32(v) => v[0].to_string(),
        Data::I64(v) => v[0].to_string(),
        Data::U64(v) => v[0].to_string(),
        _ => String::new(),
    }
}
