//! Copying the part of a decoded chunk that falls inside a row selection.

use arrowsmith_core::Result;

use crate::btree_v1::ChunkRec;
use crate::io::invalid;

/// Copy the part of a chunk that falls inside rows `start..start+nrows` into `out`
/// (row-major over `[nrows, dims[1..]]`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn copy_chunk(
    out: &mut [u8],
    chunk: &[u8],
    r: &ChunkRec,
    cdims: &[u64],
    dims: &[u64],
    start: u64,
    nrows: u64,
    es: usize,
) -> Result<()> {
    let rank = dims.len();
    let last = rank - 1;
    // Selected interval per dimension, in dataset coordinates.
    let lo = |k: usize| if k == 0 { start } else { 0 };
    let hi = |k: usize| if k == 0 { start + nrows } else { dims[k] };
    let l0 = r.coords[last].max(lo(last));
    let l1 = r.coords[last].saturating_add(cdims[last]).min(hi(last));
    if l1 <= l0 {
        return Ok(());
    }
    let run = (l1 - l0) as usize * es;
    let mut odims = dims.to_vec();
    odims[0] = nrows;
    let mut c = vec![0u64; rank];
    c[last] = l0 - r.coords[last];
    let bad = || invalid(0, "chunk geometry does not fit the selection");
    loop {
        let mut ok = true;
        let mut src = 0u64;
        let mut dst = 0u64;
        for k in 0..rank {
            let g = r.coords[k].saturating_add(c[k]);
            if g < lo(k) || g >= hi(k) {
                ok = false;
                break;
            }
            src = src * cdims[k] + c[k];
            dst = dst * odims[k] + (g - lo(k));
        }
        if ok {
            let s = usize::try_from(src).map_err(|_| bad())? * es;
            let d = usize::try_from(dst).map_err(|_| bad())? * es;
            let from = chunk.get(s..s + run).ok_or_else(bad)?;
            out.get_mut(d..d + run)
                .ok_or_else(bad)?
                .copy_from_slice(from);
        }
        // Advance the odometer over all dims but the last.
        let mut k = last;
        loop {
            if k == 0 {
                return Ok(());
            }
            k -= 1;
            c[k] += 1;
            if c[k] < cdims[k] {
                break;
            }
            c[k] = 0;
            if k == 0 {
                return Ok(());
            }
        }
    }
}
