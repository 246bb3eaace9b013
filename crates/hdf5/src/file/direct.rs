//! Selections that are the file's bytes as they lie: uncompressed little-endian integers or
//! floats in whole rows, every chunk written. Their Arrow values are those bytes, so a host
//! that fetches ranges (a Blob, a URL) can hand the fetched buffers out as the column
//! instead of passing them through wasm memory (into the cache, into the selection, into
//! the column, out again: four copies of every byte).

use arrowsmith_core::{ByteSource, Result};

use crate::chunk_index::{self, ChunkGeom};
use crate::datatype::Datatype;
use crate::file::Hdf5File;
use crate::io::UNDEF;
use crate::layout::Layout;

/// Whether `read` decodes elements of `dt` by copying their bytes (a little-endian value
/// that fills its bytes, of a width Arrow holds as is).
fn verbatim(dt: &Datatype) -> bool {
    matches!(
        dt,
        Datatype::Int {
            size: 1 | 2 | 4 | 8,
            be: false,
            bits: None,
            ..
        } | Datatype::Float {
            size: 2 | 4 | 8,
            be: false,
        }
    )
}

/// Ranges `(offset, length)` in order, merged where one ends where the next begins.
fn push_range(out: &mut Vec<(u64, u64)>, offset: u64, len: u64) {
    if let Some(last) = out.last_mut() {
        if last.0 + last.1 == offset {
            last.1 += len;
            return;
        }
    }
    out.push((offset, len));
}

impl Hdf5File {
    /// The file ranges `(absolute offset, length)` whose bytes, concatenated in order, are
    /// the values of rows `start .. start+count` as `read` returns them (one column of
    /// `dt.arrow_type()`, in FixedSizeLists for trailing dimensions), or `None` when the
    /// selection is anything else (filters, conversions, unwritten chunks, a selection
    /// `read` rejects): then `read` is the way. Reads only metadata (the dataset's header
    /// and chunk index), asking for it as `read` does.
    pub fn direct_ranges(
        &self,
        src: &dyn ByteSource,
        path: &str,
        start: u64,
        count: Option<u64>,
    ) -> Result<Option<Vec<(u64, u64)>>> {
        let ctx = self.ctx(src);
        let ds = self.dataset(&ctx, path)?;
        let dims = &ds.space.dims;
        if ds.space.null || dims.is_empty() || !ds.filters.is_empty() || !verbatim(&ds.dtype) {
            return Ok(None);
        }
        if start > dims[0] {
            return Ok(None);
        }
        let nrows = count.unwrap_or(u64::MAX).min(dims[0] - start);
        let es = ds.dtype.size() as u64;
        let row_bytes = dims[1..].iter().try_fold(es, |a, &d| a.checked_mul(d));
        let Some(total) = row_bytes.and_then(|r| r.checked_mul(nrows)) else {
            return Ok(None);
        };
        let row_bytes = row_bytes.unwrap_or(0);
        if total == 0 || total > self.max_read_bytes {
            return Ok(None);
        }
        let end = start + nrows;
        let size = src.size();
        let in_file = |a: u64, l: u64| a.checked_add(l).is_some_and(|e| e <= size);
        let mut out = Vec::new();
        match &ds.layout {
            Layout::Contiguous { addr, .. } if *addr != UNDEF => {
                let a = start
                    .checked_mul(row_bytes)
                    .and_then(|o| ctx.abs(*addr).ok()?.checked_add(o));
                match a {
                    Some(a) if in_file(a, total) => out.push((a, total)),
                    _ => return Ok(None),
                }
            }
            Layout::Chunked {
                dims: cdims,
                index,
                addr,
                ..
            } => {
                // Whole rows per chunk: a chunk's rows are one run of the selection.
                if cdims.len() != dims.len() || cdims[0] == 0 || cdims[1..] != dims[1..] {
                    return Ok(None);
                }
                let g = ChunkGeom {
                    dims,
                    maxdims: &ds.space.maxdims,
                    chunk: cdims,
                    elem_size: es,
                    filtered: false,
                };
                let sel = crate::hyperslab::Slab::rows(start, nrows, dims);
                let mut recs = chunk_index::chunks(&ctx, index, *addr, &g, &sel)?;
                recs.sort_unstable_by_key(|r| r.coords[0]);
                let mut at = start;
                for r in &recs {
                    let r0 = r.coords[0];
                    // A gap (an unwritten chunk: fill values) or an overlap: not verbatim.
                    if r.coords[1..].iter().any(|&c| c != 0)
                        || r0 > at
                        || r0.saturating_add(cdims[0]) <= at
                    {
                        return Ok(None);
                    }
                    let upto = r0.saturating_add(cdims[0]).min(end);
                    let a = (at - r0)
                        .checked_mul(row_bytes)
                        .and_then(|o| ctx.abs(r.addr).ok()?.checked_add(o));
                    let len = (upto - at) * row_bytes;
                    match a {
                        Some(a) if in_file(a, len) => push_range(&mut out, a, len),
                        _ => return Ok(None),
                    }
                    at = upto;
                }
                if at < end {
                    return Ok(None);
                }
            }
            _ => return Ok(None),
        }
        Ok(Some(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::superblock::open_fixture;

    /// Every fixture dataset the direct ranges cover gives, concatenated, the same bytes as
    /// the column `read` decodes; the others (filters, big-endian, strings...) give none.
    #[test]
    fn direct_ranges_are_the_read_values() {
        let (mut direct, mut chunked) = (0, 0);
        for name in ["types_latest", "types_earliest"] {
            let (b, _) = open_fixture(name);
            let f = Hdf5File::open(&b).unwrap();
            for path in crate::dataset_paths(&f, &b).unwrap() {
                let Ok(info) = f.info(&b, &path) else {
                    continue;
                };
                let rows = info.shape.first().copied().unwrap_or(0);
                for (start, count) in [(0, None), (rows / 3, Some(rows / 2 + 1))] {
                    let Some(ranges) = f.direct_ranges(&b, &path, start, count).unwrap() else {
                        continue;
                    };
                    assert!(info.filters.is_empty(), "{name}{path}: filtered");
                    direct += 1;
                    chunked += usize::from(info.layout == "chunked");
                    let got: Vec<u8> = ranges
                        .iter()
                        .flat_map(|&(a, l)| b[a as usize..(a + l) as usize].to_vec())
                        .collect();
                    let batch = f.read(&b, &path, start, count).unwrap();
                    let mut col = &batch.columns[0];
                    while col.buffers.is_empty() {
                        col = &col.children[0];
                    }
                    assert_eq!(got, col.buffers[0].as_bytes(), "{name}{path} {start}");
                }
            }
        }
        assert!(
            direct >= 8 && chunked >= 4,
            "verbatim selections: {direct}, chunked {chunked}"
        );
    }
}
