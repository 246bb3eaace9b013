//! A virtual dataset's mappings: the global heap object its layout message points at
//! ("Global Heap Block for Virtual Dataset", versions 0 and 1), and the geometry that maps
//! a requested box of the virtual dataset to boxes of each source.

use arrowsmith_core::Result;

use super::select::{Dim, Selection, UNLIMITED};
use crate::checksum;
use crate::file::ctx::Ctx;
use crate::global_heap::{Collection, GcolCache};
use crate::io::{invalid, unsupported, Cur};

/// One mapping: the source (file, dataset, selection) behind a selection of the VDS.
#[derive(Debug, Clone, PartialEq)]
pub struct Mapping {
    /// As stored: `.` is the file holding the VDS.
    pub file: String,
    pub dataset: String,
    pub source: Selection,
    pub virt: Selection,
}

/// The mappings of the VDS whose layout names heap object `index` of collection `addr`.
pub fn load(ctx: &Ctx, cache: &GcolCache, addr: u64, index: u32) -> Result<Vec<Mapping>> {
    let coll = Collection::load(ctx, addr, cache)?;
    let at = coll.at;
    let &(start, size) = coll
        .table(cache)?
        .get(index as usize)
        .filter(|o| o.1 != u32::MAX)
        .ok_or_else(|| {
            invalid(
                at,
                format!("virtual dataset mappings: no heap object {index}"),
            )
        })?;
    let bytes = &coll.bytes[start as usize..start as usize + size as usize];
    parse(bytes, at + start as u64, ctx.sb.sl)
}

/// Entry flags of version 1: a name shared with an earlier entry, or the same file (".").
const FILE_SHARED: u8 = 1;
const DSET_SHARED: u8 = 2;
const SAME_FILE: u8 = 4;

pub fn parse(bytes: &[u8], at: u64, sl: u8) -> Result<Vec<Mapping>> {
    checksum::verify(bytes, at, "virtual dataset mappings")?;
    parse_body(&bytes[..bytes.len() - 4], at, sl)
}

/// The entries of a heap object's body (its checksum verified or cut off).
pub fn parse_body(body: &[u8], at: u64, sl: u8) -> Result<Vec<Mapping>> {
    let mut c = Cur::new(body, at, "virtual dataset mappings", 8, sl);
    let version = c.u8()?;
    if version > 1 {
        return Err(unsupported(
            at,
            format!("virtual dataset mappings version {version}"),
        ));
    }
    let n = c.len()?;
    // Each entry takes at least 2 name bytes and two 16-byte selections.
    if n > (c.remaining() / 34) as u64 {
        return Err(invalid(
            at,
            format!(
                "virtual dataset mappings: {n} entries in {} bytes",
                body.len()
            ),
        ));
    }
    let mut out: Vec<Mapping> = Vec::with_capacity(n as usize);
    for i in 0..n as usize {
        let flags = if version == 1 { c.u8()? } else { 0 };
        let shared = |c: &mut Cur, out: &[Mapping], file: bool| -> Result<String> {
            let j = c.len()?;
            let m = out
                .get(j as usize)
                .filter(|_| j < i as u64)
                .ok_or_else(|| c.invalid(format!("mapping {i} shares the name of mapping {j}")))?;
            Ok(if file {
                m.file.clone()
            } else {
                m.dataset.clone()
            })
        };
        let file = if flags & SAME_FILE != 0 {
            ".".to_string()
        } else if flags & FILE_SHARED != 0 {
            shared(&mut c, &out, true)?
        } else {
            name(&mut c)?
        };
        let dataset = if flags & DSET_SHARED != 0 {
            shared(&mut c, &out, false)?
        } else {
            name(&mut c)?
        };
        let source = Selection::parse(&mut c)?;
        let virt = Selection::parse(&mut c)?;
        out.push(Mapping {
            file,
            dataset,
            source,
            virt,
        });
    }
    Ok(out)
}

fn name(c: &mut Cur) -> Result<String> {
    let b = c.cstr()?;
    String::from_utf8(b.to_vec()).map_err(|_| c.invalid("a source name that is not UTF-8"))
}

/// A selection as regular hyperslab dimensions over `dims` ("all" = the whole extent), or
/// why it cannot be read; `None` for an empty selection.
pub fn dims_of(sel: &Selection, dims: &[u64]) -> std::result::Result<Option<Vec<Dim>>, String> {
    Ok(Some(match sel {
        Selection::None => return Ok(None),
        Selection::All => dims
            .iter()
            .map(|&d| Dim {
                start: 0,
                stride: d.max(1),
                count: 1,
                block: d,
            })
            .collect(),
        Selection::Regular(d) => {
            if d.iter()
                .any(|d| d.count == UNLIMITED || d.block == UNLIMITED)
            {
                return Err("an unlimited mapping (H5S_UNLIMITED count)".into());
            }
            if d.len() != dims.len() {
                return Err(format!(
                    "a selection of rank {} in a dataspace of rank {}",
                    d.len(),
                    dims.len()
                ));
            }
            for (x, &n) in d.iter().zip(dims) {
                let last = last_pos(x).ok_or_else(|| "a selection past 2^64".to_string())?;
                if x.count > 1 && x.stride < x.block {
                    return Err("an overlapping hyperslab (stride below block)".into());
                }
                if last.is_some_and(|l| l >= n) {
                    return Err(format!(
                        "a selection past the extent ({n}) of its dataspace"
                    ));
                }
            }
            d.clone()
        }
        Selection::Other(what) => return Err((*what).to_string()),
    }))
    .map(|d| d.filter(|d| d.iter().all(|x| x.count > 0 && x.block > 0)))
}

/// Whether a selection has an unlimited count or block.
pub fn is_unlimited(sel: &Selection) -> bool {
    matches!(sel, Selection::Regular(d) if d.iter().any(|x| x.count == UNLIMITED || x.block == UNLIMITED))
}

/// An unlimited mapping as it is over a source of extent `sdims` now: the source's one
/// unlimited dimension cut to what fits, and the virtual one to as many elements.
pub fn resolve_unlimited(
    virt: &Selection,
    source: &Selection,
    sdims: &[u64],
) -> std::result::Result<(Selection, Selection), String> {
    let unl = |x: &Dim| x.count == UNLIMITED || x.block == UNLIMITED;
    let one = |d: &[Dim]| -> Option<usize> {
        let mut it = d.iter().enumerate().filter(|(_, x)| unl(x)).map(|(i, _)| i);
        let first = it.next()?;
        it.next().is_none().then_some(first)
    };
    let (Selection::Regular(v), Selection::Regular(s)) = (virt, source) else {
        return Err("an unlimited virtual selection over a limited source selection".into());
    };
    let (Some(dv), Some(ds)) = (one(v), one(s)) else {
        return Err(
            "an unlimited mapping that is not unlimited in exactly one dimension on both sides"
                .into(),
        );
    };
    let extent = *sdims.get(ds).ok_or("a source selection of another rank")?;
    let mut s = s.clone();
    let x = &mut s[ds];
    if x.count == UNLIMITED {
        if x.block == UNLIMITED || x.stride == 0 || x.block == 0 {
            return Err("an unlimited source selection with an unlimited or empty block".into());
        }
        x.count = match extent
            .checked_sub(x.start)
            .and_then(|r| r.checked_sub(x.block))
        {
            Some(r) => r / x.stride + 1,
            None => 0,
        };
    } else {
        x.block = extent.saturating_sub(x.start);
        if x.count != 1 {
            return Err("an unlimited block repeated".into());
        }
    }
    let n = x
        .count
        .checked_mul(x.block)
        .ok_or("an unlimited selection past 2^64")?;
    let mut v = v.clone();
    let y = &mut v[dv];
    if y.count == UNLIMITED {
        if y.block == UNLIMITED || y.block == 0 || n % y.block != 0 {
            return Err("an unlimited mapping whose sides do not divide into blocks".into());
        }
        y.count = n / y.block;
    } else {
        if y.count != 1 {
            return Err("an unlimited block repeated".into());
        }
        y.block = n;
    }
    Ok((Selection::Regular(v), Selection::Regular(s)))
}

/// A source name with printf-style `%b` (the block number) and `%%` (a `%`) filled in.
fn subst(s: &str, b: u64) -> std::result::Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('b') => out.push_str(&b.to_string()),
            Some('%') => out.push('%'),
            _ => return Err("a source name with a % sequence other than %b and %%".into()),
        }
    }
    Ok(out)
}

/// The mappings a printf-style one is for a box, and the (file, dataset) past the extent.
pub type Expanded = (Vec<Mapping>, Option<(String, String)>);

/// A mapping whose names hold `%`: the plain mapping it is (`%%`), or for a printf-style
/// one (`%b`, an unlimited count of blocks) one mapping per block that meets the box
/// `lo..hi` within the stored extent `dims` (block `b` from the files and datasets its
/// names give for `b`), and the names of the first block past the extent (whose existence
/// means the sources grew past it).
pub fn expand_printf(
    m: &Mapping,
    dims: &[u64],
    lo: &[u64],
    hi: &[u64],
) -> std::result::Result<Expanded, String> {
    let name = |b: u64| -> std::result::Result<(String, String), String> {
        Ok((subst(&m.file, b)?, subst(&m.dataset, b)?))
    };
    if name(0)? == name(1)? {
        let (file, dataset) = name(0)?;
        return Ok((
            vec![Mapping {
                file,
                dataset,
                ..m.clone()
            }],
            None,
        ));
    }
    let not_blocks = || {
        "a printf-style mapping whose virtual selection is not an unlimited count of blocks"
            .to_string()
    };
    let Selection::Regular(v) = &m.virt else {
        return Err(not_blocks());
    };
    let mut unl = v
        .iter()
        .enumerate()
        .filter(|(_, x)| x.count == UNLIMITED || x.block == UNLIMITED);
    let (Some((dv, &x)), None) = (unl.next(), unl.next()) else {
        return Err(not_blocks());
    };
    if x.count != UNLIMITED
        || x.block == UNLIMITED
        || x.block == 0
        || x.stride < x.block
        || v.len() != dims.len()
    {
        return Err(not_blocks());
    }
    if is_unlimited(&m.source) {
        return Err("a printf-style mapping over an unlimited source selection".into());
    }
    let n = match dims[dv]
        .checked_sub(x.start)
        .and_then(|r| r.checked_sub(x.block))
    {
        Some(r) => r / x.stride + 1,
        None => 0,
    };
    // Blocks that meet lo..hi along dv: start + b·stride < hi and start + b·stride + block > lo.
    let end0 = x.start.checked_add(x.block).ok_or_else(not_blocks)?;
    let first = match lo[dv].checked_sub(end0) {
        None => 0,
        Some(r) => r / x.stride + 1,
    };
    let last = match hi[dv].checked_sub(x.start) {
        None | Some(0) => 0,
        Some(r) => (r - 1) / x.stride + 1,
    }
    .min(n);
    let mut out = Vec::with_capacity(last.saturating_sub(first).min(1 << 16) as usize);
    for b in first..last {
        let (file, dataset) = name(b)?;
        let mut d = v.clone();
        d[dv] = Dim {
            start: x.start + b * x.stride,
            stride: x.block,
            count: 1,
            block: x.block,
        };
        out.push(Mapping {
            file,
            dataset,
            source: m.source.clone(),
            virt: Selection::Regular(d),
        });
    }
    Ok((out, Some(name(n)?)))
}

/// The last position a dimension selects (`Some(None)`: none), `None` on overflow.
fn last_pos(d: &Dim) -> Option<Option<u64>> {
    if d.count == 0 || d.block == 0 {
        return Some(None);
    }
    let s = d.start.checked_add((d.count - 1).checked_mul(d.stride)?)?;
    Some(Some(s.checked_add(d.block - 1)?))
}

/// Position of the `k`-th selected element along a dimension.
#[inline]
pub fn pos(d: &Dim, k: u64) -> u64 {
    d.start + (k / d.block) * d.stride + k % d.block
}

/// Selected elements along a dimension before position `x`.
fn before(d: &Dim, x: u64) -> u64 {
    if x <= d.start {
        return 0;
    }
    let off = x - d.start;
    let n = d.count * d.block;
    if d.count == 1 {
        return off.min(d.block);
    }
    let full = off / d.stride;
    if full >= d.count {
        return n;
    }
    (full * d.block + (off % d.stride).min(d.block)).min(n)
}

/// Whether a dimension selects anything in `lo..hi`.
pub fn touches(d: &Dim, lo: u64, hi: u64) -> bool {
    before(d, lo) < before(d, hi)
}

/// How a mapping's elements pair: the virtual and source dimensions that select more than
/// one element, in order, must select the same numbers (libhdf5 pairs elements in the
/// selections' row-major orders; these mappings pair them dimension by dimension).
#[derive(Debug, Clone)]
pub struct Geometry {
    pub virt: Vec<Dim>,
    pub source: Vec<Dim>,
    /// `(virtual dim, source dim)` for each dimension of more than one element.
    pub pairs: Vec<(usize, usize)>,
}

impl Geometry {
    pub fn new(virt: Vec<Dim>, source: Vec<Dim>) -> std::result::Result<Geometry, String> {
        let wide = |d: &[Dim]| -> Vec<(usize, u64)> {
            d.iter()
                .enumerate()
                .map(|(i, x)| (i, x.count * x.block))
                .filter(|x| x.1 != 1)
                .collect()
        };
        let (v, s) = (wide(&virt), wide(&source));
        let total = |w: &[(usize, u64)]| w.iter().try_fold(1u64, |a, x| a.checked_mul(x.1));
        if v.len() != s.len() || v.iter().zip(&s).any(|(a, b)| a.1 != b.1) {
            return Err(if total(&v) == total(&s) {
                "a mapping between selections of different shapes".into()
            } else {
                "a mapping whose selections differ in size".into()
            });
        }
        let pairs = v.iter().zip(&s).map(|(a, b)| (a.0, b.0)).collect();
        Ok(Geometry {
            virt,
            source,
            pairs,
        })
    }

    /// The part of the mapping inside the box `lo..hi` of the virtual dataset: per
    /// dimension of each side, the range of selected-element indexes `k` it covers.
    pub fn clip(&self, lo: &[u64], hi: &[u64]) -> Option<Piece> {
        let mut v = Vec::with_capacity(self.virt.len());
        for (d, x) in self.virt.iter().enumerate() {
            let r = before(x, lo[d])..before(x, hi[d]);
            if r.is_empty() {
                return None;
            }
            v.push(r);
        }
        let mut s: Vec<std::ops::Range<u64>> = vec![0..1; self.source.len()];
        for &(a, b) in &self.pairs {
            s[b] = v[a].clone();
        }
        Some(Piece { virt: v, source: s })
    }
}

/// Selected-element index ranges, per dimension, of one side and the other.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    pub virt: Vec<std::ops::Range<u64>>,
    pub source: Vec<std::ops::Range<u64>>,
}

impl Piece {
    /// The source's bounding box for this piece: `(first, last + 1)` per dimension.
    pub fn source_box(&self, g: &Geometry) -> Vec<(u64, u64)> {
        self.source
            .iter()
            .zip(&g.source)
            .map(|(r, d)| (pos(d, r.start), pos(d, r.end - 1) + 1))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(start: u64, stride: u64, count: u64, block: u64) -> Dim {
        Dim {
            start,
            stride,
            count,
            block,
        }
    }

    #[test]
    fn before_counts_selected_positions() {
        let x = d(1, 3, 4, 2); // 1,2, 4,5, 7,8, 10,11
        let want = |p: u64| (0..8).filter(|&k| pos(&x, k) < p).count() as u64;
        for p in 0..14 {
            assert_eq!(before(&x, p), want(p), "{p}");
        }
        let one = d(2, 0, 1, 3);
        assert_eq!(
            (before(&one, 2), before(&one, 4), before(&one, 9)),
            (0, 2, 3)
        );
    }

    #[test]
    fn stacking_pairs_the_wide_dims_and_clips_rows() {
        // VDS (4, 5, 6), mapping [2] ← a (5, 6) source.
        let g = Geometry::new(
            vec![d(2, 1, 1, 1), d(0, 5, 1, 5), d(0, 6, 1, 6)],
            vec![d(0, 5, 1, 5), d(0, 6, 1, 6)],
        )
        .unwrap();
        assert_eq!(g.pairs, vec![(1, 0), (2, 1)]);
        assert!(g.clip(&[0, 0, 0], &[2, 5, 6]).is_none());
        let p = g.clip(&[2, 1, 0], &[3, 3, 6]).unwrap();
        assert_eq!(p.source, vec![1..3, 0..6]);
        assert_eq!(p.source_box(&g), vec![(1, 3), (0, 6)]);
        assert!(Geometry::new(vec![d(0, 1, 6, 1)], vec![d(0, 2, 1, 2), d(0, 3, 1, 3)]).is_err());
    }

    #[test]
    fn unlimited_mappings_resolve_to_the_source_extent() {
        let v = Selection::Regular(vec![d(0, 1, UNLIMITED, 1)]);
        let s = Selection::Regular(vec![d(0, 1, UNLIMITED, 1)]);
        let (rv, rs) = resolve_unlimited(&v, &s, &[7]).unwrap();
        assert_eq!(rv, Selection::Regular(vec![d(0, 1, 7, 1)]));
        assert_eq!(rs, Selection::Regular(vec![d(0, 1, 7, 1)]));
        // Blocks of 3 every 4 from 1 over 12: 1..4, 5..8, 9..12 → 3 blocks, 9 elements.
        let v = Selection::Regular(vec![d(0, 3, UNLIMITED, 3)]);
        let s = Selection::Regular(vec![d(1, 4, UNLIMITED, 3)]);
        let (rv, _) = resolve_unlimited(&v, &s, &[12]).unwrap();
        assert_eq!(rv, Selection::Regular(vec![d(0, 3, 3, 3)]));
        // Hostile: a zero stride, blocks that do not divide, two unlimited dims, a limited source.
        assert!(
            resolve_unlimited(&v, &Selection::Regular(vec![d(0, 0, UNLIMITED, 1)]), &[9]).is_err()
        );
        assert!(
            resolve_unlimited(&Selection::Regular(vec![d(0, 4, UNLIMITED, 4)]), &s, &[12]).is_err()
        );
        let two = Selection::Regular(vec![d(0, 1, UNLIMITED, 1), d(0, 1, UNLIMITED, 1)]);
        assert!(resolve_unlimited(&two, &two, &[3, 3]).is_err());
        assert!(resolve_unlimited(&v, &Selection::All, &[3]).is_err());
        assert!(resolve_unlimited(
            &Selection::Regular(vec![d(0, 1, UNLIMITED, 1)]),
            &Selection::Regular(vec![d(u64::MAX - 1, 1, UNLIMITED, 1)]),
            &[u64::MAX]
        )
        .is_ok());
    }

    #[test]
    fn printf_mappings_expand_to_the_blocks_a_box_meets() {
        let m = Mapping {
            file: "p_%b.h5".into(),
            dataset: "/d%%".into(),
            source: Selection::All,
            virt: Selection::Regular(vec![d(1, 4, UNLIMITED, 3)]), // blocks at 1, 5, 9, ...
        };
        // Extent 12: blocks 0..=1 fit (1..4, 5..8), block 2 (9..12) fits too.
        let (list, past) = expand_printf(&m, &[12], &[4], &[10]).unwrap();
        let names: Vec<_> = list
            .iter()
            .map(|m| (m.file.as_str(), m.dataset.as_str()))
            .collect();
        assert_eq!(names, [("p_1.h5", "/d%"), ("p_2.h5", "/d%")]);
        assert_eq!(list[0].virt, Selection::Regular(vec![d(5, 3, 1, 3)]));
        assert_eq!(past, Some(("p_3.h5".into(), "/d%".into())));
        assert!(expand_printf(&m, &[12], &[0], &[1]).unwrap().0.is_empty());
        // `%%` alone is a plain mapping; other sequences and limited selections are refused.
        let plain = Mapping {
            file: "a%%.h5".into(),
            ..m.clone()
        };
        let plain = Mapping {
            dataset: "/x".into(),
            ..plain
        };
        assert_eq!(
            expand_printf(&plain, &[12], &[0], &[12]).unwrap().0[0].file,
            "a%.h5"
        );
        assert!(expand_printf(
            &Mapping {
                file: "p_%d.h5".into(),
                ..m.clone()
            },
            &[12],
            &[0],
            &[12]
        )
        .is_err());
        let limited = Mapping {
            virt: Selection::Regular(vec![d(0, 3, 2, 3)]),
            ..m.clone()
        };
        assert!(expand_printf(&limited, &[12], &[0], &[12]).is_err());
        let huge = Mapping {
            virt: Selection::Regular(vec![d(u64::MAX, 4, UNLIMITED, 3)]),
            ..m
        };
        assert!(expand_printf(&huge, &[12], &[0], &[12]).is_err());
    }
}
