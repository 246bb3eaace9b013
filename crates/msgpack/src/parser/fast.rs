//! The bulk fast paths: a run of one encoding decoded in one go (SIMD128 where built,
//! `kernels`), tried by `Parser::seq` before the lanes.

use crate::builder::{Builder, Data};
use crate::kernels;

use super::{Parser, RUN_MIN};

impl Parser<'_> {
    /// Try a bulk fast path at the current byte for up to `max` values. `None` when none
    /// applies (tag or column type); `Some(n)` values consumed otherwise (may be 0).
    #[inline]
    pub(crate) fn fast_run(&mut self, b: &mut Builder, max: usize) -> Option<usize> {
        let t = self.peek()?;
        let src = &self.buf[self.pos..];
        let (n, stride) = if t as i8 >= -32 {
            if self.structures.active() {
                // Bytes 0x40..=0x7f may be msgpackr records: the lanes check each one.
                return None;
            }
            let n = match &mut b.data {
                Data::I32(v) => kernels::fixint_run(src, max, v),
                Data::I64(v) => {
                    let s = &mut self.scratch.i32;
                    s.clear();
                    let n = kernels::fixint_run(src, max, s);
                    v.extend(s.iter().map(|&x| x as i64));
                    n
                }
                _ => return None,
            };
            (n, 1)
        } else {
            let width = match t {
                0xcc | 0xd0 => 1,
                0xcd | 0xd1 => 2,
                0xce | 0xd2 | 0xca => 4,
                0xcf | 0xd3 | 0xcb => 8,
                _ => return None,
            };
            let stride = width + 1;
            // Only columns whose storage takes this tag's values as they are.
            let fits = matches!(
                (t, &b.data),
                (0xcc..=0xce | 0xd0..=0xd2, Data::I32(_) | Data::I64(_))
                    | (0xcf | 0xd3, Data::I64(_))
                    | (0xcc..=0xcf, Data::U64(_))
                    | (0xca, Data::F32(_) | Data::F64(_))
                    | (0xcb, Data::F64(_))
            );
            if !fits {
                return None;
            }
            if width == 8 {
                // The tag check fused into the gather: one pass over the records.
                let n = match &mut b.data {
                    Data::F64(v) => kernels::gather_run8(src, t, max, v),
                    Data::U64(v) => kernels::gather_run8(src, t, max, v),
                    Data::I64(v) => {
                        let at = v.len();
                        kernels::gather_run8(src, t, max, v);
                        if t == 0xcf {
                            keep_fitting(v, at)
                        } else {
                            v.len() - at
                        }
                    }
                    _ => return None,
                };
                return Some(self.took(b, n, stride));
            }
            let n = kernels::tag_run(src, t, stride, max);
            if n < RUN_MIN {
                // Too short to pay for a gather: the lane takes it.
                return Some(0);
            }
            let recs = &src[..n * stride];
            let s = &mut self.scratch;
            let n = match (t, &mut b.data) {
                (0xcc, Data::I32(v)) => widen(recs, &mut s.u8, v, |x| x as i32),
                (0xcc, Data::I64(v)) => widen(recs, &mut s.u8, v, |x| x as i64),
                (0xcc, Data::U64(v)) => widen(recs, &mut s.u8, v, |x| x as u64),
                (0xd0, Data::I32(v)) => widen(recs, &mut s.u8, v, |x| x as i8 as i32),
                (0xd0, Data::I64(v)) => widen(recs, &mut s.u8, v, |x| x as i8 as i64),
                (0xcd, Data::I32(v)) => widen(recs, &mut s.u16, v, |x| x as i32),
                (0xcd, Data::I64(v)) => widen(recs, &mut s.u16, v, |x| x as i64),
                (0xcd, Data::U64(v)) => widen(recs, &mut s.u16, v, |x| x as u64),
                (0xd1, Data::I32(v)) => widen(recs, &mut s.u16, v, |x| x as i16 as i32),
                (0xd1, Data::I64(v)) => widen(recs, &mut s.u16, v, |x| x as i16 as i64),
                (0xd2, Data::I32(v)) => append(recs, v),
                (0xd2, Data::I64(v)) => widen(recs, &mut s.u32, v, |x| x as i32 as i64),
                (0xce, Data::I64(v)) => widen(recs, &mut s.u32, v, |x| x as i64),
                (0xce, Data::U64(v)) => widen(recs, &mut s.u32, v, |x| x as u64),
                // uint32 into i32 / uint64 into i64: keep the prefix that fits; the
                // general path widens the column at the first value that does not.
                (0xce, Data::I32(v)) => fitting_prefix(recs, v),
                (0xca, Data::F32(v)) => append(recs, v),
                (0xca, Data::F64(v)) => widen(recs, &mut s.u32, v, |x| f32::from_bits(x) as f64),
                _ => return None,
            };
            (n, stride)
        };
        Some(self.took(b, n, stride))
    }

    /// A fast path put `n` values of `stride` bytes each into `b`.
    #[inline]
    fn took(&mut self, b: &mut Builder, n: usize, stride: usize) -> usize {
        self.pos += n * stride;
        b.valid_n(n);
        n
    }
}

/// The payloads of `recs` (records of one tag) appended to `dst`, native order; returns
/// their number.
#[inline]
fn append<T: bytemuck::Pod + Default>(recs: &[u8], dst: &mut Vec<T>) -> usize {
    let w = std::mem::size_of::<T>();
    let n = recs.len() / (w + 1);
    let at = dst.len();
    dst.resize(at + n, T::default());
    kernels::gather_swap(recs, w, bytemuck::cast_slice_mut(&mut dst[at..]));
    n
}

/// The payloads of `recs` gathered as `S`, converted by `f` and appended to `dst`.
#[inline]
fn widen<S: bytemuck::Pod + Default, T>(
    recs: &[u8],
    scratch: &mut Vec<S>,
    dst: &mut Vec<T>,
    f: impl Fn(S) -> T,
) -> usize {
    scratch.clear();
    let n = append(recs, scratch);
    dst.extend(scratch.iter().map(|&x| f(x)));
    n
}

/// Unsigned payloads appended as the signed type of their width, keeping the prefix that
/// is not negative (that is, that fits); returns its length.
#[inline]
fn fitting_prefix<T: bytemuck::Pod + Default + PartialOrd>(recs: &[u8], v: &mut Vec<T>) -> usize {
    let at = v.len();
    append(recs, v);
    keep_fitting(v, at)
}

/// Of the values appended to `v` from `at` on (unsigned payloads read as signed), keeps
/// the prefix that is not negative; returns its length.
#[inline]
fn keep_fitting<T: Default + PartialOrd>(v: &mut Vec<T>, at: usize) -> usize {
    let ok = v[at..]
        .iter()
        .position(|x| *x < T::default())
        .unwrap_or(v.len() - at);
    v.truncate(at + ok);
    ok
}
