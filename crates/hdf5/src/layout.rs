//! Data layout message v1–v5, filter pipeline message v1/v2, fill value messages.

use arrowsmith_core::Result;

use crate::io::{unsupported, Cur, UNDEF};

#[derive(Debug, Clone, PartialEq)]
pub enum ChunkIndexKind {
    /// Layout v1–v3: version-1 B-tree.
    BTreeV1,
    /// `Some((filtered size, filter mask))` when the single chunk is filtered.
    Single(Option<(u64, u32)>),
    Implicit,
    FixedArray {
        page_bits: u8,
    },
    ExtensibleArray {
        max_bits: u8,
        idx_elmts: u8,
        min_ptrs: u8,
        min_elmts: u8,
        page_bits: u8,
    },
    BTreeV2,
}

impl ChunkIndexKind {
    pub fn name(&self) -> &'static str {
        match self {
            ChunkIndexKind::BTreeV1 => "btree-v1",
            ChunkIndexKind::Single(_) => "single-chunk",
            ChunkIndexKind::Implicit => "implicit",
            ChunkIndexKind::FixedArray { .. } => "fixed-array",
            ChunkIndexKind::ExtensibleArray { .. } => "extensible-array",
            ChunkIndexKind::BTreeV2 => "btree-v2",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Layout {
    Compact {
        data: Vec<u8>,
        offset: u64,
    },
    Contiguous {
        addr: u64,
        size: u64,
    },
    Chunked {
        version: u8,
        dims: Vec<u64>,
        index: ChunkIndexKind,
        addr: u64,
        /// Layout v4+ flag 1 (`H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS`): chunks that cross
        /// the dataset's edge are stored unfiltered.
        partial_unfiltered: bool,
    },
    /// Mappings in global heap object `index` of the collection at `heap` (virtual_ds).
    Virtual {
        heap: u64,
        index: u32,
    },
}

impl Layout {
    pub fn name(&self) -> &'static str {
        match self {
            Layout::Compact { .. } => "compact",
            Layout::Contiguous { .. } => "contiguous",
            Layout::Chunked { .. } => "chunked",
            Layout::Virtual { .. } => "virtual",
        }
    }

    pub fn parse(c: &mut Cur) -> Result<Layout> {
        let at = c.off();
        let version = c.u8()?;
        match version {
            1 | 2 => {
                let nd = c.u8()? as usize;
                let class = c.u8()?;
                c.skip(5)?;
                let addr = if class != 0 { c.addr()? } else { UNDEF };
                let dims: Vec<u64> = (0..nd)
                    .map(|_| c.u32().map(|v| v as u64))
                    .collect::<Result<_>>()?;
                match class {
                    0 => {
                        let n = c.u32()? as usize;
                        let off = c.off();
                        Ok(Layout::Compact {
                            data: c.bytes(n)?.to_vec(),
                            offset: off,
                        })
                    }
                    1 => Ok(Layout::Contiguous {
                        addr,
                        size: u64::MAX,
                    }),
                    2 => {
                        c.u32()?;
                        let dims = dims[..nd.saturating_sub(1)].to_vec();
                        Ok(Layout::Chunked {
                            version,
                            dims,
                            index: ChunkIndexKind::BTreeV1,
                            addr,
                            partial_unfiltered: false,
                        })
                    }
                    k => Err(unsupported(at, format!("layout class {k}"))),
                }
            }
            3..=5 => {
                let class = c.u8()?;
                match class {
                    0 => {
                        let n = c.u16()? as usize;
                        let off = c.off();
                        Ok(Layout::Compact {
                            data: c.bytes(n)?.to_vec(),
                            offset: off,
                        })
                    }
                    1 => {
                        let addr = c.addr()?;
                        let size = c.len()?;
                        Ok(Layout::Contiguous { addr, size })
                    }
                    2 if version == 3 => {
                        let nd = c.u8()? as usize;
                        let addr = c.addr()?;
                        let dims: Vec<u64> = (0..nd)
                            .map(|_| c.u32().map(|v| v as u64))
                            .collect::<Result<_>>()?;
                        let dims = dims[..nd.saturating_sub(1)].to_vec();
                        Ok(Layout::Chunked {
                            version,
                            dims,
                            index: ChunkIndexKind::BTreeV1,
                            addr,
                            partial_unfiltered: false,
                        })
                    }
                    2 => {
                        let flags = c.u8()?;
                        let nd = c.u8()? as usize;
                        let w = c.u8()? as usize;
                        let dims: Vec<u64> = (0..nd).map(|_| c.uvar(w)).collect::<Result<_>>()?;
                        let dims = dims[..nd.saturating_sub(1)].to_vec();
                        let ty = c.u8()?;
                        let index = match ty {
                            1 => {
                                if flags & 2 != 0 {
                                    let s = c.len()?;
                                    let m = c.u32()?;
                                    ChunkIndexKind::Single(Some((s, m)))
                                } else {
                                    ChunkIndexKind::Single(None)
                                }
                            }
                            2 => ChunkIndexKind::Implicit,
                            3 => ChunkIndexKind::FixedArray { page_bits: c.u8()? },
                            4 => ChunkIndexKind::ExtensibleArray {
                                max_bits: c.u8()?,
                                idx_elmts: c.u8()?,
                                min_ptrs: c.u8()?,
                                min_elmts: c.u8()?,
                                page_bits: c.u8()?,
                            },
                            5 => {
                                c.skip(6)?;
                                ChunkIndexKind::BTreeV2
                            }
                            t => return Err(unsupported(at, format!("chunk index type {t}"))),
                        };
                        let addr = c.addr()?;
                        Ok(Layout::Chunked {
                            version,
                            dims,
                            index,
                            addr,
                            partial_unfiltered: flags & 1 != 0,
                        })
                    }
                    3 if version >= 4 => Ok(Layout::Virtual {
                        heap: c.addr()?,
                        index: c.u32()?,
                    }),
                    k => Err(unsupported(at, format!("layout class {k}"))),
                }
            }
            v => Err(unsupported(at, format!("layout message version {v}"))),
        }
    }
}

/// One filter of a dataset's pipeline, as its filter pipeline message declares it.
#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    /// The filter's id (`filters::DEFLATE`, …).
    pub id: u16,
    /// The name the file gives it (may be empty).
    pub name: String,
    /// Its flags (bit 0: optional).
    pub flags: u16,
    /// Its client data values (the filter's parameters).
    pub cd: Vec<u32>,
}

pub fn parse_filters(c: &mut Cur) -> Result<Vec<Filter>> {
    let at = c.off();
    let version = c.u8()?;
    let n = c.u8()? as usize;
    if version == 1 {
        c.skip(6)?;
    } else if version != 2 {
        return Err(unsupported(
            at,
            format!("filter pipeline version {version}"),
        ));
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let id = c.u16()?;
        let name_len = if version == 1 || id >= 256 {
            c.u16()? as usize
        } else {
            0
        };
        let flags = c.u16()?;
        let ncd = c.u16()? as usize;
        let name = if name_len > 0 {
            let start = c.pos;
            let b = c.bytes(name_len)?;
            if version == 1 {
                c.align_from(start, 8)?;
            }
            String::from_utf8_lossy(b.split(|&x| x == 0).next().unwrap_or(&[])).into_owned()
        } else {
            String::new()
        };
        let cd: Vec<u32> = (0..ncd).map(|_| c.u32()).collect::<Result<_>>()?;
        if version == 1 && ncd % 2 == 1 {
            c.skip(4.min(c.remaining()))?;
        }
        out.push(Filter {
            id,
            name,
            flags,
            cd,
        });
    }
    Ok(out)
}

/// The fill value bytes, when the file defines one (`None` → zeros).
pub fn parse_fill(c: &mut Cur, old: bool) -> Result<Option<Vec<u8>>> {
    if old {
        let n = c.u32()? as usize;
        return Ok(if n == 0 {
            None
        } else {
            Some(c.bytes(n)?.to_vec())
        });
    }
    let at = c.off();
    let version = c.u8()?;
    match version {
        1 | 2 => {
            c.u8()?;
            c.u8()?;
            let defined = c.u8()?;
            if version == 2 && defined == 0 {
                return Ok(None);
            }
            if c.remaining() < 4 {
                return Ok(None);
            }
            let n = c.u32()? as usize;
            Ok(if n == 0 || defined == 0 {
                None
            } else {
                Some(c.bytes(n)?.to_vec())
            })
        }
        3 => {
            let flags = c.u8()?;
            if flags & 0x20 != 0 {
                let n = c.u32()? as usize;
                Ok(if n == 0 {
                    None
                } else {
                    Some(c.bytes(n)?.to_vec())
                })
            } else {
                Ok(None)
            }
        }
        v => Err(unsupported(at, format!("fill value message version {v}"))),
    }
}
