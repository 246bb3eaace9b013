//! Opening a file: magic, version, TsFileMetadata, device index.

use crate::bytes::{err, Cursor};
use crate::meta::{self, DeviceId, IndexNode, NodeKind, SeriesMeta, TableSchema};
use crate::types::{Compression, Encoding, TsType};
use arrowsmith_core::{ByteSource, DecodeError, ErrorCode, Format, Result};

const MAGIC: &[u8] = b"TsFile";
const MAX_DEPTH: usize = 64;

/// One device of the file and where its measurement index lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceEntry {
    /// v4: the table-map key the device was found under (tree model: first segment).
    pub table: String,
    pub id: DeviceId,
    /// Byte range of the device's measurement-level root node.
    pub(crate) range: (u64, u64),
}

/// A device as reported to users.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The device's table (v4 table model; the tree model's first segment).
    pub table: String,
    /// Dotted path (`table.tag1.tag2` / `root.sg.d1`).
    pub path: String,
    /// Raw id segments (v4); one segment with the full path for v3.
    pub segments: Vec<Option<String>>,
    /// Tag values in TAG column order (table model; empty for tree-model devices).
    pub tags: Vec<Option<String>>,
}

/// One series of one device (tree view; also lists the field columns of table devices).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeseriesInfo {
    /// The device's dotted path.
    pub device: String,
    /// The measurement's name.
    pub measurement: String,
    /// Its data type.
    pub dtype: TsType,
    /// Whether the series is a value column of an aligned device.
    pub aligned: bool,
    /// From the first chunk header (the index does not record them).
    pub encoding: Option<Encoding>,
    /// From the first chunk header, as `encoding`.
    pub compression: Option<Compression>,
    /// Number of non-null values (statistics).
    pub count: u64,
    /// The first value's time (statistics).
    pub start: i64,
    /// The last value's time (statistics).
    pub end: i64,
    /// The number of chunks.
    pub chunks: usize,
}

/// An open TsFile: parsed metadata, owned. Every method is a pure function of the bytes it
/// reads from the source, so a `NeedBytes` error can be answered by loading that range and
/// calling again.
#[derive(Debug, Clone)]
pub struct TsFile {
    pub(crate) version: u8,
    pub(crate) size: u64,
    pub(crate) meta_offset: u64,
    pub(crate) schemas: Vec<TableSchema>,
    pub(crate) devices: Vec<DeviceEntry>,
    pub(crate) properties: Vec<(String, Option<String>)>,
}

impl TsFile {
    /// Open the file in `src`: check its magic and version, read its index root and table
    /// schemas (a `NeedBytes` error names the range still to load).
    pub fn open(src: &dyn ByteSource) -> Result<TsFile> {
        let size = src.size();
        if size < 7 + 10 {
            return Err(err(
                0,
                ErrorCode::Truncated,
                format!("file header: {size} bytes is too short for a TsFile"),
            ));
        }
        let head = src.read(Format::TsFile, 0, 7)?;
        if &head[..6] != MAGIC {
            return Err(err(
                0,
                ErrorCode::Invalid,
                "file header at byte 0: missing \"TsFile\" magic",
            ));
        }
        let version = head[6];
        if version != 3 && version != 4 {
            return Err(err(
                6,
                ErrorCode::Unsupported,
                format!(
                    "file header at byte 6: format version {version} (only 3 and 4 are supported)"
                ),
            ));
        }
        let tail = src.read(Format::TsFile, size - 10, 10)?;
        if &tail[4..] != MAGIC {
            return Err(err(
                size - 6,
                ErrorCode::Truncated,
                format!(
                    "file tail at byte {}: missing \"TsFile\" magic (incomplete file?)",
                    size - 6
                ),
            ));
        }
        let meta_size = i32::from_be_bytes(tail[..4].try_into().unwrap());
        if meta_size <= 0 || meta_size as u64 > size - 17 {
            return Err(err(
                size - 10,
                ErrorCode::OutOfBounds,
                format!(
                    "file tail at byte {}: metadata size {meta_size} exceeds the file",
                    size - 10
                ),
            ));
        }
        let meta_at = size - 10 - meta_size as u64;
        let bytes = src.read(Format::TsFile, meta_at, meta_size as usize)?;
        let first = Self::parse_meta(bytes, meta_at, version, size);
        let (roots, schemas, meta_offset, properties) = match first {
            Ok(x) => x,
            // A pre-release C++ wrote v4 metadata under version byte 3: retry.
            Err(e) if version == 3 => Self::parse_meta(bytes, meta_at, 4, size).map_err(|_| e)?,
            Err(e) => return Err(e),
        };
        if let Some((k, v)) = properties.iter().find(|(k, _)| k == "encryptLevel") {
            if v.as_deref().is_some_and(|v| v != "0") {
                return Err(err(
                    meta_at,
                    ErrorCode::Unsupported,
                    format!("file metadata: encrypted files ({k}={v:?}) are not supported"),
                ));
            }
        }
        let mut devices = Vec::new();
        for (table, root) in roots {
            walk_devices(src, &table, &root, version, size, 0, &mut devices)?;
        }
        Ok(TsFile {
            version,
            size,
            meta_offset,
            schemas,
            devices,
            properties,
        })
    }

    #[allow(clippy::type_complexity)]
    fn parse_meta(
        bytes: &[u8],
        at: u64,
        version: u8,
        size: u64,
    ) -> Result<(
        Vec<(String, IndexNode)>,
        Vec<TableSchema>,
        u64,
        Vec<(String, Option<String>)>,
    )> {
        let mut c = Cursor::new(bytes, at, "file metadata");
        let mut roots = Vec::new();
        let mut schemas = Vec::new();
        let mut props = Vec::new();
        if version == 3 {
            let root = meta::parse_node(&mut c, version, true, size)?;
            roots.push((String::new(), root));
        } else {
            let n = c.uvarint("table count")? as usize;
            if n > bytes.len() {
                return Err(c.invalid(format!("{n} tables")));
            }
            for _ in 0..n {
                let name = c.var_string("table name")?.unwrap_or_default();
                let root = meta::parse_node(&mut c, version, true, size)?;
                roots.push((name, root));
            }
            let n = c.uvarint("table schema count")? as usize;
            if n > bytes.len() {
                return Err(c.invalid(format!("{n} table schemas")));
            }
            for _ in 0..n {
                let name = c.var_string("table name")?.unwrap_or_default();
                schemas.push(meta::parse_table_schema(&mut c, name)?);
            }
        }
        let meta_offset = c.i64("meta offset")?;
        if meta_offset < 7 || meta_offset as u64 >= size {
            return Err(c.invalid(format!("meta offset {meta_offset} is outside the file")));
        }
        // Bloom filter and properties: optional, tolerate anything odd.
        if !c.at_end() {
            let _ = (|| -> Result<()> {
                let len = c.uvarint("bloom filter size")? as usize;
                if len > 0 {
                    c.take(len, "bloom filter")?;
                    c.uvarint("bloom filter bits")?;
                    c.uvarint("bloom filter hashes")?;
                }
                if version == 4 && !c.at_end() {
                    let n = c.svarint("property count")?;
                    for _ in 0..n.max(0) {
                        let k = c.var_string("property key")?.unwrap_or_default();
                        let v = c.var_string("property value")?;
                        props.push((k, v));
                    }
                }
                Ok(())
            })();
        }
        Ok((roots, schemas, meta_offset as u64, props))
    }

    /// Format version byte: 3 (TsFile 1.x) or 4 (2.x).
    pub fn version(&self) -> u8 {
        self.version
    }

    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Byte range holding every index node and TimeseriesMetadata (prefetch it before
    /// `plan`/`devices`/`timeseries` on a remote file).
    pub fn index_range(&self) -> (u64, u64) {
        (self.meta_offset, self.size)
    }

    /// v4 table schemas (empty for tree-model and v3 files).
    pub fn tables(&self) -> Vec<TableSchema> {
        self.schemas.clone()
    }

    /// The file's properties (v4: key → value, as the writer set them).
    pub fn properties(&self) -> &[(String, Option<String>)] {
        &self.properties
    }

    /// The schema of `table` (matched case-insensitively, as the server does).
    pub fn schema(&self, table: &str) -> Option<&TableSchema> {
        self.schemas
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(table))
    }

    /// Devices, optionally only those of `table`. Needs no bytes beyond `open`'s.
    pub fn devices(&self, table: Option<&str>) -> Vec<DeviceInfo> {
        self.devices
            .iter()
            .filter(|d| table.is_none_or(|t| d.id.table().eq_ignore_ascii_case(t)))
            .map(|d| self.device_info(d))
            .collect()
    }

    pub(crate) fn device_info(&self, d: &DeviceEntry) -> DeviceInfo {
        let tags = match self.schema(d.id.table()) {
            Some(s) => (0..s.tags().count())
                .map(|k| d.id.segments.get(k + 1).cloned().flatten())
                .collect(),
            None => vec![],
        };
        DeviceInfo {
            table: d.table.clone(),
            path: d.id.path(),
            segments: d.id.segments.clone(),
            tags,
        }
    }

    /// Every series of every device (tree view), with encoding/compression from each
    /// series' first chunk header.
    pub fn timeseries(&self, src: &dyn ByteSource) -> Result<Vec<TimeseriesInfo>> {
        let mut out = Vec::new();
        for d in &self.devices {
            let series = self.device_series(src, d)?;
            let aligned = series.iter().any(|s| s.dtype == TsType::Vector);
            for s in series {
                if s.dtype == TsType::Vector {
                    continue;
                }
                let (encoding, compression) = match s.chunks.first() {
                    Some(c) => {
                        let h = crate::chunk::read_chunk_header(src, c.offset, self.meta_offset)?;
                        (
                            Encoding::from_id(h.encoding),
                            Compression::from_id(h.compression),
                        )
                    }
                    None => (None, None),
                };
                out.push(TimeseriesInfo {
                    device: d.id.path(),
                    measurement: s.name,
                    dtype: s.dtype,
                    aligned,
                    encoding,
                    compression,
                    count: s.stats.count,
                    start: s.stats.start,
                    end: s.stats.end,
                    chunks: s.chunks.len(),
                });
            }
        }
        Ok(out)
    }

    /// One device's time span (earliest start, latest end, most rows of any series),
    /// from its index entries alone: what a reader needs to cut the device's rows into
    /// parallel time slices without listing every series of the file.
    pub fn device_span(&self, src: &dyn ByteSource, path: &str) -> Result<Option<(i64, i64, u64)>> {
        let Some(d) = self.devices.iter().find(|d| d.id.path() == path) else {
            return Ok(None);
        };
        let series = self.device_series(src, d)?;
        // Time slices of a device read what a whole read does when every chunk's statistics
        // claim a range (chunks out of time order are fine: reads sort them, see
        // docs/tsfile.md "Out-of-order chunk groups"); otherwise there is no span to cut and
        // the device is read whole.
        let ordered = series.iter().all(|s| {
            s.chunks
                .iter()
                .filter(|c| c.stats.count > 0)
                .all(|c| c.stats.start <= c.stats.end)
        });
        if !ordered {
            return Ok(None);
        }
        Ok(series
            .iter()
            .filter(|s| s.stats.count > 0)
            .fold(None, |acc, s| {
                let (a, b, n) = acc.unwrap_or((i64::MAX, i64::MIN, 0));
                Some((
                    a.min(s.stats.start),
                    b.max(s.stats.end),
                    n.max(s.stats.count),
                ))
            }))
    }

    /// All TimeseriesMetadata of one device, sorted by name as in the file.
    pub(crate) fn device_series(
        &self,
        src: &dyn ByteSource,
        d: &DeviceEntry,
    ) -> Result<Vec<SeriesMeta>> {
        let mut out = Vec::new();
        let (s, e) = d.range;
        let bytes = read_range(src, s, e, "device measurement index")?;
        let mut c = Cursor::new(bytes, s, "measurement index node");
        let node = meta::parse_node(&mut c, self.version, false, self.size)?;
        self.walk_measurements(src, &node, 0, &mut out)?;
        Ok(out)
    }

    fn walk_measurements(
        &self,
        src: &dyn ByteSource,
        node: &IndexNode,
        depth: usize,
        out: &mut Vec<SeriesMeta>,
    ) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(err(
                node.end,
                ErrorCode::TooDeep,
                "measurement index deeper than 64 levels",
            ));
        }
        for i in 0..node.offsets.len() {
            let (s, e) = node.child(i);
            let bytes = read_range(src, s, e, "measurement index entry")?;
            match node.kind {
                NodeKind::LeafMeasurement => {
                    let mut c = Cursor::new(bytes, s, "timeseries metadata");
                    while !c.at_end() {
                        out.push(meta::parse_series(&mut c, self.size)?);
                    }
                }
                _ => {
                    let mut c = Cursor::new(bytes, s, "measurement index node");
                    let child = meta::parse_node(&mut c, self.version, false, self.size)?;
                    self.walk_measurements(src, &child, depth + 1, out)?;
                }
            }
        }
        Ok(())
    }
}

pub(crate) fn read_range<'a>(
    src: &'a dyn ByteSource,
    s: u64,
    e: u64,
    what: &str,
) -> Result<&'a [u8]> {
    if e < s || e > src.size() {
        return Err(err(
            s,
            ErrorCode::OutOfBounds,
            format!(
                "{what} at byte {s}: range {s}..{e} is outside the {}-byte file",
                src.size()
            ),
        ));
    }
    let len = usize::try_from(e - s).map_err(|_| {
        err(
            s,
            ErrorCode::OutOfBounds,
            format!("{what} at byte {s}: range too large"),
        )
    })?;
    src.read(Format::TsFile, s, len)
}

fn walk_devices(
    src: &dyn ByteSource,
    table: &str,
    node: &IndexNode,
    version: u8,
    size: u64,
    depth: usize,
    out: &mut Vec<DeviceEntry>,
) -> Result<(), DecodeError> {
    if depth > MAX_DEPTH {
        return Err(err(
            node.end,
            ErrorCode::TooDeep,
            "device index deeper than 64 levels",
        ));
    }
    for i in 0..node.offsets.len() {
        let (s, e) = node.child(i);
        match node.kind {
            NodeKind::LeafDevice => out.push(DeviceEntry {
                table: table.to_string(),
                id: node.devices[i].clone().normalized(),
                range: (s, e),
            }),
            _ => {
                let bytes = read_range(src, s, e, "device index node")?;
                let mut c = Cursor::new(bytes, s, "device index node");
                let child = meta::parse_node(&mut c, version, true, size)?;
                walk_devices(src, table, &child, version, size, depth + 1, out)?;
            }
        }
    }
    Ok(())
}
