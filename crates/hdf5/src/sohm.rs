//! Shared object header messages (SOHM, `H5Pset_shared_mesg_*`, `h5repack -s`): a message
//! kept once in a fractal heap and pointed to from every object header that uses it. The
//! superblock extension's Shared Message Table message names the table (`SMTB`); each of
//! its indexes covers some message types and has its own heap. A pointer (shared message
//! v3, type 1) holds the heap ID, which is all a read needs: the index (a list or a v2
//! B-tree of hashes) only serves writers looking for a message to share.

use arrowsmith_core::Result;

use crate::checksum;
use crate::file::ctx::Ctx;
use crate::fractal_heap::FractalHeap;
use crate::io::{invalid, unsupported, Cur, UNDEF};
use crate::object_header::{
    ObjectHeader, MSG_ATTRIBUTE, MSG_DATASPACE, MSG_DATATYPE, MSG_FILL, MSG_FILTERS,
};

/// Superblock extension message: the shared message table.
const MSG_SOHM_TABLE: u16 = 0x000F;
/// Indexes a table may hold (libhdf5: `H5O_SHMESG_MAX_NINDEXES`).
const MAX_INDEXES: usize = 8;

/// The bit of a message type in an index's type flags (`H5O_SHMESG_*_FLAG`: 1 << type).
fn type_flag(kind: u16) -> Option<u16> {
    matches!(
        kind,
        MSG_DATASPACE | MSG_DATATYPE | MSG_FILL | MSG_FILTERS | MSG_ATTRIBUTE
    )
    .then(|| 1 << kind)
}

/// Whether `data` (a message flagged shared) is a pointer into the SOHM heap.
pub fn in_heap(data: &[u8]) -> bool {
    data.len() >= 2 && data[0] == 3 && data[1] == 1
}

/// The body of the `kind` message that the shared-message pointer `data` (v3, type 1:
/// an 8-byte heap ID) names.
pub fn resolve<'a>(ctx: &Ctx<'a>, kind: u16, data: &'a [u8], offset: u64) -> Result<&'a [u8]> {
    let id = data
        .get(2..10)
        .ok_or_else(|| invalid(offset, "shared message: heap ID too short"))?;
    let flag = type_flag(kind).ok_or_else(|| {
        invalid(
            offset,
            format!("message type {kind} is flagged shared but cannot be"),
        )
    })?;
    let heap = heap_for(ctx, flag, offset)?;
    match FractalHeap::open(ctx, heap)?.get(ctx, id)? {
        std::borrow::Cow::Borrowed(b) => Ok(b),
        std::borrow::Cow::Owned(_) => Err(unsupported(
            offset,
            "shared object header message in a filtered heap object",
        )),
    }
}

/// The heap address of the index that holds messages of type bit `flag`.
fn heap_for(ctx: &Ctx, flag: u16, offset: u64) -> Result<u64> {
    let none = || {
        invalid(
            offset,
            "shared object header message, but the file has no shared message table",
        )
    };
    if ctx.sb.ext == UNDEF {
        return Err(none());
    }
    // The extension's own messages are never shared: no resolving there (and no cycle).
    let ext = ObjectHeader::parse_unshared(ctx, ctx.sb.ext)?;
    let m = ext.find(MSG_SOHM_TABLE).ok_or_else(none)?;
    let mut c = Cur::new(
        m.data,
        m.offset,
        "shared message table message",
        ctx.sb.so,
        ctx.sb.sl,
    );
    let version = c.u8()?;
    if version != 0 {
        return Err(unsupported(
            m.offset,
            format!("shared message table message version {version}"),
        ));
    }
    let table = c.addr()?;
    let n = c.u8()? as usize;
    if n > MAX_INDEXES {
        return Err(invalid(
            m.offset,
            format!("shared message table with {n} indexes"),
        ));
    }
    let so = ctx.sb.so as u64;
    let entry = 1 + 1 + 2 + 4 + 2 + 2 + 2 + 2 * so;
    let len = 4 + n as u64 * entry + 4;
    let b = ctx.read(table, len, "shared message table (SMTB)")?;
    let at = ctx.abs(table)?;
    let mut c = Cur::new(b, at, "shared message table", ctx.sb.so, ctx.sb.sl);
    c.sig(b"SMTB")?;
    checksum::verify(b, at, "shared message table")?;
    for _ in 0..n {
        c.u8()?; // version
        c.u8()?; // index type: list or v2 B-tree (not needed to read)
        let flags = c.u16()?;
        c.skip(4 + 2 + 2 + 2)?;
        c.addr()?; // index
        let heap = c.addr()?;
        if flags & flag != 0 {
            return Ok(heap);
        }
    }
    Err(invalid(
        offset,
        "shared object header message of a type no shared message index holds",
    ))
}
