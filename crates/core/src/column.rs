//! Arrow-shaped columns: the one output form of every decoder.
//!
//! The layout follows the Arrow columnar spec so the wasm boundary can copy each buffer
//! out as-is and Arrow JS can wrap it with `makeData` (no per-value work in JS).

use crate::bitmap::Bitmap;

/// The unit of a `Timestamp` column's i64 values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Seconds since the epoch.
    Second,
    /// Milliseconds since the epoch.
    Millisecond,
    /// Microseconds since the epoch.
    Microsecond,
    /// Nanoseconds since the epoch.
    Nanosecond,
}

/// The Arrow type of a column (the subset the decoders produce).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DataType {
    /// A column whose every value is null.
    Null,
    /// Booleans, one bit each.
    Bool,
    /// Signed 8-bit integers.
    Int8,
    /// Signed 16-bit integers.
    Int16,
    /// Signed 32-bit integers.
    Int32,
    /// Signed 64-bit integers.
    Int64,
    /// Unsigned 8-bit integers.
    UInt8,
    /// Unsigned 16-bit integers.
    UInt16,
    /// Unsigned 32-bit integers.
    UInt32,
    /// Unsigned 64-bit integers.
    UInt64,
    /// IEEE 754 half precision floats (their bits as u16).
    Float16,
    /// IEEE 754 single precision floats.
    Float32,
    /// IEEE 754 double precision floats.
    Float64,
    /// UTF-8 strings (i32 offsets).
    Utf8,
    /// Byte strings (i32 offsets).
    Binary,
    /// Days since the epoch (i32).
    Date32,
    /// i64 since the epoch in the unit.
    Timestamp(TimeUnit),
    /// Variable-length lists of the field's type (i32 offsets).
    List(Box<Field>),
    /// Lists of the given length, all of the field's type.
    FixedSizeList(Box<Field>, i32),
    /// One child column per field.
    Struct(Vec<Field>),
    /// Key → value entries per row: `List<entries: Struct<key, value>>` with non-null keys.
    /// The field is the `entries` struct.
    Map(Box<Field>),
    /// Int32 keys into a Utf8 dictionary (held as the column's only child).
    DictionaryUtf8,
}

/// A column's name and type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The column's name.
    pub name: String,
    /// The column's Arrow type.
    pub dtype: DataType,
    /// Whether the column may hold nulls.
    pub nullable: bool,
}

impl Field {
    /// A field of `name`, `dtype` and nullability.
    pub fn new(name: impl Into<String>, dtype: DataType, nullable: bool) -> Self {
        Field {
            name: name.into(),
            dtype,
            nullable,
        }
    }
}

/// A typed, owned buffer. Kept typed so decoders write native values without casts.
#[derive(Debug, Clone, PartialEq)]
pub enum Buffer {
    /// Bytes: UInt8 values, bitmaps, string data.
    U8(Vec<u8>),
    /// Int8 values.
    I8(Vec<i8>),
    /// Int16 values.
    I16(Vec<i16>),
    /// Int32 and Date32 values, offsets, dictionary keys.
    I32(Vec<i32>),
    /// Int64 and Timestamp values.
    I64(Vec<i64>),
    /// UInt16 and Float16 values.
    U16(Vec<u16>),
    /// UInt32 values.
    U32(Vec<u32>),
    /// UInt64 values.
    U64(Vec<u64>),
    /// Float32 values.
    F32(Vec<f32>),
    /// Float64 values.
    F64(Vec<f64>),
}

impl Buffer {
    /// The buffer's bytes in little-endian (wasm and every Arrow JS host are LE).
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Buffer::U8(v) => v,
            Buffer::I8(v) => bytemuck::cast_slice(v),
            Buffer::I16(v) => bytemuck::cast_slice(v),
            Buffer::I32(v) => bytemuck::cast_slice(v),
            Buffer::I64(v) => bytemuck::cast_slice(v),
            Buffer::U16(v) => bytemuck::cast_slice(v),
            Buffer::U32(v) => bytemuck::cast_slice(v),
            Buffer::U64(v) => bytemuck::cast_slice(v),
            Buffer::F32(v) => bytemuck::cast_slice(v),
            Buffer::F64(v) => bytemuck::cast_slice(v),
        }
    }
}

/// One Arrow array. `buffers` follow the Arrow layout of `dtype`:
/// - primitives, Date32, Timestamp: `[values]`;
/// - Bool: `[bits]` (LSB-first, `U8`);
/// - Utf8, Binary: `[offsets (I32, len+1), data (U8)]`;
/// - List: `[offsets (I32, len+1)]`, one child;
/// - FixedSizeList: `[]`, one child of `len * size` values;
/// - Struct: `[]`, one child per field;
/// - Map: `[offsets (I32, len+1)]`, one child: the `entries` Struct (key, value);
/// - DictionaryUtf8: `[keys (I32)]`, one child: the Utf8 dictionary;
/// - Null: `[]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The column's Arrow type.
    pub dtype: DataType,
    /// The number of values (rows).
    pub len: usize,
    /// `None` when no value is null.
    pub validity: Option<Bitmap>,
    /// The buffers of `dtype`'s layout (above).
    pub buffers: Vec<Buffer>,
    /// The child columns of nested types (above).
    pub children: Vec<Column>,
}

impl Column {
    /// The number of null values.
    pub fn null_count(&self) -> usize {
        match (&self.dtype, &self.validity) {
            (DataType::Null, _) => self.len,
            (_, Some(v)) => v.count_zeros(),
            (_, None) => 0,
        }
    }

    /// A primitive column from a typed buffer.
    pub fn primitive(dtype: DataType, values: Buffer, validity: Option<Bitmap>) -> Self {
        let len = values.as_bytes().len() / byte_width(&dtype).expect("primitive dtype");
        Column {
            dtype,
            len,
            validity: normalize(validity),
            buffers: vec![values],
            children: vec![],
        }
    }

    /// A Utf8 or Binary column from offsets and data.
    pub fn bytes(
        dtype: DataType,
        offsets: Vec<i32>,
        data: Vec<u8>,
        validity: Option<Bitmap>,
    ) -> Self {
        debug_assert!(matches!(dtype, DataType::Utf8 | DataType::Binary));
        let len = offsets.len().saturating_sub(1);
        Column {
            dtype,
            len,
            validity: normalize(validity),
            buffers: vec![Buffer::I32(offsets), Buffer::U8(data)],
            children: vec![],
        }
    }

    /// A Bool column from its value bits.
    pub fn boolean(bits: Bitmap, validity: Option<Bitmap>) -> Self {
        let len = bits.len();
        Column {
            dtype: DataType::Bool,
            len,
            validity: normalize(validity),
            buffers: vec![Buffer::U8(bits.into_bytes())],
            children: vec![],
        }
    }

    /// A Null column of `len` values.
    pub fn nulls(len: usize) -> Self {
        Column {
            dtype: DataType::Null,
            len,
            validity: None,
            buffers: vec![],
            children: vec![],
        }
    }
}

/// Drop an all-valid bitmap: Arrow JS treats a missing bitmap as "no nulls".
fn normalize(validity: Option<Bitmap>) -> Option<Bitmap> {
    validity.filter(|v| v.count_zeros() > 0)
}

/// Bytes per value for fixed-width types.
pub fn byte_width(dtype: &DataType) -> Option<usize> {
    Some(match dtype {
        DataType::Int8 | DataType::UInt8 => 1,
        DataType::Int16 | DataType::UInt16 | DataType::Float16 => 2,
        DataType::Int32 | DataType::UInt32 | DataType::Float32 | DataType::Date32 => 4,
        DataType::Int64 | DataType::UInt64 | DataType::Float64 | DataType::Timestamp(_) => 8,
        _ => return None,
    })
}

/// Named columns of equal length: one Arrow record batch.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Batch {
    /// One field per column, in order.
    pub fields: Vec<Field>,
    /// The columns, each `num_rows` long.
    pub columns: Vec<Column>,
    /// The number of rows.
    pub num_rows: usize,
}

impl Batch {
    /// A batch of `columns` named by `fields` (its row count is the columns' length).
    pub fn new(fields: Vec<Field>, columns: Vec<Column>) -> Self {
        let num_rows = columns.first().map_or(0, |c| c.len);
        debug_assert!(
            columns.iter().all(|c| c.len == num_rows),
            "columns of unequal length"
        );
        Batch {
            fields,
            columns,
            num_rows,
        }
    }

    /// The column named `name`, if any.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.fields
            .iter()
            .position(|f| f.name == name)
            .map(|i| &self.columns[i])
    }
}
