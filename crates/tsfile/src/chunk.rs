//! Chunk headers and page headers.

use crate::bytes::{err, uvarint, Cursor};
use crate::meta::{parse_stats, Stats};
use crate::types::TsType;
use arrowsmith_core::{ByteSource, ErrorCode, Format, Result};

#[derive(Debug, Clone)]
pub struct ChunkHeader {
    pub offset: u64,
    pub marker: u8,
    pub name: String,
    pub data_size: u64,
    pub dtype: u8,
    pub compression: u8,
    pub encoding: u8,
    /// File offset of the first page header.
    pub data_start: u64,
}

impl ChunkHeader {
    pub fn single_page(&self) -> bool {
        self.marker & 0x3f == 5
    }
}

/// Read the chunk header at `off` with small exact reads (so a host that loaded only the
/// planned chunk ranges never sees a spurious `NeedBytes`). `limit` bounds the chunk
/// (the index area starts there).
pub(crate) fn read_chunk_header(src: &dyn ByteSource, off: u64, limit: u64) -> Result<ChunkHeader> {
    let what = |m: String| {
        err(
            off,
            ErrorCode::Invalid,
            format!("chunk header at byte {off}: {m}"),
        )
    };
    if off < limit && src.get(off, 1).is_none() {
        // Nothing of this chunk is loaded (the host did not prefetch the plan): ask for a
        // generous first piece instead of one round trip per header field.
        let len = (limit - off).min(4096) as usize;
        src.read(Format::TsFile, off, len)?;
    }
    let marker = src.read(Format::TsFile, off, 1)?[0];
    if !matches!(marker & 0x3f, 1 | 5) {
        return Err(what(format!("marker 0x{marker:02x} is not a chunk header")));
    }
    let mut pos = off + 1;
    let name_len = read_uvarint(src, &mut pos)?;
    let name_len = crate::bytes::unzigzag32(name_len);
    if name_len < 0 || (name_len as u64) > limit.saturating_sub(pos) {
        return Err(what(format!("measurement name length {name_len}")));
    }
    let name =
        String::from_utf8_lossy(src.read(Format::TsFile, pos, name_len as usize)?).into_owned();
    pos += name_len as u64;
    let data_size = read_uvarint(src, &mut pos)? as u64;
    let tail = src.read(Format::TsFile, pos, 3)?;
    let (dtype, compression, encoding) = (tail[0], tail[1], tail[2]);
    pos += 3;
    if pos + data_size > limit {
        return Err(err(
            off,
            ErrorCode::OutOfBounds,
            format!("chunk header at byte {off}: data size {data_size} runs past byte {limit}"),
        ));
    }
    Ok(ChunkHeader {
        offset: off,
        marker,
        name,
        data_size,
        dtype,
        compression,
        encoding,
        data_start: pos,
    })
}

fn read_uvarint(src: &dyn ByteSource, pos: &mut u64) -> Result<u32> {
    let mut buf = [0u8; 5];
    let start = *pos;
    for i in 0..5 {
        buf[i] = src.read(Format::TsFile, start + i as u64, 1)?[0];
        if buf[i] & 0x80 == 0 {
            let mut p = 0;
            let v = uvarint(&buf[..=i], &mut p).unwrap();
            *pos = start + i as u64 + 1;
            return Ok(v);
        }
    }
    Err(err(
        start,
        ErrorCode::Invalid,
        format!("varint at byte {start} is longer than 5 bytes"),
    ))
}

#[derive(Debug, Clone)]
pub(crate) struct PageHeader {
    /// File offset of the page header.
    pub offset: u64,
    pub uncompressed: usize,
    pub compressed: usize,
    pub stats: Option<Stats>,
    /// Position of the page body inside the chunk data.
    pub body: usize,
}

impl PageHeader {
    pub fn is_empty(&self) -> bool {
        self.uncompressed == 0
    }
}

/// Parse the next page header from `c` (positioned in a chunk's data) and skip its body.
pub(crate) fn next_page(
    c: &mut Cursor,
    with_stats: bool,
    stats_type: TsType,
) -> Result<PageHeader> {
    let offset = c.offset();
    let uncompressed = c.uvarint("page uncompressed size")? as usize;
    if uncompressed == 0 {
        return Ok(PageHeader {
            offset,
            uncompressed: 0,
            compressed: 0,
            stats: None,
            body: c.pos,
        });
    }
    let compressed = c.uvarint("page compressed size")? as usize;
    let stats = if with_stats {
        Some(parse_stats(c, stats_type)?)
    } else {
        None
    };
    if compressed > c.remaining() {
        return Err(err(offset, ErrorCode::OutOfBounds, format!("page header at byte {offset}: compressed size {compressed} exceeds the {} bytes left in its chunk", c.remaining())));
    }
    // No codec TsFile uses expands more than ~1000× (zstd/xz/gzip max out near that).
    if uncompressed > compressed.saturating_mul(1100).saturating_add(1 << 16) {
        return Err(err(offset, ErrorCode::Invalid, format!("page header at byte {offset}: uncompressed size {uncompressed} is implausible for {compressed} compressed bytes")));
    }
    let body = c.pos;
    c.pos += compressed;
    Ok(PageHeader {
        offset,
        uncompressed,
        compressed,
        stats,
        body,
    })
}
