//! Adler-32 of inflated chunks for builds without SIMD: 32 bytes per step in 64-bit
//! registers. The byte-at-a-time loop of the inflater's own check is one long chain of
//! dependent adds (~1 cycle a byte); here the bytes' sums and weighted sums come from
//! multiplies that add 16-bit lanes, four per 32 bytes.

const MOD: u64 = 65521;
/// 32-byte steps between reductions: `b` stays far below 2^64 (per step it grows by 32·a
/// plus < 2^16, and `a` by < 2^13, so a < 2^28 and b < 2^48 by then; the last 24 bytes
/// add little).
const STEPS: usize = 1 << 14;

const LANES: u64 = 0x00ff_00ff_00ff_00ff;
/// Multiplying 16-bit lanes `p0..p3` by this leaves `p0 + p1 + p2 + p3` in the top lane.
const SUM: u64 = 0x0001_0001_0001_0001;
/// … and by this, `7·p0 + 5·p1 + 3·p2 + p3` (no lane carries: each sum stays < 2^16).
const WEIGHTS: u64 = 0x0007_0005_0003_0001;

pub fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u64, 0u64);
    // 32 bytes a step: the four words' lane sums are added before multiplying (four
    // multiplies for 32 bytes instead of twelve). Lanes stay below 2^16: a pair lane sums
    // at most 4·510, weighted by at most 7 and summed over four lanes, 16·2040 < 2^16.
    let quads = data.chunks_exact(32);
    let rest = quads.remainder();
    let mut k = 0;
    for q in quads {
        let w = |i: usize| u64::from_le_bytes(q[8 * i..8 * i + 8].try_into().unwrap());
        let (e0, e1, e2, e3) = (w(0) & LANES, w(1) & LANES, w(2) & LANES, w(3) & LANES);
        let p0 = e0 + ((w(0) >> 8) & LANES);
        let p1 = e1 + ((w(1) >> 8) & LANES);
        let p2 = e2 + ((w(2) >> 8) & LANES);
        let p3 = e3 + ((w(3) >> 8) & LANES);
        let pairs = p0 + p1 + p2 + p3;
        let even = e0 + e1 + e2 + e3;
        // Word i's bytes weigh 8·(3 - i) more in b than within their word.
        let ahead = 3 * p0 + 2 * p1 + p2;
        let sum = pairs.wrapping_mul(SUM) >> 48;
        let weighted = (pairs.wrapping_mul(WEIGHTS) >> 48)
            + (even.wrapping_mul(SUM) >> 48)
            + 8 * (ahead.wrapping_mul(SUM) >> 48);
        b += 32 * a + weighted;
        a += sum;
        k += 1;
        if k == STEPS {
            a %= MOD;
            b %= MOD;
            k = 0;
        }
    }
    let words = rest.chunks_exact(8);
    let tail = words.remainder();
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
            for len in [
                0,
                1,
                7,
                8,
                9,
                15,
                16,
                17,
                4096,
                (1 << 19) - 1,
                1 << 19,
                (1 << 19) + 9,
                data.len(),
            ] {
                assert_eq!(
                    super::adler32(&data[..len]),
                    reference(&data[..len]),
                    "length {len}"
                );
            }
        }
    }
}
