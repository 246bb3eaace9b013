//! GORILLA (v2): XOR with the previous value, leading/significant-bit windows, END marker.

#![allow(unsafe_code)] // values written into reserved output before `set_len`

use super::{
    bits::{peek, peek128, with_be_words, BitReader},
    derr, limit_err, DResult,
};
use std::mem::MaybeUninit;

/// Decoder state carried across output chunks.
struct St {
    /// Next bit position.
    p: usize,
    v: u64,
    lead: u32,
    trail: u32,
}

enum Stop {
    /// Reached the END marker.
    End,
    /// `dst` is full and the next value is not the END marker.
    Full,
    /// A malformed stream (the checked decoder reports the exact error).
    Bad,
}

/// Fast GORILLA loop over pre-swapped words: decode values into `dst` until the END
/// marker, a full `dst`, or an error. Returns the values written.
#[inline(always)]
fn run<const B: u32, T>(
    w: &[u64],
    total: usize,
    st: &mut St,
    end: u64,
    dst: &mut [MaybeUninit<T>],
    conv: impl Fn(u64) -> T,
) -> (usize, Stop) {
    let l = if B == 32 { 5 } else { 6 };
    let mask = (1u64 << l) - 1;
    let (mut p, mut v, mut lead, mut trail) = (st.p, st.v, st.lead, st.trail);
    let mut n = 0usize;
    // 64-bit values need up to 2 + 12 + 64 bits: one three-word window holds them.
    let window = |p: usize| {
        if B == 64 {
            peek128(w, p)
        } else {
            (peek(w, p), 0)
        }
    };
    let stop = 'out: loop {
        if v == end {
            break Stop::End;
        }
        if n >= dst.len() {
            break Stop::Full;
        }
        dst[n].write(conv(v));
        n += 1;
        let (mut c, mut lo) = window(p);
        // Runs of '10' (the previous window reused) dominate real streams: each such value
        // is exactly 2 + sig bits, decoded here without the general path's cases.
        let sig = B - lead - trail;
        let step = 2 + sig as usize;
        while c >> 62 == 0b10 && p + step <= total {
            let x = if B == 64 {
                (c << 2) | (lo >> 62)
            } else {
                c << 2
            };
            v ^= (x >> (64 - sig)) << trail;
            p += step;
            if v == end {
                break 'out Stop::End;
            }
            if n >= dst.len() {
                break 'out Stop::Full;
            }
            dst[n].write(conv(v));
            n += 1;
            (c, lo) = window(p);
        }
        if c >> 63 == 0 {
            p += 1;
            if p > total {
                break Stop::Bad;
            }
            continue;
        }
        let hdr = if (c >> 62) & 1 == 1 {
            lead = ((c >> (62 - l)) & mask) as u32;
            let sig = ((c >> (62 - 2 * l)) & mask) as u32 + 1;
            if lead + sig > B {
                break Stop::Bad;
            }
            trail = B - sig - lead;
            2 + 2 * l
        } else {
            2
        };
        // 1..=B value bits after the header (for 32-bit values always in `c`: 12 + 32 <= 64).
        let sig = B - lead - trail;
        let x = if B == 64 {
            ((c << hdr) | (lo >> (64 - hdr))) >> (64 - sig)
        } else {
            (c << hdr) >> (64 - sig)
        };
        p += (hdr + sig) as usize;
        if p > total {
            break Stop::Bad;
        }
        v ^= x << trail;
    };
    *st = St { p, v, lead, trail };
    (n, stop)
}

/// Decode into `out` (appending at most `limit` values in all) with the word-based loop;
/// on any malformation, fall back to the checked decoder for its exact error. With
/// `upto < limit`, decoding ends once `out` holds `upto` values (a page prefix).
fn decode_fast<const B: u32, T>(
    buf: &[u8],
    limit: usize,
    upto: usize,
    end: u64,
    out: &mut Vec<T>,
    conv: impl Fn(u64) -> T + Copy,
    slow: impl FnOnce(&[u8], usize, &mut Vec<T>) -> DResult<()>,
) -> DResult<()> {
    let total = buf.len() * 8;
    if total < B as usize {
        return slow(buf, limit, out);
    }
    let start = out.len();
    let ok = with_be_words(buf, |w| {
        let mut st = St {
            p: B as usize,
            v: peek(w, 0) >> (64 - B),
            lead: 0,
            trail: 0,
        };
        let mut left = limit.min(upto).saturating_sub(start);
        loop {
            // Every value costs at least one bit: never reserve more than the stream allows.
            let want = left.min(total.saturating_sub(st.p) + 1).clamp(1, 1 << 16);
            let want = want.min(left);
            out.reserve(want);
            let at = out.len();
            let dst = &mut out.spare_capacity_mut()[..want];
            let (n, stop) = run::<B, T>(w, total, &mut st, end, dst, conv);
            // SAFETY: `run` initialised the first `n` slots of the spare capacity.
            unsafe { out.set_len(at + n) };
            left -= n;
            match stop {
                Stop::End => return true,
                Stop::Bad => return false,
                Stop::Full if left == 0 => return upto < limit,
                Stop::Full => {}
            }
        }
    });
    if ok {
        return Ok(());
    }
    out.truncate(start);
    slow(buf, limit, out)
}

/// Decode raw `B`-bit patterns until the END marker (or the end of the stream).
fn decode_bits<const B: u32>(
    buf: &[u8],
    limit: usize,
    end: u64,
    mut emit: impl FnMut(u64),
) -> DResult<()> {
    let l = if B == 32 { 5 } else { 6 };
    let mut r = BitReader::new(buf);
    if buf.is_empty() {
        return Ok(());
    }
    let trunc = |r: &BitReader| derr(r.byte_pos(), "GORILLA stream ends before its END marker");
    let mut v = r.bits(B).ok_or_else(|| trunc(&r))?;
    let (mut lead, mut trail) = (0u32, 0u32);
    let mut n = 0usize;
    loop {
        if v == end {
            return Ok(());
        }
        if n >= limit {
            return Err(limit_err(r.byte_pos(), limit));
        }
        emit(v);
        n += 1;
        // Fast path: control bits and the window header come from one 64-bit load.
        if let Some(w) = r.peek_fast() {
            if w >> 63 == 0 {
                r.skip(1);
                continue;
            }
            if (w >> 62) & 1 == 1 {
                let mask = (1u64 << l) - 1;
                lead = ((w >> (62 - l)) & mask) as u32;
                let sig = ((w >> (62 - 2 * l)) & mask) as u32 + 1;
                if lead + sig > B {
                    return Err(derr(
                        r.byte_pos(),
                        format!("GORILLA window {lead}+{sig} exceeds {B} bits"),
                    ));
                }
                trail = B - sig - lead;
                r.skip(2 + 2 * l);
            } else {
                r.skip(2);
            }
            let x = r.bits(B - lead - trail).ok_or_else(|| trunc(&r))?;
            v ^= x << trail;
            continue;
        }
        if !r.bit().ok_or_else(|| trunc(&r))? {
            continue;
        }
        if r.bit().ok_or_else(|| trunc(&r))? {
            lead = r.bits(l).ok_or_else(|| trunc(&r))? as u32;
            let sig = r.bits(l).ok_or_else(|| trunc(&r))? as u32 + 1;
            if lead + sig > B {
                return Err(derr(
                    r.byte_pos(),
                    format!("GORILLA window {lead}+{sig} exceeds {B} bits"),
                ));
            }
            trail = B - sig - lead;
        }
        let x = r.bits(B - lead - trail).ok_or_else(|| trunc(&r))?;
        v ^= x << trail;
    }
}

fn slow_i32(buf: &[u8], limit: usize, out: &mut Vec<i32>) -> DResult<()> {
    decode_bits::<32>(buf, limit.saturating_sub(out.len()), 0x8000_0000, |v| {
        out.push(v as u32 as i32)
    })
}
fn slow_i64(buf: &[u8], limit: usize, out: &mut Vec<i64>) -> DResult<()> {
    decode_bits::<64>(
        buf,
        limit.saturating_sub(out.len()),
        0x8000_0000_0000_0000,
        |v| out.push(v as i64),
    )
}
fn slow_f32(buf: &[u8], limit: usize, out: &mut Vec<f32>) -> DResult<()> {
    decode_bits::<32>(buf, limit.saturating_sub(out.len()), 0x7FC0_0000, |v| {
        out.push(f32::from_bits(v as u32))
    })
}
fn slow_f64(buf: &[u8], limit: usize, out: &mut Vec<f64>) -> DResult<()> {
    decode_bits::<64>(
        buf,
        limit.saturating_sub(out.len()),
        0x7FF8_0000_0000_0000,
        |v| out.push(f64::from_bits(v)),
    )
}

pub fn decode_i32(buf: &[u8], limit: usize, out: &mut Vec<i32>) -> DResult<()> {
    prefix_i32(buf, limit, usize::MAX, out)
}
pub(crate) fn prefix_i32(buf: &[u8], limit: usize, stop: usize, out: &mut Vec<i32>) -> DResult<()> {
    decode_fast::<32, _>(
        buf,
        limit,
        stop,
        0x8000_0000,
        out,
        |v| v as u32 as i32,
        slow_i32,
    )
}
pub fn decode_i64(buf: &[u8], limit: usize, out: &mut Vec<i64>) -> DResult<()> {
    prefix_i64(buf, limit, usize::MAX, out)
}
pub(crate) fn prefix_i64(buf: &[u8], limit: usize, stop: usize, out: &mut Vec<i64>) -> DResult<()> {
    decode_fast::<64, _>(
        buf,
        limit,
        stop,
        0x8000_0000_0000_0000,
        out,
        |v| v as i64,
        slow_i64,
    )
}
pub fn decode_f32(buf: &[u8], limit: usize, out: &mut Vec<f32>) -> DResult<()> {
    prefix_f32(buf, limit, usize::MAX, out)
}
pub(crate) fn prefix_f32(buf: &[u8], limit: usize, stop: usize, out: &mut Vec<f32>) -> DResult<()> {
    decode_fast::<32, _>(
        buf,
        limit,
        stop,
        0x7FC0_0000,
        out,
        |v| f32::from_bits(v as u32),
        slow_f32,
    )
}
pub fn decode_f64(buf: &[u8], limit: usize, out: &mut Vec<f64>) -> DResult<()> {
    prefix_f64(buf, limit, usize::MAX, out)
}
pub(crate) fn prefix_f64(buf: &[u8], limit: usize, stop: usize, out: &mut Vec<f64>) -> DResult<()> {
    decode_fast::<64, _>(
        buf,
        limit,
        stop,
        0x7FF8_0000_0000_0000,
        out,
        f64::from_bits,
        slow_f64,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    struct W {
        out: Vec<u8>,
        n: u32,
    }
    impl W {
        fn put(&mut self, v: u64, bits: u32) {
            for i in (0..bits).rev() {
                if self.n.is_multiple_of(8) {
                    self.out.push(0);
                }
                if v >> i & 1 == 1 {
                    *self.out.last_mut().unwrap() |= 0x80 >> (self.n % 8);
                }
                self.n += 1;
            }
        }
    }

    /// A Gorilla encoder of `b`-bit patterns: '0' for a repeat; with `reuse` (as the writers
    /// behave) '10' when the value fits the previous window; '11' with a new window otherwise.
    fn encode(vals: &[u64], b: u32, end: u64, reuse: bool) -> Vec<u8> {
        let l = if b == 32 { 5 } else { 6 };
        let mut w = W { out: vec![], n: 0 };
        let mut all = vals.to_vec();
        all.push(end);
        w.put(all[0], b);
        let mut win: Option<(u32, u32)> = None;
        for p in all.windows(2) {
            let x = p[0] ^ p[1];
            if x == 0 {
                w.put(0, 1);
                continue;
            }
            let lead = (x.leading_zeros() - (64 - b)).min((1 << l) - 1);
            let trail = x.trailing_zeros();
            match win {
                Some((pl, pt)) if reuse && lead >= pl && trail >= pt => {
                    w.put(0b10, 2);
                    w.put(x >> pt, b - pl - pt);
                }
                _ => {
                    let sig = b - lead - trail;
                    w.put(0b11, 2);
                    w.put(lead as u64, l);
                    w.put((sig - 1) as u64, l);
                    w.put(x >> trail, sig);
                    win = Some((lead, trail));
                }
            }
        }
        w.out.push(0);
        w.out
    }

    #[test]
    fn reused_windows_agree_with_the_checked_decoder() {
        // Random-looking doubles in [0, 1000) (wide windows, 63 of 64 bits), repeats,
        // narrow integers, and 32-bit patterns: runs of '10' of every width.
        let mut x = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut sets: Vec<(u32, Vec<u64>)> = vec![];
        sets.push((
            64,
            (0..5000)
                .map(|_| ((next() >> 11) as f64 / (1u64 << 53) as f64 * 1000.0).to_bits())
                .collect(),
        ));
        sets.push((
            64,
            (0..5000)
                .map(|i| if i % 3 == 0 { 7 } else { next() >> 30 })
                .collect(),
        ));
        sets.push((64, (0..5000).map(|i| (i / 10) as u64 * 1024).collect()));
        sets.push((
            32,
            (0..5000)
                .map(|_| ((next() >> 40) as f32 / (1u64 << 24) as f32 * 100.0).to_bits() as u64)
                .collect(),
        ));
        sets.push((
            32,
            (0..5000)
                .map(|i| {
                    if i % 5 == 0 {
                        next() >> 32
                    } else {
                        (next() >> 52) << 4
                    }
                })
                .collect(),
        ));
        for (k, (b, vals)) in sets.iter().enumerate() {
            let end = if *b == 64 {
                0x8000_0000_0000_0000
            } else {
                0x8000_0000
            };
            let enc = encode(vals, *b, end, true);
            let (fast, checked) = both(*b, &enc, end);
            assert_eq!(fast.unwrap(), *vals, "set {k}");
            assert_eq!(checked.unwrap(), *vals, "set {k} (checked decoder)");
            // Cut anywhere: the fast path must fail exactly as the checked decoder does.
            for cut in [1usize, 9, enc.len() / 2, enc.len() - 2] {
                let (fast, checked) = both(*b, &enc[..cut], end);
                assert!(fast.is_err() && checked.is_err(), "set {k} cut {cut}");
                assert_eq!(
                    format!("{fast:?}"),
                    format!("{checked:?}"),
                    "set {k} cut {cut}"
                );
            }
        }
    }

    /// The fast decoder's and the checked decoder's `b`-bit patterns for `buf`.
    fn both(b: u32, buf: &[u8], end: u64) -> (DResult<Vec<u64>>, DResult<Vec<u64>>) {
        let mut slow = vec![];
        let mut push = |v| slow.push(v);
        let checked = if b == 64 {
            decode_bits::<64>(buf, 10_000, end, &mut push)
        } else {
            decode_bits::<32>(buf, 10_000, end, &mut push)
        };
        let fast = if b == 64 {
            let mut v = vec![];
            decode_i64(buf, 10_000, &mut v).map(|_| v.iter().map(|&x| x as u64).collect())
        } else {
            let mut v = vec![];
            decode_i32(buf, 10_000, &mut v).map(|_| v.iter().map(|&x| x as u32 as u64).collect())
        };
        (fast, checked.map(|_| slow))
    }

    #[test]
    fn round_trip_i64_f64() {
        let vals = [5u64, 5, 7, 1 << 40, u64::MAX >> 1, 0, 0, 3];
        let enc = encode(&vals, 64, 0x8000_0000_0000_0000, false);
        let mut v = vec![];
        decode_i64(&enc, 100, &mut v).unwrap();
        assert_eq!(v, vals.iter().map(|&x| x as i64).collect::<Vec<_>>());
        let fs = [1.5f64, 1.5, -2.25, 1e300, 0.0];
        let enc = encode(&fs.map(f64::to_bits), 64, 0x7FF8_0000_0000_0000, false);
        let mut v = vec![];
        decode_f64(&enc, 100, &mut v).unwrap();
        assert_eq!(v, fs);
        assert!(decode_f64(&enc[..enc.len() - 3], 100, &mut vec![]).is_err());
        assert!(decode_f64(&enc, 2, &mut vec![]).is_err());
    }

    #[test]
    fn i32_end_marker_and_empty() {
        // first = 9 (32 bits), then '11' lead=0 sig=32 xor to END (0x80000000).
        let mut w = W { out: vec![], n: 0 };
        w.put(9, 32);
        w.put(0b11, 2);
        w.put(0, 5);
        w.put(31, 5);
        w.put(9 ^ 0x8000_0000, 32);
        let mut v = vec![];
        decode_i32(&w.out, 10, &mut v).unwrap();
        assert_eq!(v, vec![9]);
        assert!(decode_i32(&[], 10, &mut v).is_ok());
        assert!(decode_i32(&[0, 0], 10, &mut vec![]).is_err());
    }

    #[test]
    fn prefix_stops_early_and_agrees() {
        let vals: Vec<u64> = (0..3000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 3)
            .collect();
        let enc = encode(&vals, 64, 0x8000_0000_0000_0000, false);
        let mut full = vec![];
        decode_i64(&enc, 5000, &mut full).unwrap();
        for stop in [0usize, 1, 7, 1000, 2999, 3000, 4000] {
            let mut v = vec![];
            prefix_i64(&enc, 5000, stop, &mut v).unwrap();
            assert!(
                v.len() >= stop.min(3000) && full.starts_with(&v),
                "stop {stop}"
            );
        }
        // The limit still applies when the prefix reaches it.
        assert!(prefix_i64(&enc, 10, 20, &mut vec![]).is_err());
    }
}
