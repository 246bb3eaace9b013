//! RLBE: per block `[32-bit size]` then runs of `[segLen][Fibonacci run length][run × segLen-bit deltas]`;
//! first value of a block is the first delta, later values add deltas (wrapping). FLOAT/DOUBLE
//! are the same over raw IEEE bits.

use super::{
    bits::BitReader,
    check_limit, derr,
    word::{Float, Word},
    DResult,
};

const MAX_BLOCK: usize = 1 << 20;

/// Decode the raw deltas; `emit(first_of_block, delta_bits)`.
fn decode_bits<W: Word>(
    buf: &[u8],
    limit: usize,
    cur: usize,
    mut emit: impl FnMut(bool, u64),
) -> DResult<()> {
    let len_bits = if W::BITS == 32 { 6 } else { 7 };
    let mut r = BitReader::new(buf);
    let mut n = cur;
    loop {
        r.align();
        if r.bits_left() < 32 {
            return Ok(());
        }
        let at = r.byte_pos();
        let size = r.bits(32).unwrap() as usize;
        if size == 0 || size > MAX_BLOCK {
            return Err(derr(at, format!("RLBE block size {size}")));
        }
        check_limit(n, size, limit, at)?;
        let trunc = |r: &BitReader| derr(r.byte_pos(), "RLBE block ends early");
        let mut done = 0usize;
        while done < size {
            let seg = r.bits(len_bits).ok_or_else(|| trunc(&r))? as u32;
            if seg < 1 || seg > W::BITS {
                return Err(derr(r.byte_pos(), format!("RLBE segment length {seg}")));
            }
            // Fibonacci-coded run length: bit j weighs fib(j) (1, 2, 3, 5, …), "11" ends.
            let (mut f1, mut f2) = (1u64, 1u64); // fib(j-1), fib(j) with fib(1)=1
            let mut now = r.bit().ok_or_else(|| trunc(&r))?;
            let mut next = r.bit().ok_or_else(|| trunc(&r))?;
            let mut run = 0u64;
            let mut j = 1;
            loop {
                if j > 1 {
                    let f = f1 + f2;
                    f1 = f2;
                    f2 = f;
                }
                if now {
                    run += f2;
                    if run > (size - done) as u64 {
                        return Err(derr(
                            r.byte_pos(),
                            format!("RLBE run of {run} overflows its block of {size}"),
                        ));
                    }
                }
                if now && next {
                    break;
                }
                j += 1;
                now = next;
                next = r.bit().ok_or_else(|| trunc(&r))?;
            }
            for _ in 0..run {
                let mut d = r.bits(seg).ok_or_else(|| trunc(&r))?;
                if seg == W::BITS {
                    d |= 1u64 << (W::BITS - 1);
                }
                emit(done == 0, d);
                done += 1;
            }
        }
        n += size;
    }
}

/// Decode into `out`, refusing more than `limit` values in all. FLOAT/DOUBLE are integer
/// RLBE over the raw IEEE bits (TsFile 2.x Java and C++); the running sum wraps at the
/// word's width (the low `BITS` of a 64-bit sum).
///
/// Not inlined: inlined into `encoding::decode` (four instances), the wasm build read RLBE
/// pages 10–35 % slower in interleaved A/Bs (bench/results/tsfile-ab.md).
#[inline(never)]
pub(crate) fn decode<W: Word>(buf: &[u8], limit: usize, out: &mut Vec<W>) -> DResult<()> {
    let cur = out.len();
    let mut prev = 0u64;
    decode_bits::<W>(buf, limit, cur, |first, d| {
        prev = if first { d } else { prev.wrapping_add(d) };
        out.push(W::from_bits(prev))
    })
}

/// FLOAT/DOUBLE as TsFile Java 1.x (format v3) wrote them: each delta is a float (from its
/// bits) and values are running float sums.
pub(crate) fn decode_v1<W: Float>(buf: &[u8], limit: usize, out: &mut Vec<W>) -> DResult<()> {
    let cur = out.len();
    let mut prev = W::default();
    decode_bits::<W>(buf, limit, cur, |first, d| {
        let x = W::from_bits(d);
        prev = if first { x } else { prev + x };
        out.push(prev)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn one_block() {
        // size 3; seg 4, run 3 = fib 1 + fib 2 → bits "1 1"? no: 1(fib1) then "1" terminator = run 1.
        // Use: seg=4, run code "011" = fib(2)=2 ; then seg=4 run "11" = 1.
        // values: d=5, +1 → 6, then +2 → 8
        let bits: Vec<(u64, u32)> = vec![
            (3, 32),
            (4, 6),
            (0b011, 3),
            (5, 4),
            (1, 4),
            (4, 6),
            (0b11, 2),
            (2, 4),
        ];
        let mut out = vec![];
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
        decode::<i32>(&out, 10, &mut v).unwrap();
        assert_eq!(v, vec![5, 6, 8]);
    }
}
