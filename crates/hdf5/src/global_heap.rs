//! Global heap collections (GCOL): the payloads of variable-length cells.
//!
//! Header and object headers are padded to 8 bytes (16 bytes for every size of lengths
//! up to 8), and so is each object's data.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use arrowsmith_core::Result;

use crate::file::ctx::Ctx;
use crate::io::{invalid, le_uint};

pub struct Collection<'a> {
    /// The whole collection.
    pub bytes: &'a [u8],
    /// Absolute file offset of `bytes[0]`.
    pub at: u64,
    /// Collection address (the table cache key).
    addr: u64,
    /// Size of lengths.
    sl: usize,
    /// `(start in bytes, size)` by object index (size `u32::MAX` marks a missing index).
    /// Parsed on first lookup, i.e. right before the gather copies from this collection,
    /// while its bytes are still in cache: one pass over the heap memory instead of two.
    objs: OnceCell<Table>,
}

/// Per-file cache of parsed collection tables (object index → position, size), keyed by
/// collection address and bounded in bytes of table. The collection bytes themselves are
/// not copied: they stay in the host's buffer / `RangeCache` and are re-borrowed per read.
#[derive(Debug, Default)]
pub struct GcolCache {
    tables: RefCell<HashMap<u64, (u64, Table)>>,
    bytes: RefCell<usize>,
}

impl Clone for GcolCache {
    fn clone(&self) -> Self {
        GcolCache::default()
    }
}

/// Table bytes kept per file (8 bytes per heap object; 16 MiB ≈ 2M objects).
pub const GCOL_CACHE_BYTES: usize = 16 << 20;

impl GcolCache {
    fn get(&self, addr: u64) -> Option<(u64, Table)> {
        self.tables.borrow().get(&addr).cloned()
    }
    fn put(&self, addr: u64, size: u64, objs: Table) {
        let add = objs.len() * 8 + 32;
        let mut bytes = self.bytes.borrow_mut();
        let mut tables = self.tables.borrow_mut();
        if *bytes + add > GCOL_CACHE_BYTES {
            // Simple and bounded: start over rather than track recency.
            tables.clear();
            *bytes = 0;
        }
        if add <= GCOL_CACHE_BYTES && tables.insert(addr, (size, objs)).is_none() {
            *bytes += add;
        }
    }
    pub fn clear(&self) {
        self.tables.borrow_mut().clear();
        *self.bytes.borrow_mut() = 0;
    }
}

pub const MISSING: (u32, u32) = (0, u32::MAX);

/// Object index → (start, size) within a collection.
type Table = Rc<Vec<(u32, u32)>>;

impl<'a> Collection<'a> {
    /// A collection's bytes after checking its header; its table from `cache` when parsed
    /// before (by any read of this file), otherwise parsed on first lookup.
    pub fn load(ctx: &Ctx<'a>, addr: u64, cache: &GcolCache) -> Result<Collection<'a>> {
        Self::open(ctx, addr, cache, |size| {
            ctx.read(addr, size, "global heap collection")
        })
    }

    /// [`Collection::load`] for a gather that goes over the collection once, now: bytes a
    /// source fetches on demand are copied into `scratch` (see `ByteSource::read_once`).
    pub fn load_once<'c: 'a>(
        ctx: &Ctx<'c>,
        addr: u64,
        cache: &GcolCache,
        scratch: &'a mut Vec<u8>,
    ) -> Result<Collection<'a>> {
        Self::open(ctx, addr, cache, |size| {
            ctx.read_once(addr, size, "global heap collection", scratch)
        })
    }

    fn open(
        ctx: &Ctx<'_>,
        addr: u64,
        cache: &GcolCache,
        body: impl FnOnce(u64) -> Result<&'a [u8]>,
    ) -> Result<Collection<'a>> {
        let at = ctx.abs(addr)?;
        let sl = ctx.sb.sl as usize;
        if let Some((size, objs)) = cache.get(addr) {
            return Ok(Collection {
                bytes: body(size)?,
                at,
                addr,
                sl,
                objs: OnceCell::from(objs),
            });
        }
        let head = ctx.read(addr, 8 + sl as u64, "global heap collection header")?;
        if &head[..4] != b"GCOL" {
            return Err(invalid(
                at,
                "global heap collection: missing GCOL signature",
            ));
        }
        if head[4] != 1 {
            return Err(crate::io::unsupported(
                at,
                format!("global heap collection version {}", head[4]),
            ));
        }
        let size = le_uint(&head[8..8 + sl]);
        if size < 16 || size > u32::MAX as u64 {
            return Err(invalid(at, format!("global heap collection size {size}")));
        }
        Ok(Collection {
            bytes: body(size)?,
            at,
            addr,
            sl,
            objs: OnceCell::new(),
        })
    }

    /// The `object index → (start, size)` table (starts and sizes checked against
    /// [`Collection::bytes`] at parse; size `u32::MAX` marks a missing index). Parsed on
    /// first use and kept in `cache`.
    pub fn table(&self, cache: &GcolCache) -> Result<&[(u32, u32)]> {
        if let Some(t) = self.objs.get() {
            return Ok(t);
        }
        let t = self.parse_table()?;
        cache.put(self.addr, self.bytes.len() as u64, t.clone());
        Ok(self.objs.get_or_init(|| t))
    }

    /// Offset of the first object header.
    pub const FIRST: usize = 16;

    /// Walk the object headers forward from `p` to object `idx` (≠ 0): `(data start, size,
    /// next header)`, or `None` when the walk meets a higher index, the free space (index
    /// 0), a size past the collection or its end first. Writers append objects with rising
    /// indexes, so cells sorted by index find their objects in one pass over the heap.
    pub fn walk_to(&self, mut p: usize, idx: u32) -> Option<(usize, usize, usize)> {
        loop {
            let (k, start, size) = self.header(p)?;
            if k == 0 || k > idx {
                return None;
            }
            let o = self.extent(start, size)?;
            if k == idx {
                return Some(o);
            }
            p = o.2;
        }
    }

    /// The object whose header is at `p`, when it is object `idx` (≠ 0) and its data lies
    /// within the collection: `(data start, size, next header)`. Writers append objects in
    /// the order their cells are written, so a gather walking the collection alongside the
    /// cells finds each object here without the index table.
    #[cfg(test)]
    pub fn object_at(&self, p: usize, idx: u32) -> Option<(usize, usize, usize)> {
        self.object_at_sl::<0>(p, idx)
    }

    /// `Collection::object_at` for lengths of `SL` bytes (0: the file's). With `SL` 8
    /// the header is a fixed 16 bytes: fewer instructions in the gather's per-cell step.
    #[inline(always)]
    pub fn object_at_sl<const SL: usize>(
        &self,
        p: usize,
        idx: u32,
    ) -> Option<(usize, usize, usize)> {
        debug_assert!(SL == 0 || SL == self.sl);
        let (k, start, size) = self.header_sl::<SL>(p)?;
        if idx == 0 || k != idx {
            return None;
        }
        self.extent(start, size)
    }

    /// The object header at `p`, when it lies within the collection: `(index, data start,
    /// size)`, the size not yet checked.
    #[inline(always)]
    fn header(&self, p: usize) -> Option<(u32, usize, u64)> {
        self.header_sl::<0>(p)
    }

    /// [`Collection::header`] for lengths of `SL` bytes (0: the file's, read at run time).
    #[inline(always)]
    fn header_sl<const SL: usize>(&self, p: usize) -> Option<(u32, usize, u64)> {
        let sl = if SL == 0 { self.sl } else { SL };
        let ohdr = (8 + sl).div_ceil(8) * 8;
        let h = self.bytes.get(p..p.checked_add(ohdr)?)?;
        let k = u16::from_le_bytes([h[0], h[1]]) as u32;
        let size = if SL == 8 {
            u64::from_le_bytes(h[8..16].try_into().unwrap())
        } else {
            le_uint(&h[8..8 + sl])
        };
        Some((k, p + ohdr, size))
    }

    /// Whether lengths are 8 bytes (every writer's default): the gather's loop is then
    /// compiled for that header size, see [`Collection::object_at_sl`].
    pub fn lengths_of_8(&self) -> bool {
        self.sl == 8
    }

    /// `(data start, size, next header)` of an object whose data starting at `start` (a
    /// header's) fits in the collection; `None` when `size` runs past it.
    #[inline(always)]
    fn extent(&self, start: usize, size: u64) -> Option<(usize, usize, usize)> {
        if size > (self.bytes.len() - start) as u64 {
            return None;
        }
        let size = size as usize;
        Some((start, size, start + size.div_ceil(8) * 8))
    }

    fn parse_table(&self) -> Result<Table> {
        let (bytes, at) = (self.bytes, self.at);
        // Objects take at least 16 bytes of header + 8 of data with 8-byte lengths.
        let mut objs: Vec<(u32, u32)> = Vec::with_capacity(bytes.len() / 24 + 1);
        let mut p = Self::FIRST;
        while let Some((idx, start, osize)) = self.header(p) {
            if idx == 0 {
                break;
            }
            let Some((_, _, next)) = self.extent(start, osize) else {
                return Err(invalid(
                    at + p as u64,
                    format!("global heap object {idx}: size {osize} past its collection"),
                ));
            };
            // Indexes usually count up from 1: append, padding any gap with MISSING.
            let (idx, entry) = (idx as usize, (start as u32, osize as u32));
            if objs.len() == idx {
                objs.push(entry);
            } else if objs.len() < idx {
                objs.resize(idx, MISSING);
                objs.push(entry);
            } else {
                objs[idx] = entry;
            }
            p = next;
        }
        Ok(Rc::new(objs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A collection (8-byte lengths) holding `objs` as (index, payload), then free space.
    fn collection(objs: &[(u16, &[u8])]) -> Vec<u8> {
        let mut b = b"GCOL\x01\0\0\0".to_vec();
        b.extend(0u64.to_le_bytes()); // size, patched below
        for (idx, data) in objs {
            b.extend(idx.to_le_bytes());
            b.extend([0u8; 6]);
            b.extend((data.len() as u64).to_le_bytes());
            b.extend(*data);
            b.resize(b.len().div_ceil(8) * 8, 0);
        }
        b.extend([0u8; 16]); // free-space object (index 0)
        let n = b.len() as u64;
        b[8..16].copy_from_slice(&n.to_le_bytes());
        b
    }

    #[test]
    fn object_at_walks_consecutive_objects_and_agrees_with_the_table() {
        let bytes = collection(&[
            (1, b"hello"),
            (2, b""),
            (3, b"0123456789abcdef!"),
            (5, b"x"),
        ]);
        let c = Collection {
            bytes: &bytes,
            at: 1000,
            addr: 1000,
            sl: 8,
            objs: OnceCell::new(),
        };
        let table = c.table(&GcolCache::default()).unwrap().to_vec();
        let mut p = Collection::FIRST;
        for idx in [1u32, 2, 3, 5] {
            let (start, size, next) = c.object_at(p, idx).unwrap();
            assert_eq!(
                (start as u32, size as u32),
                table[idx as usize],
                "object {idx}"
            );
            p = next;
        }
        // The free-space object and anything but the expected index are not taken.
        assert_eq!(c.object_at(p, 0), None);
        assert_eq!(c.object_at(Collection::FIRST, 2), None);
        assert_eq!(c.object_at(bytes.len() - 4, 1), None);
        assert_eq!(table[4], MISSING);
    }

    #[test]
    fn object_at_refuses_a_size_past_the_collection() {
        let mut bytes = collection(&[(1, b"abc")]);
        bytes[24..32].copy_from_slice(&1000u64.to_le_bytes());
        let c = Collection {
            bytes: &bytes,
            at: 0,
            addr: 0,
            sl: 8,
            objs: OnceCell::new(),
        };
        assert_eq!(c.object_at(Collection::FIRST, 1), None);
        assert!(c.table(&GcolCache::default()).is_err());
    }
}
