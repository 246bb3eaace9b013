//! GORILLA (v2): XOR with the previous value, leading/significant-bit windows, END marker.
//!
//! The END marker is an ordinary bit pattern (`MIN_VALUE` for integers, the canonical NaN
//! for floats), so a stream cannot tell a NaN value from its end. The official readers
//! (Java `GorillaDecoderV2`, C++ `gorilla_decoder.h`) never ask: they take the count from
//! the page (its timestamps or its null bitmap) and decode exactly that many values. Value
//! pages are decoded the same way here (`exact`); only streams whose count is unknown (time
//! pages) stop at the marker.

#![allow(unsafe_code)] // values written into reserved output before `set_len`

use super::{
    bits::{peek, peek128, with_be_words, BitReader},
    derr, limit_err,
    word::Word,
    DResult,
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
    /// `dst` is full (and, looking for the marker, the next value is not it).
    Full,
    /// A malformed stream (the checked decoder reports the exact error).
    Bad,
}

/// Fast GORILLA loop over pre-swapped words: decode values into `dst` until a full `dst`,
/// an error, or (with `END`) the END marker. Returns the values written.
#[inline(always)]
fn run<W: Word, const END: bool>(
    w: &[u64],
    total: usize,
    st: &mut St,
    dst: &mut [MaybeUninit<W>],
) -> (usize, Stop) {
    let b = W::BITS;
    let l = if b == 32 { 5 } else { 6 };
    let mask = (1u64 << l) - 1;
    let (mut p, mut v, mut lead, mut trail) = (st.p, st.v, st.lead, st.trail);
    let mut n = 0usize;
    // 64-bit values need up to 2 + 12 + 64 bits: one three-word window holds them.
    let window = |p: usize| {
        if b == 64 {
            peek128(w, p)
        } else {
            (peek(w, p), 0)
        }
    };
    let stop = 'out: loop {
        if END && v == W::END {
            break Stop::End;
        }
        if n >= dst.len() {
            break Stop::Full;
        }
        dst[n].write(W::from_bits(v));
        n += 1;
        let (mut c, mut lo) = window(p);
        // Runs of '10' (the previous window reused) dominate real streams: each such value
        // is exactly 2 + sig bits, decoded here without the general path's cases.
        let sig = b - lead - trail;
        let step = 2 + sig as usize;
        while c >> 62 == 0b10 && p + step <= total {
            let x = if b == 64 {
                (c << 2) | (lo >> 62)
            } else {
                c << 2
            };
            v ^= (x >> (64 - sig)) << trail;
            p += step;
            if END && v == W::END {
                break 'out Stop::End;
            }
            if n >= dst.len() {
                break 'out Stop::Full;
            }
            dst[n].write(W::from_bits(v));
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
            if lead + sig > b {
                break Stop::Bad;
            }
            trail = b - sig - lead;
            2 + 2 * l
        } else {
            2
        };
        // 1..=B value bits after the header (for 32-bit values always in `c`: 12 + 32 <= 64).
        let sig = b - lead - trail;
        let x = if b == 64 {
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

/// Decode into `out` with the word-based loop: `exact` values up to `limit` in all (`out`
/// included), or else until the END marker, refusing more than `limit`. With
/// `upto < limit`, decoding may end once `out` holds `upto` values (a page prefix). On any
/// malformation, the checked decoder runs instead for its exact error.
fn decode_fast<W: Word>(
    buf: &[u8],
    limit: usize,
    exact: bool,
    upto: usize,
    out: &mut Vec<W>,
) -> DResult<()> {
    let b = W::BITS as usize;
    let total = buf.len() * 8;
    if total < b {
        return decode_checked(buf, limit, exact, out);
    }
    let start = out.len();
    let ok = with_be_words(buf, |w| {
        let mut st = St {
            p: b,
            v: peek(w, 0) >> (64 - b),
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
            let (n, stop) = if exact {
                run::<W, false>(w, total, &mut st, dst)
            } else {
                run::<W, true>(w, total, &mut st, dst)
            };
            // SAFETY: `run` initialised the first `n` slots of the spare capacity.
            unsafe { out.set_len(at + n) };
            left -= n;
            match stop {
                Stop::End => return true,
                Stop::Bad => return false,
                Stop::Full if left == 0 => return exact || upto < limit,
                Stop::Full => {}
            }
        }
    });
    if ok {
        return Ok(());
    }
    out.truncate(start);
    decode_checked(buf, limit, exact, out)
}

/// The checked decoder (exact errors): `exact` values up to `limit` in all, or else until
/// the END marker (or the end of the stream), refusing more than `limit`.
fn decode_checked<W: Word>(buf: &[u8], limit: usize, exact: bool, out: &mut Vec<W>) -> DResult<()> {
    let b = W::BITS;
    let l = if b == 32 { 5 } else { 6 };
    let limit = limit.saturating_sub(out.len());
    let mut r = BitReader::new(buf);
    if buf.is_empty() || exact && limit == 0 {
        return Ok(());
    }
    let trunc = |r: &BitReader| derr(r.byte_pos(), "GORILLA stream ends before its END marker");
    let mut v = r.bits(b).ok_or_else(|| trunc(&r))?;
    let (mut lead, mut trail) = (0u32, 0u32);
    let mut n = 0usize;
    loop {
        if !exact && v == W::END {
            return Ok(());
        }
        if n >= limit {
            return Err(limit_err(r.byte_pos(), limit));
        }
        out.push(W::from_bits(v));
        n += 1;
        if exact && n == limit {
            return Ok(());
        }
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
                if lead + sig > b {
                    return Err(derr(
                        r.byte_pos(),
                        format!("GORILLA window {lead}+{sig} exceeds {b} bits"),
                    ));
                }
                trail = b - sig - lead;
                r.skip(2 + 2 * l);
            } else {
                r.skip(2);
            }
            let x = r.bits(b - lead - trail).ok_or_else(|| trunc(&r))?;
            v ^= x << trail;
            continue;
        }
        if !r.bit().ok_or_else(|| trunc(&r))? {
            continue;
        }
        if r.bit().ok_or_else(|| trunc(&r))? {
            lead = r.bits(l).ok_or_else(|| trunc(&r))? as u32;
            let sig = r.bits(l).ok_or_else(|| trunc(&r))? as u32 + 1;
            if lead + sig > b {
                return Err(derr(
                    r.byte_pos(),
                    format!("GORILLA window {lead}+{sig} exceeds {b} bits"),
                ));
            }
            trail = b - sig - lead;
        }
        let x = r.bits(b - lead - trail).ok_or_else(|| trunc(&r))?;
        v ^= x << trail;
    }
}

/// Decode a page stream into `out`: with `exact`, exactly `limit` values in all (`out`
/// included; a value equal to the END marker is data); otherwise up to the END marker,
/// refusing more than `limit`.
#[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
pub(crate) fn decode<W: Word>(
    buf: &[u8],
    limit: usize,
    exact: bool,
    out: &mut Vec<W>,
) -> DResult<()> {
    decode_fast(buf, limit, exact, usize::MAX, out)
}

/// [`decode`] of exactly `limit` values that may stop once `out` holds `upto`.
pub(crate) fn prefix<W: Word>(
    buf: &[u8],
    limit: usize,
    upto: usize,
    out: &mut Vec<W>,
) -> DResult<()> {
    decode_fast(buf, limit, true, upto, out)
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

    /// The fast decoder's and the checked decoder's `b`-bit patterns for `buf` (up to the
    /// END marker).
    fn both(b: u32, buf: &[u8], _end: u64) -> (DResult<Vec<u64>>, DResult<Vec<u64>>) {
        fn run<W: Word>(buf: &[u8], fast: bool) -> DResult<Vec<u64>> {
            let mut v: Vec<W> = vec![];
            if fast {
                decode(buf, 10_000, false, &mut v)
            } else {
                decode_checked(buf, 10_000, false, &mut v)
            }
            .map(|_| v.iter().map(|x| x.to_bits()).collect())
        }
        if b == 64 {
            (run::<i64>(buf, true), run::<i64>(buf, false))
        } else {
            (run::<i32>(buf, true), run::<i32>(buf, false))
        }
    }

    fn decode_i32(buf: &[u8], limit: usize, out: &mut Vec<i32>) -> DResult<()> {
        decode(buf, limit, false, out)
    }
    fn decode_i64(buf: &[u8], limit: usize, out: &mut Vec<i64>) -> DResult<()> {
        decode(buf, limit, false, out)
    }
    fn decode_f64(buf: &[u8], limit: usize, out: &mut Vec<f64>) -> DResult<()> {
        decode(buf, limit, false, out)
    }

    /// Exactly `n` values with the fast and the checked decoder; both must agree.
    fn exact<W: Word + std::fmt::Debug>(buf: &[u8], n: usize) -> DResult<Vec<u64>> {
        let mut fast: Vec<W> = vec![];
        let f = decode(buf, n, true, &mut fast).map(|_| fast.iter().map(|x| x.to_bits()).collect());
        let mut slow: Vec<W> = vec![];
        let s = decode_checked(buf, n, true, &mut slow)
            .map(|_| slow.iter().map(|x| x.to_bits()).collect::<Vec<u64>>());
        assert_eq!(format!("{f:?}"), format!("{s:?}"), "fast vs checked, n={n}");
        f
    }

    #[test]
    fn end_marker_values_are_data_when_the_count_is_known() {
        let nan32 = 0x7FC0_0000u64;
        let nan64 = 0x7FF8_0000_0000_0000u64;
        let mut cases: Vec<(u32, Vec<u64>)> = vec![];
        // NaN at the start, middle and end; an all-NaN page; payloads and specials.
        let f = |x: f32| x.to_bits() as u64;
        cases.push((
            32,
            vec![nan32, f(1.5), f(-2.0), nan32, f(-2.0), f(3.25), nan32],
        ));
        cases.push((32, vec![nan32; 16]));
        cases.push((
            32,
            vec![
                f(f32::INFINITY),
                f(f32::NEG_INFINITY),
                f(-0.0),
                f(0.0),
                1,
                0x7FC0_0001,
                0xFFC0_0000,
                0x7F80_0001,
                nan32,
                f(1.0),
            ],
        ));
        let d = |x: f64| x.to_bits();
        cases.push((64, vec![nan64, d(1.5), nan64, nan64, d(-7.25), nan64]));
        cases.push((64, vec![nan64; 16]));
        cases.push((
            64,
            vec![
                d(f64::INFINITY),
                d(-0.0),
                1,
                0x7FF8_0000_0000_0001,
                nan64,
                d(2.0),
            ],
        ));
        // Integer END markers (MIN_VALUE) as data.
        cases.push((32, vec![0x8000_0000, 5, 0x8000_0000, 0x8000_0000, 7]));
        cases.push((64, vec![0x8000_0000_0000_0000, 9, 0x8000_0000_0000_0000]));
        for (k, (b, vals)) in cases.iter().enumerate() {
            let end = if *b == 64 { nan64 } else { nan32 };
            let end = if k >= 6 {
                if *b == 64 {
                    0x8000_0000_0000_0000
                } else {
                    0x8000_0000
                }
            } else {
                end
            };
            for reuse in [false, true] {
                let enc = encode(vals, *b, end, reuse);
                let got = match (*b, k >= 6) {
                    (32, false) => exact::<f32>(&enc, vals.len()),
                    (64, false) => exact::<f64>(&enc, vals.len()),
                    (32, true) => exact::<i32>(&enc, vals.len()),
                    _ => exact::<i64>(&enc, vals.len()),
                };
                assert_eq!(got.unwrap(), *vals, "case {k} reuse {reuse}");
                // The END-terminated reading (time pages) stops at the first marker.
                let mut v: Vec<f64> = vec![];
                if *b == 64 && k < 6 {
                    decode(&enc, 100, false, &mut v).unwrap();
                    assert!(v.len() < vals.len());
                }
                // A count past the stream's end is an error, never invented values.
                let over = match (*b, k >= 6) {
                    (32, false) => exact::<f32>(&enc[..enc.len() - 1], vals.len() + 40),
                    (64, false) => exact::<f64>(&enc[..enc.len() - 1], vals.len() + 40),
                    (32, true) => exact::<i32>(&enc[..enc.len() - 1], vals.len() + 40),
                    _ => exact::<i64>(&enc[..enc.len() - 1], vals.len() + 40),
                };
                assert!(over.is_err(), "case {k}");
            }
        }
        // Long streams: the fast loop's output chunks and '10' runs, with NaNs among them.
        let vals: Vec<u64> = (0..5000u64)
            .map(|i| {
                if i % 97 == 0 || (1000..1100).contains(&i) {
                    nan64
                } else {
                    (((i * 2654435761) % 100_000) as f64 / 7.0).to_bits()
                }
            })
            .collect();
        let enc = encode(&vals, 64, nan64, true);
        assert_eq!(exact::<f64>(&enc, vals.len()).unwrap(), vals);
        let mut v = vec![];
        prefix::<f64>(&enc, vals.len(), 1050, &mut v).unwrap();
        assert!(v.len() >= 1050 && v.iter().zip(&vals).all(|(a, b)| a.to_bits() == *b));
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
            prefix::<i64>(&enc, 3000, stop, &mut v).unwrap();
            assert!(
                v.len() >= stop.min(3000) && full.starts_with(&v),
                "stop {stop}"
            );
        }
        // Exactly the count: a prefix past it stops at the count.
        let mut v = vec![];
        prefix::<i64>(&enc, 10, 20, &mut v).unwrap();
        assert_eq!(v, full[..10]);
    }
}
