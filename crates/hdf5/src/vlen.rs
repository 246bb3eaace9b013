//! The batched variable-length path.
//!
//! For N cells: read every cell header from the already-decoded raw bytes (in place),
//! build Arrow offsets by prefix sum (sizing the values buffer exactly, one allocation),
//! collect the distinct global heap collections, parse each once (cached per read, and
//! requested from the host as coalesced ranges when not loaded), then copy every payload
//! straight into the values buffer. Strings are UTF-8 validated once per column; sequences
//! of primitives are byte-swapped in bulk when big-endian; other bases (compound, nested VL,
//! strings) are decoded once over the gathered payloads.

use std::collections::HashMap;

use arrowsmith_core::{
    Bitmap, Buffer, Column, DataType, DecodeError, ErrorCode, Field, Format, Result,
};

use crate::datatype::Datatype;
use crate::decode::{decode, utf8_or_binary};
use crate::global_heap::{Collection, GcolCache};
use crate::io::{err, invalid, le_uint};
use crate::vl_cells::{Cell, Cells};
use crate::Ctx;

/// A run of cells in one collection: its address, the collection, and where the next
/// object header is expected (cells usually point to consecutive objects).
type Run<'r, 'a> = (u64, &'r Collection<'a>, usize);

/// Upper bound on gathered payload bytes per column (Arrow i32 offsets).
const MAX_VALUES: u64 = i32::MAX as u64;

pub struct VlReader<'a, 'c> {
    pub ctx: &'c Ctx<'a>,
    cache: HashMap<u64, Collection<'a>>,
    tables: &'c GcolCache,
    /// Bytes still allowed to be gathered by this read (all VL columns together).
    budget: u64,
}

impl<'a, 'c> VlReader<'a, 'c> {
    pub fn new(ctx: &'c Ctx<'a>, tables: &'c GcolCache, max_bytes: u64) -> Self {
        VlReader {
            ctx,
            cache: HashMap::new(),
            tables,
            budget: max_bytes,
        }
    }

    /// Parse every distinct collection in `addrs` (each once). When bytes are missing, ask
    /// for one range covering the neighbouring missing collections too.
    fn load(&mut self, mut addrs: Vec<u64>) -> Result<()> {
        addrs.sort_unstable();
        addrs.dedup();
        for (k, &a) in addrs.iter().enumerate() {
            if self.cache.contains_key(&a) {
                continue;
            }
            match Collection::load(self.ctx, a, self.tables) {
                Ok(c) => {
                    self.cache.insert(a, c);
                }
                Err(e) if e.is_need_bytes() => {
                    let size = self.ctx.src.size();
                    let mut end = e.offset + e.need_len.max(4096);
                    for &b in &addrs[k + 1..] {
                        let ab = self.ctx.abs(b)?;
                        if ab > end + (1 << 20) || ab >= size {
                            break;
                        }
                        match self.ctx.src.get(ab, 16) {
                            // Header unknown: guess a 64 KiB collection.
                            None => end = end.max(ab + 65536),
                            // Header loaded: request the body if it is missing.
                            Some(h) => {
                                let sl = self.ctx.sb.sl as usize;
                                let csize = le_uint(&h[8..8 + sl]).min(u32::MAX as u64);
                                if self.ctx.src.get(ab, csize as usize).is_none() {
                                    end = end.max(ab.saturating_add(csize));
                                }
                            }
                        }
                    }
                    let end = end.min(size);
                    return Err(DecodeError::need_bytes(
                        Format::Hdf5,
                        e.offset,
                        end.saturating_sub(e.offset).max(e.need_len),
                    ));
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// First, light pass over the headers: check the payload total against the read
    /// budget and load every collection the cells point to. A read that stops here for
    /// missing heap bytes (and is repeated once the host supplied them) wasted little.
    fn check_and_load(&mut self, cells: &Cells, base: usize) -> Result<()> {
        let mut total: u64 = 0;
        // Cells point to few collections in long runs.
        let mut addrs: Vec<u64> = Vec::new();
        let mut prev = 0;
        let _ = cells.try_for_each(|_, c| -> std::result::Result<(), ()> {
            if !c.is_null() {
                total += c.len as u64;
                if c.addr != prev {
                    addrs.push(c.addr);
                    prev = c.addr;
                }
            }
            Ok(())
        });
        // n < 2^60 and lengths < 2^32, so `total` itself cannot overflow.
        let limit = MAX_VALUES.min(self.budget);
        if total.saturating_mul(base.max(1) as u64) > limit || total > MAX_VALUES {
            return Err(err(
                0,
                ErrorCode::Unsupported,
                format!("variable-length payloads exceed the read limit ({limit} bytes left)"),
            ));
        }
        self.load(addrs)?;
        self.budget -= total * base as u64;
        Ok(())
    }

    /// Element offsets (i32, n+1) and validity (null reference → null); the total was
    /// bounded by [`VlReader::check_and_load`].
    fn offsets(&self, cells: &Cells) -> (Vec<i32>, Bitmap) {
        let n = cells.n;
        let mut total: u64 = 0;
        let mut valid = vec![0u8; n.div_ceil(8)];
        let mut offsets: Vec<i32> = Vec::with_capacity(n + 1);
        offsets.push(0);
        let _ = cells.try_for_each(|i, c| -> std::result::Result<(), ()> {
            if !c.is_null() {
                valid[i / 8] |= 1 << (i % 8);
                total += c.len as u64;
            }
            offsets.push(total as i32);
            Ok(())
        });
        (offsets, Bitmap::from_bytes(valid, n))
    }

    /// A loaded collection: once per run of cells.
    #[inline(never)]
    fn collection(&self, addr: u64) -> &Collection<'a> {
        self.cache.get(&addr).expect("loaded")
    }

    /// Object `idx` of `coll` through its index table (parsed on first use): for cells that
    /// do not point to the object after the previous cell's. `(data start, size, next header)`.
    #[inline(never)]
    fn object_by_table(&self, coll: &Collection<'a>, i: usize, idx: u32, len: usize) -> Result<(usize, usize, usize)> {
        let objs = coll.table(self.tables)?;
        match objs.get(idx as usize) {
            Some(&(s, n)) if n != u32::MAX && n as usize >= len => {
                let (s, n) = (s as usize, n as usize);
                Ok((s, n, s + n.div_ceil(8) * 8))
            }
            other => Err(bad_object(coll.at, idx, i, len, other.copied())),
        }
    }

    /// Copy every valid cell's payload to `values[offsets[i] * base ..]`. Cells are visited
    /// in increasing offset order, which [`copy_payload`] relies on.
    fn gather_into(
        &self,
        cells: &Cells,
        base: usize,
        offsets: &[i32],
        values: &mut [u8],
    ) -> Result<()> {
        // The current run's collection and its table.
        let mut cur: Option<Run<'_, 'a>> = None;
        if let Some(packed) = cells.packed() {
            // A plain loop (no closure call per cell) keeps the run state in locals.
            for (i, (h, &o)) in packed.chunks_exact(16).zip(offsets).enumerate() {
                let c = Cell::packed(h.try_into().unwrap());
                self.gather_cell(&mut cur, i, c, base, o, values)?;
            }
            return Ok(());
        }
        cells.try_for_each(|i, c| self.gather_cell(&mut cur, i, c, base, offsets[i], values))
    }

    /// Copy one cell's payload to `values[at * base..]` (see [`VlReader::gather_into`]).
    #[inline(always)]
    fn gather_cell<'s>(
        &'s self,
        cur: &mut Option<Run<'s, 'a>>,
        i: usize,
        c: Cell,
        base: usize,
        at: i32,
        values: &mut [u8],
    ) -> Result<()> {
        if c.is_null() || c.len == 0 {
            return Ok(());
        }
        let (coll, next) = match *cur {
            Some((a, coll, next)) if a == c.addr => (coll, next),
            _ => (self.collection(c.addr), Collection::FIRST),
        };
        // Valid cells' totals were bounded by `offsets`, so this cannot overflow.
        let len = c.len as usize * base;
        let (from, _, after) = match coll.object_at(next, c.idx) {
            Some(o) if o.1 >= len => o,
            _ => self.object_by_table(coll, i, c.idx, len)?,
        };
        *cur = Some((c.addr, coll, after));
        copy_payload(values, at as usize * base, coll.bytes, from, len);
        Ok(())
    }

    fn gather(&mut self, cells: &Cells, base: usize) -> Result<(Vec<i32>, Vec<u8>, Bitmap)> {
        self.check_and_load(cells, base)?;
        let (offsets, validity) = self.offsets(cells);
        let mut values = vec![0u8; *offsets.last().unwrap() as usize * base];
        self.gather_into(cells, base, &offsets, &mut values)?;
        Ok((offsets, values, validity))
    }

    /// Little-endian primitive base: gather straight into the typed child buffer.
    fn gather_typed<T: bytemuck::Pod + Default>(
        &mut self,
        cells: &Cells,
        dtype: DataType,
        wrap: fn(Vec<T>) -> Buffer,
    ) -> Result<(Vec<i32>, Column, Bitmap)> {
        let base = std::mem::size_of::<T>();
        self.check_and_load(cells, base)?;
        let (offsets, validity) = self.offsets(cells);
        let mut values = vec![T::default(); *offsets.last().unwrap() as usize];
        self.gather_into(cells, base, &offsets, bytemuck::cast_slice_mut(&mut values))?;
        Ok((
            offsets,
            Column::primitive(dtype, wrap(values), None),
            validity,
        ))
    }

    pub fn decode_vl(
        &mut self,
        dt: &Datatype,
        bytes: &[u8],
        n: usize,
        stride: usize,
        off: usize,
    ) -> Result<Column> {
        let cells = Cells::new(bytes, n, stride, off, self.ctx.sb.so as usize)?;
        match dt {
            Datatype::VlString { .. } => {
                let (offsets, values, validity) = self.gather(&cells, 1)?;
                Ok(utf8_or_binary(offsets, values, Some(validity)))
            }
            Datatype::VlSequence { base, .. } => {
                let bs = base.size();
                let fast = match **base {
                    Datatype::Int {
                        size: 1,
                        signed: true,
                        ..
                    } => Some(self.gather_typed::<i8>(&cells, DataType::Int8, Buffer::I8)?),
                    Datatype::Int {
                        size: 1,
                        signed: false,
                        ..
                    } => Some(self.gather_typed::<u8>(&cells, DataType::UInt8, Buffer::U8)?),
                    Datatype::Int {
                        size: 2,
                        signed: true,
                        be: false,
                    } => Some(self.gather_typed::<i16>(&cells, DataType::Int16, Buffer::I16)?),
                    Datatype::Int {
                        size: 2,
                        signed: false,
                        be: false,
                    } => Some(self.gather_typed::<u16>(&cells, DataType::UInt16, Buffer::U16)?),
                    Datatype::Int {
                        size: 4,
                        signed: true,
                        be: false,
                    } => Some(self.gather_typed::<i32>(&cells, DataType::Int32, Buffer::I32)?),
                    Datatype::Int {
                        size: 4,
                        signed: false,
                        be: false,
                    } => Some(self.gather_typed::<u32>(&cells, DataType::UInt32, Buffer::U32)?),
                    Datatype::Int {
                        size: 8,
                        signed: true,
                        be: false,
                    } => Some(self.gather_typed::<i64>(&cells, DataType::Int64, Buffer::I64)?),
                    Datatype::Int {
                        size: 8,
                        signed: false,
                        be: false,
                    } => Some(self.gather_typed::<u64>(&cells, DataType::UInt64, Buffer::U64)?),
                    Datatype::Float { size: 4, be: false } => {
                        Some(self.gather_typed::<f32>(&cells, DataType::Float32, Buffer::F32)?)
                    }
                    Datatype::Float { size: 8, be: false } => {
                        Some(self.gather_typed::<f64>(&cells, DataType::Float64, Buffer::F64)?)
                    }
                    _ => None,
                };
                let (offsets, child, validity) = match fast {
                    Some(x) => x,
                    None => {
                        let (offsets, values, validity) = self.gather(&cells, bs)?;
                        let total = *offsets.last().unwrap() as usize;
                        let child = decode(self, base, &values, total, bs, 0)?;
                        (offsets, child, validity)
                    }
                };
                let field = Field::new("item", child.dtype.clone(), true);
                let validity = Some(validity).filter(|v| v.count_zeros() > 0);
                Ok(Column {
                    dtype: DataType::List(Box::new(field)),
                    len: n,
                    validity,
                    buffers: vec![Buffer::I32(offsets)],
                    children: vec![child],
                })
            }
            _ => Err(invalid(0, "decode_vl on a fixed-size type")),
        }
    }
}

/// The error for a cell whose heap object is missing or too short; out of line so the
/// per-cell gather loop stays small enough to inline.
#[cold]
#[inline(never)]
fn bad_object(at: u64, idx: u32, cell: usize, len: usize, obj: Option<(u32, u32)>) -> DecodeError {
    match obj {
        Some((_, n)) if n != u32::MAX => invalid(
            at,
            format!("global heap object {idx} holds {n} bytes, cell {cell} needs {len}"),
        ),
        _ => invalid(
            at,
            format!("global heap collection has no object {idx} (cell {cell})"),
        ),
    }
}

/// Copy `src[from..from + len]` to `dst[at..at + len]`. Payloads up to 64 bytes (typical
/// strings) move as one fixed 32- or 64-byte block when both buffers have room past the
/// end: in wasm that is a few inline loads and stores instead of a `memory.copy` call or a
/// block loop. The bytes written past `at + len` belong to cells
/// copied later (callers go in increasing `at` order), so they are overwritten before the
/// buffer is used; near either buffer's end the exact copy is taken instead.
#[inline(always)]
fn copy_payload(dst: &mut [u8], at: usize, src: &[u8], from: usize, len: usize) {
    if len <= 32 && at + 32 <= dst.len() && from + 32 <= src.len() {
        // Fixed-size copies compile to a few loads and stores (no `memory.copy` call).
        let s: &[u8; 32] = src[from..from + 32].try_into().unwrap();
        dst[at..at + 32].copy_from_slice(s);
    } else if len <= 64 && at + 64 <= dst.len() && from + 64 <= src.len() {
        let s: &[u8; 64] = src[from..from + 64].try_into().unwrap();
        dst[at..at + 64].copy_from_slice(s);
    } else {
        dst[at..at + len].copy_from_slice(&src[from..from + len]);
    }
}
