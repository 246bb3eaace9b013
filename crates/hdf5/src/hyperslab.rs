//! N-D hyperslab selections: what the caller asks per dimension ([`Select`], as h5py's
//! `ds[10:20, ::2, 5]`), checked against the dataspace into a box with steps ([`Slab`]),
//! and the shape of the result.

use std::ops::Range;

use arrowsmith_core::{DecodeError, ErrorCode, Format, Result};

/// One dimension of a selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Select {
    /// One index; the result drops the dimension (h5py's `ds[5]`).
    Index(u64),
    /// `count` elements from `start`, `step` apart (h5py's `ds[start:start+count*step:step]`);
    /// the result keeps the dimension, `count` long.
    Range {
        /// The first index.
        start: u64,
        /// How many elements.
        count: u64,
        /// The distance between them (at least 1).
        step: u64,
    },
    /// The whole dimension (h5py's `ds[:]`).
    All,
}

/// What a read covers: rows of the first dimension (`count: None`: to the end), or a
/// selection with one entry per dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Window {
    /// Rows `start..start+count` of the first dimension, every other dimension whole.
    Rows {
        /// The first row.
        start: u64,
        /// How many rows; `None`: all rows from `start`.
        count: Option<u64>,
    },
    /// A hyperslab, one [`Select`] per dimension.
    Select(Vec<Select>),
}

/// A checked selection: per dimension the first index, number of elements and step (an
/// index is a count of one), and the result's shape (kept dimensions; for a row read of
/// a scalar, `[rows]`). The read's bytes are row-major over `count`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Slab {
    pub start: Vec<u64>,
    pub count: Vec<u64>,
    pub step: Vec<u64>,
    pub shape: Vec<u64>,
}

fn argument(msg: String) -> DecodeError {
    DecodeError::new(Format::Hdf5, 0, ErrorCode::Argument, msg)
}

/// The shape of the result of `select` on a dataspace of `dims`: the count of every
/// dimension it keeps; an `Argument` error when the selection does not fit (wrong rank,
/// an index or range past the end, a zero step).
pub fn result_shape(select: &[Select], dims: &[u64]) -> Result<Vec<u64>> {
    Ok(Slab::select(select, dims)?.shape)
}

impl Slab {
    /// Rows `start..start+n` (the caller has clipped them to the dataspace).
    pub fn rows(start: u64, n: u64, dims: &[u64]) -> Slab {
        if dims.is_empty() {
            return Slab {
                start: vec![],
                count: vec![],
                step: vec![],
                shape: vec![n.min(1)],
            };
        }
        let mut s = Slab {
            start: vec![0; dims.len()],
            count: dims.to_vec(),
            step: vec![1; dims.len()],
            shape: dims.to_vec(),
        };
        s.start[0] = start;
        s.count[0] = n;
        s.shape[0] = n;
        s
    }

    /// `select` checked against `dims`.
    pub fn select(select: &[Select], dims: &[u64]) -> Result<Slab> {
        if select.len() != dims.len() {
            return Err(argument(format!(
                "a selection of {} dimensions on a dataset of {} ({dims:?})",
                select.len(),
                dims.len()
            )));
        }
        let mut s = Slab {
            start: Vec::with_capacity(dims.len()),
            count: Vec::with_capacity(dims.len()),
            step: Vec::with_capacity(dims.len()),
            shape: Vec::new(),
        };
        for (k, (sel, &d)) in select.iter().zip(dims).enumerate() {
            let (start, count, step) = match *sel {
                Select::All => (0, d, 1),
                Select::Index(i) if i < d => (i, 1, 1),
                Select::Index(i) => {
                    return Err(argument(format!(
                        "index {i} in dimension {k} of length {d}"
                    )))
                }
                Select::Range { step: 0, .. } => {
                    return Err(argument(format!("a step of 0 in dimension {k}")))
                }
                Select::Range { start, count, step } => {
                    // The last selected index, start + (count-1)*step, must be < d.
                    let last = count
                        .checked_sub(1)
                        .map(|c| c.checked_mul(step).and_then(|o| o.checked_add(start)));
                    let fits = match last {
                        None => start <= d,
                        Some(l) => l.is_some_and(|l| l < d),
                    };
                    if !fits {
                        return Err(argument(format!(
                            "{count} elements from {start} by {step} in dimension {k} of length {d}"
                        )));
                    }
                    (start, count, step)
                }
            };
            s.start.push(start);
            s.count.push(count);
            s.step.push(step);
            if !matches!(sel, Select::Index(_)) {
                s.shape.push(count);
            }
        }
        Ok(s)
    }

    /// The rows `start..start+n` this slab is, if it selects every element of every
    /// dimension but the first, and a run of the first (its bytes are whole rows).
    pub fn row_window(&self, dims: &[u64]) -> Option<(u64, u64)> {
        if dims.is_empty() || self.step.iter().any(|&s| s != 1) {
            return None;
        }
        let whole = (1..dims.len()).all(|k| self.start[k] == 0 && self.count[k] == dims[k]);
        whole.then(|| (self.start[0], self.count[0]))
    }

    /// Elements selected (the product of the shape), `None` on overflow.
    pub fn elems(&self) -> Option<u64> {
        self.shape.iter().try_fold(1u64, |a, &d| a.checked_mul(d))
    }

    /// The selection's positions in dimension `k` whose index is in `lo..hi`.
    pub fn within(&self, k: usize, lo: u64, hi: u64) -> Range<u64> {
        let (s, n, st) = (self.start[k], self.count[k], self.step[k]);
        let first = if lo <= s { 0 } else { (lo - s).div_ceil(st) };
        let end = if hi <= s { 0 } else { (hi - s).div_ceil(st) };
        first.min(n)..end.min(n)
    }

    /// Whether the selection meets `lo..lo+len` in dimension `k`.
    pub fn touches(&self, k: usize, lo: u64, len: u64) -> bool {
        !self.within(k, lo, lo.saturating_add(len)).is_empty()
    }

    /// Whether it selects every index of `lo..hi` in dimension `k`.
    pub fn covers(&self, k: usize, lo: u64, hi: u64) -> bool {
        let (s, n, st) = (self.start[k], self.count[k], self.step[k]);
        (st == 1 || n == 1 && hi - lo <= 1) && s <= lo && hi <= s.saturating_add(n)
    }

    /// The index range from the first to the last selected index in dimension `k`.
    pub fn bounds(&self, k: usize) -> Range<u64> {
        let (s, n, st) = (self.start[k], self.count[k], self.step[k]);
        match n {
            0 => s..s,
            _ => s..s + (n - 1) * st + 1,
        }
    }

    /// Whether nothing is selected.
    pub fn is_empty(&self) -> bool {
        self.count.contains(&0) || self.shape.contains(&0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(start: u64, count: u64, step: u64) -> Select {
        Select::Range { start, count, step }
    }

    #[test]
    fn shapes_and_errors() {
        let d = [10, 6, 4];
        let sh = |s: &[Select]| result_shape(s, &d);
        assert_eq!(
            sh(&[r(2, 3, 2), Select::Index(5), Select::All]).unwrap(),
            [3, 4]
        );
        assert_eq!(
            sh(&[Select::Index(0), Select::Index(5), Select::Index(3)]).unwrap(),
            [0u64; 0]
        );
        assert_eq!(
            sh(&[r(10, 0, 1), Select::All, Select::All]).unwrap(),
            [0, 6, 4]
        );
        assert_eq!(
            sh(&[r(9, 1, 100), Select::All, Select::All]).unwrap(),
            [1, 6, 4]
        );
        for bad in [
            vec![Select::All, Select::All],
            vec![r(8, 2, 2), Select::All, Select::All],
            vec![r(0, 1, 0), Select::All, Select::All],
            vec![Select::Index(10), Select::All, Select::All],
            vec![r(11, 0, 1), Select::All, Select::All],
            vec![r(1, u64::MAX, u64::MAX), Select::All, Select::All],
        ] {
            assert_eq!(sh(&bad).unwrap_err().code, ErrorCode::Argument, "{bad:?}");
        }
    }

    #[test]
    fn within_a_block() {
        let s = Slab::select(&[r(3, 4, 3)], &[20]).unwrap(); // 3, 6, 9, 12
        assert_eq!(s.within(0, 0, 4), 0..1);
        assert_eq!(s.within(0, 4, 6), 1..1);
        assert_eq!(s.within(0, 4, 10), 1..3);
        assert_eq!(s.within(0, 12, 20), 3..4);
        assert_eq!(s.within(0, 13, 20), 4..4);
        assert_eq!(s.bounds(0), 3..13);
        assert!(!s.covers(0, 3, 5));
        let t = Slab::select(&[r(3, 4, 1)], &[20]).unwrap();
        assert!(t.covers(0, 3, 7) && !t.covers(0, 2, 7));
    }
}
