//! Dataspace message (v1, v2): scalar, simple, null.

use arrowsmith_core::Result;

use crate::io::{unsupported, Cur};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dataspace {
    /// Empty for scalar.
    pub dims: Vec<u64>,
    /// `None` = unlimited.
    pub maxdims: Vec<Option<u64>>,
    /// The null dataspace (no elements).
    pub null: bool,
}

impl Dataspace {
    pub fn parse(c: &mut Cur) -> Result<Dataspace> {
        let at = c.off();
        let version = c.u8()?;
        let rank = c.u8()? as usize;
        let flags = c.u8()?;
        let mut null = false;
        match version {
            1 => {
                c.skip(5)?;
            }
            2 => {
                let ty = c.u8()?;
                null = ty == 2;
            }
            v => return Err(unsupported(at, format!("dataspace version {v}"))),
        }
        if rank > 32 {
            return Err(c.invalid(format!("rank {rank}")));
        }
        let mut dims = Vec::with_capacity(rank);
        for _ in 0..rank {
            dims.push(c.len()?);
        }
        let mut maxdims = Vec::with_capacity(rank);
        if flags & 1 != 0 {
            for _ in 0..rank {
                let m = c.len()?;
                let all_ones =
                    c.sl == 8 && m == u64::MAX || c.sl < 8 && m == (1u64 << (8 * c.sl as u32)) - 1;
                maxdims.push(if all_ones { None } else { Some(m) });
            }
        } else {
            maxdims = dims.iter().map(|&d| Some(d)).collect();
        }
        Ok(Dataspace {
            dims,
            maxdims,
            null,
        })
    }

    pub fn num_elements(&self) -> Option<u64> {
        if self.null {
            return Some(0);
        }
        self.dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d))
    }
}
