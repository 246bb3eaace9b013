//! The chunked read: the chunks a selection touches, fetched in one request, filtered
//! (straight into place when they tile it), and copied into the selection; chunks it covers
//! in part are kept decoded for the next window (see [`crate::file::selection::chunk_cache`]).

use std::borrow::Cow;

use arrowsmith_core::{DecodeError, Format, Result};

use crate::btree_v1::ChunkRec;
use crate::chunk_index::{self, ChunkGeom};
use crate::file::ctx::Ctx;
use crate::file::dataset::Dataset;
use crate::file::limits::too_large;
use crate::file::selection::chunk_cache::{self, CHUNK_CACHE_BYTES};
use crate::file::selection::chunk_copy::{copy_block, Block};
use crate::file::Hdf5File;
use crate::filters;
use crate::hyperslab::Slab;
use crate::io::invalid;
use crate::layout::ChunkIndexKind;

/// Ask the host for every range of `spans` (absolute offset, length) not loaded yet at
/// once: one `NeedBytes` for a coalesced span of neighbouring missing ranges (gaps under
/// 1 MiB, at most `max` bytes), not one per round trip. Ranges past the file or over `max`
/// are left to the read, which reports them.
pub(crate) fn ask_missing(
    ctx: &Ctx,
    spans: impl Iterator<Item = (u64, u64)>,
    max: u64,
) -> Result<()> {
    let mut missing: Vec<(u64, u64)> = spans
        .filter(|&(a, l)| {
            let in_file = a.checked_add(l).is_some_and(|e| e <= ctx.src.size());
            in_file && l <= max && ctx.src.get(a, l as usize).is_none()
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    missing.sort_unstable();
    let (s0, l0) = missing[0];
    let mut end = s0 + l0;
    for &(s, l) in &missing[1..] {
        if s > end.saturating_add(1 << 20) || (s + l - s0) > max {
            break;
        }
        end = end.max(s + l);
    }
    Err(DecodeError::need_bytes(Format::Hdf5, s0, end - s0))
}

impl Hdf5File {
    /// The bytes of `sel` (`total` of them) in a chunked dataset (`chunk`: chunk dims,
    /// index kind and address); `filled` makes the output prefilled with the fill value.
    pub(crate) fn read_chunked(
        &self,
        ctx: &Ctx,
        ds: &Dataset,
        (cdims, index, addr): (&[u64], &ChunkIndexKind, u64),
        (sel, total): (&Slab, u64),
        filled: impl FnOnce() -> Vec<u8>,
    ) -> Result<Vec<u8>> {
        let max = self.max_read_bytes;
        let es = ds.dtype.size() as u64;
        let dims = &ds.space.dims;
        if cdims.len() != dims.len() || cdims.contains(&0) {
            return Err(invalid(ds.at, "chunk rank does not match the dataspace"));
        }
        filters::check_supported(&ds.filters, ds.at)?;
        let g = ChunkGeom {
            dims,
            maxdims: &ds.space.maxdims,
            chunk: cdims,
            elem_size: es,
            filtered: !ds.filters.is_empty(),
        };
        let cb = g.chunk_bytes();
        if cb > max {
            return Err(too_large(ds.at, cb, max, "one chunk"));
        }
        let recs = chunk_index::chunks(ctx, index, addr, &g, sel)?;
        let key = |r: &ChunkRec| -> chunk_cache::Key { (ds.at, r.addr, r.size, r.mask) };
        // A chunk whose elements (within the dataset) the selection covers in part: the
        // next window needs it again, so it is kept decoded, if all such chunks fit the
        // budget.
        let partial = |r: &ChunkRec| {
            !(0..dims.len()).all(|k| {
                let c = r.coords[k];
                sel.covers(k, c, c.saturating_add(cdims[k]).min(dims[k]))
            })
        };
        let keep = recs.iter().filter(|r| partial(r)).count() as u64 * cb <= CHUNK_CACHE_BYTES;
        // Ask the host for every missing chunk at once (one coalesced span of
        // neighbouring chunks), not one chunk per round trip.
        // Edge chunks stored unfiltered (layout flag): a chunk reaching past the dataset's
        // current extent in any dimension, as libhdf5 decides it.
        let skip_edges = matches!(
            ds.layout,
            crate::layout::Layout::Chunked {
                partial_unfiltered: true,
                ..
            }
        );
        let unfiltered = |r: &ChunkRec| {
            ds.filters.is_empty()
                || skip_edges
                    && r.coords
                        .iter()
                        .zip(cdims.iter().zip(dims))
                        .any(|(&c, (&n, &d))| c.saturating_add(n) > d)
        };
        let stored_len = |r: &ChunkRec| if unfiltered(r) { cb } else { r.size };
        let missing = recs
            .iter()
            .filter(|r| !self.chunks.has(key(r)))
            .filter_map(|r| Some((ctx.abs(r.addr).ok()?, stored_len(r))));
        ask_missing(ctx, missing, max)?;
        // A selection of whole rows whose chunks hold whole rows (all trailing dimensions):
        // each chunk is one run of `out`.
        let rows = sel.row_window(dims).filter(|_| cdims[1..] == dims[1..]);
        let (start, nrows) = rows.unwrap_or((0, 0));
        let row_bytes = cdims[1..].iter().product::<u64>() * es;
        let end = start + nrows;
        // Filtered chunks of whole rows that tile the selection exactly are all
        // filtered straight into place (below), writing every byte of `out`: then
        // it needs no fill.
        let tiled = !ds.filters.is_empty() && rows.is_some() && {
            let mut rows: Vec<u64> = recs
                .iter()
                .filter(|r| r.coords[1..].iter().all(|&c| c == 0))
                .map(|r| r.coords[0])
                .collect();
            rows.sort_unstable();
            rows.len() == recs.len()
                && rows.len() as u64 * cdims[0] == nrows
                && rows
                    .iter()
                    .enumerate()
                    .all(|(k, &r)| r == start + k as u64 * cdims[0])
        };
        let mut out = if tiled {
            arrowsmith_core::recycle::bytes_to_overwrite(total as usize)
        } else {
            filled()
        };
        for r in recs {
            let copy = |out: &mut [u8], data: &[u8]| {
                let b = Block {
                    org: &r.coords,
                    dims: cdims,
                    skip: 0,
                    data,
                };
                copy_block(out, &b, sel, es as usize)
            };
            if let Some(done) = self.chunks.with(key(&r), |data| copy(&mut out, data)) {
                done?;
                continue;
            }
            let raw = ctx.read(r.addr, stored_len(&r), "chunk")?;
            let r0 = r.coords[0];
            let inside = r0 >= start && r0.saturating_add(cdims[0]) <= end;
            if !unfiltered(&r) && rows.is_some() && inside && r.coords[1..].iter().all(|&c| c == 0)
            {
                // Filter straight into place: (r0 - start + cdims[0]) * row_bytes
                // <= nrows * row_bytes = out.len(), and cb = cdims[0] * row_bytes.
                let d = ((r0 - start) * row_bytes) as usize;
                let dst = &mut out[d..d + cb as usize];
                let at = ctx.abs(r.addr)?;
                let n = filters::apply_into(&ds.filters, r.mask, raw, dst, at)?;
                if (n as u64) < cb {
                    return Err(invalid(
                        at,
                        format!("chunk decodes to {n} bytes, expected {cb}"),
                    ));
                }
                continue;
            }
            let data: Cow<[u8]> = if unfiltered(&r) {
                Cow::Borrowed(raw)
            } else {
                Cow::Owned(filters::apply(
                    &ds.filters,
                    r.mask,
                    raw,
                    cb as usize,
                    ctx.abs(r.addr)?,
                )?)
            };
            if (data.len() as u64) < cb {
                return Err(invalid(
                    ctx.abs(r.addr)?,
                    format!("chunk decodes to {} bytes, expected {cb}", data.len()),
                ));
            }
            copy(&mut out, &data)?;
            if keep && partial(&r) {
                self.chunks.keep(key(&r), data.into_owned());
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::collections::HashMap;

    use arrowsmith_core::ByteSource;

    use super::*;
    use crate::layout::Layout;
    use crate::superblock::open_fixture;

    /// A file whose reads at chunk addresses are counted.
    struct Counting<'a> {
        bytes: &'a Vec<u8>,
        chunks: HashMap<u64, usize>,
        gets: RefCell<HashMap<u64, usize>>,
    }

    impl ByteSource for Counting<'_> {
        fn size(&self) -> u64 {
            self.bytes.size()
        }
        fn get(&self, offset: u64, len: usize) -> Option<&[u8]> {
            if self.chunks.contains_key(&offset) {
                *self.gets.borrow_mut().entry(offset).or_default() += 1;
            }
            self.bytes.get(offset, len)
        }
    }

    /// The selection bytes of rows `start..start+n` and the reads of each chunk they took.
    fn raw(f: &Hdf5File, src: &Counting, path: &str, windows: &[(u64, u64)]) -> Vec<u8> {
        let ctx = f.ctx(src);
        let ds = f.dataset(&ctx, path).unwrap();
        let mut out = Vec::new();
        for &(s, n) in windows {
            let sel = Slab::rows(s, n, &ds.space.dims);
            out.extend_from_slice(&f.read_raw(&ctx, &ds, &sel).unwrap());
        }
        out
    }

    #[test]
    fn windows_smaller_than_a_chunk_read_each_chunk_once() {
        let (b, _) = open_fixture("types_latest");
        for path in [
            "/ck_deflate",
            "/ck_implicit",
            "/ck_shuffle_deflate",
            "/ck_lzf",
            "/ck_ext",
            "/ck_all3",
            "/ck_btree2_gzip",
            "/ck_fixed_2d",
        ] {
            let f = Hdf5File::open(&b).unwrap();
            let ctx = f.ctx(&b);
            let ds = f.dataset(&ctx, path).unwrap();
            let Layout::Chunked {
                dims: cdims,
                index,
                addr,
                ..
            } = &ds.layout
            else {
                panic!("{path}: not chunked");
            };
            let rows = ds.space.dims[0];
            let g = ChunkGeom {
                dims: &ds.space.dims,
                maxdims: &ds.space.maxdims,
                chunk: cdims,
                elem_size: ds.dtype.size() as u64,
                filtered: !ds.filters.is_empty(),
            };
            let all = Slab::rows(0, rows, &ds.space.dims);
            let recs = chunk_index::chunks(&ctx, index, *addr, &g, &all).unwrap();
            assert!(recs.len() > 1, "{path}");
            let counting = || Counting {
                bytes: &b,
                chunks: recs.iter().map(|r| (ctx.abs(r.addr).unwrap(), 0)).collect(),
                gets: Default::default(),
            };
            // One whole read: the reads of each chunk it takes.
            let whole_src = counting();
            let whole = raw(&f, &whole_src, path, &[(0, rows)]);
            let once = whole_src.gets.borrow().clone();
            assert_eq!(once.len(), recs.len(), "{path}: every chunk read");
            // Windows of a quarter chunk, on a fresh file (nothing kept yet).
            let f = Hdf5File::open(&b).unwrap();
            let step = (cdims[0] / 4).max(1);
            let windows: Vec<(u64, u64)> = (0..rows)
                .step_by(step as usize)
                .map(|s| (s, step.min(rows - s)))
                .collect();
            let src = counting();
            assert_eq!(raw(&f, &src, path, &windows), whole, "{path}: same bytes");
            assert_eq!(*src.gets.borrow(), once, "{path}: a chunk read again");
            assert!(f.chunks.bytes() <= CHUNK_CACHE_BYTES);
        }
    }
}
