//! Arrow validity / boolean bitmaps (LSB-first), built incrementally.

/// A growable bitmap, bit `i` in byte `i / 8` at bit `i % 8` (Arrow's layout).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bitmap {
    bytes: Vec<u8>,
    len: usize,
}

impl Bitmap {
    /// An empty bitmap.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty bitmap with room for `bits` bits.
    pub fn with_capacity(bits: usize) -> Self {
        Bitmap {
            bytes: Vec::with_capacity(bits.div_ceil(8)),
            len: 0,
        }
    }

    /// `len` bits, all set to `value`.
    pub fn filled(len: usize, value: bool) -> Self {
        let mut bytes = vec![if value { 0xff } else { 0 }; len.div_ceil(8)];
        if value && !len.is_multiple_of(8) {
            *bytes.last_mut().unwrap() = (1u8 << (len % 8)) - 1;
        }
        Bitmap { bytes, len }
    }

    /// The first `len` bits of the LSB-first `bytes`.
    pub fn from_bytes(bytes: Vec<u8>, len: usize) -> Self {
        assert!(
            bytes.len() * 8 >= len,
            "bitmap bytes shorter than its length"
        );
        Bitmap { bytes, len }
    }

    /// Append one bit.
    #[inline]
    pub fn push(&mut self, bit: bool) {
        if self.len.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if bit {
            *self.bytes.last_mut().unwrap() |= 1 << (self.len % 8);
        }
        self.len += 1;
    }

    /// Append `n` copies of `bit`.
    pub fn push_n(&mut self, bit: bool, n: usize) {
        // Finish the partial byte bit by bit, then whole bytes at once.
        let mut n = n;
        while n > 0 && !self.len.is_multiple_of(8) {
            self.push(bit);
            n -= 1;
        }
        let whole = n / 8;
        self.bytes
            .extend(std::iter::repeat_n(if bit { 0xff } else { 0 }, whole));
        self.len += whole * 8;
        for _ in 0..n % 8 {
            self.push(bit);
        }
    }

    /// Append bits `lo..hi` of an MSB-first bitmap (TsFile's null bitmaps): the covering
    /// bytes are bit-reversed in bulk (SIMD where built), then appended as LSB-first bits.
    pub fn extend_from_msb_first(&mut self, src: &[u8], lo: usize, hi: usize) {
        if hi <= lo {
            return;
        }
        let bytes = &src[lo / 8..hi.div_ceil(8)];
        let mut lsb = vec![0u8; bytes.len()];
        crate::simd::reverse_bits(bytes, &mut lsb);
        self.extend_from_lsb_first(&lsb, lo % 8, hi - lo);
    }

    /// Append `n` bits of an LSB-first bitmap starting at bit `off`: whole bytes at once
    /// (shifted together from two source bytes when the offsets disagree).
    pub fn extend_from_lsb_first(&mut self, src: &[u8], mut off: usize, mut n: usize) {
        let bit = |off: usize| src[off / 8] & (1 << (off % 8)) != 0;
        while n > 0 && !self.len.is_multiple_of(8) {
            self.push(bit(off));
            off += 1;
            n -= 1;
        }
        let (whole, b, sh) = (n / 8, off / 8, off % 8);
        if sh == 0 {
            self.bytes.extend_from_slice(&src[b..b + whole]);
        } else if whole > 0 {
            // Output byte i takes source bits off+8i..off+8i+7: bytes b+i and b+i+1.
            self.bytes.extend(
                src[b..b + whole + 1]
                    .windows(2)
                    .map(|w| (w[0] >> sh) | (w[1] << (8 - sh))),
            );
        }
        self.len += whole * 8;
        off += whole * 8;
        for k in 0..n % 8 {
            self.push(bit(off + k));
        }
    }

    /// Bit `i` (which must be below `len`).
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.bytes[i / 8] & (1 << (i % 8)) != 0
    }

    /// Set bit `i` (which must be below `len`) to `bit`.
    #[inline]
    pub fn set(&mut self, i: usize, bit: bool) {
        if bit {
            self.bytes[i / 8] |= 1 << (i % 8);
        } else {
            self.bytes[i / 8] &= !(1 << (i % 8));
        }
    }

    /// The number of bits.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Keep the first `len` bits (no-op when already shorter).
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        self.bytes.truncate(len.div_ceil(8));
        if !len.is_multiple_of(8) {
            *self.bytes.last_mut().unwrap() &= (1u8 << (len % 8)) - 1;
        }
        self.len = len;
    }

    /// Whether the bitmap has no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes, LSB-first (bits past `len` are zero).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes, LSB-first (bits past `len` are zero).
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// Number of unset bits (nulls, when used as validity).
    pub fn count_zeros(&self) -> usize {
        let full = self.len / 8;
        let mut ones: usize = self.bytes[..full]
            .iter()
            .map(|b| b.count_ones() as usize)
            .sum();
        if !self.len.is_multiple_of(8) {
            ones += (self.bytes[full] & ((1u8 << (self.len % 8)) - 1)).count_ones() as usize;
        }
        self.len - ones
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_n_matches_push() {
        for start in 0..10 {
            for n in 0..30 {
                let mut a = Bitmap::new();
                let mut b = Bitmap::new();
                for i in 0..start {
                    a.push(i % 3 == 0);
                    b.push(i % 3 == 0);
                }
                a.push_n(true, n);
                for _ in 0..n {
                    b.push(true);
                }
                assert_eq!(a, b);
                assert_eq!(a.count_zeros(), b.count_zeros());
            }
        }
    }

    #[test]
    fn extend_from_msb_first_matches_bitwise() {
        let src: Vec<u8> = (0..40u32)
            .map(|i| (i.wrapping_mul(0x9e37_79b9) >> 13) as u8)
            .collect();
        let msb = |i: usize| src[i / 8] & (0x80 >> (i % 8)) != 0;
        for start in 0..10 {
            for lo in [0usize, 1, 7, 8, 13, 16] {
                for n in [0usize, 1, 5, 8, 9, 63, 64, 200] {
                    let hi = lo + n;
                    let mut a = Bitmap::new();
                    let mut b = Bitmap::new();
                    for i in 0..start {
                        a.push(i % 2 == 0);
                        b.push(i % 2 == 0);
                    }
                    a.extend_from_msb_first(&src, lo, hi);
                    (lo..hi).for_each(|i| b.push(msb(i)));
                    assert_eq!(a, b, "start {start} lo {lo} n {n}");
                }
            }
        }
    }

    #[test]
    fn filled_counts() {
        for len in 0..40 {
            assert_eq!(Bitmap::filled(len, true).count_zeros(), 0);
            assert_eq!(Bitmap::filled(len, false).count_zeros(), len);
        }
    }
}
