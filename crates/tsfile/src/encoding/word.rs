//! The four fixed-width value types the bit-level encodings share (INT32, INT64, FLOAT,
//! DOUBLE): one decoder per encoding, generic over the word, instead of four copies.

/// A value stored as `BITS` raw bits.
pub(crate) trait Word: Copy + Default + 'static {
    /// Width in bits (32 or 64).
    const BITS: u32;
    /// The END marker GORILLA and CHIMP writers append (`MIN_VALUE` for integers, the
    /// canonical NaN for floats), as raw bits.
    const END: u64;
    fn from_bits(bits: u64) -> Self;
    #[cfg_attr(not(test), allow(dead_code))]
    fn to_bits(self) -> u64;
}

impl Word for i32 {
    const BITS: u32 = 32;
    const END: u64 = 0x8000_0000;
    #[inline(always)]
    fn from_bits(bits: u64) -> Self {
        bits as u32 as i32
    }
    #[inline(always)]
    fn to_bits(self) -> u64 {
        self as u32 as u64
    }
}

impl Word for i64 {
    const BITS: u32 = 64;
    const END: u64 = 0x8000_0000_0000_0000;
    #[inline(always)]
    fn from_bits(bits: u64) -> Self {
        bits as i64
    }
    #[inline(always)]
    fn to_bits(self) -> u64 {
        self as u64
    }
}

impl Word for f32 {
    const BITS: u32 = 32;
    const END: u64 = 0x7FC0_0000;
    #[inline(always)]
    fn from_bits(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
    #[inline(always)]
    fn to_bits(self) -> u64 {
        f32::to_bits(self) as u64
    }
}

impl Word for f64 {
    const BITS: u32 = 64;
    const END: u64 = 0x7FF8_0000_0000_0000;
    #[inline(always)]
    fn from_bits(bits: u64) -> Self {
        f64::from_bits(bits)
    }
    #[inline(always)]
    fn to_bits(self) -> u64 {
        f64::to_bits(self)
    }
}
