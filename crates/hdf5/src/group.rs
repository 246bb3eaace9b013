//! Group members: symbol tables (v1 B-tree + local heap + SNOD), link messages, and dense
//! links (fractal heap + v2 B-tree name index).

use arrowsmith_core::Result;

use crate::file::ctx::Ctx;
use crate::fractal_heap::FractalHeap;
use crate::io::{invalid, Cur, UNDEF};
use crate::local_heap::LocalHeap;
use crate::object_header::{ObjectHeader, MSG_LINK, MSG_LINK_INFO, MSG_SYMBOL_TABLE};
use crate::{btree_v1, btree_v2};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkTarget {
    Hard(u64),
    Soft(String),
    /// A link to the object at `path` in the file named `file` (as stored: often relative).
    External {
        file: String,
        path: String,
    },
    /// A user-defined link type (65–255), which only its plug-in understands.
    UserDefined(u8),
}

pub fn links(ctx: &Ctx, oh: &ObjectHeader) -> Result<Vec<(String, LinkTarget)>> {
    Ok(links_ordered(ctx, oh)?
        .0
        .into_iter()
        .map(|(n, t, _)| (n, t))
        .collect())
}

/// The links with their creation order (where stored), and whether the group tracks it
/// (link info message, flag 0): then viewers list the links in that order, else by name.
#[allow(clippy::type_complexity)]
pub fn links_ordered(
    ctx: &Ctx,
    oh: &ObjectHeader,
) -> Result<(Vec<(String, LinkTarget, Option<u64>)>, bool)> {
    let mut out = Vec::new();
    let mut tracked = false;
    if let Some(m) = oh.find(MSG_SYMBOL_TABLE) {
        let mut c = Cur::new(
            m.data,
            m.offset,
            "symbol table message",
            ctx.sb.so,
            ctx.sb.sl,
        );
        let btree = c.addr()?;
        let heap = LocalHeap::open(ctx, c.addr()?)?;
        let so = ctx.sb.so as u64;
        let entry = 2 * so + 24;
        for snod in btree_v1::group_leaves(ctx, btree)? {
            let at = ctx.abs(snod)?;
            let head = ctx.read(snod, 8, "symbol table node")?;
            if &head[..4] != b"SNOD" {
                return Err(invalid(at, "symbol table node: missing SNOD signature"));
            }
            let n = u16::from_le_bytes([head[6], head[7]]) as u64;
            let body = ctx.read(
                snod.saturating_add(8),
                n * entry,
                "symbol table node entries",
            )?;
            let mut c = Cur::new(body, at + 8, "symbol table entry", ctx.sb.so, ctx.sb.sl);
            for _ in 0..n {
                let name_off = c.addr()?;
                let addr = c.addr()?;
                let cache = c.u32()?;
                c.skip(4)?;
                let scratch = c.bytes(16)?;
                let name = String::from_utf8_lossy(heap.name(name_off)?).into_owned();
                let target = if cache == 2 {
                    let off = u32::from_le_bytes(scratch[..4].try_into().unwrap()) as u64;
                    LinkTarget::Soft(String::from_utf8_lossy(heap.name(off)?).into_owned())
                } else {
                    LinkTarget::Hard(addr)
                };
                out.push((name, target, None));
            }
        }
    }
    for m in oh.all(MSG_LINK) {
        out.push(parse_link(ctx, m.data, m.offset)?);
    }
    if let Some(m) = oh.find(MSG_LINK_INFO) {
        let mut c = Cur::new(m.data, m.offset, "link info message", ctx.sb.so, ctx.sb.sl);
        c.u8()?;
        let flags = c.u8()?;
        tracked = flags & 1 != 0;
        if flags & 1 != 0 {
            c.u64()?;
        }
        let heap = c.addr()?;
        let name_index = c.addr()?;
        if heap != UNDEF && name_index != UNDEF {
            let fh = FractalHeap::open(ctx, heap)?;
            let (h, recs) = btree_v2::records(ctx, name_index)?;
            if h.kind != 5 {
                return Err(invalid(
                    ctx.abs(name_index)?,
                    format!("link name index has record type {}", h.kind),
                ));
            }
            for r in recs {
                let obj = fh.get(ctx, &r[4..])?;
                out.push(parse_link(ctx, &obj, ctx.abs(heap)?)?);
            }
        }
    }
    Ok((out, tracked))
}

/// A link message: name, target and creation order (when stored).
pub fn parse_link(
    ctx: &Ctx,
    data: &[u8],
    offset: u64,
) -> Result<(String, LinkTarget, Option<u64>)> {
    let mut c = Cur::new(data, offset, "link message", ctx.sb.so, ctx.sb.sl);
    let v = c.u8()?;
    if v != 1 {
        return Err(crate::io::unsupported(
            offset,
            format!("link message version {v}"),
        ));
    }
    let flags = c.u8()?;
    let ty = if flags & 8 != 0 { c.u8()? } else { 0 };
    let crt = if flags & 4 != 0 { Some(c.u64()?) } else { None };
    if flags & 0x10 != 0 {
        c.u8()?;
    }
    let nlen = c.uvar(1 << (flags & 3))? as usize;
    let name = String::from_utf8_lossy(c.bytes(nlen)?).into_owned();
    let target = match ty {
        0 => LinkTarget::Hard(c.addr()?),
        1 => {
            let n = c.u16()? as usize;
            LinkTarget::Soft(String::from_utf8_lossy(c.bytes(n)?).into_owned())
        }
        64 => {
            let n = c.u16()? as usize;
            let at = c.off();
            external(c.bytes(n)?, at)?
        }
        t => LinkTarget::UserDefined(t),
    };
    Ok((name, target, crt))
}

/// An external link's value: a version/flags byte, then the file name and the object path,
/// each NUL-terminated.
fn external(v: &[u8], at: u64) -> Result<LinkTarget> {
    let bad = || invalid(at, "external link value is not a file name and a path");
    let (&head, rest) = v.split_first().ok_or_else(bad)?;
    if head >> 4 != 0 {
        return Err(crate::io::unsupported(
            at,
            format!("external link version {}", head >> 4),
        ));
    }
    let mut parts = rest.splitn(3, |&b| b == 0);
    let file = parts.next().filter(|f| !f.is_empty()).ok_or_else(bad)?;
    let path = parts.next().ok_or_else(bad)?;
    parts.next().ok_or_else(bad)?; // the path's NUL
    Ok(LinkTarget::External {
        file: String::from_utf8_lossy(file).into_owned(),
        path: String::from_utf8_lossy(path).into_owned(),
    })
}
