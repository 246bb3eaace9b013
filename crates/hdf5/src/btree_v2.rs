//! Version-2 B-trees: enumerate every record (dense links/attributes, chunk index).

use std::collections::HashSet;

use arrowsmith_core::Result;

use crate::checksum;
use crate::file::ctx::Ctx;
use crate::io::{invalid, limit_enc_size, Cur, UNDEF};

pub struct BTreeV2Header {
    pub kind: u8,
    pub record_size: usize,
}

/// All records of the tree, in key order.
pub fn records<'a>(ctx: &Ctx<'a>, addr: u64) -> Result<(BTreeV2Header, Vec<&'a [u8]>)> {
    let so = ctx.sb.so as u64;
    let sl = ctx.sb.sl as u64;
    let at = ctx.abs(addr)?;
    let hlen = 4 + 1 + 1 + 4 + 2 + 2 + 1 + 1 + so + 2 + sl + 4;
    let blk = ctx.read(addr, hlen, "v2 B-tree header")?;
    checksum::verify(blk, at, "v2 B-tree header")?;
    let mut c = Cur::new(blk, at, "v2 B-tree header", ctx.sb.so, ctx.sb.sl);
    c.sig(b"BTHD")?;
    c.u8()?;
    let kind = c.u8()?;
    let node_size = c.u32()? as usize;
    let rec = c.u16()? as usize;
    let depth = c.u16()? as usize;
    c.skip(2)?;
    let root = c.addr()?;
    let root_n = c.u16()? as usize;
    let _total = c.len()?;
    if rec == 0 || node_size < 10 + rec || depth > 64 || node_size as u64 > ctx.src.size() {
        return Err(invalid(
            at,
            "v2 B-tree header: bad node/record size or depth",
        ));
    }
    // Per-level sizes (H5B2__hdr_init).
    let leaf_max = (node_size - 10) / rec;
    let max_nrec_size = limit_enc_size(leaf_max as u64);
    let mut max_nrec = vec![leaf_max];
    let mut cum_max = vec![leaf_max as u64];
    let mut cum_size = vec![0usize];
    for u in 1..=depth {
        let ptr = ctx.sb.so as usize + max_nrec_size + if u > 1 { cum_size[u - 1] } else { 0 };
        let m = (node_size.saturating_sub(10 + ptr)) / (rec + ptr);
        max_nrec.push(m);
        let cm = (m as u64 + 1)
            .saturating_mul(cum_max[u - 1])
            .saturating_add(m as u64);
        cum_max.push(cm);
        cum_size.push(limit_enc_size(cm));
    }
    let hdr = BTreeV2Header {
        kind,
        record_size: rec,
    };
    let mut out = Vec::new();
    if root != UNDEF && root_n > 0 {
        let mut seen = HashSet::new();
        node(
            ctx,
            root,
            root_n,
            depth,
            rec,
            max_nrec_size,
            &cum_size,
            &mut seen,
            &mut out,
        )?;
    }
    Ok((hdr, out))
}

#[allow(clippy::too_many_arguments)]
fn node<'a>(
    ctx: &Ctx<'a>,
    addr: u64,
    n: usize,
    depth: usize,
    rec: usize,
    nrec_size: usize,
    cum_size: &[usize],
    seen: &mut HashSet<u64>,
    out: &mut Vec<&'a [u8]>,
) -> Result<()> {
    let at = ctx.abs(addr)?;
    if !seen.insert(addr) {
        return Err(invalid(at, "v2 B-tree: node visited twice (cycle)"));
    }
    let so = ctx.sb.so as usize;
    let ptr = if depth > 0 {
        so + nrec_size + if depth > 1 { cum_size[depth - 1] } else { 0 }
    } else {
        0
    };
    let len = 6 + n * rec + if depth > 0 { (n + 1) * ptr } else { 0 } + 4;
    let blk = ctx.read(addr, len as u64, "v2 B-tree node")?;
    checksum::verify(blk, at, "v2 B-tree node")?;
    let sig: &[u8; 4] = if depth > 0 { b"BTIN" } else { b"BTLF" };
    let mut c = Cur::new(blk, at, "v2 B-tree node", ctx.sb.so, ctx.sb.sl);
    c.sig(sig)?;
    c.skip(2)?;
    let recs = c.bytes(n * rec)?;
    if depth == 0 {
        out.extend(recs.chunks_exact(rec));
        return Ok(());
    }
    let mut children = Vec::with_capacity(n + 1);
    for _ in 0..=n {
        let a = c.addr()?;
        let cn = c.uvar(nrec_size)? as usize;
        if depth > 1 {
            c.uvar(cum_size[depth - 1])?;
        }
        children.push((a, cn));
    }
    for (i, (a, cn)) in children.into_iter().enumerate() {
        node(ctx, a, cn, depth - 1, rec, nrec_size, cum_size, seen, out)?;
        if i < n {
            out.push(&recs[i * rec..(i + 1) * rec]);
        }
    }
    Ok(())
}
