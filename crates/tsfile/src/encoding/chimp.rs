//! CHIMP (Chimp128): XOR against one of the last N values (N = 64 for 32-bit, 128 for
//! 64-bit), 2-bit control codes, a 3-bit leading-zero class. Like GORILLA, the stream ends
//! with an END marker that is also a valid value: value pages are decoded by their known
//! count (`exact`), as the official readers do, and only other streams stop at the marker.

use super::{bits::BitReader, derr, limit_err, word::Word, DResult};

const LEAD: [u32; 8] = [0, 8, 12, 16, 18, 20, 22, 24];

/// Decode a page stream into `out`: with `exact`, exactly `limit` values in all (`out`
/// included); otherwise up to the END marker, refusing more than `limit`.
#[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
pub(crate) fn decode<W: Word>(
    buf: &[u8],
    limit: usize,
    exact: bool,
    out: &mut Vec<W>,
) -> DResult<()> {
    let limit = limit.saturating_sub(out.len());
    if buf.is_empty() || exact && limit == 0 {
        return Ok(());
    }
    let b = W::BITS;
    let (n_prev, log2, sig_bits) = if b == 32 {
        (64usize, 6u32, 5u32)
    } else {
        (128, 7, 6)
    };
    let mut ring = [0u64; 128];
    let mut r = BitReader::new(buf);
    let trunc = |r: &BitReader| derr(r.byte_pos(), "CHIMP stream ends before its END marker");
    let mut v = r.bits(b).ok_or_else(|| trunc(&r))?;
    ring[0] = v;
    let mut cur = 0usize;
    let mut lead = 0u32;
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
        let c = r.bits(2).ok_or_else(|| trunc(&r))?;
        v = match c {
            3 => {
                lead = LEAD[r.bits(3).ok_or_else(|| trunc(&r))? as usize];
                v ^ r.bits(b - lead).ok_or_else(|| trunc(&r))?
            }
            2 => v ^ r.bits(b - lead).ok_or_else(|| trunc(&r))?,
            1 => {
                let idx = r.bits(log2).ok_or_else(|| trunc(&r))? as usize;
                lead = LEAD[r.bits(3).ok_or_else(|| trunc(&r))? as usize];
                let mut sig = r.bits(sig_bits).ok_or_else(|| trunc(&r))? as u32;
                if sig == 0 {
                    sig = b;
                }
                if lead + sig > b {
                    return Err(derr(
                        r.byte_pos(),
                        format!("CHIMP window {lead}+{sig} exceeds {b} bits"),
                    ));
                }
                let trail = b - sig - lead;
                ring[idx] ^ (r.bits(sig).ok_or_else(|| trunc(&r))? << trail)
            }
            _ => ring[r.bits(log2).ok_or_else(|| trunc(&r))? as usize],
        };
        cur = (cur + 1) % n_prev;
        ring[cur] = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn first_then_repeat_then_end() {
        // 32-bit: first=5, '00' idx 0 (→5), '11' lead class 0 then 32 bits xor 5^0x80000000 → END
        let mut bits: Vec<(u64, u32)> = vec![
            (5, 32),
            (0, 2),
            (0, 6),
            (3, 2),
            (0, 3),
            (5 ^ 0x8000_0000, 32),
        ];
        bits.push((0, 8));
        let mut out = vec![0u8; 0];
        let mut n = 0u32;
        for (v, b) in bits {
            for i in (0..b).rev() {
                if n.is_multiple_of(8) {
                    out.push(0);
                }
                if v >> i & 1 == 1 {
                    *out.last_mut().unwrap() |= 0x80 >> (n % 8);
                }
                n += 1;
            }
        }
        let mut v = vec![];
        decode::<i32>(&out, 10, false, &mut v).unwrap();
        assert_eq!(v, vec![5, 5]);
        // With the count known, the marker is a value (what the official readers return).
        let mut v = vec![];
        decode::<i32>(&out, 3, true, &mut v).unwrap();
        assert_eq!(v, vec![5, 5, i32::MIN]);
        let mut v = vec![];
        decode::<i32>(&out, 2, true, &mut v).unwrap();
        assert_eq!(v, vec![5, 5]);
        assert!(decode::<i32>(&out, 40, true, &mut vec![]).is_err());
    }
}
