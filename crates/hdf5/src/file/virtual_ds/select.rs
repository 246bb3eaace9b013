//! Serialized dataspace selections (`H5S_select_serialize`): none, all, points and
//! hyperslabs (regular ones as start/stride/count/block, irregular ones as block lists), as a
//! virtual dataset's mappings store them. Every count is checked against the bytes left
//! before anything is sized from it.

use arrowsmith_core::Result;

use crate::io::{unsupported, Cur};

/// `H5S_UNLIMITED` (a count or block that grows with the source).
pub const UNLIMITED: u64 = u64::MAX;
/// Ranks above this are invalid (HDF5's `H5S_MAX_RANK`).
const MAX_RANK: usize = 32;

/// One dimension of a regular hyperslab: `count` blocks of `block` elements, `stride` apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dim {
    pub start: u64,
    pub stride: u64,
    pub count: u64,
    pub block: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    None,
    All,
    /// A regular hyperslab (an irregular block list that is one is read as it).
    Regular(Vec<Dim>),
    /// Anything else, named for the error that refuses it.
    Other(&'static str),
}

impl Selection {
    pub fn parse(c: &mut Cur) -> Result<Selection> {
        let at = c.off();
        let ty = c.u32()?;
        let version = c.u32()?;
        let bad_version = || unsupported(at, format!("selection type {ty} version {version}"));
        match ty {
            0 | 3 => {
                if version != 1 {
                    return Err(bad_version());
                }
                c.skip(8)?; // reserved, length (0)
                Ok(if ty == 0 {
                    Selection::None
                } else {
                    Selection::All
                })
            }
            1 => {
                // Points: parsed (bounded) only to be refused by name.
                let (enc, rank) = match version {
                    1 => {
                        c.skip(8)?;
                        (4, c.u32()? as usize)
                    }
                    2 => {
                        let enc = enc_size(c, at)?;
                        (enc, c.u32()? as usize)
                    }
                    _ => return Err(bad_version()),
                };
                check_rank(c, rank)?;
                let n = c.uvar(enc)?;
                skip_items(c, n, rank as u64, enc)?;
                Ok(Selection::Other("a point selection"))
            }
            2 => hyperslab(c, at, version),
            t => Err(c.invalid(format!("selection type {t}"))),
        }
    }
}

fn enc_size(c: &mut Cur, at: u64) -> Result<usize> {
    match c.u8()? {
        e @ (2 | 4 | 8) => Ok(e as usize),
        e => Err(crate::io::invalid(
            at,
            format!("selection encoding size {e}"),
        )),
    }
}

fn check_rank(c: &Cur, rank: usize) -> Result<()> {
    if rank == 0 || rank > MAX_RANK {
        return Err(c.invalid(format!("selection rank {rank}")));
    }
    Ok(())
}

/// Skip `n` items of `per` values of `enc` bytes, failing if the bytes are not there.
fn skip_items(c: &mut Cur, n: u64, per: u64, enc: usize) -> Result<()> {
    let bytes = n
        .checked_mul(per)
        .and_then(|v| v.checked_mul(enc as u64))
        .filter(|&b| b <= c.remaining() as u64)
        .ok_or_else(|| c.trunc(c.remaining().saturating_add(1)))?;
    c.skip(bytes as usize)
}

/// A value of `enc` bytes where all ones means unlimited.
fn value(c: &mut Cur, enc: usize) -> Result<u64> {
    let v = c.uvar(enc)?;
    Ok(if enc < 8 && v == (1u64 << (enc * 8)) - 1 {
        UNLIMITED
    } else {
        v
    })
}

fn hyperslab(c: &mut Cur, at: u64, version: u32) -> Result<Selection> {
    let (regular, enc, rank) = match version {
        1 => {
            c.skip(8)?; // reserved, length
            (false, 4, c.u32()? as usize)
        }
        2 => {
            let flags = c.u8()?;
            c.skip(4)?; // length
            let rank = c.u32()? as usize;
            if flags & 1 == 0 {
                return Err(c.invalid("hyperslab selection version 2 without the regular flag"));
            }
            (true, 8, rank)
        }
        3 => {
            let flags = c.u8()?;
            let enc = enc_size(c, at)?;
            (flags & 1 != 0, enc, c.u32()? as usize)
        }
        v => return Err(unsupported(at, format!("hyperslab selection version {v}"))),
    };
    check_rank(c, rank)?;
    if regular {
        let mut dims = Vec::with_capacity(rank);
        for _ in 0..rank {
            dims.push(Dim {
                start: c.uvar(enc)?,
                stride: c.uvar(enc)?,
                count: value(c, enc)?,
                block: value(c, enc)?,
            });
        }
        return Ok(Selection::Regular(dims));
    }
    let n = if version == 1 {
        c.u32()? as u64
    } else {
        c.uvar(enc)?
    };
    // Bounded by the bytes before anything is sized from `n`.
    let start = c.pos;
    skip_items(c, n, 2 * rank as u64, enc)?;
    let mut blocks = Cur::new(
        &c.buf[start..c.pos],
        c.base + start as u64,
        c.what,
        c.so,
        c.sl,
    );
    let mut list = Vec::with_capacity(n as usize * rank * 2);
    for _ in 0..n as usize * rank * 2 {
        list.push(blocks.uvar(enc)?);
    }
    Ok(match regular_grid(rank, &list) {
        Some(dims) => Selection::Regular(dims),
        None => Selection::Other("an irregular hyperslab selection"),
    })
}

/// The regular hyperslab whose blocks, in row-major order, are `list` (each block `rank`
/// starts then `rank` ends, inclusive), if there is one: how libhdf5 stores any hyperslab
/// under the earliest format bounds.
fn regular_grid(rank: usize, list: &[u64]) -> Option<Vec<Dim>> {
    let n = list.len() / (2 * rank);
    if n == 0 {
        return None;
    }
    let block = |i: usize| &list[i * 2 * rank..(i + 1) * 2 * rank];
    // Per dimension: the distinct starts in the order the first blocks show them. In
    // row-major order dimension d's start changes every `inner` blocks.
    let mut dims = Vec::with_capacity(rank);
    let mut inner = n;
    for d in 0..rank {
        let b0 = block(0);
        let (start, end) = (b0[d], b0[rank + d]);
        let len = end.checked_sub(start)?.checked_add(1)?;
        // Count of distinct positions along d: blocks cycle with period `inner` there.
        let mut count = 1u64;
        let mut stride = len;
        let mut i = inner;
        // The block after the first run of equal starts in d (if any) gives the stride.
        let mut step = None;
        for j in 1..inner {
            if block(j)[d] != start {
                step = Some(j);
                break;
            }
        }
        if let Some(j) = step {
            stride = block(j)[d].checked_sub(start)?;
            let per = j; // blocks per position of d
            count = (inner / per) as u64;
            if per * count as usize != inner {
                return None;
            }
            i = per;
        }
        inner = i;
        dims.push(Dim {
            start,
            stride,
            count,
            block: len,
        });
    }
    // Check: the enumeration of these dims is exactly the list.
    let total: u64 = dims.iter().try_fold(1u64, |a, d| a.checked_mul(d.count))?;
    if total != n as u64 {
        return None;
    }
    let mut k = vec![0u64; rank];
    for i in 0..n {
        let b = block(i);
        for d in 0..rank {
            let s = dims[d]
                .start
                .checked_add(k[d].checked_mul(dims[d].stride)?)?;
            if b[d] != s || b[rank + d] != s + dims[d].block - 1 {
                return None;
            }
        }
        for d in (0..rank).rev() {
            k[d] += 1;
            if k[d] < dims[d].count {
                break;
            }
            k[d] = 0;
        }
    }
    if dims.iter().any(|d| d.count > 1 && d.stride < d.block) {
        return None;
    }
    Some(dims)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(b: &[u8]) -> Result<Selection> {
        Selection::parse(&mut Cur::new(b, 0, "selection", 8, 8))
    }
    fn le32(v: &[u32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn all_none_and_regular_v3() {
        assert_eq!(parse(&le32(&[3, 1, 0, 0])).unwrap(), Selection::All);
        assert_eq!(parse(&le32(&[0, 1, 0, 0])).unwrap(), Selection::None);
        // h5py's `[1::2]` of 10 elements, 2-byte encoding.
        let mut b = le32(&[2, 3]);
        b.extend([1, 2, 1, 0, 0, 0]);
        b.extend([1, 0, 2, 0, 10, 0, 1, 0]);
        let want = Dim {
            start: 1,
            stride: 2,
            count: 10,
            block: 1,
        };
        assert_eq!(parse(&b).unwrap(), Selection::Regular(vec![want]));
        // An unlimited count (all ones at the encoding's width).
        let mut b = le32(&[2, 3]);
        b.extend([1, 2, 1, 0, 0, 0]);
        b.extend([0, 0, 1, 0, 0xff, 0xff, 1, 0]);
        let Selection::Regular(d) = parse(&b).unwrap() else {
            panic!()
        };
        assert_eq!(d[0].count, UNLIMITED);
    }

    #[test]
    fn block_lists_that_are_regular_become_regular() {
        // 2-D: rows 5 and 7, columns 6..=9 (h5py's [5:8:2, 6:10] under libver earliest).
        let mut v = vec![2, 1, 0, 0, 2, 2];
        v.extend([5, 6, 5, 9, 7, 6, 7, 9]);
        let want = vec![
            Dim {
                start: 5,
                stride: 2,
                count: 2,
                block: 1,
            },
            Dim {
                start: 6,
                stride: 4,
                count: 1,
                block: 4,
            },
        ];
        assert_eq!(parse(&le32(&v)).unwrap(), Selection::Regular(want));
        // Not a grid: blocks of different sizes.
        let mut v = vec![2, 1, 0, 0, 1, 2];
        v.extend([0, 1, 4, 4]);
        assert_eq!(
            parse(&le32(&v)).unwrap(),
            Selection::Other("an irregular hyperslab selection")
        );
        // Out of row-major order.
        let mut v = vec![2, 1, 0, 0, 1, 2];
        v.extend([4, 4, 0, 0]);
        assert!(matches!(parse(&le32(&v)).unwrap(), Selection::Other(_)));
    }

    #[test]
    fn hostile_counts_never_allocate_past_the_bytes() {
        // 4 billion blocks claimed, a few bytes given: truncated, nothing sized from it.
        let v = vec![2, 1, 0, 0, 1, u32::MAX, 0, 0];
        assert!(parse(&le32(&v)).is_err());
        // Version 3, 8-byte encoding, u64::MAX blocks of rank 32.
        let mut b = le32(&[2, 3]);
        b.extend([0, 8, 32, 0, 0, 0]);
        b.extend(u64::MAX.to_le_bytes());
        assert!(parse(&b).is_err());
        // Points: u64::MAX points.
        let mut b = le32(&[1, 2]);
        b.extend([8, 1, 0, 0, 0]);
        b.extend(u64::MAX.to_le_bytes());
        assert!(parse(&b).is_err());
        // Ranks 0 and 33, unknown types and versions, bad encoding sizes.
        assert!(parse(&le32(&[2, 1, 0, 0, 0, 0])).is_err());
        assert!(parse(&le32(&[2, 1, 0, 0, 33, 0])).is_err());
        assert!(parse(&le32(&[7, 1, 0, 0])).is_err());
        assert!(parse(&le32(&[3, 2, 0, 0])).is_err());
        let mut b = le32(&[2, 3]);
        b.extend([1, 3, 1, 0, 0, 0]);
        assert!(parse(&b).is_err());
        // Every truncation of a valid selection fails cleanly.
        let mut b = le32(&[2, 3]);
        b.extend([1, 2, 1, 0, 0, 0]);
        b.extend([1, 0, 2, 0, 10, 0, 1, 0]);
        for n in 0..b.len() {
            assert!(parse(&b[..n]).is_err(), "{n}");
        }
    }
}
