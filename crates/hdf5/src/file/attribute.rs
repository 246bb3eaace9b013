//! Attributes: compact (attribute messages) and dense (fractal heap + v2 B-tree).

use arrowsmith_core::{ByteSource, Column, Result};

use crate::btree_v2;
use crate::dataspace::Dataspace;
use crate::datatype::Datatype;
use crate::decode::{decode, fixed_size_lists};
use crate::file::ctx::Ctx;
use crate::file::Hdf5File;
use crate::fractal_heap::FractalHeap;
use crate::io::{unsupported, Cur, UNDEF};
use crate::object_header::{
    ObjectHeader, MSG_ATTRIBUTE, MSG_ATTR_INFO, MSG_DATASPACE, MSG_DATATYPE,
};
use crate::vlen::VlReader;

pub struct RawAttribute {
    pub name: String,
    pub dtype: Datatype,
    pub space: Dataspace,
    pub data: Vec<u8>,
    /// Its creation order, where the object tracks it.
    pub crt: Option<u32>,
}

/// Whether the object tracks its attributes' creation order (attribute info message, flag 0):
/// then viewers list them in that order, else by name.
pub fn creation_order_tracked(oh: &ObjectHeader) -> bool {
    oh.find(MSG_ATTR_INFO)
        .is_some_and(|m| m.data.get(1).is_some_and(|f| f & 1 != 0))
}

pub fn attributes(ctx: &Ctx, oh: &ObjectHeader) -> Result<Vec<RawAttribute>> {
    let mut out = Vec::new();
    for m in oh.all(MSG_ATTRIBUTE) {
        let mut a = parse(ctx, m.data, m.offset)?;
        a.crt = m.crt.map(u32::from);
        out.push(a);
    }
    if let Some(m) = oh.find(MSG_ATTR_INFO) {
        let mut c = Cur::new(
            m.data,
            m.offset,
            "attribute info message",
            ctx.sb.so,
            ctx.sb.sl,
        );
        c.u8()?;
        let flags = c.u8()?;
        if flags & 1 != 0 {
            c.u16()?;
        }
        let heap = c.addr()?;
        let names = c.addr()?;
        if heap != UNDEF && names != UNDEF {
            let fh = FractalHeap::open(ctx, heap)?;
            let (_, recs) = btree_v2::records(ctx, names)?;
            let at = ctx.abs(heap)?;
            for r in recs {
                let obj = fh.get(ctx, &r[..8.min(r.len())])?;
                let mut a = parse(ctx, &obj, at)?;
                // Name index record (type 8): heap id (8), message flags (1), creation order (4), hash (4).
                a.crt = r
                    .get(9..13)
                    .map(|b| u32::from_le_bytes(b.try_into().unwrap()));
                out.push(a);
            }
        }
    }
    Ok(out)
}

/// A datatype message body, following a shared (committed) datatype when flagged.
pub fn datatype(ctx: &Ctx, data: &[u8], offset: u64, shared: bool) -> Result<Datatype> {
    let mut c = Cur::new(data, offset, "datatype message", ctx.sb.so, ctx.sb.sl);
    if !shared {
        return Datatype::parse(&mut c);
    }
    if crate::sohm::in_heap(data) {
        let body = crate::sohm::resolve(ctx, MSG_DATATYPE, data, offset)?;
        return Datatype::parse(&mut Cur::new(
            body,
            offset,
            "shared datatype message",
            ctx.sb.so,
            ctx.sb.sl,
        ));
    }
    let v = c.u8()?;
    let _ty = c.u8()?;
    if v == 1 {
        c.skip(6)?;
    }
    let addr = c.addr()?;
    let oh = ObjectHeader::parse(ctx, addr)?;
    let m = oh.find(MSG_DATATYPE).ok_or_else(|| {
        crate::io::invalid(offset, "committed datatype without a datatype message")
    })?;
    if m.flags & 2 != 0 {
        return Err(unsupported(
            m.offset,
            "committed datatype that is itself shared",
        ));
    }
    Datatype::parse(&mut Cur::new(
        m.data,
        m.offset,
        "datatype message",
        ctx.sb.so,
        ctx.sb.sl,
    ))
}

fn parse(ctx: &Ctx, data: &[u8], offset: u64) -> Result<RawAttribute> {
    let mut c = Cur::new(data, offset, "attribute message", ctx.sb.so, ctx.sb.sl);
    let v = c.u8()?;
    let flags = c.u8()?;
    let nlen = c.u16()? as usize;
    let tlen = c.u16()? as usize;
    let slen = c.u16()? as usize;
    if v == 3 {
        c.u8()?;
    } else if v != 1 && v != 2 {
        return Err(unsupported(
            offset,
            format!("attribute message version {v}"),
        ));
    }
    let pad = |n: usize| if v == 1 { n.div_ceil(8) * 8 } else { n };
    let name_b = c.bytes(pad(nlen))?;
    let name =
        String::from_utf8_lossy(&name_b[..nlen.saturating_sub(1).min(name_b.len())]).into_owned();
    let toff = c.off();
    let tb = c.bytes(pad(tlen))?;
    let dtype = datatype(ctx, &tb[..tlen.min(tb.len())], toff, flags & 1 != 0)?;
    let soff = c.off();
    let sb = c.bytes(pad(slen))?;
    let sb = if flags & 2 == 0 {
        sb
    } else if crate::sohm::in_heap(sb) {
        crate::sohm::resolve(ctx, MSG_DATASPACE, sb, soff)?
    } else {
        return Err(unsupported(
            offset,
            "attribute whose dataspace is shared in another object header",
        ));
    };
    let space = Dataspace::parse(&mut Cur::new(
        sb,
        soff,
        "attribute dataspace",
        ctx.sb.so,
        ctx.sb.sl,
    ))?;
    let n = space.num_elements().unwrap_or(u64::MAX);
    let need = n.saturating_mul(dtype.size() as u64);
    if need > c.remaining() as u64 {
        return Err(c.trunc(need.min(usize::MAX as u64) as usize));
    }
    let data = c.bytes(need as usize)?.to_vec();
    Ok(RawAttribute {
        name,
        dtype,
        space,
        data,
        crt: None,
    })
}

impl Hdf5File {
    /// Attributes of the object at `path`: one column each (rows = first dimension,
    /// one row for scalars; compound → Struct).
    pub fn attrs(&self, src: &dyn ByteSource, path: &str) -> Result<Vec<(String, Column)>> {
        let ctx = self.ctx(src);
        let addr = self.resolve(&ctx, path, 0)?;
        let oh = ObjectHeader::parse(&ctx, addr)?;
        let mut out = Vec::new();
        for a in attributes(&ctx, &oh)? {
            let n = a.space.num_elements().unwrap_or(0) as usize;
            let mut vl = VlReader::new(&ctx, &self.gcol, self.max_read_bytes);
            let col = decode(&mut vl, &a.dtype, &a.data, n, a.dtype.size(), 0)?;
            let col = if a.space.dims.len() > 1 {
                fixed_size_lists(col, &a.space.dims[1..], a.space.dims[0] as usize)
            } else {
                col
            };
            out.push((a.name, col));
        }
        Ok(out)
    }
}
