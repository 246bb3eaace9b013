//! Bit unshuffle (the transform of the bitshuffle library, used by the bitshuffle filter
//! 32008 and by blosc's bit-shuffle flag) and the bitshuffle filter's framing.
//!
//! A bit-shuffled block of `n` elements (n a multiple of 8) of `es` bytes holds `8 * es`
//! rows of `n / 8` bytes: row `8 j + k` carries bit `k` of byte `j` of every element,
//! element `i` at bit `i % 8` of the row's byte `i / 8`. The filter cuts a chunk into
//! blocks (a size from its parameters or its header), bit-shuffles each, and leaves the
//! last `n % 8` elements as they are; with LZ4 or Zstandard each block is compressed on
//! its own behind a big-endian length.

use super::{be32_block, lz4_block, zstd};

/// The filter's parameters: `cd[2]` element size, `cd[3]` block size in elements (0:
/// the default), `cd[4]` compression.
const CD_ELEM_SIZE: usize = 2;
const CD_BLOCK: usize = 3;
const CD_COMPRESSION: usize = 4;
const COMPRESS_LZ4: u32 = 2;
const COMPRESS_ZSTD: u32 = 3;
/// Block sizes (in elements) are multiples of this.
const BLOCKED_MULT: usize = 8;
/// The default block aims at this many bytes, and holds at least `MIN_BLOCK` elements.
const TARGET_BLOCK_BYTES: usize = 8192;
const MIN_BLOCK: usize = 128;

/// Undo the bitshuffle filter on one chunk into `out` (the chunk's size); returns the
/// bytes written.
pub fn decode(src: &[u8], cd: &[u32], out: &mut [u8]) -> Result<usize, String> {
    let es = *cd
        .get(CD_ELEM_SIZE)
        .ok_or("bitshuffle: missing element size")? as usize;
    if es == 0 {
        return Err("bitshuffle: element size 0".into());
    }
    let compression = cd.get(CD_COMPRESSION).copied().unwrap_or(0);
    match compression {
        0 => {
            // Stored bit-shuffled, uncompressed: the output is as long as the input.
            let n = src.len();
            if n > out.len() {
                return Err(format!(
                    "bitshuffle: {n} bytes, the chunk holds {}",
                    out.len()
                ));
            }
            if !n.is_multiple_of(es) {
                return Err(format!(
                    "bitshuffle: {n} bytes are not whole {es}-byte elements"
                ));
            }
            let block = match cd.get(CD_BLOCK).copied().unwrap_or(0) as usize {
                0 => default_block(es),
                b => b,
            };
            let mut at = 0;
            blocks(n / es, block, |elems| {
                let len = elems * es;
                untrans_bit_elem(&src[at..at + len], &mut out[at..at + len], elems, es);
                at += len;
                Ok(())
            })?;
            out[at..n].copy_from_slice(&src[at..n]);
            Ok(n)
        }
        COMPRESS_LZ4 | COMPRESS_ZSTD => {
            let head = src
                .get(..12)
                .ok_or("bitshuffle: chunk shorter than its header")?;
            let total = u64::from_be_bytes(head[..8].try_into().unwrap());
            let block_bytes = u32::from_be_bytes(head[8..12].try_into().unwrap()) as usize;
            if total > out.len() as u64 {
                return Err(format!(
                    "bitshuffle: {total} bytes, the chunk holds {}",
                    out.len()
                ));
            }
            let total = total as usize;
            let block = block_bytes / es;
            if !total.is_multiple_of(es) || block == 0 || !block_bytes.is_multiple_of(es) {
                return Err(format!("bitshuffle: header ({total} bytes, blocks of {block_bytes}) does not fit {es}-byte elements"));
            }
            let (mut ip, mut op) = (12usize, 0usize);
            let mut tmp = Vec::new();
            blocks(total / es, block, |elems| {
                let len = elems * es;
                let (body, next) = be32_block(src, ip, "bitshuffle")?;
                tmp.resize(len, 0);
                let got = if compression == COMPRESS_LZ4 {
                    lz4_block(body, &mut tmp)?
                } else {
                    zstd::decompress_into(body, &mut tmp)?
                };
                if got != len {
                    return Err(format!(
                        "bitshuffle: block decodes to {got} bytes, expected {len}"
                    ));
                }
                untrans_bit_elem(&tmp, &mut out[op..op + len], elems, es);
                ip = next;
                op += len;
                Ok(())
            })?;
            let rest = total - op;
            let tail = src
                .get(ip..ip + rest)
                .ok_or("bitshuffle: trailing elements past the chunk")?;
            out[op..total].copy_from_slice(tail);
            Ok(total)
        }
        c => Err(format!("bitshuffle: compression {c} is not supported")),
    }
}

/// The block size (elements) the library picks for `es`-byte elements when none is given.
fn default_block(es: usize) -> usize {
    (TARGET_BLOCK_BYTES / es / BLOCKED_MULT * BLOCKED_MULT).max(MIN_BLOCK)
}

/// Call `f(elements)` for each bit-shuffled block of a chunk of `n` elements: whole
/// blocks, then the rest rounded down to a multiple of 8 (the last `n % 8` elements are
/// stored as they are).
fn blocks(
    n: usize,
    block: usize,
    mut f: impl FnMut(usize) -> Result<(), String>,
) -> Result<(), String> {
    if !block.is_multiple_of(BLOCKED_MULT) {
        return Err(format!(
            "bitshuffle: block of {block} elements is not a multiple of 8"
        ));
    }
    for _ in 0..n / block {
        f(block)?;
    }
    let last = n % block / BLOCKED_MULT * BLOCKED_MULT;
    if last != 0 {
        f(last)?;
    }
    Ok(())
}

/// Undo the bit transpose of `n` elements (a multiple of 8) of `es` bytes.
pub fn untrans_bit_elem(src: &[u8], dst: &mut [u8], n: usize, es: usize) {
    debug_assert!(n.is_multiple_of(8) && src.len() >= n * es && dst.len() >= n * es);
    let row = n / 8;
    for j in 0..es {
        // Rows 8j..8j+8 (bits 0..8 of byte j); their byte q covers elements 8q..8q+8.
        let rows: [&[u8]; 8] =
            std::array::from_fn(|k| &src[(8 * j + k) * row..(8 * j + k + 1) * row]);
        for q in 0..row {
            // Byte k of x = row k's byte q; transposed, byte i = byte j of element 8q+i.
            let x = u64::from_le_bytes(std::array::from_fn(|k| rows[k][q]));
            let y = transpose8(x);
            for (i, b) in y.to_le_bytes().into_iter().enumerate() {
                dst[(8 * q + i) * es + j] = b;
            }
        }
    }
}

/// Transpose the 8×8 bit matrix whose row `r` is byte `r` of `x`: bit `c` of byte `r`
/// moves to bit `r` of byte `c`.
#[inline]
fn transpose8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^ t ^ (t << 28)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit transpose as the layout defines it, one bit at a time.
    fn shuffle(src: &[u8], n: usize, es: usize) -> Vec<u8> {
        let row = n / 8;
        let mut out = vec![0u8; n * es];
        for i in 0..n {
            for j in 0..es {
                for k in 0..8 {
                    let bit = (src[i * es + j] >> k) & 1;
                    out[(8 * j + k) * row + i / 8] |= bit << (i % 8);
                }
            }
        }
        out
    }

    #[test]
    fn untranspose_inverts_the_layout() {
        for (n, es) in [(8, 1), (16, 2), (64, 4), (128, 8), (24, 3), (8, 16)] {
            let src: Vec<u8> = (0..n * es).map(|i| (i * 37 % 251) as u8 ^ 0x5a).collect();
            let mut back = vec![0u8; n * es];
            untrans_bit_elem(&shuffle(&src, n, es), &mut back, n, es);
            assert_eq!(back, src, "n {n} es {es}");
        }
    }

    #[test]
    fn uncompressed_filter_blocks_and_tail() {
        // 4-byte elements, blocks of 16: one whole block, a last block of 8, 3 raw elements.
        let (n, es) = (27, 4);
        let src: Vec<u8> = (0..n * es).map(|i| (i * 13) as u8).collect();
        let mut stored = shuffle(&src[..64], 16, es);
        stored.extend(shuffle(&src[64..96], 8, es));
        stored.extend(&src[96..]);
        let mut out = vec![0u8; n * es];
        let cd = [0, 0, es as u32, 16, 0];
        assert_eq!(decode(&stored, &cd, &mut out), Ok(n * es));
        assert_eq!(out, src);
        // The output is bounded by the chunk.
        assert!(decode(&stored, &cd, &mut [0u8; 10]).is_err());
    }
}
