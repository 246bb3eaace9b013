//! A view of N variable-length cell headers inside raw element bytes.
//!
//! A cell is `u32 length, address (size of offsets), u32 object index`, every `stride`
//! bytes from `off`. Headers are read in place when needed rather than copied into
//! arrays: the batch reads each header twice (sizes, then payloads), and re-reading 16
//! bytes costs less than storing and reloading three columns of N values.

use arrowsmith_core::Result;

use crate::io::{invalid, le_uint, UNDEF};

pub struct Cells<'b> {
    bytes: &'b [u8],
    pub n: usize,
    stride: usize,
    off: usize,
    /// Size of offsets (2, 4 or 8).
    so: usize,
}

/// One decoded header: payload length in base elements, collection address (`UNDEF`
/// when all ones), object index.
#[derive(Clone, Copy)]
pub struct Cell {
    pub len: u32,
    pub addr: u64,
    pub idx: u32,
}

impl Cell {
    /// A 16-byte header with 8-byte offsets.
    #[inline(always)]
    pub fn packed(h: &[u8; 16]) -> Cell {
        let [l0, l1, l2, l3, a0, a1, a2, a3, a4, a5, a6, a7, i0, i1, i2, i3] = *h;
        Cell {
            len: u32::from_le_bytes([l0, l1, l2, l3]),
            addr: u64::from_le_bytes([a0, a1, a2, a3, a4, a5, a6, a7]),
            idx: u32::from_le_bytes([i0, i1, i2, i3]),
        }
    }

    /// Address 0 or undefined: a null value, no payload.
    #[inline]
    pub fn is_null(&self) -> bool {
        self.addr == 0 || self.addr == UNDEF
    }
}

impl<'b> Cells<'b> {
    /// Checks once that every header lies inside `bytes`.
    pub fn new(bytes: &'b [u8], n: usize, stride: usize, off: usize, so: usize) -> Result<Self> {
        let cell = 8 + so;
        let last_end = n.checked_sub(1).map(|l| {
            l.checked_mul(stride)
                .and_then(|x| x.checked_add(off + cell))
        });
        if let Some(end) = last_end {
            // Also covers n * 16 + off for packed cells (stride = cell = 16).
            if end.is_none_or(|e| e > bytes.len()) {
                return Err(invalid(0, "variable-length cells past the raw data"));
            }
        }
        Ok(Cells {
            bytes,
            n,
            stride,
            off,
            so,
        })
    }

    /// Call `f(i, cell)` for every cell in order, stopping at the first error. Cells packed
    /// back to back with 8-byte offsets (plain VL datasets) take a loop over 16-byte
    /// records without per-field bounds checks.
    #[inline(always)]
    pub fn try_for_each<E>(
        &self,
        mut f: impl FnMut(usize, Cell) -> Result<(), E>,
    ) -> Result<(), E> {
        if self.so == 8 && self.stride == 16 {
            // In bounds: `new` checked (n - 1) * 16 + off + 16 <= bytes.len().
            let packed = &self.bytes[self.off..self.off + self.n * 16];
            for (i, h) in packed.chunks_exact(16).enumerate() {
                f(i, Cell::packed(h.try_into().unwrap()))?;
            }
            return Ok(());
        }
        (0..self.n).try_for_each(|i| f(i, self.get(i)))
    }

    /// The headers as one slice of 16-byte records when packed with 8-byte offsets (plain
    /// VL datasets), for loops that want no per-cell closure call.
    pub fn packed(&self) -> Option<&'b [u8]> {
        // In bounds: `new` checked (n - 1) * 16 + off + 16 <= bytes.len().
        (self.so == 8 && self.stride == 16).then(|| &self.bytes[self.off..self.off + self.n * 16])
    }

    #[inline(always)]
    pub fn get(&self, i: usize) -> Cell {
        let p = i * self.stride + self.off;
        let so = self.so;
        let h = &self.bytes[p..p + 8 + so];
        let a = &h[4..4 + so];
        Cell {
            len: u32::from_le_bytes(h[0..4].try_into().unwrap()),
            // With 8-byte offsets all ones already reads as UNDEF.
            addr: if so == 8 || a.iter().any(|&b| b != 0xff) {
                le_uint(a)
            } else {
                UNDEF
            },
            idx: u32::from_le_bytes(h[4 + so..8 + so].try_into().unwrap()),
        }
    }
}
