//! Global heap collections (GCOL): the payloads of variable-length cells.
//!
//! Header and object headers are padded to 8 bytes (16 bytes for every size of lengths
//! up to 8), and so is each object's data.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use arrowsmith_core::Result;

use crate::io::{invalid, le_uint};
use crate::Ctx;

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
        let at = ctx.abs(addr)?;
        let sl = ctx.sb.sl as usize;
        if let Some((size, objs)) = cache.get(addr) {
            let bytes = ctx.read(addr, size, "global heap collection")?;
            return Ok(Collection {
                bytes,
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
            return Err(invalid(
                at,
                format!("global heap collection version {}", head[4]),
            ));
        }
        let size = le_uint(&head[8..8 + sl]);
        if size < 16 || size > u32::MAX as u64 {
            return Err(invalid(at, format!("global heap collection size {size}")));
        }
        let bytes = ctx.read(addr, size, "global heap collection")?;
        Ok(Collection {
            bytes,
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

    fn parse_table(&self) -> Result<Table> {
        let (bytes, at, sl) = (self.bytes, self.at, self.sl);
        // Objects take at least 16 bytes of header + 8 of data with 8-byte lengths.
        let mut objs: Vec<(u32, u32)> = Vec::with_capacity(bytes.len() / 24 + 1);
        let mut p = 16usize;
        let ohdr = (8 + sl).div_ceil(8) * 8;
        while p + ohdr <= bytes.len() {
            let h = &bytes[p..p + ohdr];
            let idx = u16::from_le_bytes([h[0], h[1]]) as usize;
            let osize = le_uint(&h[8..8 + sl]);
            if idx == 0 {
                break;
            }
            let start = p + ohdr;
            if osize > (bytes.len() - start) as u64 {
                return Err(invalid(
                    at + p as u64,
                    format!("global heap object {idx}: size {osize} past its collection"),
                ));
            }
            // Indexes usually count up from 1: append, padding any gap with MISSING.
            if objs.len() <= idx {
                objs.resize(idx, MISSING);
                objs.push((start as u32, osize as u32));
            } else {
                objs[idx] = (start as u32, osize as u32);
            }
            p = start + (osize as usize).div_ceil(8) * 8;
        }
        Ok(Rc::new(objs))
    }
}
