//! The batched variable-length path.
//!
//! For N cells: one pass over the cell headers (in place in the decoded raw bytes) builds
//! Arrow offsets by prefix sum (sizing the values buffer exactly, one allocation), the
//! validity, and the runs of cells pointing to consecutive heap objects; the distinct
//! global heap collections are loaded once (requested from the host as coalesced ranges
//! when missing). Then the runs are copied in heap order, walking each collection's memory
//! forward once, straight into the values buffer. Strings are UTF-8 validated once per
//! column; sequences of primitives are byte-swapped in bulk when big-endian; other bases
//! (compound, nested VL, strings) are decoded once over the gathered payloads.

use std::collections::HashMap;

use arrowsmith_core::{Bitmap, Buffer, Column, DataType, DecodeError, Field, Format, Result};

use crate::datatype::Datatype;
use crate::decode::{decode, utf8_or_binary};
use crate::file::ctx::Ctx;
use crate::global_heap::{Collection, GcolCache};
use crate::io::{invalid, le_uint};
use crate::vl_cells::{Cell, Cells};

/// Cells `cell..=last` whose payloads are `n` consecutive objects `idx..idx + n` of one
/// collection (the cells between without a payload, null or empty, point nowhere): how
/// writers lay cells out, in few long runs. A block's objects are found by one forward
/// walk.
#[derive(Clone, Copy, Debug)]
struct Block {
    addr: u64,
    cell: usize,
    last: usize,
    idx: u32,
    n: u32,
}

/// Blocks as [`VlReader::scan`] meets their cells (in cell order).
struct Blocks {
    done: Vec<Block>,
    /// The current block; `n == 0` before the first.
    cur: Block,
}

impl Blocks {
    fn new() -> Self {
        Blocks {
            done: Vec::new(),
            cur: Block {
                addr: 0,
                cell: 0,
                last: 0,
                idx: 0,
                n: 0,
            },
        }
    }

    /// Cell `i` of the header pass: its length added to `total` and, when it has a
    /// payload, to the blocks. Returns whether it is valid (not a null reference).
    #[inline(always)]
    fn visit(&mut self, total: &mut u64, i: usize, c: Cell) -> bool {
        let ok = !c.is_null();
        *total += if ok { c.len as u64 } else { 0 };
        if ok && c.len != 0 {
            self.add(i, c);
        }
        ok
    }

    /// Cell `i` (valid, not empty) extends the current block or starts the next.
    #[inline(always)]
    fn add(&mut self, i: usize, c: Cell) {
        let b = &mut self.cur;
        if b.n != 0 && c.addr == b.addr && c.idx as u64 == b.idx as u64 + b.n as u64 {
            b.n += 1;
            b.last = i;
        } else {
            if b.n != 0 {
                self.done.push(*b);
            }
            *b = Block {
                addr: c.addr,
                cell: i,
                last: i,
                idx: c.idx,
                n: 1,
            };
        }
    }

    /// Cells `i..i + 8` (packed headers) when all of them extend the current block:
    /// their offsets written after `total`, added to the block. False (nothing changed)
    /// otherwise. Branch-free over the eight, which the compiler vectorises.
    #[inline(always)]
    fn extend_by_8(
        &mut self,
        total: &mut u64,
        i: usize,
        group: &[u8; 128],
        offsets: &mut [i32; 8],
    ) -> bool {
        let b = &mut self.cur;
        let next = b.idx as u64 + b.n as u64;
        let mut ok = b.n != 0;
        let mut lens = [0u32; 8];
        for (k, h) in group.chunks_exact(16).enumerate() {
            let c = Cell::packed(h.try_into().unwrap());
            ok &= (c.addr == b.addr) & (c.idx as u64 == next + k as u64) & (c.len != 0);
            lens[k] = c.len;
        }
        if !ok {
            return false;
        }
        // All valid: `b.addr` is not null (the block's first cell had a payload).
        let mut t = *total;
        for (o, &l) in offsets.iter_mut().zip(&lens) {
            t += l as u64;
            *o = t as i32;
        }
        *total = t;
        b.n += 8;
        b.last = i + 7;
        true
    }

    fn finish(mut self) -> Vec<Block> {
        if self.cur.n != 0 {
            self.done.push(self.cur);
        }
        self.done
    }
}

/// Upper bound on gathered payload bytes per column (Arrow i32 offsets).
const MAX_VALUES: u64 = i32::MAX as u64;

/// Payload bytes a read allocates from the cells' claims without checking them against the
/// heap first (small reads skip the check; larger ones must be proven by the collections).
const PROVEN_WITHOUT_CHECK: u64 = 1 << 20;

pub struct VlReader<'a, 'c> {
    pub ctx: &'c Ctx<'a>,
    cache: HashMap<u64, Collection<'a>>,
    tables: &'c GcolCache,
    /// Bytes still allowed to be gathered by this read (all VL columns together).
    budget: u64,
    /// Fetch each collection right before its gather, into a reused scratch, instead of
    /// loading them all first (see [`VlReader::single_gather`]).
    once: bool,
}

impl<'a, 'c> VlReader<'a, 'c> {
    pub fn new(ctx: &'c Ctx<'a>, tables: &'c GcolCache, max_bytes: u64) -> Self {
        VlReader {
            ctx,
            cache: HashMap::new(),
            tables,
            budget: max_bytes,
            once: false,
        }
    }

    /// For a read of `dt` whose VL payloads are gathered in one go (one VL member, not
    /// nested) from a source that fetches on demand: each collection is then gone over
    /// once, so it is copied into a reused scratch right before its gather, where the copy
    /// is still in cache, instead of being loaded and kept with all the others first
    /// (~4 MB of heap for 100k strings, out of cache by the time the gather reaches it).
    pub fn single_gather(mut self, dt: &Datatype) -> Self {
        fn single(dt: &Datatype) -> bool {
            match dt {
                Datatype::VlString { .. } => true,
                Datatype::VlSequence { base, .. } => !base.is_vl(),
                Datatype::Compound { members, .. } => {
                    let mut vl = members.iter().filter(|m| m.dtype.is_vl());
                    vl.next().is_some_and(|m| single(&m.dtype)) && vl.next().is_none()
                }
                _ => false,
            }
        }
        self.once = self.ctx.src.fetches_on_demand() && single(dt);
        self
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

    /// One pass over the headers: Arrow offsets (i32, n + 1, in base elements), validity
    /// (a null reference is null) and the [`Block`]s of cells. Then the payload total is
    /// checked against the read budget (before the values buffer is sized from it) and
    /// every collection is loaded. A read that stops here for missing heap bytes (and is
    /// repeated once the host supplied them) wasted little.
    fn scan(&mut self, cells: &Cells, base: usize) -> Result<(Vec<i32>, Bitmap, Vec<Block>)> {
        let n = cells.n;
        let mut valid = vec![0u8; n.div_ceil(8)];
        let mut offsets = vec![0i32; n + 1];
        // Offsets wrap past i32::MAX here; such a total is refused below, before use.
        let (total, blocks) = match cells.packed() {
            Some(packed) => scan_packed(packed, &mut valid, &mut offsets[1..]),
            None => {
                let mut total: u64 = 0;
                let mut blocks = Blocks::new();
                let _ = cells.try_for_each(|i, c| -> std::result::Result<(), ()> {
                    let ok = blocks.visit(&mut total, i, c);
                    valid[i / 8] |= (ok as u8) << (i % 8);
                    offsets[i + 1] = total as i32;
                    Ok(())
                });
                (total, blocks.finish())
            }
        };
        // n < 2^60 and lengths < 2^32, so `total` itself cannot overflow.
        let need = total.saturating_mul(base.max(1) as u64);
        if need > self.budget || total > MAX_VALUES {
            let mut e = DecodeError::too_large(
                Format::Hdf5,
                0,
                need,
                MAX_VALUES.min(self.budget),
                "the variable-length payloads",
            );
            e.message.push_str(crate::file::limits::TOO_LARGE_ADVICE);
            return Err(e);
        }
        if !self.once {
            self.load(blocks.iter().map(|b| b.addr).collect())?;
        }
        // Evidence before allocation: payloads claiming more than the collections they point
        // into hold are either shared objects (a VL fill value) or lies; each claim is then
        // checked against its object before the values buffer is sized from the claims.
        if need > PROVEN_WITHOUT_CHECK && need > self.heap_bytes(&blocks)? {
            self.check_claims(&blocks, base, &offsets)?;
        }
        self.budget -= need;
        Ok((offsets, Bitmap::from_bytes(valid, n), blocks))
    }

    /// Bytes of the distinct collections `blocks` point into, from their headers.
    fn heap_bytes(&self, blocks: &[Block]) -> Result<u64> {
        let mut addrs: Vec<u64> = blocks.iter().map(|b| b.addr).collect();
        addrs.sort_unstable();
        addrs.dedup();
        let sl = self.ctx.sb.sl as u64;
        let mut sum = 0u64;
        for a in addrs {
            let size = match self.cache.get(&a) {
                Some(c) => c.bytes.len() as u64,
                None => le_uint(&self.ctx.read(a, 8 + sl, "global heap collection")?[8..]),
            };
            sum = sum.saturating_add(size);
        }
        Ok(sum)
    }

    /// Every cell's claimed length against the size of the object it points to.
    fn check_claims(&mut self, blocks: &[Block], base: usize, offsets: &[i32]) -> Result<()> {
        for b in blocks {
            if !self.cache.contains_key(&b.addr) {
                let c = Collection::load(self.ctx, b.addr, self.tables)?;
                self.cache.insert(b.addr, c);
            }
            let c = &self.cache[&b.addr];
            let mut idx = b.idx;
            for i in b.cell..=b.last {
                let len = (offsets[i + 1] - offsets[i]) as usize * base;
                if len == 0 {
                    continue;
                }
                self.object_by_table(c, i, idx, len)?;
                idx = idx.wrapping_add(1);
            }
        }
        Ok(())
    }

    /// Object `idx` of `coll` through its index table (parsed on first use): for cells whose
    /// object the forward walk does not find. `(data start, size, next header)`.
    #[inline(never)]
    fn object_by_table(
        &self,
        coll: &Collection<'_>,
        i: usize,
        idx: u32,
        len: usize,
    ) -> Result<(usize, usize, usize)> {
        let objs = coll.table(self.tables)?;
        match objs.get(idx as usize) {
            Some(&(s, n)) if n != u32::MAX && n as usize >= len => {
                let (s, n) = (s as usize, n as usize);
                Ok((s, n, s + n.div_ceil(8) * 8))
            }
            other => Err(bad_object(coll.at, idx, i, len, other.copied())),
        }
    }

    /// Copy every block's payloads to `values[offsets[i] * base ..]`. Blocks go in heap
    /// order (collection, then object index), so each collection's memory is walked forward
    /// once: a block's first object is found by walking on from where the previous block
    /// ended (writers append objects with rising indexes), its other objects follow it. The
    /// collection's index table is parsed only when that walk misses (a heap whose indexes
    /// do not rise, or cells sharing objects).
    fn gather_into(
        &self,
        mut blocks: Vec<Block>,
        base: usize,
        offsets: &[i32],
        values: &mut [u8],
    ) -> Result<()> {
        blocks.sort_unstable_by_key(|b| (b.addr, b.idx));
        let mut scratch = Vec::new();
        for group in blocks.chunk_by(|a, b| a.addr == b.addr) {
            let addr = group[0].addr;
            let fetched;
            let c = match self.cache.get(&addr) {
                Some(c) => c,
                None => {
                    fetched = Collection::load_once(self.ctx, addr, self.tables, &mut scratch)?;
                    &fetched
                }
            };
            if c.lengths_of_8() {
                self.gather_collection::<8>(c, group, base, offsets, values)?;
            } else {
                self.gather_collection::<0>(c, group, base, offsets, values)?;
            }
        }
        Ok(())
    }

    /// The blocks of one collection, in object index order (`SL`: its lengths' size, 0
    /// when read at run time).
    fn gather_collection<const SL: usize>(
        &self,
        c: &Collection<'_>,
        blocks: &[Block],
        base: usize,
        offsets: &[i32],
        values: &mut [u8],
    ) -> Result<()> {
        // Where the walk goes on; `None` once it missed.
        let mut walk = Some(Collection::FIRST);
        for b in blocks {
            let cell = b.cell;
            let len0 = (offsets[cell + 1] - offsets[cell]) as usize * base;
            let found = walk
                .and_then(|p| c.walk_to(p, b.idx))
                .filter(|o| o.1 >= len0);
            if found.is_none() {
                walk = None;
            }
            let (mut from, _, mut next) = match found {
                Some(o) => o,
                None => self.object_by_table(c, cell, b.idx, len0)?,
            };
            // The block's payloads end here: a block copy may spill up to it, not past
            // (the cells after it may already have been copied).
            let end = offsets[b.last + 1] as usize * base;
            let mut idx = b.idx;
            copy_payload(
                values,
                offsets[cell] as usize * base,
                end,
                c.bytes,
                from,
                len0,
            );
            for i in cell + 1..=b.last {
                let at = offsets[i] as usize;
                let len = (offsets[i + 1] as usize - at) * base;
                if len == 0 {
                    continue;
                }
                idx += 1;
                let o = match c.object_at_sl::<SL>(next, idx) {
                    Some(o) if o.1 >= len => o,
                    _ => self.object_by_table(c, i, idx, len)?,
                };
                from = o.0;
                next = o.2;
                copy_payload(values, at * base, end, c.bytes, from, len);
            }
            if walk.is_some() {
                walk = Some(next);
            }
        }
        Ok(())
    }

    fn gather(&mut self, cells: &Cells, base: usize) -> Result<(Vec<i32>, Vec<u8>, Bitmap)> {
        let (offsets, validity, blocks) = self.scan(cells, base)?;
        let len = *offsets.last().unwrap() as usize * base;
        // Every byte is written: each cell with a payload is in one block, and a block
        // copies all its cells (or the read fails).
        let mut values = arrowsmith_core::recycle::bytes_to_overwrite(len);
        self.gather_into(blocks, base, &offsets, &mut values)?;
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
        let (offsets, validity, blocks) = self.scan(cells, base)?;
        let len = *offsets.last().unwrap() as usize;
        let mut values = vec![T::default(); len];
        self.gather_into(
            blocks,
            base,
            &offsets,
            bytemuck::cast_slice_mut(&mut values),
        )?;
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
                        be: _,
                        bits: None,
                    } => Some(self.gather_typed::<i8>(&cells, DataType::Int8, Buffer::I8)?),
                    Datatype::Int {
                        size: 1,
                        signed: false,
                        be: _,
                        bits: None,
                    } => Some(self.gather_typed::<u8>(&cells, DataType::UInt8, Buffer::U8)?),
                    Datatype::Int {
                        size: 2,
                        signed: true,
                        be: false,
                        bits: None,
                    } => Some(self.gather_typed::<i16>(&cells, DataType::Int16, Buffer::I16)?),
                    Datatype::Int {
                        size: 2,
                        signed: false,
                        be: false,
                        bits: None,
                    } => Some(self.gather_typed::<u16>(&cells, DataType::UInt16, Buffer::U16)?),
                    Datatype::Int {
                        size: 4,
                        signed: true,
                        be: false,
                        bits: None,
                    } => Some(self.gather_typed::<i32>(&cells, DataType::Int32, Buffer::I32)?),
                    Datatype::Int {
                        size: 4,
                        signed: false,
                        be: false,
                        bits: None,
                    } => Some(self.gather_typed::<u32>(&cells, DataType::UInt32, Buffer::U32)?),
                    Datatype::Int {
                        size: 8,
                        signed: true,
                        be: false,
                        bits: None,
                    } => Some(self.gather_typed::<i64>(&cells, DataType::Int64, Buffer::I64)?),
                    Datatype::Int {
                        size: 8,
                        signed: false,
                        be: false,
                        bits: None,
                    } => Some(self.gather_typed::<u64>(&cells, DataType::UInt64, Buffer::U64)?),
                    Datatype::Float { size: 4, be: false } => {
                        Some(self.gather_typed::<f32>(&cells, DataType::Float32, Buffer::F32)?)
                    }
                    Datatype::Float { size: 8, be: false } => {
                        Some(self.gather_typed::<f64>(&cells, DataType::Float64, Buffer::F64)?)
                    }
                    _ => None,
                };
                // No validity: libhdf5 stores an empty sequence as a null reference
                // (length 0, address 0) and reads every null reference back as an empty
                // sequence (`hvl_t { len 0, p NULL }`), so a sequence is never null.
                let (offsets, child) = match fast {
                    Some((offsets, child, _)) => (offsets, child),
                    None => {
                        let (offsets, values, _) = self.gather(&cells, bs)?;
                        let total = *offsets.last().unwrap() as usize;
                        let child = decode(self, base, &values, total, bs, 0)?;
                        (offsets, child)
                    }
                };
                let field = Field::new("item", child.dtype.clone(), true);
                Ok(Column {
                    dtype: DataType::List(Box::new(field)),
                    len: n,
                    validity: None,
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

/// [`VlReader::scan`] over headers packed back to back with 8-byte offsets (plain VL
/// datasets): eight cells per validity byte, the running state in locals (the closure of
/// the general path keeps it in memory) and no per-cell bounds checks. Returns the
/// payload total and the blocks.
fn scan_packed(packed: &[u8], valid: &mut [u8], offsets: &mut [i32]) -> (u64, Vec<Block>) {
    let mut total: u64 = 0;
    let mut blocks = Blocks::new();
    let groups = packed
        .chunks(128)
        .zip(valid.iter_mut())
        .zip(offsets.chunks_mut(8));
    for (g, ((group, v), out)) in groups.enumerate() {
        // Eight cells that continue the current block (the usual case: writers lay
        // cells out in long runs of consecutive objects) are checked together, without
        // a branch per cell, and appended to it at once.
        if let (Ok(group), Ok(out)) = (
            <&[u8; 128]>::try_from(group),
            <&mut [i32; 8]>::try_from(&mut *out),
        ) {
            if blocks.extend_by_8(&mut total, g * 8, group, out) {
                *v = 0xff;
                continue;
            }
        }
        let mut byte = 0u8;
        for (j, (h, o)) in group.chunks_exact(16).zip(out).enumerate() {
            let ok = blocks.visit(&mut total, g * 8 + j, Cell::packed(h.try_into().unwrap()));
            byte |= (ok as u8) << j;
            *o = total as i32;
        }
        *v = byte;
    }
    (total, blocks.finish())
}

/// Copy `src[from..from + len]` to `dst[at..at + len]`. Payloads up to 64 bytes (typical
/// strings and short sequences) move as one fixed 64-byte block when that block ends by
/// `end` and within `src`: in wasm that is a few inline loads and stores instead of a
/// `memory.copy` call, and one size for all of them leaves no branch on the length to
/// mispredict. The bytes written past `at + len` belong to cells copied later (callers go
/// in increasing `at` order up to `end`), so they are overwritten before the buffer is used.
#[inline(always)]
fn copy_payload(dst: &mut [u8], at: usize, end: usize, src: &[u8], from: usize, len: usize) {
    if len <= 64 && at + 64 <= end && from + 64 <= src.len() {
        let s: &[u8; 64] = src[from..from + 64].try_into().unwrap();
        dst[at..at + 64].copy_from_slice(s);
    } else {
        dst[at..at + len].copy_from_slice(&src[from..from + len]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::superblock::Superblock;

    /// A file image holding global heap collections at the given addresses, each with
    /// `(index, payload)` objects in that order (then free space), 8-byte sizes.
    /// `(address, [(index, payload)])` for each heap collection.
    type Collections = [(u64, Vec<(u16, Vec<u8>)>)];
    /// `(length, collection address, object index)` of each cell.
    type Cells = Vec<(u32, u64, u32)>;

    fn heap_file(colls: &Collections) -> Vec<u8> {
        let mut file = Vec::new();
        for (addr, objs) in colls {
            file.resize(*addr as usize, 0);
            let mut b = b"GCOL\x01\0\0\0".to_vec();
            b.extend(0u64.to_le_bytes());
            for (idx, data) in objs {
                b.extend(idx.to_le_bytes());
                b.extend([0u8; 6]);
                b.extend((data.len() as u64).to_le_bytes());
                b.extend(data);
                b.resize(b.len().div_ceil(8) * 8, 0);
            }
            b.extend([0u8; 16]);
            let n = b.len() as u64;
            b[8..16].copy_from_slice(&n.to_le_bytes());
            file.extend(b);
        }
        file.resize(file.len() + 64, 0);
        file
    }

    /// Cells `(len, addr, idx)` packed as a VL dataset stores them.
    fn cells(c: &[(u32, u64, u32)]) -> Vec<u8> {
        c.iter()
            .flat_map(|&(l, a, i)| {
                [&l.to_le_bytes()[..], &a.to_le_bytes(), &i.to_le_bytes()].concat()
            })
            .collect()
    }

    /// The cells read as strings twice: from a loaded source (collections loaded first) and
    /// from one that copies ranges from the host as the reader asks for them (each
    /// collection fetched into the gather's scratch when reached); both must agree.
    fn read_strings(file: &[u8], raw: &[u8]) -> Result<Vec<Option<Vec<u8>>>> {
        let loaded = read_strings_from(&file.to_vec(), raw);
        let kept = arrowsmith_core::RangeCache::new(file.len() as u64);
        let arena = arrowsmith_core::Bump::new();
        let host = arrowsmith_core::HostSource::over_slice(&kept, &arena, file);
        let on_demand = read_strings_from(&host, raw);
        match (&loaded, &on_demand) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(a), Err(b)) => assert_eq!((a.offset, &a.message), (b.offset, &b.message)),
            _ => panic!("loaded {loaded:?} != on demand {on_demand:?}"),
        }
        loaded
    }

    fn read_strings_from(
        src: &dyn arrowsmith_core::ByteSource,
        raw: &[u8],
    ) -> Result<Vec<Option<Vec<u8>>>> {
        let sb = Superblock {
            version: 0,
            so: 8,
            sl: 8,
            base: 0,
            location: 0,
            root: 0,
            ext: crate::io::UNDEF,
        };
        let ctx = Ctx { src, sb: &sb };
        let tables = GcolCache::default();
        let dt = Datatype::VlString {
            size: 16,
            pad: 0,
            utf8: false,
        };
        let mut vl = VlReader::new(&ctx, &tables, u64::MAX).single_gather(&dt);
        assert_eq!(vl.once, src.fetches_on_demand());
        let col = vl.decode_vl(&dt, raw, raw.len() / 16, 16, 0)?;
        let (Buffer::I32(o), Buffer::U8(v)) = (&col.buffers[0], &col.buffers[1]) else {
            panic!()
        };
        Ok((0..col.len)
            .map(|i| {
                col.validity
                    .as_ref()
                    .is_none_or(|b| b.get(i))
                    .then(|| v[o[i] as usize..o[i + 1] as usize].to_vec())
            })
            .collect())
    }

    /// Payload of object `idx` in collection `c`: 1 to 90 bytes (both block-copy sizes
    /// and exact copies), distinct per object.
    fn payload(c: u64, idx: u16) -> Vec<u8> {
        let n = 1 + (idx as usize * 37 + c as usize) % 90;
        (0..n)
            .map(|k| (idx as usize * 7 + k + c as usize) as u8)
            .collect()
    }

    /// Every cell order writers and editors produce reads the payload its header names:
    /// the gather's heap-order walk, its table fallback (objects whose indexes do not rise,
    /// cells sharing an object), nulls and empties between cells of one run, and two
    /// collections taken in turns.
    #[test]
    fn any_cell_order_reads_the_objects_named() {
        // Collection 64: objects 1..=40 then 45, 44, 43 (indexes falling) and a gap at 41/42.
        // Collection 8192: 1..=30.
        let mut objs_a: Vec<u16> = (1..=40).collect();
        objs_a.extend([45, 44, 43]);
        let colls = vec![
            (64, objs_a.iter().map(|&i| (i, payload(64, i))).collect()),
            (8192, (1..=30).map(|i| (i, payload(8192, i))).collect()),
        ];
        let file = heap_file(&colls);
        let cell = |a: u64, i: u16| (payload(a, i).len() as u32, a, i as u32);
        let mut orders: Vec<(&str, Cells)> = Vec::new();
        orders.push(("in order", objs_a.iter().map(|&i| cell(64, i)).collect()));
        let mut rev: Vec<_> = (1..=40).map(|i| cell(64, i)).collect();
        rev.reverse();
        orders.push(("reversed", rev));
        // h5py's layout: runs in rising order, the runs themselves falling.
        let mut runs = Vec::new();
        for (lo, hi) in [(30, 40), (20, 29), (19, 19), (1, 18)] {
            runs.extend((lo..=hi).map(|i| cell(64, i)));
        }
        orders.push(("falling runs", runs));
        let mut perm: Vec<_> = (1..=40u16).map(|i| cell(64, i)).collect();
        let mut x = 7usize;
        for k in (1..perm.len()).rev() {
            x = x * 1103515245 % 2147483648 + 12345;
            perm.swap(k, x % (k + 1));
        }
        orders.push(("permuted", perm));
        orders.push((
            "shared objects",
            vec![
                cell(64, 5),
                cell(64, 6),
                cell(64, 5),
                cell(64, 6),
                cell(64, 7),
                cell(64, 2),
            ],
        ));
        orders.push((
            "nulls and empties inside a run",
            vec![
                cell(64, 3),
                (0, 0, 0),
                cell(64, 4),
                (0, 64, 0),
                (0, u64::MAX, 0),
                cell(64, 5),
                cell(64, 6),
            ],
        ));
        orders.push((
            "two collections in turns",
            (1..=30)
                .flat_map(|i| [cell(8192, i), cell(64, i)])
                .collect(),
        ));
        // Long runs read eight cells at a time: a run broken inside a group of eight (an
        // empty, a null), and runs that change collection at a group's edge.
        let mut broken: Vec<_> = (1..=26).map(|i| cell(64, i)).collect();
        broken[13] = (0, 64, 0);
        broken[20] = (0, 0, 0);
        orders.push(("runs broken inside groups of eight", broken));
        orders.push((
            "collections changing at a group's edge",
            (1..=8)
                .map(|i| cell(64, i))
                .chain((1..=8).map(|i| cell(8192, i)))
                .chain((9..=24).map(|i| cell(64, i)))
                .collect(),
        ));
        orders.push((
            "indexes falling in the heap",
            vec![
                cell(64, 43),
                cell(64, 44),
                cell(64, 45),
                cell(64, 39),
                cell(64, 40),
            ],
        ));
        for (name, c) in orders {
            let got = read_strings(&file, &cells(&c)).unwrap_or_else(|e| panic!("{name}: {e}"));
            let want: Vec<Option<Vec<u8>>> = c
                .iter()
                .map(|&(l, a, i)| match (a, l) {
                    (0 | u64::MAX, _) => None,
                    (_, 0) => Some(vec![]),
                    _ => Some(payload(a, i as u16)),
                })
                .collect();
            assert_eq!(got, want, "{name}");
        }
        // A missing object, an object shorter than its cell, and an index beyond 16 bits
        // are errors naming the collection.
        for bad in [
            vec![cell(64, 1), cell(64, 41)],
            vec![cell(64, 1), (payload(64, 2).len() as u32 + 1, 64, 2)],
            vec![(1, 64, 65537)],
        ] {
            let e = read_strings(&file, &cells(&bad)).unwrap_err();
            assert_eq!(e.offset, 64, "{}", e.message);
            assert!(e.message.contains("global heap"), "{}", e.message);
        }
    }
}
