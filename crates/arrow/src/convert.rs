//! `arrowsmith_core` columns → arrow-rs arrays, moving each buffer (no copy: a core
//! `Vec<T>` becomes an arrow `Buffer` as it is).

use std::sync::Arc;

use arrow_array::{make_array, ArrayRef, RecordBatch};
use arrow_buffer::Buffer as ArrowBuffer;
use arrow_data::ArrayDataBuilder;
use arrow_schema::{
    ArrowError, DataType as A, Field as AField, Fields, Schema, SchemaRef, TimeUnit as AUnit,
};
use arrowsmith_core::{Batch, Buffer, Column, DataType, Field, TimeUnit};

/// The arrow-rs type of a core type.
pub fn data_type(t: &DataType) -> A {
    match t {
        DataType::Null => A::Null,
        DataType::Bool => A::Boolean,
        DataType::Int8 => A::Int8,
        DataType::Int16 => A::Int16,
        DataType::Int32 => A::Int32,
        DataType::Int64 => A::Int64,
        DataType::UInt8 => A::UInt8,
        DataType::UInt16 => A::UInt16,
        DataType::UInt32 => A::UInt32,
        DataType::UInt64 => A::UInt64,
        DataType::Float16 => A::Float16,
        DataType::Float32 => A::Float32,
        DataType::Float64 => A::Float64,
        DataType::Utf8 => A::Utf8,
        DataType::Binary => A::Binary,
        DataType::Date32 => A::Date32,
        DataType::Timestamp(u) => A::Timestamp(unit(*u), None),
        DataType::List(f) => A::List(Arc::new(field(f))),
        DataType::FixedSizeList(f, n) => A::FixedSizeList(Arc::new(field(f)), *n),
        DataType::Struct(fs) => A::Struct(fs.iter().map(field).collect::<Fields>()),
        DataType::Map(f) => A::Map(Arc::new(field(f)), false),
        DataType::DictionaryUtf8 => A::Dictionary(Box::new(A::Int32), Box::new(A::Utf8)),
    }
}

fn unit(u: TimeUnit) -> AUnit {
    match u {
        TimeUnit::Second => AUnit::Second,
        TimeUnit::Millisecond => AUnit::Millisecond,
        TimeUnit::Microsecond => AUnit::Microsecond,
        TimeUnit::Nanosecond => AUnit::Nanosecond,
    }
}

/// The arrow-rs field of a core field.
pub fn field(f: &Field) -> AField {
    AField::new(&f.name, data_type(&f.dtype), f.nullable)
}

/// The arrow-rs schema of a core batch's fields.
pub fn schema(fields: &[Field]) -> SchemaRef {
    Arc::new(Schema::new(fields.iter().map(field).collect::<Fields>()))
}

fn buffer(b: Buffer) -> ArrowBuffer {
    match b {
        Buffer::U8(v) => ArrowBuffer::from_vec(v),
        Buffer::I8(v) => ArrowBuffer::from_vec(v),
        Buffer::I16(v) => ArrowBuffer::from_vec(v),
        Buffer::I32(v) => ArrowBuffer::from_vec(v),
        Buffer::I64(v) => ArrowBuffer::from_vec(v),
        Buffer::U16(v) => ArrowBuffer::from_vec(v),
        Buffer::U32(v) => ArrowBuffer::from_vec(v),
        Buffer::U64(v) => ArrowBuffer::from_vec(v),
        Buffer::F32(v) => ArrowBuffer::from_vec(v),
        Buffer::F64(v) => ArrowBuffer::from_vec(v),
    }
}

/// One column as an arrow-rs array. The array is validated (offsets in bounds, UTF-8,
/// dictionary keys): a decoder bug becomes an `ArrowError`, never an unsound array.
pub fn array(c: Column) -> Result<ArrayRef, ArrowError> {
    let dtype = data_type(&c.dtype);
    let children = c
        .children
        .into_iter()
        .map(|child| array(child).map(|a| a.to_data()))
        .collect::<Result<Vec<_>, _>>()?;
    let builder = ArrayDataBuilder::new(dtype)
        .len(c.len)
        .null_bit_buffer(c.validity.map(|v| ArrowBuffer::from_vec(v.into_bytes())));
    // A dictionary's values are its child data in arrow-rs, as in the core layout.
    let builder = builder
        .buffers(c.buffers.into_iter().map(buffer).collect())
        .child_data(children);
    Ok(make_array(builder.build()?))
}

/// A core batch as an arrow-rs `RecordBatch` (its buffers moved, not copied).
pub fn record_batch(batch: Batch) -> Result<RecordBatch, ArrowError> {
    let schema = schema(&batch.fields);
    let rows = batch.num_rows;
    let columns = batch
        .columns
        .into_iter()
        .map(array)
        .collect::<Result<Vec<_>, _>>()?;
    RecordBatch::try_new_with_options(
        schema,
        columns,
        &arrow_array::RecordBatchOptions::new().with_row_count(Some(rows)),
    )
}
