//! CHIMP (Chimp128): XOR against one of the last N values (N = 64 for 32-bit, 128 for
//! 64-bit), 2-bit control codes, a 3-bit leading-zero class. Ends at the END marker.

use super::{bits::BitReader, derr, limit_err, DResult};

const LEAD: [u32; 8] = [0, 8, 12, 16, 18, 20, 22, 24];

fn decode_bits<const B: u32>(
    buf: &[u8],
    limit: usize,
    end: u64,
    mut emit: impl FnMut(u64),
) -> DResult<()> {
    if buf.is_empty() {
        return Ok(());
    }
    let (n_prev, log2, sig_bits) = if B == 32 {
        (64usize, 6u32, 5u32)
    } else {
        (128, 7, 6)
    };
    let mut ring = vec![0u64; n_prev];
    let mut r = BitReader::new(buf);
    let trunc = |r: &BitReader| derr(r.byte_pos(), "CHIMP stream ends before its END marker");
    let mut v = r.bits(B).ok_or_else(|| trunc(&r))?;
    ring[0] = v;
    let mut cur = 0usize;
    let mut lead = 0u32;
    let mut n = 0usize;
    loop {
        if v == end {
            return Ok(());
        }
        if n >= limit {
            return Err(limit_err(r.byte_pos(), limit));
        }
        emit(v);
        n += 1;
        let c = r.bits(2).ok_or_else(|| trunc(&r))?;
        v = match c {
            3 => {
                lead = LEAD[r.bits(3).ok_or_else(|| trunc(&r))? as usize];
                v ^ r.bits(B - lead).ok_or_else(|| trunc(&r))?
            }
            2 => v ^ r.bits(B - lead).ok_or_else(|| trunc(&r))?,
            1 => {
                let idx = r.bits(log2).ok_or_else(|| trunc(&r))? as usize;
                lead = LEAD[r.bits(3).ok_or_else(|| trunc(&r))? as usize];
                let mut sig = r.bits(sig_bits).ok_or_else(|| trunc(&r))? as u32;
                if sig == 0 {
                    sig = B;
                }
                if lead + sig > B {
                    return Err(derr(
                        r.byte_pos(),
                        format!("CHIMP window {lead}+{sig} exceeds {B} bits"),
                    ));
                }
                let trail = B - sig - lead;
                ring[idx] ^ (r.bits(sig).ok_or_else(|| trunc(&r))? << trail)
            }
            _ => ring[r.bits(log2).ok_or_else(|| trunc(&r))? as usize],
        };
        cur = (cur + 1) % n_prev;
        ring[cur] = v;
    }
}

pub fn decode_i32(buf: &[u8], limit: usize, out: &mut Vec<i32>) -> DResult<()> {
    decode_bits::<32>(buf, limit.saturating_sub(out.len()), 0x8000_0000, |v| {
        out.push(v as u32 as i32)
    })
}
pub fn decode_i64(buf: &[u8], limit: usize, out: &mut Vec<i64>) -> DResult<()> {
    decode_bits::<64>(
        buf,
        limit.saturating_sub(out.len()),
        0x8000_0000_0000_0000,
        |v| out.push(v as i64),
    )
}
pub fn decode_f32(buf: &[u8], limit: usize, out: &mut Vec<f32>) -> DResult<()> {
    decode_bits::<32>(buf, limit.saturating_sub(out.len()), 0x7FC0_0000, |v| {
        out.push(f32::from_bits(v as u32))
    })
}
pub fn decode_f64(buf: &[u8], limit: usize, out: &mut Vec<f64>) -> DResult<()> {
    decode_bits::<64>(
        buf,
        limit.saturating_sub(out.len()),
        0x7FF8_0000_0000_0000,
        |v| out.push(f64::from_bits(v)),
    )
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
        decode_i32(&out, 10, &mut v).unwrap();
        assert_eq!(v, vec![5, 5]);
    }
}
