//! The four fixed-width value types the encodings share (INT32, INT64, FLOAT, DOUBLE): one
//! decoder per encoding, generic over the word, instead of four copies. Every method is
//! `#[inline(always)]`, so each instantiation compiles to the loop a per-type copy would.

/// A value stored as `BITS` raw bits.
pub(crate) trait Word: Copy + Default + 'static {
    /// Width in bits (32 or 64).
    const BITS: u32;
    /// The END marker GORILLA and CHIMP writers append (`MIN_VALUE` for integers, the
    /// canonical NaN for floats), as raw bits.
    const END: u64;
    /// FLOAT or DOUBLE (encodings that treat floats apart, e.g. SPRINTZ's first value).
    const FLOAT: bool;
    /// The signed integer of the same width: the word itself for INT32/INT64, the integer
    /// whose bits a FLOAT/DOUBLE encoding works on.
    type Int: Int;
    /// The word whose raw bits are the low `BITS` of `bits`.
    fn from_bits(bits: u64) -> Self;
    /// The raw bits, zero-extended.
    fn to_bits(self) -> u64;
}

/// INT32 and INT64: the wrapping arithmetic the delta encodings rebuild values with.
pub(crate) trait Int: Word + Ord {
    const ZERO: Self;
    fn wrapping_add(self, o: Self) -> Self;
    fn wrapping_sub(self, o: Self) -> Self;
    fn wrapping_neg(self) -> Self;
    /// `self / 2`, rounding toward zero.
    fn half(self) -> Self;
    /// Arithmetic shift right.
    fn sar(self, n: u32) -> Self;
    /// `v as Self` (truncating).
    fn from_i64(v: i64) -> Self;
    /// `self as i64` (sign-extending).
    fn to_i64(self) -> i64;
    /// `v as Self` (truncating).
    fn from_i128(v: i128) -> Self;
    /// A big-endian value of `BITS / 8` bytes (`b` holds exactly that).
    fn from_be(b: &[u8]) -> Self;
}

/// FLOAT and DOUBLE.
pub(crate) trait Float: Word + std::ops::Add<Output = Self> {
    /// `v as Self` (rounding to nearest).
    fn from_f64(v: f64) -> Self;
}

macro_rules! int {
    ($t:ty, $u:ty, $bits:expr, $end:expr) => {
        impl Word for $t {
            const BITS: u32 = $bits;
            const END: u64 = $end;
            const FLOAT: bool = false;
            type Int = $t;
            #[inline(always)]
            fn from_bits(bits: u64) -> Self {
                bits as $u as $t
            }
            #[inline(always)]
            fn to_bits(self) -> u64 {
                self as $u as u64
            }
        }

        impl Int for $t {
            const ZERO: Self = 0;
            #[inline(always)]
            fn wrapping_add(self, o: Self) -> Self {
                <$t>::wrapping_add(self, o)
            }
            #[inline(always)]
            fn wrapping_sub(self, o: Self) -> Self {
                <$t>::wrapping_sub(self, o)
            }
            #[inline(always)]
            fn wrapping_neg(self) -> Self {
                <$t>::wrapping_neg(self)
            }
            #[inline(always)]
            fn half(self) -> Self {
                self / 2
            }
            #[inline(always)]
            fn sar(self, n: u32) -> Self {
                self >> n
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn from_i128(v: i128) -> Self {
                v as $t
            }
            #[inline(always)]
            fn from_be(b: &[u8]) -> Self {
                <$t>::from_be_bytes(b.try_into().unwrap())
            }
        }
    };
}

int!(i32, u32, 32, 0x8000_0000);
int!(i64, u64, 64, 0x8000_0000_0000_0000);

macro_rules! float {
    ($t:ty, $u:ty, $int:ty, $bits:expr, $end:expr) => {
        impl Word for $t {
            const BITS: u32 = $bits;
            const END: u64 = $end;
            const FLOAT: bool = true;
            type Int = $int;
            #[inline(always)]
            fn from_bits(bits: u64) -> Self {
                <$t>::from_bits(bits as $u)
            }
            #[inline(always)]
            fn to_bits(self) -> u64 {
                <$t>::to_bits(self) as u64
            }
        }

        impl Float for $t {
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
        }
    };
}

float!(f32, u32, i32, 32, 0x7FC0_0000);
float!(f64, u64, i64, 64, 0x7FF8_0000_0000_0000);

/// The word with the bits of integer `i`.
#[inline(always)]
pub(crate) fn from_int<W: Word>(i: W::Int) -> W {
    W::from_bits(i.to_bits())
}
