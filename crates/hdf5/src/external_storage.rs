//! External Data Files message (0x0007, `H5Pset_external`): a contiguous dataset whose raw
//! data lives in other files, as a list of (file name, offset in it, bytes) slots; the
//! names are in a local heap.

use arrowsmith_core::Result;

use crate::ctx::Ctx;
use crate::io::{invalid, unsupported, Cur};
use crate::local_heap::LocalHeap;
use crate::object_header::Message;

/// One slot: `size` bytes of the dataset's raw data at `offset` in the file `name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalSlot {
    pub name: String,
    pub offset: u64,
    pub size: u64,
}

pub fn parse(ctx: &Ctx, m: &Message) -> Result<Vec<ExternalSlot>> {
    let mut c = Cur::new(
        m.data,
        m.offset,
        "external data files message",
        ctx.sb.so,
        ctx.sb.sl,
    );
    let version = c.u8()?;
    if version != 1 {
        return Err(unsupported(
            m.offset,
            format!("external data files message version {version}"),
        ));
    }
    c.skip(3)?;
    let _allocated = c.u16()?;
    let used = c.u16()? as usize;
    let heap = LocalHeap::open(ctx, c.addr()?)?;
    let mut out = Vec::with_capacity(used.min(c.remaining()));
    for _ in 0..used {
        let name = heap.name(c.len()?)?;
        let offset = c.len()?;
        let size = c.len()?;
        if name.is_empty() {
            return Err(invalid(m.offset, "external data file with an empty name"));
        }
        out.push(ExternalSlot {
            name: String::from_utf8_lossy(name).into_owned(),
            offset,
            size,
        });
    }
    Ok(out)
}

/// The `Unsupported` error of a read through external storage, naming the files.
pub fn refusal(at: u64, slots: &[ExternalSlot]) -> arrowsmith_core::DecodeError {
    let mut names: Vec<&str> = slots.iter().map(|s| s.name.as_str()).collect();
    names.dedup();
    unsupported(
        at,
        format!(
            "external storage (raw data in other files: {})",
            names.join(", ")
        ),
    )
}
