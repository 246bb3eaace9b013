//! Copying the selected elements that lie in one block of a dataset (a decoded chunk, a
//! span of contiguous data, rows of a virtual dataset) into the selection's bytes.

use std::ops::Range;

use arrowsmith_core::Result;

use crate::hyperslab::Slab;
use crate::io::invalid;

/// A block of the dataset: its origin and extent (row-major), and the bytes holding it
/// from element `skip` of the block on.
pub(crate) struct Block<'a> {
    pub org: &'a [u64],
    pub dims: &'a [u64],
    pub skip: u64,
    pub data: &'a [u8],
}

/// Copy the elements of `slab` inside `b` into `out` (row-major over `slab.count`).
/// Trailing dimensions that both sides hold whole merge into one run (a chunk of whole
/// rows is one memcpy per row band); a step in the last dimension copies element-wise.
pub(crate) fn copy_block(out: &mut [u8], b: &Block, slab: &Slab, es: usize) -> Result<()> {
    let bad = || invalid(0, "chunk geometry does not fit the selection");
    let rank = b.dims.len();
    if rank == 0 {
        // A scalar: its one element, if selected.
        let n = out.len().min(es);
        let from = b.data.get(..n).ok_or_else(bad)?;
        out[..n].copy_from_slice(from);
        return Ok(());
    }
    let win: Vec<Range<u64>> = (0..rank)
        .map(|k| slab.within(k, b.org[k], b.org[k].saturating_add(b.dims[k])))
        .collect();
    if win.iter().any(|w| w.is_empty()) {
        return Ok(());
    }
    // Element strides of the block and of the output.
    let mut bstr = vec![1u64; rank];
    let mut ostr = vec![1u64; rank];
    for k in (0..rank - 1).rev() {
        bstr[k] = bstr[k + 1].saturating_mul(b.dims[k + 1]);
        ostr[k] = ostr[k + 1].saturating_mul(slab.count[k + 1]);
    }
    let last = rank - 1;
    // The run: dimensions m..=last, contiguous on both sides.
    let mut m = last;
    let strided = slab.step[last] != 1;
    if !strided {
        while m > 0 && slab.step[m - 1] == 1 && {
            let w = &win[m];
            w.start == 0 && w.end == slab.count[m] && slab.count[m] == b.dims[m]
        } {
            m -= 1;
        }
    }
    let run_elems = if strided {
        1
    } else {
        (win[m].end - win[m].start).saturating_mul(ostr[m])
    };
    let run = usize::try_from(run_elems.saturating_mul(es as u64)).map_err(|_| bad())?;
    // Position in the selection of every dimension before the run.
    let mut p: Vec<u64> = win.iter().map(|w| w.start).collect();
    let to_usize = |v: u64| usize::try_from(v).map_err(|_| bad());
    loop {
        let mut src = 0u64;
        let mut dst = 0u64;
        for k in 0..rank {
            let g = slab.start[k] + p[k] * slab.step[k] - b.org[k];
            src = src.saturating_add(g.saturating_mul(bstr[k]));
            dst = dst.saturating_add(p[k].saturating_mul(ostr[k]));
        }
        let s = to_usize(src.checked_sub(b.skip).ok_or_else(bad)?)? * es;
        let d = to_usize(dst)? * es;
        if strided {
            let n = to_usize(win[last].end - win[last].start)?;
            let st = to_usize(slab.step[last])? * es;
            let need = (n - 1) * st + es;
            let from = b.data.get(s..s + need).ok_or_else(bad)?;
            let to = out.get_mut(d..d + n * es).ok_or_else(bad)?;
            for (i, o) in to.chunks_exact_mut(es).enumerate() {
                o.copy_from_slice(&from[i * st..i * st + es]);
            }
        } else {
            let from = b.data.get(s..s + run).ok_or_else(bad)?;
            out.get_mut(d..d + run)
                .ok_or_else(bad)?
                .copy_from_slice(from);
        }
        // Advance the odometer over the dimensions before the run.
        let mut k = if strided { last } else { m };
        loop {
            if k == 0 {
                return Ok(());
            }
            k -= 1;
            p[k] += 1;
            if p[k] < win[k].end {
                break;
            }
            p[k] = win[k].start;
        }
    }
}
