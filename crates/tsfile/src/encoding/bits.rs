//! MSB-first bit reader shared by GORILLA, CHIMP, RLBE and the bit-packers.

pub(crate) struct BitReader<'a> {
    data: &'a [u8],
    /// Next bit position.
    pos: usize,
}

impl<'a> BitReader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        BitReader { data, pos: 0 }
    }
    #[inline]
    pub fn bits_left(&self) -> usize {
        self.data.len() * 8 - self.pos
    }
    pub fn bit_pos(&self) -> usize {
        self.pos
    }
    pub fn byte_pos(&self) -> usize {
        self.pos.div_ceil(8)
    }
    pub fn align(&mut self) {
        self.pos = self.pos.div_ceil(8) * 8;
    }
    #[inline]
    pub fn bit(&mut self) -> Option<bool> {
        let byte = *self.data.get(self.pos >> 3)?;
        let b = (byte >> (7 - (self.pos & 7))) & 1;
        self.pos += 1;
        Some(b != 0)
    }
    /// The next bits left-aligned in a u64 (at least 57 valid bits), when 8 bytes remain
    /// from the current byte; `None` near the end (use the checked readers there).
    #[inline]
    pub fn peek_fast(&self) -> Option<u64> {
        let byte = self.pos >> 3;
        let b = self.data.get(byte..byte + 8)?;
        Some(u64::from_be_bytes(b.try_into().unwrap()) << (self.pos & 7))
    }

    /// Skip `n` bits already validated with [`BitReader::peek_fast`].
    #[inline]
    pub fn skip(&mut self, n: u32) {
        self.pos += n as usize;
    }

    /// Read `n` (0..=64) bits as an unsigned value.
    #[inline]
    pub fn bits(&mut self, n: u32) -> Option<u64> {
        if n == 0 {
            return Some(0);
        }
        if self.bits_left() < n as usize {
            return None;
        }
        let byte = self.pos >> 3;
        if n <= 56 && byte + 8 <= self.data.len() {
            // Fast path: one big-endian 64-bit window holds all the bits.
            let w = u64::from_be_bytes(self.data[byte..byte + 8].try_into().unwrap());
            let off = (self.pos & 7) as u32;
            self.pos += n as usize;
            return Some((w << off) >> (64 - n));
        }
        let mut need = n;
        let mut v: u64 = 0;
        while need > 0 {
            let byte = self.data[self.pos >> 3] as u64;
            let used = (self.pos & 7) as u32;
            let avail = 8 - used;
            let take = avail.min(need);
            let chunk = (byte >> (avail - take)) & ((1u64 << take) - 1);
            v = if take == 64 {
                chunk
            } else {
                (v << take) | chunk
            };
            need -= take;
            self.pos += take as usize;
        }
        Some(v)
    }
}

/// Unpack `count` unsigned `width`-bit values (MSB-first, back to back) from `src`.
/// `src` must hold at least `ceil(count*width/8)` bytes.
#[inline]
pub(crate) fn unpack_msb(src: &[u8], width: u32, count: usize, mut emit: impl FnMut(u64)) {
    if width == 0 {
        for _ in 0..count {
            emit(0);
        }
        return;
    }
    let mut i = 0usize;
    let mut p = 0usize;
    if width <= 56 {
        // One unaligned big-endian 64-bit load per value while 8 bytes remain.
        let shift = 64 - width;
        while i < count {
            let byte = p >> 3;
            let Some(b) = src.get(byte..byte + 8) else {
                break;
            };
            let w = u64::from_be_bytes(b.try_into().unwrap());
            emit((w << (p & 7)) >> shift);
            p += width as usize;
            i += 1;
        }
    }
    // The tail (and widths above 56): the checked bit reader.
    let mut r = BitReader { data: src, pos: p };
    for _ in i..count {
        emit(r.bits(width).unwrap_or(0));
    }
}

/// A big-endian bit stream pre-converted to native-order 64-bit words (one SIMD
/// byte-swap pass), so any bit window is two plain loads and two shifts: wasm has no
/// scalar byte swap, and a per-value `u64::from_be_bytes` costs ~20 instructions there.
///
/// `words` holds `ceil(len/8)` data words (the last zero-padded) plus two zero words, so
/// [`peek`] at any bit position up to 64 bits past the data end stays in bounds.
pub(crate) fn with_be_words<R>(buf: &[u8], f: impl FnOnce(&[u64]) -> R) -> R {
    thread_local! {
        static WORDS: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    WORDS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut w) => {
            fill_be_words(buf, &mut w);
            f(&w)
        }
        Err(_) => {
            let mut w = Vec::new();
            fill_be_words(buf, &mut w);
            f(&w)
        }
    })
}

fn fill_be_words(buf: &[u8], w: &mut Vec<u64>) {
    let full = buf.len() / 8;
    // Reuse the buffer without re-zeroing it: every word below is overwritten.
    w.truncate(full);
    w.resize(full, 0);
    arrowsmith_core::simd::swap_bytes(8, &buf[..full * 8], bytemuck::cast_slice_mut(&mut w[..]));
    let tail = &buf[full * 8..];
    if !tail.is_empty() {
        let mut t = [0u8; 8];
        t[..tail.len()].copy_from_slice(tail);
        w.push(u64::from_be_bytes(t));
    }
    w.push(0);
    w.push(0);
}

/// The 64 bits starting at bit `p` of a [`with_be_words`] buffer, MSB-first.
///
/// Callers keep `p` at most 64 bits past the data end (the buffer's two padding words
/// cover that); the index is still checked, once, for memory safety.
#[inline(always)]
pub(crate) fn peek(w: &[u64], p: usize) -> u64 {
    let i = p >> 6;
    let s = (p & 63) as u32;
    let Some(&[a, b]) = w.get(i..i + 2).map(|x| <&[u64; 2]>::try_from(x).unwrap()) else {
        return 0;
    };
    (a << s) | ((b >> 1) >> (63 - s))
}

/// The 128 bits starting at bit `p` of a [`with_be_words`] buffer, MSB-first, as
/// `(high, low)`: one three-word load where two [`peek`]s would take four.
///
/// Callers keep `p` at most the data's bit length (the padding words cover the rest).
#[inline(always)]
pub(crate) fn peek128(w: &[u64], p: usize) -> (u64, u64) {
    let i = p >> 6;
    let s = (p & 63) as u32;
    let Some(&[a, b, c]) = w.get(i..i + 3).map(|x| <&[u64; 3]>::try_from(x).unwrap()) else {
        return (0, 0);
    };
    (
        (a << s) | ((b >> 1) >> (63 - s)),
        (b << s) | ((c >> 1) >> (63 - s)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn reads_bits() {
        let d = [0b1010_1100, 0xff, 0x01];
        let mut r = BitReader::new(&d);
        assert_eq!(r.bit(), Some(true));
        assert_eq!(r.bits(3), Some(0b010));
        assert_eq!(r.bits(8), Some(0b1100_1111));
        assert_eq!(r.bits(12), Some(0xf01));
        assert_eq!(r.bits(1), None);
        // Fast path agrees with the slow path.
        let d: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
        for n in 1..=64 {
            let mut a = BitReader::new(&d);
            let mut b = BitReader::new(&d);
            a.bits(3);
            b.bits(3);
            let fast = a.bits(n);
            // slow: bit by bit
            let mut v = 0u64;
            for _ in 0..n {
                v = (v << 1) | b.bit().unwrap() as u64;
            }
            assert_eq!(fast, Some(v), "n={n}");
        }
        let mut got = vec![];
        unpack_msb(&[0b0001_0010, 0b0011_0100], 4, 4, |v| got.push(v));
        assert_eq!(got, vec![1, 2, 3, 4]);
        // Fast and checked paths agree for every width.
        let d: Vec<u8> = (0..200u32).map(|i| (i * 73 + 11) as u8).collect();
        for w in 1..=64u32 {
            let n = d.len() * 8 / w as usize;
            let mut fast = vec![];
            unpack_msb(&d, w, n, |v| fast.push(v));
            let mut r = BitReader::new(&d);
            let slow: Vec<u64> = (0..n).map(|_| r.bits(w).unwrap()).collect();
            assert_eq!(fast, slow, "width {w}");
        }
        // Word windows agree with the bit reader at every position and width.
        for len in [0usize, 1, 7, 8, 9, 17, 200] {
            let d = &d[..len];
            with_be_words(d, |w| {
                for p in 0..=len * 8 {
                    let mut r = BitReader::new(d);
                    r.pos = p;
                    let n = ((len * 8 - p) as u32).min(64);
                    let want = if n == 0 {
                        0
                    } else {
                        r.bits(n).unwrap() << (64 - n)
                    };
                    let got = peek(w, p);
                    let got = if n == 0 {
                        0
                    } else {
                        got >> (64 - n) << (64 - n)
                    };
                    assert_eq!(got, want, "len {len} pos {p}");
                    assert_eq!(
                        peek(w, p) & (u64::MAX >> n.min(63)) & if n == 64 { 0 } else { u64::MAX },
                        0
                    );
                }
            });
        }
    }
}
