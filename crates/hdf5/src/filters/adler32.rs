//! Adler-32 of inflated chunks for builds without SIMD: eight bytes per step in 64-bit
//! registers. The byte-at-a-time loop of the inflater's own check is one long chain of
//! dependent adds (~1 cycle a byte); here each 8-byte word adds its byte sum to `a` and its
//! weighted byte sum to `b`, both found with a multiply that sums 16-bit lanes.

const MOD: u64 = 65521;
/// Words between reductions: `b` stays far below 2^64 (per word it grows by 8·a plus
/// < 2^14, and `a` by < 2^11, so a < 2^28 and b < 2^48 by then).
const WORDS: usize = 1 << 16;

const LANES: u64 = 0x00ff_00ff_00ff_00ff;
/// Multiplying 16-bit lanes `p0..p3` by this leaves `p0 + p1 + p2 + p3` in the top lane.
const SUM: u64 = 0x0001_0001_0001_0001;
/// … and by this, `7·p0 + 5·p1 + 3·p2 + p3` (no lane carries: each sum stays < 2^16).
const WEIGHTS: u64 = 0x0007_0005_0003_0001;

pub fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u64, 0u64);
    let words = data.chunks_exact(8);
    let tail = words.remainder();
    let mut k = 0;
    for w in words {
        let v = u64::from_le_bytes(w.try_into().unwrap());
        // Byte i (bits 8i) has weight 8 - i in b: even bytes e_j and odd bytes o_j in
        // 16-bit lanes, pairs p_j = e_j + o_j; Σ(8 - i)·x_i = Σ(7 - 2j)·p_j + Σe_j.
        let even = v & LANES;
        let pairs = even + ((v >> 8) & LANES);
        let sum = pairs.wrapping_mul(SUM) >> 48;
        let weighted = (pairs.wrapping_mul(WEIGHTS) >> 48) + (even.wrapping_mul(SUM) >> 48);
        b += 8 * a + weighted;
        a += sum;
        k += 1;
        if k == WORDS {
            a %= MOD;
            b %= MOD;
            k = 0;
        }
    }
    for &x in tail {
        a += x as u64;
        b += a;
    }
    ((b % MOD) << 16 | (a % MOD)) as u32
}

#[cfg(test)]
mod tests {
    /// The definition, byte by byte.
    fn reference(data: &[u8]) -> u32 {
        let (mut a, mut b) = (1u32, 0u32);
        for &x in data {
            a = (a + x as u32) % 65521;
            b = (b + a) % 65521;
        }
        b << 16 | a
    }

    #[test]
    fn matches_the_definition() {
        assert_eq!(super::adler32(b"Wikipedia"), 0x11E6_0398);
        let mut x = 12345u32;
        let noise: Vec<u8> = (0..1_200_000)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (x >> 16) as u8
            })
            .collect();
        // All-0xff words give every lane sum its maximum; lengths around a word and past
        // one reduction period (2^19 bytes) cover the tail and the reductions.
        let ones = vec![0xffu8; 1_200_003];
        for data in [&noise[..], &ones[..]] {
            for len in [0, 1, 7, 8, 9, 15, 16, 17, 4096, (1 << 19) - 1, 1 << 19, (1 << 19) + 9, data.len()] {
                assert_eq!(super::adler32(&data[..len]), reference(&data[..len]), "length {len}");
            }
        }
    }
}
