//! The blosc filter (32001): each chunk is one blosc 1.x frame.
//!
//! A 16-byte header (format version, codec version, flags, type size, then little-endian
//! uncompressed size, block size and compressed size) is followed, unless the frame is a
//! plain copy, by the start offset of each block. A block is compressed whole or, for
//! small type sizes, split into one stream per byte of the type; each stream is a
//! little-endian length and the codec's bytes (stored as they are when the length equals
//! the stream's size). The block is then unshuffled (byte- or bit-wise) into place.
//! Codecs: blosclz (`blosclz.rs`), LZ4/LZ4HC (`lz4_flex`), Snappy (`snap`), zlib (our
//! inflater), Zstandard (`ruzstd`).

use super::{bitshuffle, blosclz, deflate, lz4_block, shuffle, zstd};

const HEADER: usize = 16;
/// Frame formats this decoder reads (blosc 1.x writes 2).
const MAX_FORMAT: u8 = 2;
const DOSHUFFLE: u8 = 0x01;
const MEMCPYED: u8 = 0x02;
const DOBITSHUFFLE: u8 = 0x04;
/// Set by future formats: refused.
const RESERVED: u8 = 0x08;
const DONT_SPLIT: u8 = 0x10;
/// Blocks split into per-byte streams only for type sizes up to this…
const MAX_SPLITS: usize = 16;
/// …and blocks of at least this many elements.
const MIN_BUFFERSIZE: usize = 128;

/// Undo the filter on one chunk into `out` (the chunk's size); returns the bytes written.
/// `at`: the chunk's file offset, for errors.
pub fn decode(src: &[u8], out: &mut [u8], at: u64) -> Result<usize, String> {
    let h = src
        .get(..HEADER)
        .ok_or("blosc: chunk shorter than its header")?;
    let (version, codec_version, flags, typesize) = (h[0], h[1], h[2], h[3] as usize);
    let le = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().unwrap()) as usize;
    let (nbytes, blocksize, cbytes) = (le(4), le(8), le(12));
    if nbytes == 0 {
        return Ok(0);
    }
    if version == 0 || version > MAX_FORMAT || flags & RESERVED != 0 {
        return Err(format!(
            "blosc: frame format {version} (flags {flags:#04x}) is not supported"
        ));
    }
    if nbytes > out.len() {
        return Err(format!(
            "blosc: {nbytes} bytes, the chunk holds {}",
            out.len()
        ));
    }
    if blocksize == 0 || typesize == 0 {
        return Err("blosc: block or type size 0".into());
    }
    if cbytes > src.len() || cbytes < HEADER {
        return Err(format!(
            "blosc: frame of {cbytes} bytes, the chunk holds {}",
            src.len()
        ));
    }
    let src = &src[..cbytes];
    let out = &mut out[..nbytes];
    if flags & MEMCPYED != 0 {
        if cbytes != nbytes + HEADER {
            return Err("blosc: copied frame of the wrong size".into());
        }
        out.copy_from_slice(&src[HEADER..]);
        return Ok(nbytes);
    }
    let codec = Codec::from_flags(flags, codec_version)?;
    let nblocks = nbytes.div_ceil(blocksize);
    if nblocks > (cbytes - HEADER) / 4 {
        return Err("blosc: block offsets past the frame".into());
    }
    let shuffled = flags & (DOSHUFFLE | DOBITSHUFFLE) != 0;
    let mut tmp = if shuffled {
        vec![0u8; blocksize.min(nbytes)]
    } else {
        Vec::new()
    };
    for (j, dst) in out.chunks_mut(blocksize).enumerate() {
        let bsize = dst.len();
        let leftover = bsize < blocksize;
        let start = u32::from_le_bytes(src[HEADER + 4 * j..HEADER + 4 * j + 4].try_into().unwrap());
        let nsplits = if flags & DONT_SPLIT == 0
            && typesize <= MAX_SPLITS
            && bsize / typesize >= MIN_BUFFERSIZE
            && !leftover
        {
            typesize
        } else {
            1
        };
        let neblock = bsize / nsplits;
        if neblock * nsplits != bsize {
            return Err(format!(
                "blosc: block {j} does not split into {nsplits} streams"
            ));
        }
        let byte_shuffle = flags & DOSHUFFLE != 0 && typesize > 1;
        let bit_shuffle = !byte_shuffle && flags & DOBITSHUFFLE != 0 && bsize >= typesize;
        let streams = |s: &mut [u8]| read_streams(src, start as usize, j, neblock, codec, s, at);
        if byte_shuffle || bit_shuffle {
            streams(&mut tmp[..bsize])?;
        } else {
            streams(dst)?;
        }
        if byte_shuffle {
            shuffle::unshuffle_into(&tmp[..bsize], typesize, dst);
        } else if bit_shuffle {
            let elems = bsize / typesize;
            if elems % 8 == 0 {
                bitshuffle::untrans_bit_elem(&tmp, dst, elems, typesize);
                dst[elems * typesize..].copy_from_slice(&tmp[elems * typesize..bsize]);
            } else {
                dst.copy_from_slice(&tmp[..bsize]);
            }
        }
    }
    Ok(nbytes)
}

/// Block `j`'s streams, from `ip` in the frame, into `out` (`neblock` bytes each).
fn read_streams(
    src: &[u8],
    mut ip: usize,
    j: usize,
    neblock: usize,
    codec: Codec,
    out: &mut [u8],
    at: u64,
) -> Result<(), String> {
    for s in out.chunks_mut(neblock) {
        let n = src
            .get(ip..ip + 4)
            .map(|b| i32::from_le_bytes(b.try_into().unwrap()))
            .ok_or_else(|| format!("blosc: block {j} past the frame"))?;
        let body = usize::try_from(n)
            .ok()
            .and_then(|n| src.get(ip + 4..ip + 4 + n))
            .ok_or_else(|| format!("blosc: stream of block {j} past the frame"))?;
        if body.len() == neblock {
            s.copy_from_slice(body);
        } else {
            let got = codec.decompress(body, s, at)?;
            if got != neblock {
                return Err(format!(
                    "blosc: stream of block {j} decodes to {got} bytes, expected {neblock}"
                ));
            }
        }
        ip += 4 + body.len();
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Codec {
    BloscLz,
    Lz4,
    Snappy,
    Zlib,
    Zstd,
}

impl Codec {
    fn from_flags(flags: u8, version: u8) -> Result<Codec, String> {
        let codec = match flags >> 5 {
            0 => Codec::BloscLz,
            1 => Codec::Lz4,
            2 => Codec::Snappy,
            3 => Codec::Zlib,
            4 => Codec::Zstd,
            c => return Err(format!("blosc: codec {c} is not supported")),
        };
        if version != 1 {
            return Err(format!("blosc: codec format {version} is not supported"));
        }
        Ok(codec)
    }

    fn decompress(self, src: &[u8], out: &mut [u8], at: u64) -> Result<usize, String> {
        match self {
            Codec::BloscLz => blosclz::decompress(src, out).map_err(|m| format!("blosclz: {m}")),
            Codec::Lz4 => lz4_block(src, out),
            Codec::Snappy => {
                let n = snap::raw::decompress_len(src).map_err(|e| format!("snappy: {e}"))?;
                if n > out.len() {
                    return Err(format!("snappy: {n} bytes, the block holds {}", out.len()));
                }
                snap::raw::Decoder::new()
                    .decompress(src, out)
                    .map_err(|e| format!("snappy: {e}"))
            }
            Codec::Zlib => deflate::inflate_into(src, out, at).map_err(|e| e.message),
            Codec::Zstd => zstd::decompress_into(src, out),
        }
    }
}
