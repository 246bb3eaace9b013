//! One value by its tag byte (`value`: scalars, str and bin, arrays; maps, ext and
//! msgpackr records go to their modules), and `seq`, which runs a sequence of values
//! through the bulk fast paths, the lanes and `value`, with an adaptive back-off for the
//! fast paths.

use arrowsmith_core::{DecodeError, ErrorCode};

use crate::builder::{Builder, Data, Shape};
use crate::options::{Maps, Tuples};
use crate::plan::Restart;
use crate::tags::{declared, Kind, TAGS};

use super::{err, Parser, Result, BACKOFF_MAX, BACKOFF_MIN, LANE_STEP, RUN_MIN, RUN_PAYS};

impl Parser<'_> {
    /// Decode `count` values into `b` (or, with `open`, values until the input ends).
    /// `depth` is the number of containers around each value.
    pub fn seq(&mut self, b: &mut Builder, count: usize, depth: usize, open: bool) -> Result {
        if !open && b.len == 0 && b.hint == 0 && matches!(b.data, Data::Empty) {
            // A fresh column that takes all `count` values (each at least one byte).
            b.hint = self.grant(count);
        }
        let mut left = count;
        while left > 0 {
            if open && self.pos == self.buf.len() {
                break;
            }
            if self.opts.fast_path && self.cooldown == 0 {
                if let Some(n) = self.fast_run(b, left) {
                    if n < RUN_MIN {
                        // A short run: stay on the general path for a while (adaptive).
                        self.cooldown = self.backoff;
                        self.backoff = (self.backoff * 2).min(BACKOFF_MAX);
                    } else if n >= RUN_PAYS {
                        self.backoff = BACKOFF_MIN;
                    }
                    if n > 0 {
                        left -= n;
                        continue;
                    }
                }
            }
            // General path. Int, float, bool and Utf8 columns take a tight loop over the
            // tags they accept and nil (one call per run, not per value).
            // After a short fast run, only up to the cooldown, so that the next run is seen.
            // Lanes take nil too, so without a cooldown a lane goes at most LANE_STEP values
            // before a fast path is tried again (a long fixint run after a nil).
            let lim = if self.cooldown > 0 {
                self.cooldown.min(left)
            } else if self.opts.fast_path {
                left.min(LANE_STEP)
            } else {
                left
            };
            let n = self.lane(b, lim);
            if n > 0 {
                left -= n;
                self.cooldown -= self.cooldown.min(n);
                continue;
            }
            // A record in a column of records: straight to `map` (header errors and
            // everything else go through `value`).
            if let (Data::Struct(_) | Data::Map(_), Some((count, len, what))) =
                (&b.data, self.map_header())
            {
                let start = self.pos;
                self.pos += len;
                self.map(b, count, start, depth, what)?;
                left -= 1;
                self.cooldown = self.cooldown.saturating_sub(1);
                continue;
            }
            if self.peek() == Some(0xc0) {
                // Nil, straight to the validity bitmap.
                self.pos += 1;
                b.push_null();
            } else {
                self.value(b, depth)?;
            }
            left -= 1;
            self.cooldown = self.cooldown.saturating_sub(1);
        }
        Ok(())
    }

    /// The element count, header length and name of a complete map header at `pos`.
    #[inline]
    fn map_header(&self) -> Option<(usize, usize, &'static str)> {
        let b = &self.buf[self.pos..];
        let tag = &TAGS[*b.first()? as usize];
        if tag.kind != Kind::Map {
            return None;
        }
        let n = declared(tag, &b[1..])?;
        Some((n as usize, 1 + tag.len_bytes as usize, tag.name))
    }

    /// Decode one value into `b`.
    pub fn value(&mut self, b: &mut Builder, depth: usize) -> Result {
        let start = self.pos;
        let Some(t) = self.peek() else {
            return Err(err(
                self.at(start),
                ErrorCode::Truncated,
                format!(
                    "the input ends at byte {} where a value was expected",
                    self.at(start)
                ),
            ));
        };
        let tag = &TAGS[t as usize];
        self.pos += 1;
        if self.shaped && matches!(b.data, Data::Empty) {
            self.shape(b);
        }
        let r = match tag.kind {
            Kind::Int if self.structures.refers(t) => return self.record_ref(b, t, start, depth),
            Kind::Int => match t {
                0xcc => b.push_u64(u8::from_be_bytes(self.arr(start, "uint8")?) as u64),
                0xcd => b.push_u64(u16::from_be_bytes(self.arr(start, "uint16")?) as u64),
                0xce => b.push_u64(u32::from_be_bytes(self.arr(start, "uint32")?) as u64),
                0xcf => b.push_u64(u64::from_be_bytes(self.arr(start, "uint64")?)),
                0xd0 => b.push_i64(i8::from_be_bytes(self.arr(start, "int8")?) as i64),
                0xd1 => b.push_i64(i16::from_be_bytes(self.arr(start, "int16")?) as i64),
                0xd2 => b.push_i64(i32::from_be_bytes(self.arr(start, "int32")?) as i64),
                0xd3 => b.push_i64(i64::from_be_bytes(self.arr(start, "int64")?)),
                // Positive and negative fixints.
                _ => b.push_i64(t as i8 as i64),
            },
            Kind::Float => match t {
                0xca => b.push_f32(f32::from_be_bytes(self.arr(start, "float32")?)),
                _ => b.push_f64(f64::from_be_bytes(self.arr(start, "float64")?)),
            },
            Kind::Nil => {
                b.push_null();
                Ok(())
            }
            Kind::Bool => b.push_bool(t == 0xc3),
            Kind::Reserved => {
                return Err(err(
                    self.at(start),
                    ErrorCode::Invalid,
                    format!(
                        "byte 0xc1 at byte {} is never used in MessagePack",
                        self.at(start)
                    ),
                ))
            }
            Kind::Str | Kind::Bin => {
                let n = self.length(tag, start)?;
                return self.bytes(b, tag.kind == Kind::Str, n, start, tag.name);
            }
            Kind::Ext => {
                let n = self.length(tag, start)?;
                return self.ext(b, n, start, tag.name, depth);
            }
            Kind::Array => {
                let n = self.length(tag, start)?;
                if matches!(&b.data, Data::Struct(s) if s.shape == Shape::Positional) {
                    return self.tuple(b, n, start, depth, tag.name, false);
                }
                return self.list(b, n, start, depth, tag.name);
            }
            Kind::Map => {
                let n = self.length(tag, start)?;
                return self.map(b, n, start, depth, tag.name);
            }
        };
        r.map_err(|e| self.reject(e, start, tag.kind.name()))
    }

    fn bytes(
        &mut self,
        b: &mut Builder,
        utf8: bool,
        len: usize,
        start: usize,
        what: &str,
    ) -> Result {
        let s = self.payload(len, start, what)?;
        if utf8 {
            if let Err(e) = std::str::from_utf8(s) {
                return Err(self.bad_utf8(start, self.pos - len + e.valid_up_to(), what));
            }
        }
        match b.push_bytes(utf8, s) {
            Ok(()) => Ok(()),
            Err(_) if utf8 && matches!(&b.data, Data::Struct(s) if s.shape == Shape::Tagged) => {
                self.unit_variant(b, s, start)
            }
            Err(e) => {
                if utf8 && matches!(&b.data, Data::Struct(s) if s.shape == Shape::Records) {
                    if let Some(r) = self.enum_column(b.id) {
                        return Err(r);
                    }
                }
                Err(self.reject(e, start, if utf8 { "str" } else { "bin" }))
            }
        }
    }

    /// Storage for the first value of a column that an earlier attempt found positional
    /// or tagged (`Plan`).
    #[cold]
    fn shape(&mut self, b: &mut Builder) {
        if self.plan.tuples.contains(&b.id) {
            b.start_struct(None, usize::MAX, Shape::Positional);
        } else if self.plan.enums.contains(&b.id) {
            b.start_struct(None, usize::MAX, Shape::Tagged);
            let row = b.len;
            if let Data::Struct(s) = &mut b.data {
                s.add("variant", row, 0);
            }
        }
    }

    /// A str and maps in one column (records): a retry reads it as Rust enums, once.
    #[cold]
    pub(crate) fn enum_column(&mut self, id: u64) -> Option<DecodeError> {
        (self.opts.maps == Maps::Records
            && self.restart.is_none()
            && !self.plan.enums.contains(&id)
            && !self.plan.not_enums.contains(&id))
        .then(|| self.restart(Restart::Enum(id)))
    }

    /// A str in an enum column: a unit variant.
    fn unit_variant(&mut self, b: &mut Builder, name: &[u8], start: usize) -> Result {
        let (s, row) = b.records().map_err(|e| self.reject(e, start, "str"))?;
        let v = &mut s.children[0];
        v.catch_up(row);
        v.push_bytes(true, name)
            .map_err(|e| self.reject(e, start, "str"))?;
        self.end_record(b, 1, start)
    }

    fn list(
        &mut self,
        b: &mut Builder,
        count: usize,
        start: usize,
        depth: usize,
        what: &str,
    ) -> Result {
        self.check_count(count, 1, start, what, depth)?;
        if count == 0 && takes_maps(&b.data) {
            // An empty array among maps is an empty map: PHP writes an empty array as one.
            return self.map(b, 0, start, depth, what);
        }
        let id = b.id;
        let child = b.begin_list().map_err(|e| self.reject(e, start, "array"))?;
        let item = child.id;
        if let Err(e) = self.seq(child, count, depth + 1, false) {
            return Err(self.mixed_items(id, item, e));
        }
        b.end_list().map_err(|e| self.reject(e, start, "array"))
    }

    /// The error `e` ended the items of an array in column `id`: if they are of kinds
    /// that one column does not hold, a retry reads that column's arrays as positional
    /// structs (as rows that are arrays are read: `Tuples`). The rows' own column (id 0)
    /// follows the rows' rule (`rows.rs`).
    #[cold]
    fn mixed_items(&mut self, id: u64, item: u64, e: DecodeError) -> DecodeError {
        let mixed = e.code == ErrorCode::TypeMismatch
            && self.mismatch_in.get() == Some(item)
            && id != 0
            && self.restart.is_none()
            && self.opts.tuples() != Tuples::List
            && !self.plan.tuples.contains(&id);
        if mixed {
            return self.restart(Restart::Tuple(id));
        }
        e
    }
}

/// Whether a column holds maps (records or a Map column; not positional rows).
fn takes_maps(d: &Data) -> bool {
    match d {
        Data::Struct(s) => s.shape == Shape::Records,
        Data::Map(_) => true,
        _ => false,
    }
}
