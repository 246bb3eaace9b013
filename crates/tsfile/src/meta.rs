//! Metadata structures: statistics, TimeseriesMetadata, index nodes, device ids, schemas.

use crate::bytes::Cursor;
use crate::types::{Compression, Encoding, TsType};
use arrowsmith_core::DecodeError;

/// The part of the statistics a reader needs: count and time range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    /// The number of points.
    pub count: u64,
    /// The first point's time.
    pub start: i64,
    /// The last point's time.
    pub end: i64,
}

impl Stats {
    /// Whether some point may fall in `start..=end`.
    pub fn overlaps(&self, start: i64, end: i64) -> bool {
        self.count > 0 && self.start <= end && self.end >= start
    }
    /// Whether every point falls in `start..=end`.
    pub fn within(&self, start: i64, end: i64) -> bool {
        self.start >= start && self.end <= end
    }
}

pub(crate) fn parse_stats(c: &mut Cursor, ty: TsType) -> Result<Stats, DecodeError> {
    let count = c.uvarint("statistics count")? as u64;
    let start = c.i64("statistics start time")?;
    let end = c.i64("statistics end time")?;
    let skip = match ty {
        TsType::Boolean => 10,
        TsType::Int32 | TsType::Date | TsType::Float => 24,
        TsType::Int64 | TsType::Timestamp | TsType::Double => 40,
        TsType::Vector | TsType::Blob => 0,
        TsType::Text | TsType::String => {
            let n = if ty == TsType::Text { 2 } else { 4 };
            for _ in 0..n {
                let len = c.i32("string statistics")?;
                if len > 0 {
                    c.take(len as usize, "string statistics")?;
                }
            }
            0
        }
    };
    c.take(skip, "statistics")?;
    Ok(Stats { count, start, end })
}

/// One chunk of a series: where it is and its statistics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkMeta {
    /// File offset of the chunk header's marker byte.
    pub offset: u64,
    /// The chunk's statistics.
    pub stats: Stats,
}

/// One series of one device: `TimeseriesMetadata` with its chunk list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeriesMeta {
    /// The measurement's name (empty for an aligned time column).
    pub name: String,
    /// Its data type.
    pub dtype: TsType,
    /// The statistics of all its chunks.
    pub stats: Stats,
    /// Its chunks in file order.
    pub chunks: Vec<ChunkMeta>,
}

pub(crate) fn parse_series(c: &mut Cursor, file_size: u64) -> Result<SeriesMeta, DecodeError> {
    let at = c.offset();
    let kind = c.u8("timeseries metadata type")?;
    let name = c.var_string("measurement id")?.unwrap_or_default();
    let tid = c.u8("data type")?;
    let dtype = TsType::from_id(tid).ok_or_else(|| {
        c.invalid(format!(
            "timeseries metadata at byte {at}: unknown data type {tid}"
        ))
    })?;
    let list_len = c.uvarint("chunk metadata list size")? as usize;
    let stats = parse_stats(c, dtype)?;
    let list = c.take(list_len, "chunk metadata list")?;
    let mut lc = Cursor::new(list, c.offset() - list_len as u64, "chunk metadata list");
    let mut chunks = Vec::new();
    let own_stats = kind & 0x3f != 0;
    while !lc.at_end() {
        let off = lc.i64("chunk offset")?;
        if off < 0 || off as u64 >= file_size {
            return Err(lc.invalid(format!(
                "chunk offset {off} is outside the {file_size}-byte file"
            )));
        }
        let st = if own_stats {
            parse_stats(&mut lc, dtype)?
        } else {
            stats
        };
        chunks.push(ChunkMeta {
            offset: off as u64,
            stats: st,
        });
    }
    Ok(SeriesMeta {
        name,
        dtype,
        stats,
        chunks,
    })
}

/// A device id: v4 segments (`[table, tag1, …]` or tree `[prefix, rest…]`), v3 one path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DeviceId {
    /// The segments (a table model's null tags are `None`).
    pub segments: Vec<Option<String>>,
}

impl DeviceId {
    /// Dotted path (null segments print as `null`).
    pub fn path(&self) -> String {
        self.segments
            .iter()
            .map(|s| s.as_deref().unwrap_or("null"))
            .collect::<Vec<_>>()
            .join(".")
    }
    /// The first segment: the table's name in the table model.
    pub fn table(&self) -> &str {
        self.segments
            .first()
            .and_then(|s| s.as_deref())
            .unwrap_or("")
    }
    /// Strip trailing null segments (Java does, C++ does not).
    pub fn normalized(mut self) -> Self {
        while self.segments.len() > 1 && self.segments.last().is_some_and(|s| s.is_none()) {
            self.segments.pop();
        }
        self
    }
}

pub(crate) fn parse_device_id(c: &mut Cursor, version: u8) -> Result<DeviceId, DecodeError> {
    if version == 3 {
        return Ok(DeviceId {
            segments: vec![Some(c.var_string("device path")?.unwrap_or_default())],
        });
    }
    let n = c.uvarint("device segment count")? as usize;
    if n > c.remaining() {
        return Err(c.invalid(format!("device id claims {n} segments")));
    }
    let mut segments = Vec::with_capacity(n.max(1));
    for _ in 0..n {
        segments.push(c.var_string("device segment")?);
    }
    if segments.is_empty() {
        segments.push(Some(String::new()));
    }
    Ok(DeviceId { segments })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeKind {
    InternalDevice,
    LeafDevice,
    InternalMeasurement,
    LeafMeasurement,
}

#[derive(Debug, Clone)]
pub(crate) struct IndexNode {
    pub devices: Vec<DeviceId>,
    pub offsets: Vec<u64>,
    pub end: u64,
    pub kind: NodeKind,
}

impl IndexNode {
    /// Byte range of child `i`.
    pub fn child(&self, i: usize) -> (u64, u64) {
        let end = if i + 1 < self.offsets.len() {
            self.offsets[i + 1]
        } else {
            self.end
        };
        (self.offsets[i], end)
    }
}

/// Parse a node whose entries are device-level (`device_keys`) or measurement-level.
pub(crate) fn parse_node(
    c: &mut Cursor,
    version: u8,
    device_keys: bool,
    file_size: u64,
) -> Result<IndexNode, DecodeError> {
    let at = c.offset();
    let n = c.uvarint("index node child count")? as usize;
    if n > c.remaining() {
        return Err(c.invalid(format!(
            "index node at byte {at} claims {n} children in {} bytes",
            c.remaining()
        )));
    }
    let mut devices = Vec::new();
    let mut offsets = Vec::with_capacity(n);
    for _ in 0..n {
        if device_keys {
            devices.push(parse_device_id(c, version)?);
        } else {
            c.var_bytes("index entry name")?;
        }
        let off = c.i64("index entry offset")?;
        if off < 0 || off as u64 > file_size {
            return Err(c.invalid(format!(
                "index node at byte {at}: child offset {off} outside the file"
            )));
        }
        offsets.push(off as u64);
    }
    let end = c.i64("index node end offset")?;
    if end < 0 || end as u64 > file_size {
        return Err(c.invalid(format!(
            "index node at byte {at}: end offset {end} outside the file"
        )));
    }
    let k = c.u8("index node type")?;
    let kind = match k {
        0 => NodeKind::InternalDevice,
        1 => NodeKind::LeafDevice,
        2 => NodeKind::InternalMeasurement,
        3 => NodeKind::LeafMeasurement,
        _ => return Err(c.invalid(format!("index node at byte {at}: unknown node type {k}"))),
    };
    if device_keys != matches!(kind, NodeKind::InternalDevice | NodeKind::LeafDevice) {
        return Err(c.invalid(format!(
            "index node at byte {at}: node type {kind:?} where a {} node was expected",
            if device_keys { "device" } else { "measurement" }
        )));
    }
    for i in 0..n {
        let (s, e) = (
            offsets[i],
            if i + 1 < n {
                offsets[i + 1]
            } else {
                end as u64
            },
        );
        if s > e {
            return Err(c.invalid(format!(
                "index node at byte {at}: child {i} range {s}..{e} is reversed"
            )));
        }
    }
    Ok(IndexNode {
        devices,
        offsets,
        end: end as u64,
        kind,
    })
}

/// The role of a table column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnCategory {
    /// A tag: part of the device id.
    Tag,
    /// A field: a measured series.
    Field,
    /// An attribute (kept by the server, not in the file's data).
    Attribute,
    /// The time column.
    Time,
}

/// One column of a table schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnSchema {
    /// The column's name.
    pub name: String,
    /// Its data type.
    pub dtype: TsType,
    /// Its encoding, if the schema names a known one.
    pub encoding: Option<Encoding>,
    /// Its compression, if the schema names a known one.
    pub compression: Option<Compression>,
    /// Its role.
    pub category: ColumnCategory,
}

/// A v4 table: its columns in schema order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSchema {
    /// The table's name.
    pub name: String,
    /// Its columns in schema order.
    pub columns: Vec<ColumnSchema>,
}

impl TableSchema {
    /// The tag columns, in order.
    pub fn tags(&self) -> impl Iterator<Item = &ColumnSchema> {
        self.columns
            .iter()
            .filter(|c| c.category == ColumnCategory::Tag)
    }
    /// The field columns, in order.
    pub fn fields(&self) -> impl Iterator<Item = &ColumnSchema> {
        self.columns
            .iter()
            .filter(|c| c.category == ColumnCategory::Field)
    }
}

pub(crate) fn parse_table_schema(c: &mut Cursor, name: String) -> Result<TableSchema, DecodeError> {
    let n = c.uvarint("table column count")? as usize;
    if n > c.remaining() {
        return Err(c.invalid(format!("table {name} claims {n} columns")));
    }
    let mut columns = Vec::with_capacity(n);
    for _ in 0..n {
        let cname = c.int_string("column name")?.unwrap_or_default();
        let t = c.u8("column type")?;
        let dtype = TsType::from_id(t)
            .ok_or_else(|| c.invalid(format!("column {cname}: unknown data type {t}")))?;
        let encoding = Encoding::from_id(c.u8("column encoding")?);
        let compression = Compression::from_id(c.u8("column compression")?);
        let props = c.i32("column property count")?;
        if props < 0 || props as usize > c.remaining() {
            return Err(c.invalid(format!("column {cname}: {props} properties")));
        }
        for _ in 0..props {
            c.int_string("property key")?;
            c.int_string("property value")?;
        }
        let cat = c.i32("column category")?;
        let category = match cat {
            0 => ColumnCategory::Tag,
            1 => ColumnCategory::Field,
            2 => ColumnCategory::Attribute,
            3 => ColumnCategory::Time,
            _ => return Err(c.invalid(format!("column {cname}: unknown category {cat}"))),
        };
        columns.push(ColumnSchema {
            name: cname,
            dtype,
            encoding,
            compression,
            category,
        });
    }
    Ok(TableSchema { name, columns })
}
