//! Chunk headers and page headers.

use crate::bytes::{err, uvarint, Cursor};
use crate::meta::{parse_stats, Stats};
use crate::types::TsType;
use arrowsmith_core::{ByteSource, ErrorCode, Format, Result};

/// A chunk's header: what its pages hold and where they start.
#[derive(Debug, Clone)]
pub struct ChunkHeader {
    /// File offset of the header's marker byte.
    pub offset: u64,
    /// The marker byte: 1 (several pages) or 5 (one page, no page statistics), with 0x40
    /// (an aligned time chunk) or 0x80 (an aligned value chunk) set.
    pub marker: u8,
    /// The measurement's name.
    pub name: String,
    /// The bytes of the pages after the header.
    pub data_size: u64,
    /// The `TSDataType` id.
    pub dtype: u8,
    /// The `CompressionType` id.
    pub compression: u8,
    /// The `TSEncoding` id.
    pub encoding: u8,
    /// File offset of the first page header.
    pub data_start: u64,
}

impl ChunkHeader {
    /// Whether the chunk is one page whose header has no statistics of its own.
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
    /// File offset of the page body.
    pub body: u64,
}

impl PageHeader {
    pub fn is_empty(&self) -> bool {
        self.uncompressed == 0
    }

    /// The compressed page body, decompressed right away: a source that fetches on demand
    /// copies it into `scratch` (reused page after page) instead of keeping it for the read.
    pub fn read_body<'s>(
        &self,
        src: &'s dyn ByteSource,
        scratch: &'s mut Vec<u8>,
    ) -> Result<&'s [u8]> {
        src.read_once(Format::TsFile, self.body, self.compressed, scratch)
    }
}

/// Bytes read for a page header at first: enough for every fixed-size statistics block
/// (string statistics may need a second, larger read).
const HEADER_WINDOW: u64 = 128;

/// Walks a chunk's pages header by header, leaving bodies unread: a query that needs a
/// few pages of a chunk reads (and a host copies) only those pages' bodies.
pub(crate) struct PageWalker {
    /// File offset of the next page header.
    pos: u64,
    /// End of the chunk's data.
    end: u64,
    with_stats: bool,
    stats_type: TsType,
    what: &'static str,
}

impl PageWalker {
    pub fn new(h: &ChunkHeader, stats_type: TsType, what: &'static str) -> Self {
        PageWalker {
            pos: h.data_start,
            end: h.data_start + h.data_size,
            with_stats: !h.single_page(),
            stats_type,
            what,
        }
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.end
    }

    /// Parse the next page header and step over its body.
    pub fn next(&mut self, src: &dyn ByteSource) -> Result<PageHeader> {
        let left = self.end - self.pos;
        let mut window = left.min(HEADER_WINDOW);
        loop {
            let bytes = src.read(Format::TsFile, self.pos, window as usize)?;
            let mut c = Cursor::new(bytes, self.pos, self.what);
            match parse_page_header(&mut c, self.with_stats, self.stats_type) {
                Err(e) if e.code == ErrorCode::Truncated && window < left => {
                    window = left.min(window * 16);
                }
                Err(e) => return Err(e),
                Ok((uncompressed, compressed, stats)) => {
                    let (offset, body) = (self.pos, c.offset());
                    let after = self.end - body;
                    if compressed as u64 > after {
                        return Err(err(offset, ErrorCode::OutOfBounds, format!("page header at byte {offset}: compressed size {compressed} exceeds the {after} bytes left in its chunk")));
                    }
                    // No codec TsFile uses expands more than ~1000× (zstd/xz/gzip max out near that).
                    if uncompressed > compressed.saturating_mul(1100).saturating_add(1 << 16) {
                        return Err(err(offset, ErrorCode::Invalid, format!("page header at byte {offset}: uncompressed size {uncompressed} is implausible for {compressed} compressed bytes")));
                    }
                    self.pos = body + compressed as u64;
                    return Ok(PageHeader {
                        offset,
                        uncompressed,
                        compressed,
                        stats,
                        body,
                    });
                }
            }
        }
    }
}

/// Sizes and statistics of a page header (an empty page is a single 0).
fn parse_page_header(
    c: &mut Cursor,
    with_stats: bool,
    stats_type: TsType,
) -> Result<(usize, usize, Option<Stats>)> {
    let uncompressed = c.uvarint("page uncompressed size")? as usize;
    if uncompressed == 0 {
        return Ok((0, 0, None));
    }
    let compressed = c.uvarint("page compressed size")? as usize;
    let stats = if with_stats {
        Some(parse_stats(c, stats_type)?)
    } else {
        None
    };
    Ok((uncompressed, compressed, stats))
}
