//! Object headers v1 and v2 with continuation blocks (checksummed in v2); cycles rejected.

use std::collections::HashSet;

use arrowsmith_core::Result;

use crate::checksum;
use crate::file::ctx::Ctx;
use crate::io::{invalid, unsupported, Cur, UNDEF};
use crate::sohm;

pub const MSG_DATASPACE: u16 = 0x1;
pub const MSG_LINK_INFO: u16 = 0x2;
pub const MSG_DATATYPE: u16 = 0x3;
pub const MSG_FILL_OLD: u16 = 0x4;
pub const MSG_FILL: u16 = 0x5;
pub const MSG_LINK: u16 = 0x6;
pub const MSG_EXTERNAL: u16 = 0x7;
pub const MSG_LAYOUT: u16 = 0x8;
pub const MSG_FILTERS: u16 = 0xB;
pub const MSG_ATTRIBUTE: u16 = 0xC;
pub const MSG_CONTINUATION: u16 = 0x10;
pub const MSG_SYMBOL_TABLE: u16 = 0x11;
pub const MSG_ATTR_INFO: u16 = 0x15;

#[derive(Debug, Clone)]
pub struct Message<'a> {
    pub kind: u16,
    pub flags: u8,
    pub data: &'a [u8],
    /// File offset of `data`.
    pub offset: u64,
    /// The message's creation order (v2 headers that track attributes' creation order).
    pub crt: Option<u16>,
}

#[derive(Debug, Clone)]
pub struct ObjectHeader<'a> {
    /// 1 = v1 header, 2 = v2 (OHDR).
    #[cfg_attr(not(test), allow(dead_code))] // the structure tests check it
    pub version: u8,
    /// Header blocks read: the first chunk plus every continuation block.
    #[cfg_attr(not(test), allow(dead_code))] // the structure tests check it
    pub blocks: usize,
    pub messages: Vec<Message<'a>>,
}

/// Bound on continuation blocks per header (each one is a separate read; a cycle is caught
/// by the visited set, this bounds pathological chains).
const MAX_BLOCKS: usize = 4096;

impl<'a> ObjectHeader<'a> {
    /// The header at `addr`, messages kept in the shared message heap read from there.
    pub fn parse(ctx: &Ctx<'a>, addr: u64) -> Result<ObjectHeader<'a>> {
        Self::parse_with(ctx, addr, true)
    }

    /// The header at `addr` as stored (shared-message pointers left as they are): the
    /// superblock extension's, which says where the shared messages are.
    pub fn parse_unshared(ctx: &Ctx<'a>, addr: u64) -> Result<ObjectHeader<'a>> {
        Self::parse_with(ctx, addr, false)
    }

    fn parse_with(ctx: &Ctx<'a>, addr: u64, shared: bool) -> Result<ObjectHeader<'a>> {
        if addr == UNDEF {
            return Err(invalid(0, "object header at undefined address"));
        }
        let abs = ctx.abs(addr)?;
        let first = ctx.read(
            addr,
            16.min(ctx.src.size().saturating_sub(abs)),
            "object header",
        )?;
        let mut messages = Vec::new();
        let mut seen = HashSet::new();
        seen.insert(addr);
        let mut pending: Vec<(u64, u64)> = Vec::new();
        let v2 = first.len() >= 4 && &first[..4] == b"OHDR";
        if v2 {
            let pre = ctx.read(addr, 6, "object header v2")?;
            let flags = pre[5];
            if pre[4] != 2 {
                return Err(unsupported(
                    abs,
                    format!("object header version {}", pre[4]),
                ));
            }
            let mut hlen =
                6 + if flags & 0x20 != 0 { 16 } else { 0 } + if flags & 0x10 != 0 { 4 } else { 0 };
            let wsize = 1usize << (flags & 3);
            let head = ctx.read(addr, (hlen + wsize) as u64, "object header v2")?;
            let mut c = Cur::new(head, abs, "object header v2", ctx.sb.so, ctx.sb.sl);
            c.skip(hlen)?;
            let chunk0 = c.uvar(wsize)?;
            hlen += wsize;
            let total = ctx.read(
                addr,
                (hlen as u64).saturating_add(chunk0).saturating_add(4),
                "object header v2 chunk 0",
            )?;
            checksum::verify(total, abs, "object header v2")?;
            let body = &total[hlen..total.len() - 4];
            parse_v2_messages(
                ctx,
                body,
                abs + hlen as u64,
                (flags, shared),
                &mut messages,
                &mut pending,
            )?;
            while let Some((a, l)) = pending.pop() {
                if !seen.insert(a) || seen.len() > MAX_BLOCKS {
                    return Err(invalid(ctx.abs(a)?, "object header continuation cycle"));
                }
                let blk = ctx.read(a, l, "object header continuation (OCHK)")?;
                let babs = ctx.abs(a)?;
                if l < 8 || &blk[..4] != b"OCHK" {
                    return Err(invalid(
                        babs,
                        "object header continuation: missing OCHK signature",
                    ));
                }
                checksum::verify(blk, babs, "object header continuation")?;
                parse_v2_messages(
                    ctx,
                    &blk[4..blk.len() - 4],
                    babs + 4,
                    (flags, shared),
                    &mut messages,
                    &mut pending,
                )?;
            }
        } else {
            let head = ctx.read(addr, 16, "object header v1")?;
            if head[0] != 1 {
                // Version 1 is the only header without a signature: anything else here is
                // not an object header (a wrong address, damaged bytes).
                return Err(invalid(
                    abs,
                    format!(
                        "no object header here (neither OHDR nor version 1: first byte {})",
                        head[0]
                    ),
                ));
            }
            let nmsg = u16::from_le_bytes([head[2], head[3]]) as usize;
            let size = u32::from_le_bytes(head[8..12].try_into().unwrap()) as u64;
            pending.push((addr.saturating_add(16), size));
            let mut first = true;
            while let Some((a, l)) = pending.pop() {
                if !first && (!seen.insert(a) || seen.len() > MAX_BLOCKS) {
                    return Err(invalid(ctx.abs(a)?, "object header continuation cycle"));
                }
                first = false;
                let blk = ctx.read(a, l, "object header v1 messages")?;
                let babs = ctx.abs(a)?;
                let mut c = Cur::new(blk, babs, "object header v1 message", ctx.sb.so, ctx.sb.sl);
                while c.remaining() >= 8 {
                    let kind = c.u16()?;
                    let size = c.u16()? as usize;
                    let flags = c.u8()?;
                    c.skip(3)?;
                    let off = c.off();
                    let data = c.bytes(size)?;
                    push(
                        ctx,
                        (kind, flags, shared, None),
                        data,
                        off,
                        &mut messages,
                        &mut pending,
                    )?;
                    if messages.len() > nmsg.max(1) * 2 + 65536 {
                        return Err(invalid(off, "object header: too many messages"));
                    }
                }
            }
        }
        Ok(ObjectHeader {
            version: if v2 { 2 } else { 1 },
            blocks: seen.len(),
            messages,
        })
    }

    pub fn find(&self, kind: u16) -> Option<&Message<'a>> {
        self.messages.iter().find(|m| m.kind == kind)
    }

    pub fn all(&self, kind: u16) -> impl Iterator<Item = &Message<'a>> {
        self.messages.iter().filter(move |m| m.kind == kind)
    }
}

fn parse_v2_messages<'a>(
    ctx: &Ctx<'a>,
    body: &'a [u8],
    base: u64,
    (flags, shared): (u8, bool),
    out: &mut Vec<Message<'a>>,
    pending: &mut Vec<(u64, u64)>,
) -> Result<()> {
    let hsize = 4 + if flags & 0x04 != 0 { 2 } else { 0 };
    let mut c = Cur::new(body, base, "object header v2 message", ctx.sb.so, ctx.sb.sl);
    while c.remaining() >= hsize {
        let kind = c.u8()? as u16;
        let size = c.u16()? as usize;
        let mflags = c.u8()?;
        let crt = if flags & 0x04 != 0 {
            Some(c.u16()?)
        } else {
            None
        };
        let off = c.off();
        let data = c.bytes(size)?;
        push(ctx, (kind, mflags, shared, crt), data, off, out, pending)?;
    }
    Ok(())
}

/// One message: `(kind, flags, resolve shared messages, creation order)`.
fn push<'a>(
    ctx: &Ctx<'a>,
    (kind, flags, shared, crt): (u16, u8, bool, Option<u16>),
    data: &'a [u8],
    offset: u64,
    out: &mut Vec<Message<'a>>,
    pending: &mut Vec<(u64, u64)>,
) -> Result<()> {
    if kind == MSG_CONTINUATION {
        let mut c = Cur::new(data, offset, "continuation message", ctx.sb.so, ctx.sb.sl);
        let a = c.addr()?;
        let l = c.len()?;
        if a == UNDEF || l > ctx.src.size() {
            return Err(invalid(
                offset,
                "continuation message: bad address or length",
            ));
        }
        pending.push((a, l));
    } else if kind != 0 {
        // A message kept in the shared message heap: its body is read from there, and it
        // is then an ordinary message (flag cleared).
        let (data, flags) = if shared && flags & 2 != 0 && sohm::in_heap(data) {
            (sohm::resolve(ctx, kind, data, offset)?, flags & !2)
        } else {
            (data, flags)
        };
        out.push(Message {
            kind,
            flags,
            data,
            offset,
            crt,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::superblock::open_fixture;

    #[test]
    fn object_header_continuations() {
        for (lv, version) in [("earliest", 1), ("v108", 2), ("v110", 2), ("latest", 2)] {
            let (b, f) = open_fixture(&format!("vl_{lv}"));
            let ctx = Ctx {
                src: &b,
                sb: &f.superblock,
            };
            let mut continued = 0;
            for e in f
                .list(&b, "/")
                .unwrap()
                .into_iter()
                .filter(|e| e.name == "cont" || e.name == "cont_many")
            {
                let oh = ObjectHeader::parse(&ctx, e.addr).unwrap();
                assert_eq!(oh.version, version, "{lv}");
                continued += (oh.blocks >= 2) as usize;
                let n = f.attrs(&b, &format!("/{}", e.name)).unwrap().len();
                assert_eq!(n, if e.name == "cont" { 8 } else { 40 }, "{lv}");
            }
            assert!(continued > 0, "{lv}: no header with a continuation block");
        }
    }
}
