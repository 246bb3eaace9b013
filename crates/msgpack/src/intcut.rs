//! Branch-free decoding of one int that fits 32 bits (fixint, int8–32, uint8–32).
//!
//! In arrays that mix int encodings the tag is unpredictable, and a `match` on it costs a
//! branch misprediction per value. Instead, the 8 bytes starting at the tag are read as one
//! big-endian word, and a 256-entry table says how to cut the value out of it: two shifts
//! isolate the payload bytes and a third pair sign-extends it (or not). The only branches
//! left are "not such an int" and "past the end", which are rare and well predicted.

/// How to cut the value of one tag out of its 8-byte window.
#[derive(Clone, Copy)]
struct Cut {
    /// Bytes before the payload, in bits (0 for a fixint: the tag is the value).
    shl: u8,
    /// 64 minus the payload width in bits.
    shr: u8,
    /// Sign-extension shift: equal to `shr` for signed payloads, 0 for unsigned ones.
    sext: u8,
    /// Encoded length in bytes; 0 for tags that are not such an int.
    len: u8,
}

const fn cut(payload: u8, width: u8, signed: bool) -> Cut {
    let shr = 64 - 8 * width;
    Cut {
        shl: 8 * payload,
        shr,
        sext: if signed { shr } else { 0 },
        len: payload + width,
    }
}

const fn table() -> [Cut; 256] {
    let none = Cut {
        shl: 0,
        shr: 0,
        sext: 0,
        len: 0,
    };
    let mut t = [none; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = match i as u8 {
            0x00..=0x7f | 0xe0..=0xff => cut(0, 1, true),
            0xcc => cut(1, 1, false),
            0xcd => cut(1, 2, false),
            0xce => cut(1, 4, false),
            0xd0 => cut(1, 1, true),
            0xd1 => cut(1, 2, true),
            0xd2 => cut(1, 4, true),
            _ => none,
        };
        i += 1;
    }
    t
}

static CUTS: [Cut; 256] = table();

/// Values per block; the decoding mode is chosen again for each block.
const BLOCK: usize = 64;
/// Blocks with at most this many tag changes re-use the previous tag's cut (below).
const FEW_CHANGES: usize = 8;

/// Appends up to `max` ints that fit i32 from `buf[*pos..]` to `v`, advancing `*pos`.
/// Stops (consuming nothing more) at anything else: another tag, a header cut by the end
/// of `buf`, or a uint32 above i32::MAX. Returns how many were appended.
///
/// Branch-free decoding has a price on runs of one tag: the next position then waits for
/// a load and a table lookup, where a predicted branch would let the CPU run ahead. So
/// each block of values whose tags mostly repeated is followed by one that keeps the
/// previous tag's cut behind a branch, and a block with many tag changes by a branch-free one.
#[inline]
pub fn int32_run(buf: &[u8], pos: &mut usize, v: &mut Vec<i32>, max: usize) -> usize {
    let mut n = 0;
    let mut predictable = true;
    while n < max {
        let block = (max - n).min(BLOCK);
        let (k, changes) = if predictable {
            block_run::<true>(buf, pos, v, block)
        } else {
            block_run::<false>(buf, pos, v, block)
        };
        n += k;
        if k < block {
            break;
        }
        predictable = changes <= FEW_CHANGES;
    }
    n
}

/// Up to `max` values; returns how many and the number of tag changes seen.
#[inline(always)]
fn block_run<const REUSE: bool>(
    buf: &[u8],
    pos: &mut usize,
    v: &mut Vec<i32>,
    max: usize,
) -> (usize, usize) {
    // A local position: through `pos` it could go to memory on every value.
    let mut p = *pos;
    let mut changes = 0;
    let mut n = 0;
    // 0xc1 is never an int: the first value counts as a change.
    let mut prev = 0xc1;
    while n < max {
        if REUSE {
            changes += 1;
            // One loop per run of a class, with that class's cut as constants: the next
            // position never waits for a lookup (the loop exit is the prediction).
            let Some(&t) = buf.get(p) else { break };
            let k = match t {
                0x00..=0x7f | 0xe0..=0xff => class_run::<0x00>(buf, &mut p, v, max - n),
                0xcc => class_run::<0xcc>(buf, &mut p, v, max - n),
                0xcd => class_run::<0xcd>(buf, &mut p, v, max - n),
                0xce => class_run::<0xce>(buf, &mut p, v, max - n),
                0xd0 => class_run::<0xd0>(buf, &mut p, v, max - n),
                0xd1 => class_run::<0xd1>(buf, &mut p, v, max - n),
                0xd2 => class_run::<0xd2>(buf, &mut p, v, max - n),
                _ => 0,
            };
            if k == 0 {
                break;
            }
            n += k;
        } else {
            let (w, avail) = window(buf, p);
            let t = (w >> 56) as u8;
            changes += (class(t) != prev) as usize;
            prev = class(t);
            let Some((x, _)) = CUTS[t as usize].apply(w, avail) else {
                break;
            };
            v.push(x);
            p += int_len(t);
            n += 1;
        }
    }
    *pos = p;
    (n, changes)
}

/// Up to `max` values of the class of tag `T` (all fixints are one class).
#[inline(always)]
fn class_run<const T: u8>(buf: &[u8], pos: &mut usize, v: &mut Vec<i32>, max: usize) -> usize {
    let c = const { table()[T as usize] };
    let len = c.len as usize;
    let mut p = *pos;
    let mut n = 0;
    while n < max {
        // Exactly this class's bytes: a fixint run reads one byte per value.
        let Some(s) = buf.get(p..p + len) else { break };
        if class(s[0]) != class(T) {
            break;
        }
        let mut w = [0u8; 8];
        w[..len].copy_from_slice(s);
        let Some((x, _)) = c.apply(u64::from_be_bytes(w), len) else {
            break;
        };
        v.push(x);
        p += len;
        n += 1;
    }
    *pos = p;
    n
}

/// `CUTS[t].len` for an int tag, computed from `t` without a load: the next position is
/// the loop's critical path, and a table lookup would add a load's latency to it.
#[inline(always)]
fn int_len(t: u8) -> usize {
    if t as i8 >= -32 {
        1
    } else {
        // 0xcc–0xce and 0xd0–0xd2: the low two bits give the payload width 1, 2, 4.
        1 + (1 << (t & 3))
    }
}

/// The tag, with every fixint as 0x00 (they share one cut).
#[inline(always)]
fn class(t: u8) -> u8 {
    if t as i8 >= -32 {
        0
    } else {
        t
    }
}

impl Cut {
    /// The value in window `w` (of which `avail` bytes are real) and its length, if this
    /// cut is an int's, all of it is there, and it fits i32.
    #[inline(always)]
    fn apply(self, w: u64, avail: usize) -> Option<(i32, usize)> {
        let len = self.len as usize;
        if len == 0 || len > avail {
            return None;
        }
        let raw = (w << self.shl) >> self.shr;
        let x = i32::try_from(((raw << self.sext) as i64) >> self.sext).ok()?;
        Some((x, len))
    }
}

/// The (up to) 8 bytes at `pos` as a big-endian word, zero-padded, and how many are real.
#[inline(always)]
fn window(buf: &[u8], pos: usize) -> (u64, usize) {
    match buf.get(pos..pos.saturating_add(8)) {
        Some(s) => (u64::from_be_bytes(s.try_into().unwrap_or([0; 8])), 8),
        None => {
            let rest = buf.get(pos..).unwrap_or(&[]);
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            (u64::from_be_bytes(w), rest.len())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain `match` that the table replaces.
    fn reference(buf: &[u8]) -> Option<(i64, usize)> {
        let t = *buf.first()?;
        let p = |n: usize| buf.get(1..1 + n);
        Some(match t {
            0x00..=0x7f | 0xe0..=0xff => (t as i8 as i64, 1),
            0xcc => (p(1)?[0] as i64, 2),
            0xd0 => (p(1)?[0] as i8 as i64, 2),
            0xcd => (u16::from_be_bytes(p(2)?.try_into().ok()?) as i64, 3),
            0xd1 => (i16::from_be_bytes(p(2)?.try_into().ok()?) as i64, 3),
            0xce => (u32::from_be_bytes(p(4)?.try_into().ok()?) as i64, 5),
            0xd2 => (i32::from_be_bytes(p(4)?.try_into().ok()?) as i64, 5),
            _ => return None,
        })
    }

    /// One value through `int32_run`, as (value, length).
    fn one(buf: &[u8], at: usize) -> Option<(i64, usize)> {
        let mut pos = at;
        let mut v = vec![];
        (int32_run(buf, &mut pos, &mut v, 1) == 1).then(|| (v[0] as i64, pos - at))
    }

    #[test]
    fn int_len_is_the_table_length() {
        for t in 0..=255u8 {
            if CUTS[t as usize].len != 0 {
                assert_eq!(int_len(t), CUTS[t as usize].len as usize, "{t:#x}");
            }
        }
    }

    #[test]
    fn every_tag_every_length_matches_the_match() {
        let payloads: [[u8; 8]; 4] = [
            [0; 8],
            [0xff; 8],
            [0x80, 0, 0, 1, 0x7f, 2, 3, 4],
            [0x7f, 0xff, 0xfe, 0x81, 9, 8, 7, 6],
        ];
        for t in 0..=255u8 {
            for p in payloads {
                let mut buf = vec![t];
                buf.extend(p);
                for cut_at in 0..=buf.len() {
                    let b = &buf[..cut_at];
                    let want = reference(b).filter(|&(x, _)| i32::try_from(x).is_ok());
                    assert_eq!(one(b, 0), want, "tag {t:#x} len {cut_at}");
                    // Also not at the start of the buffer.
                    let mut shifted = vec![0xc0];
                    shifted.extend(b);
                    assert_eq!(one(&shifted, 1), want);
                }
            }
        }
        assert_eq!(one(&[1], 5), None);
    }

    #[test]
    fn runs_in_both_modes_match_the_match() {
        // Long runs of one tag, then random tags (both block modes), then a stop.
        let mut x = 12345u32;
        let mut rnd = || {
            x = x.wrapping_mul(1103515245).wrapping_add(12345);
            x >> 8
        };
        for stop_tag in [0xc0u8, 0xce] {
            let mut buf = vec![];
            for i in 0..200 {
                let t = if i < 60 {
                    0xcd
                } else {
                    [0x05, 0xcd, 0xd2, 0xd0, 0xcc, 0xf0][rnd() as usize % 6]
                };
                buf.push(t);
                let w = match t {
                    0xcc | 0xd0 => 1,
                    0xcd => 2,
                    0xd2 => 4,
                    _ => 0,
                };
                buf.extend((0..w).map(|_| rnd() as u8));
            }
            let body = buf.len();
            buf.extend([stop_tag, 0xff, 0xff, 0xff, 0xff]);
            let mut want = vec![];
            let mut p = 0;
            while let Some((x, len)) =
                reference(&buf[p..]).filter(|&(x, _)| i32::try_from(x).is_ok())
            {
                want.push(x as i32);
                p += len;
            }
            assert_eq!(p, body);
            for max in [1, 7, 16, 17, 199, 200, 1000] {
                let mut pos = 0;
                let mut v = vec![];
                let n = int32_run(&buf, &mut pos, &mut v, max);
                assert_eq!(n, max.min(200));
                assert_eq!(v, want[..n]);
            }
        }
    }
}
