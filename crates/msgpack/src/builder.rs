//! Column builders with single-pass type inference.
//!
//! A builder keeps the narrowest representation that holds every value seen so far and
//! widens its storage once, in place, when a value needs more (i32 → i64 → u64, f32 →
//! f64, ints → f64). Values land directly in the buffers the final Arrow column owns.

use std::collections::HashMap;

use crate::keycache::KeyCache;
use arrowsmith_core::{Bitmap, Buffer, Column, DataType, Field, TimeUnit};

/// Why a value cannot join a column. The parser adds the byte offset.
#[derive(Debug)]
pub enum Reject {
    /// The column holds `have` values; a `got` value arrived.
    Mismatch {
        have: &'static str,
        got: &'static str,
        /// The column's `Builder::id`.
        id: u64,
    },
    /// A uint64 above i64::MAX in a column that also has negative ints (or vice versa).
    SignedUnsigned,
    /// Utf8/Binary data past 2^31-1 bytes.
    TooLarge,
    /// This int, in a column that also holds floats, has no exact Float64 value.
    Inexact(i128),
}

/// Whether the int `x` is exactly a Float64 (every int within ±2^53, and some beyond).
#[inline]
fn exact(x: i128) -> bool {
    x as f64 as i128 == x
}

pub type BResult<T = ()> = Result<T, Reject>;

#[derive(Debug, Default)]
pub struct Builder {
    pub len: usize,
    /// Created on the first null.
    pub validity: Option<Bitmap>,
    pub data: Data,
    /// Values this column is expected to hold in all: capacity reserved once, when its
    /// storage is created, instead of growing by doubling (each doubling copies). The
    /// parser grants it from a budget tied to the input length (see `Parser::grant`).
    pub hint: usize,
    /// The column's place in the tree (a hash of its path; 0 for the rows' root), the
    /// same in every attempt at one input, so a retry can change how this column reads
    /// (`Plan::tuples`, `Plan::enums`).
    pub id: u64,
}

/// The id of child `name` of the column `parent` (see `Builder::id`).
pub fn child_id(parent: u64, name: &[u8]) -> u64 {
    // FNV-1a over the parent id and the name; the length ends the name.
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in parent
        .to_le_bytes()
        .iter()
        .chain(name)
        .chain(&(name.len() as u64).to_le_bytes())
    {
        h = (h ^ *b as u64).wrapping_mul(0x100_0000_01b3);
    }
    h | 1
}

/// How a `Data::Struct` column reads its values.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Maps: one field per key.
    #[default]
    Records,
    /// Arrays: one field per position (`0`, `1`, …).
    Positional,
    /// Rust externally tagged enums: a str is a unit variant, a map of one key a variant
    /// with a payload; field 0 `variant` names it, one field per variant holds payloads.
    Tagged,
}

#[derive(Debug, Default)]
pub enum Data {
    /// No non-null value yet.
    #[default]
    Empty,
    I32(Vec<i32>),
    I64(Vec<i64>),
    U64(Vec<u64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Bool(Bitmap),
    Bytes {
        utf8: bool,
        offsets: Vec<i32>,
        data: Vec<u8>,
    },
    /// i64 counts of the unit since the epoch.
    Timestamp(TimeUnit, Vec<i64>),
    Ext {
        types: Vec<i8>,
        offsets: Vec<i32>,
        data: Vec<u8>,
    },
    List {
        offsets: Vec<i32>,
        child: Box<Builder>,
    },
    Struct(Box<StructData>),
    Map(Box<MapData>),
}

#[derive(Debug, Default)]
pub struct StructData {
    pub names: Vec<String>,
    pub children: Vec<Builder>,
    pub index: HashMap<String, usize>,
    /// The key seen at each map position last time (see `keycache`).
    pub keys: KeyCache,
    /// Which records column of the decode this is (creation order), to name it when it
    /// must become a Map column (`Plan::wide`).
    pub serial: usize,
    /// Field index of each key of a msgpackr structure, by the structure's serial.
    pub structures: Vec<(u32, Vec<usize>)>,
    pub shape: Shape,
    /// The column's `Builder::id`.
    pub id: u64,
}

/// An Arrow Map column being built: entries of all rows, keys and values.
#[derive(Debug, Default)]
pub struct MapData {
    /// Keys are the text form of map keys (Utf8), as records name their columns.
    pub text_keys: bool,
    pub offsets: Vec<i32>,
    pub keys: Builder,
    pub values: Builder,
}

impl Data {
    /// Room for `n` more values (fixed-width storage and offsets; not data bytes).
    fn reserve(&mut self, n: usize) {
        match self {
            Data::I32(v) => v.reserve(n),
            Data::I64(v) | Data::Timestamp(_, v) => v.reserve(n),
            Data::U64(v) => v.reserve(n),
            Data::F32(v) => v.reserve(n),
            Data::F64(v) => v.reserve(n),
            Data::Bytes { offsets, .. } | Data::List { offsets, .. } => offsets.reserve(n),
            Data::Map(m) => m.offsets.reserve(n),
            Data::Ext { types, offsets, .. } => {
                types.reserve(n);
                offsets.reserve(n);
            }
            Data::Empty | Data::Bool(_) | Data::Struct(_) => {}
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Data::Empty => "nil",
            Data::I32(_) | Data::I64(_) | Data::U64(_) => "int",
            Data::F32(_) | Data::F64(_) => "float",
            Data::Bool(_) => "bool",
            Data::Bytes { utf8: true, .. } => "str",
            Data::Bytes { utf8: false, .. } => "bin",
            Data::Timestamp(TimeUnit::Millisecond, _) => "timestamp (ms)",
            Data::Timestamp(..) => "timestamp",
            Data::Ext { .. } => "ext",
            Data::List { .. } => "array",
            Data::Struct(s) if s.shape == Shape::Positional => "array",
            Data::Struct(s) if s.shape == Shape::Tagged => "enum",
            Data::Struct(_) | Data::Map(_) => "map",
        }
    }
}

fn offset_of(len: usize) -> BResult<i32> {
    i32::try_from(len).map_err(|_| Reject::TooLarge)
}

impl Builder {
    pub fn new() -> Self {
        Builder::default()
    }

    #[inline]
    fn valid(&mut self) {
        self.len += 1;
        if let Some(v) = &mut self.validity {
            v.push(true);
        }
    }

    #[inline]
    pub fn valid_n(&mut self, n: usize) {
        self.len += n;
        if let Some(v) = &mut self.validity {
            if n == 1 {
                v.push(true);
            } else {
                v.push_n(true, n);
            }
        }
    }

    /// Storage for a first value, back-filled with defaults for the leading nulls.
    fn start(&mut self, data: Data) {
        debug_assert!(matches!(self.data, Data::Empty));
        self.data = data;
        self.data.reserve(self.hint.max(self.len));
        self.fill_defaults(self.len);
    }

    /// Append `n` default (placeholder) values to the storage, not touching len/validity.
    fn fill_defaults(&mut self, n: usize) {
        match &mut self.data {
            Data::Empty => {}
            Data::I32(v) => v.resize(v.len() + n, 0),
            Data::I64(v) | Data::Timestamp(_, v) => v.resize(v.len() + n, 0),
            Data::U64(v) => v.resize(v.len() + n, 0),
            Data::F32(v) => v.resize(v.len() + n, 0.0),
            Data::F64(v) => v.resize(v.len() + n, 0.0),
            Data::Bool(b) => b.push_n(false, n),
            Data::Bytes { offsets, .. } | Data::List { offsets, .. } => {
                let last = offsets.last().copied().unwrap_or(0);
                offsets.resize(offsets.len() + n, last);
            }
            Data::Map(m) => {
                let last = m.offsets.last().copied().unwrap_or(0);
                m.offsets.resize(m.offsets.len() + n, last);
            }
            Data::Ext { types, offsets, .. } => {
                types.resize(types.len() + n, 0);
                let last = offsets.last().copied().unwrap_or(0);
                offsets.resize(offsets.len() + n, last);
            }
            Data::Struct(s) => {
                for c in &mut s.children {
                    c.push_nulls(n);
                }
            }
        }
    }

    pub fn push_nulls(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        let v = self
            .validity
            .get_or_insert_with(|| Bitmap::filled(self.len, true));
        v.push_n(false, n);
        self.len += n;
        self.fill_defaults(n);
    }

    #[inline]
    pub fn push_null(&mut self) {
        // Once the bitmap exists (the common case in a nil-able column), one bit.
        match &mut self.validity {
            Some(v) => {
                v.push(false);
                self.len += 1;
                self.fill_defaults(1);
            }
            None => self.push_nulls(1),
        }
    }

    fn mismatch<T>(&self, got: &'static str) -> BResult<T> {
        Err(Reject::Mismatch {
            have: self.data.kind(),
            got,
            id: self.id,
        })
    }

    // ---- numbers ----

    #[inline]
    pub fn push_i64(&mut self, x: i64) -> BResult {
        match &mut self.data {
            Data::I32(v) => match i32::try_from(x) {
                Ok(y) => v.push(y),
                Err(_) => {
                    let mut w: Vec<i64> = Vec::with_capacity(v.len() + 1);
                    w.extend(v.iter().map(|&y| y as i64));
                    w.push(x);
                    self.data = Data::I64(w);
                }
            },
            Data::I64(v) => v.push(x),
            Data::U64(v) => match u64::try_from(x) {
                Ok(y) => v.push(y),
                Err(_) => return Err(Reject::SignedUnsigned),
            },
            Data::F64(_) | Data::F32(_) if !exact(x as i128) => {
                return Err(Reject::Inexact(x as i128))
            }
            Data::F64(v) => v.push(x as f64),
            Data::F32(v) => {
                let mut w: Vec<f64> = v.iter().map(|&y| y as f64).collect();
                w.push(x as f64);
                self.data = Data::F64(w);
            }
            Data::Empty => {
                self.start(match i32::try_from(x) {
                    Ok(_) => Data::I32(Vec::new()),
                    Err(_) => Data::I64(Vec::new()),
                });
                return self.push_i64(x);
            }
            _ => return self.mismatch("int"),
        }
        self.valid();
        Ok(())
    }

    #[inline]
    pub fn push_u64(&mut self, x: u64) -> BResult {
        if let Ok(y) = i64::try_from(x) {
            return self.push_i64(y);
        }
        match &mut self.data {
            Data::U64(v) => v.push(x),
            Data::I32(v) => {
                if v.iter().any(|&y| y < 0) {
                    return Err(Reject::SignedUnsigned);
                }
                let mut w: Vec<u64> = v.iter().map(|&y| y as u64).collect();
                w.push(x);
                self.data = Data::U64(w);
            }
            Data::I64(v) => {
                if v.iter().any(|&y| y < 0) {
                    return Err(Reject::SignedUnsigned);
                }
                let w: Vec<u64> = std::mem::take(v)
                    .into_iter()
                    .map(|y| y as u64)
                    .chain([x])
                    .collect();
                self.data = Data::U64(w);
            }
            Data::F64(_) | Data::F32(_) if !exact(x as i128) => {
                return Err(Reject::Inexact(x as i128))
            }
            Data::F64(v) => v.push(x as f64),
            Data::F32(_) => {
                self.widen_to_f64()?;
                return self.push_u64(x);
            }
            Data::Empty => {
                self.start(Data::U64(Vec::new()));
                return self.push_u64(x);
            }
            _ => return self.mismatch("int"),
        }
        self.valid();
        Ok(())
    }

    /// Convert numeric storage to f64 (once), or `Inexact` if an int has no exact
    /// Float64 value (then nothing changes). Caller checked it is numeric.
    fn widen_to_f64(&mut self) -> BResult {
        let inexact = match &self.data {
            Data::I64(v) => v.iter().map(|&y| y as i128).find(|&y| !exact(y)),
            Data::U64(v) => v.iter().map(|&y| y as i128).find(|&y| !exact(y)),
            _ => None,
        };
        if let Some(y) = inexact {
            return Err(Reject::Inexact(y));
        }
        let w: Vec<f64> = match &self.data {
            Data::I32(v) => v.iter().map(|&y| y as f64).collect(),
            Data::I64(v) => v.iter().map(|&y| y as f64).collect(),
            Data::U64(v) => v.iter().map(|&y| y as f64).collect(),
            Data::F32(v) => v.iter().map(|&y| y as f64).collect(),
            _ => return Ok(()),
        };
        self.data = Data::F64(w);
        Ok(())
    }

    #[inline]
    pub fn push_f32(&mut self, x: f32) -> BResult {
        match &mut self.data {
            Data::F32(v) => v.push(x),
            Data::F64(v) => v.push(x as f64),
            Data::I32(_) | Data::I64(_) | Data::U64(_) => {
                self.widen_to_f64()?;
                return self.push_f32(x);
            }
            Data::Empty => {
                self.start(Data::F32(Vec::new()));
                return self.push_f32(x);
            }
            _ => return self.mismatch("float"),
        }
        self.valid();
        Ok(())
    }

    #[inline]
    pub fn push_f64(&mut self, x: f64) -> BResult {
        match &mut self.data {
            Data::F64(v) => v.push(x),
            Data::F32(_) | Data::I32(_) | Data::I64(_) | Data::U64(_) => {
                self.widen_to_f64()?;
                return self.push_f64(x);
            }
            Data::Empty => {
                self.start(Data::F64(Vec::new()));
                return self.push_f64(x);
            }
            _ => return self.mismatch("float"),
        }
        self.valid();
        Ok(())
    }

    // ---- other scalars ----

    #[inline]
    pub fn push_bool(&mut self, x: bool) -> BResult {
        match &mut self.data {
            Data::Bool(b) => b.push(x),
            Data::Empty => {
                self.start(Data::Bool(Bitmap::new()));
                return self.push_bool(x);
            }
            _ => return self.mismatch("bool"),
        }
        self.valid();
        Ok(())
    }

    /// Append str (`utf8`) or bin bytes. UTF-8 is validated by the caller.
    #[inline]
    pub fn push_bytes(&mut self, utf8: bool, bytes: &[u8]) -> BResult {
        match &mut self.data {
            Data::Bytes {
                utf8: u,
                offsets,
                data,
            } if *u == utf8 => {
                let end = data
                    .len()
                    .checked_add(bytes.len())
                    .ok_or(Reject::TooLarge)?;
                let end = offset_of(end)?;
                data.extend_from_slice(bytes);
                offsets.push(end);
            }
            Data::Empty => {
                self.start(Data::Bytes {
                    utf8,
                    offsets: vec![0],
                    data: Vec::new(),
                });
                return self.push_bytes(utf8, bytes);
            }
            _ => return self.mismatch(if utf8 { "str" } else { "bin" }),
        }
        self.valid();
        Ok(())
    }

    /// A timestamp of `x` units since the epoch. One column holds one unit.
    pub fn push_timestamp(&mut self, unit: TimeUnit, x: i64) -> BResult {
        match &mut self.data {
            Data::Timestamp(u, v) if *u == unit => v.push(x),
            Data::Empty => {
                self.start(Data::Timestamp(unit, Vec::new()));
                return self.push_timestamp(unit, x);
            }
            _ if unit == TimeUnit::Millisecond => return self.mismatch("timestamp (ms)"),
            _ => return self.mismatch("timestamp"),
        }
        self.valid();
        Ok(())
    }

    pub fn push_ext(&mut self, ty: i8, bytes: &[u8]) -> BResult {
        match &mut self.data {
            Data::Ext {
                types,
                offsets,
                data,
            } => {
                let end = data
                    .len()
                    .checked_add(bytes.len())
                    .ok_or(Reject::TooLarge)?;
                let end = offset_of(end)?;
                types.push(ty);
                data.extend_from_slice(bytes);
                offsets.push(end);
            }
            Data::Empty => {
                self.start(Data::Ext {
                    types: Vec::new(),
                    offsets: vec![0],
                    data: Vec::new(),
                });
                return self.push_ext(ty, bytes);
            }
            _ => return self.mismatch("ext"),
        }
        self.valid();
        Ok(())
    }

    // ---- nested ----

    /// Begin a list value: returns its child builder. Call `end_list` after the elements.
    pub fn begin_list(&mut self) -> BResult<&mut Builder> {
        if matches!(self.data, Data::Empty) {
            self.start(Data::List {
                offsets: vec![0],
                child: Box::new(Builder {
                    id: child_id(self.id, b"[]"),
                    ..Builder::new()
                }),
            });
        }
        let (have, id) = (self.data.kind(), self.id);
        match &mut self.data {
            Data::List { child, .. } => Ok(child),
            _ => Err(Reject::Mismatch {
                have,
                got: "array",
                id,
            }),
        }
    }

    pub fn end_list(&mut self) -> BResult {
        if let Data::List { offsets, child } = &mut self.data {
            offsets.push(offset_of(child.len)?);
        }
        self.valid();
        Ok(())
    }

    /// Storage for maps, chosen by the parser: records (`Struct`) named `serial`, or a
    /// Map column. Only for a column with no value yet.
    pub fn start_maps(&mut self, map: Option<bool>, serial: usize) {
        self.start_struct(map, serial, Shape::Records);
    }

    /// `start_maps`, or (`shape`) a positional or tagged Struct.
    pub fn start_struct(&mut self, map: Option<bool>, serial: usize, shape: Shape) {
        let id = self.id;
        self.start(match map {
            None => Data::Struct(Box::new(StructData {
                serial,
                shape,
                id,
                ..StructData::default()
            })),
            Some(text_keys) => Data::Map(Box::new(MapData {
                text_keys,
                offsets: vec![0],
                keys: Builder {
                    id: child_id(id, b"{key}"),
                    ..Builder::new()
                },
                values: Builder {
                    id: child_id(id, b"{}"),
                    ..Builder::new()
                },
            })),
        });
    }

    /// The struct data of a records column and the row index of the next value.
    pub fn records(&mut self) -> BResult<(&mut StructData, usize)> {
        let (row, id) = (self.len, self.id);
        match &mut self.data {
            Data::Struct(s) => Ok((s, row)),
            other => Err(Reject::Mismatch {
                have: other.kind(),
                got: "map",
                id,
            }),
        }
    }

    /// End a value of a Map column whose entries were pushed to its keys and values.
    pub fn end_map(&mut self) -> BResult {
        if let Data::Map(m) = &mut self.data {
            m.offsets.push(offset_of(m.keys.len)?);
        }
        self.valid();
        Ok(())
    }

    /// A field of a records column about to take its value for row `row`: the rows it
    /// missed since its last value become nulls now (a record that lacks a key costs
    /// nothing until that key comes back, or the column ends). False when it already
    /// has a value for `row` (a repeated key).
    #[inline]
    pub fn catch_up(&mut self, row: usize) -> bool {
        if self.len < row {
            self.push_nulls(row - self.len);
        }
        self.len == row
    }

    // ---- finish ----

    pub fn finish(self) -> Column {
        let Builder {
            len,
            validity,
            data,
            ..
        } = self;
        let col = |dtype: DataType, buf: Buffer| Column::primitive(dtype, buf, validity.clone());
        match data {
            Data::Empty => Column::nulls(len),
            Data::I32(v) => col(DataType::Int32, Buffer::I32(v)),
            Data::I64(v) => col(DataType::Int64, Buffer::I64(v)),
            Data::U64(v) => col(DataType::UInt64, Buffer::U64(v)),
            Data::F32(v) => col(DataType::Float32, Buffer::F32(v)),
            Data::F64(v) => col(DataType::Float64, Buffer::F64(v)),
            Data::Timestamp(unit, v) => col(DataType::Timestamp(unit), Buffer::I64(v)),
            Data::Bool(b) => Column::boolean(b, validity),
            Data::Bytes {
                utf8,
                offsets,
                data,
            } => Column::bytes(
                if utf8 {
                    DataType::Utf8
                } else {
                    DataType::Binary
                },
                offsets,
                data,
                validity,
            ),
            Data::Ext {
                types,
                offsets,
                data,
            } => {
                let n = types.len();
                let t = Column::primitive(DataType::Int8, Buffer::I8(types), None);
                let d = Column::bytes(DataType::Binary, offsets, data, None);
                let fields = vec![
                    Field::new("type", DataType::Int8, false),
                    Field::new("data", DataType::Binary, false),
                ];
                Column {
                    dtype: DataType::Struct(fields),
                    len: n,
                    validity: normalize(validity),
                    buffers: vec![],
                    children: vec![t, d],
                }
            }
            Data::List { offsets, child } => {
                let child = child.finish();
                let item = Field::new("item", child.dtype.clone(), true);
                Column {
                    dtype: DataType::List(Box::new(item)),
                    len,
                    validity: normalize(validity),
                    buffers: vec![Buffer::I32(offsets)],
                    children: vec![child],
                }
            }
            Data::Struct(s) => {
                let (fields, children) = s.finish(len);
                Column {
                    dtype: DataType::Struct(fields),
                    len,
                    validity: normalize(validity),
                    buffers: vec![],
                    children,
                }
            }
            Data::Map(m) => {
                let MapData {
                    offsets,
                    keys,
                    values,
                    ..
                } = *m;
                let n = keys.len;
                let (keys, values) = (keys.finish(), values.finish());
                let fields = vec![
                    Field::new("key", keys.dtype.clone(), false),
                    Field::new("value", values.dtype.clone(), true),
                ];
                let entries = Column {
                    dtype: DataType::Struct(fields),
                    len: n,
                    validity: None,
                    buffers: vec![],
                    children: vec![keys, values],
                };
                let field = Field::new("entries", entries.dtype.clone(), false);
                Column {
                    dtype: DataType::Map(Box::new(field)),
                    len,
                    validity: normalize(validity),
                    buffers: vec![Buffer::I32(offsets)],
                    children: vec![entries],
                }
            }
        }
    }
}

impl StructData {
    /// The fields and columns of `rows` records (fields missing from the last records
    /// are null there).
    pub fn finish(self, rows: usize) -> (Vec<Field>, Vec<Column>) {
        let children: Vec<Column> = self
            .children
            .into_iter()
            .map(|mut c| {
                c.catch_up(rows);
                c.finish()
            })
            .collect();
        let fields = self
            .names
            .into_iter()
            .zip(&children)
            .map(|(n, c)| Field::new(n, c.dtype.clone(), true))
            .collect();
        (fields, children)
    }

    /// The field of the key seen at map position `pos` last time, if `key` (name bytes;
    /// `encoded` is the whole key with its header) is that key again under another
    /// encoding or past the cache's width. Compares bytes only, no UTF-8 check.
    pub fn same_as_last(&mut self, pos: usize, encoded: &[u8], key: &[u8]) -> Option<usize> {
        let i = self.keys.last_field(pos)?;
        (self.names[i].as_bytes() == key).then(|| {
            self.keys.remember(pos, encoded, i);
            i
        })
    }

    /// The field named `name`, if there is one.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// A new field `name` with `row` leading nulls and room for `hint` values.
    pub fn add(&mut self, name: &str, row: usize, hint: usize) -> usize {
        let i = self.names.len();
        self.names.push(name.to_owned());
        self.index.insert(name.to_owned(), i);
        let mut b = Builder {
            hint,
            id: child_id(self.id, name.as_bytes()),
            ..Builder::new()
        };
        b.push_nulls(row);
        self.children.push(b);
        i
    }
}

fn normalize(v: Option<Bitmap>) -> Option<Bitmap> {
    v.filter(|b| b.count_zeros() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_past_i32_are_rejected() {
        assert_eq!(offset_of(i32::MAX as usize).ok(), Some(i32::MAX));
        assert!(matches!(
            offset_of(i32::MAX as usize + 1),
            Err(Reject::TooLarge)
        ));
    }

    #[test]
    fn widening_keeps_values_and_nulls() {
        let mut b = Builder::new();
        b.push_null();
        b.push_i64(-5).unwrap();
        b.push_i64(1 << 40).unwrap(); // i32 → i64
        b.push_f32(0.5).unwrap(); // → f64
        let c = b.finish();
        assert_eq!(c.dtype, DataType::Float64);
        assert_eq!(
            c.buffers[0],
            Buffer::F64(vec![0.0, -5.0, (1u64 << 40) as f64, 0.5])
        );
        assert_eq!(c.null_count(), 1);

        let mut b = Builder::new();
        b.push_u64(7).unwrap();
        b.push_u64(u64::MAX).unwrap(); // i32 → u64
        assert!(matches!(b.push_i64(-1), Err(Reject::SignedUnsigned)));
        assert!(matches!(
            b.push_bool(true),
            Err(Reject::Mismatch {
                have: "int",
                got: "bool",
                ..
            })
        ));
        assert_eq!(b.finish().buffers[0], Buffer::U64(vec![7, u64::MAX]));
    }
}
