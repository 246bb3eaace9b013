//! Byte-order kernels shared by the formats (MessagePack, TsFile PLAIN and HDF5 are
//! big-endian in places; wasm is little-endian).
//!
//! The SIMD128 variant is compiled only when the build enables `simd128`; the scalar
//! variant is the reference and the fallback, and both are tested to agree.

mod scalar;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;

/// True when this build uses the SIMD128 kernels.
pub const ENABLED: bool = cfg!(all(target_arch = "wasm32", target_feature = "simd128"));

/// Reverse the byte order of each `width`-byte value of `src` (width 2, 4 or 8) into `dst`.
/// `src.len()` must equal `dst.len()` and be a multiple of `width`.
#[inline]
pub fn swap_bytes(width: usize, src: &[u8], dst: &mut [u8]) {
    assert_eq!(src.len(), dst.len());
    assert!(matches!(width, 1 | 2 | 4 | 8) && src.len().is_multiple_of(width));
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd128::swap_bytes(width, src, dst)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        scalar::swap_bytes(width, src, dst)
    }
}

/// True when every byte is ASCII (below 0x80): lets UTF-8 validation of a whole string
/// column skip the per-character work in the common case.
#[inline]
pub fn is_ascii(bytes: &[u8]) -> bool {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd128::is_ascii(bytes)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        scalar::is_ascii(bytes)
    }
}

/// Reverse the bit order inside each byte of `src` into `dst` (same length): MSB-first
/// bitmaps (TsFile null bitmaps) become Arrow's LSB-first ones.
#[inline]
pub fn reverse_bits(src: &[u8], dst: &mut [u8]) {
    assert_eq!(src.len(), dst.len());
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd128::reverse_bits(src, dst)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        scalar::reverse_bits(src, dst)
    }
}

/// Append the big-endian values in `src` to `dst` in native order.
pub fn extend_from_be<T: bytemuck::Pod + Default>(dst: &mut Vec<T>, src: &[u8]) {
    let width = std::mem::size_of::<T>();
    let n = src.len() / width;
    let at = dst.len();
    dst.resize(at + n, T::default());
    swap_bytes(
        width,
        &src[..n * width],
        bytemuck::cast_slice_mut(&mut dst[at..]),
    );
}

/// Scalar reference, exposed for equivalence tests and benchmarks.
pub fn swap_bytes_scalar(width: usize, src: &[u8], dst: &mut [u8]) {
    scalar::swap_bytes(width, src, dst)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_ascii_matches_std() {
        let mut v: Vec<u8> = (0..300u32).map(|i| (i % 128) as u8).collect();
        for len in [0, 1, 15, 16, 17, 63, 64, 65, 300] {
            assert!(is_ascii(&v[..len]));
            assert!(scalar::is_ascii(&v[..len]));
        }
        for at in [0, 7, 15, 16, 31, 64, 100, 299] {
            v[at] = 0xc3;
            assert!(!is_ascii(&v) && !scalar::is_ascii(&v), "high byte at {at}");
            assert_eq!(is_ascii(&v[..at]), v[..at].is_ascii());
            v[at] = b'a';
        }
    }

    #[test]
    fn reverse_bits_matches_std() {
        let src: Vec<u8> = (0..=255u8).chain(0..40).collect();
        for len in [0, 1, 7, 8, 15, 16, 17, 33, 296] {
            let mut a = vec![0u8; len];
            let mut b = vec![0u8; len];
            reverse_bits(&src[..len], &mut a);
            scalar::reverse_bits(&src[..len], &mut b);
            let want: Vec<u8> = src[..len].iter().map(|x| x.reverse_bits()).collect();
            assert_eq!(a, want);
            assert_eq!(b, want);
        }
    }

    #[test]
    fn extend_from_be_values() {
        let mut v: Vec<u32> = vec![7];
        extend_from_be(&mut v, &[0, 0, 1, 2, 0xff, 0, 0, 0]);
        assert_eq!(v, vec![7, 0x0102, 0xff00_0000]);
        let mut f: Vec<f64> = vec![];
        extend_from_be(&mut f, &1.5f64.to_be_bytes());
        assert_eq!(f, vec![1.5]);
    }
}
