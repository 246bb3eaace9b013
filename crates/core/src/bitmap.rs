//! Arrow validity / boolean bitmaps (LSB-first), built incrementally.

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bitmap {
    bytes: Vec<u8>,
    len: usize,
}

impl Bitmap {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_capacity(bits: usize) -> Self {
        Bitmap { bytes: Vec::with_capacity(bits.div_ceil(8)), len: 0 }
    }

    /// `len` bits, all set to `value`.
    pub fn filled(len: usize, value: bool) -> Self {
        let mut bytes = vec![if value { 0xff } else { 0 }; len.div_ceil(8)];
        if value && len % 8 != 0 {
            *bytes.last_mut().unwrap() = (1u8 << (len % 8)) - 1;
        }
        Bitmap { bytes, len }
    }

    pub fn from_bytes(bytes: Vec<u8>, len: usize) -> Self {
        assert!(bytes.len() * 8 >= len, "bitmap bytes shorter than its length");
        Bitmap { bytes, len }
    }

    #[inline]
    pub fn push(&mut self, bit: bool) {
        if self.len % 8 == 0 {
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
        while n > 0 && self.len % 8 != 0 {
            self.push(bit);
            n -= 1;
        }
        let whole = n / 8;
        self.bytes.extend(std::iter::repeat_n(if bit { 0xff } else { 0 }, whole));
        self.len += whole * 8;
        for _ in 0..n % 8 {
            self.push(bit);
        }
    }

    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.bytes[i / 8] & (1 << (i % 8)) != 0
    }

    #[inline]
    pub fn set(&mut self, i: usize, bit: bool) {
        if bit {
            self.bytes[i / 8] |= 1 << (i % 8);
        } else {
            self.bytes[i / 8] &= !(1 << (i % 8));
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// Number of unset bits (nulls, when used as validity).
    pub fn count_zeros(&self) -> usize {
        let full = self.len / 8;
        let mut ones: usize = self.bytes[..full].iter().map(|b| b.count_ones() as usize).sum();
        if self.len % 8 != 0 {
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
    fn filled_counts() {
        for len in 0..40 {
            assert_eq!(Bitmap::filled(len, true).count_zeros(), 0);
            assert_eq!(Bitmap::filled(len, false).count_zeros(), len);
        }
    }
}
