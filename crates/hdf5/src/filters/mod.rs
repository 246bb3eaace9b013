//! Filter pipeline: deflate, shuffle, Fletcher-32 (verified), LZF, blosc, bitshuffle,
//! LZ4, Zstandard, bzip2, scale-offset, N-bit; any other id is a clear `Unsupported` error
//! naming it. The last step writes at most the chunk's size and each earlier one at most
//! what the next can take (see `bounds`): a stream that would produce more is an error,
//! never a larger buffer.

mod bitshuffle;
mod blosc;
mod blosclz;
mod bzip2;
mod deflate;
mod lz4;
mod lzf;
mod nbit;
mod scaleoffset;
mod shuffle;
mod szip;
mod zstd;

pub use szip::Coder as AecCoder;

use std::borrow::Cow;

use arrowsmith_core::{ErrorCode, Result};

use crate::checksum::fletcher32;
use crate::io::err;
pub use crate::layout::Filter;

/// Deflate (zlib), HDF5's own.
pub const DEFLATE: u16 = 1;
/// Byte shuffle, HDF5's own.
pub const SHUFFLE: u16 = 2;
/// Fletcher-32 checksum, HDF5's own.
pub const FLETCHER32: u16 = 3;
/// Szip (AEC), HDF5's own.
pub const SZIP: u16 = 4;
/// N-bit packing, HDF5's own.
pub const NBIT: u16 = 5;
/// Scale-offset, HDF5's own.
pub const SCALEOFFSET: u16 = 6;
/// LZF (h5py), a registered plugin id.
pub const LZF: u16 = 32000;
/// Blosc (PyTables), a registered plugin id.
pub const BLOSC: u16 = 32001;
/// LZ4, a registered plugin id.
pub const LZ4: u16 = 32004;
/// Bitshuffle, a registered plugin id.
pub const BITSHUFFLE: u16 = 32008;
/// Zstandard, a registered plugin id.
pub const ZSTD: u16 = 32015;
/// Blosc2, a registered plugin id.
pub const BLOSC2: u16 = 32026;
/// Bzip2 (PyTables), a registered plugin id.
pub const BZIP2: u16 = 307;

/// The name of filter `id` ("unknown" for one not listed here).
pub fn filter_name(id: u16) -> &'static str {
    match id {
        DEFLATE => "deflate",
        SHUFFLE => "shuffle",
        FLETCHER32 => "fletcher32",
        SZIP => "szip",
        NBIT => "nbit",
        SCALEOFFSET => "scaleoffset",
        LZF => "lzf",
        BLOSC => "blosc",
        LZ4 => "lz4",
        BITSHUFFLE => "bitshuffle",
        ZSTD => "zstd",
        BLOSC2 => "blosc2",
        BZIP2 => "bzip2",
        _ => "unknown",
    }
}

/// An `unsupported` error, at `offset`, naming the first filter of the pipeline that this
/// reader does not decode.
pub fn check_supported(filters: &[Filter], offset: u64) -> Result<()> {
    for f in filters {
        if !matches!(
            f.id,
            DEFLATE
                | SHUFFLE
                | FLETCHER32
                | LZF
                | NBIT
                | SCALEOFFSET
                | BLOSC
                | LZ4
                | BITSHUFFLE
                | ZSTD
                | BZIP2
                | SZIP
        ) {
            return Err(err(
                offset,
                ErrorCode::Unsupported,
                format!(
                    "the {} filter (filter id {}{}) is not supported",
                    match f.id {
                        SZIP => "SZIP",
                        id => filter_name(id),
                    },
                    f.id,
                    if f.name.is_empty() {
                        String::new()
                    } else {
                        format!(", \"{}\"", f.name)
                    }
                ),
            ));
        }
    }
    Ok(())
}

/// Undo the pipeline on one chunk. `expected` is the unfiltered chunk size (output bound).
/// The stored bytes are borrowed until the first filter that rewrites them.
pub fn apply(
    filters: &[Filter],
    mask: u32,
    data: &[u8],
    expected: usize,
    offset: u64,
) -> Result<Vec<u8>> {
    let steps: Vec<&Filter> = active(filters, mask).collect();
    let bound = bounds(&steps, expected);
    let mut buf: Cow<[u8]> = Cow::Borrowed(data);
    for (f, &b) in steps.iter().zip(&bound) {
        buf = undo(f, buf, b, offset)?;
    }
    Ok(buf.into_owned())
}

/// The most each step (in decoding order) may write: the last writes the chunk, each
/// earlier one at most what the next step can take as input for its own bound. A stage's
/// input may be longer than its output (a checksum's 4 bytes, a scale-offset header, a
/// compressor's stream of incompressible data: deflate, LZ4, Zstandard, bzip2 and SZIP
/// all grow such data by well under 1/16 plus a constant), so Fletcher-32 before a
/// compressor, or two compressors in a row, decode; nothing allocates more than the chunk
/// justifies.
fn bounds(steps: &[&Filter], out: usize) -> Vec<usize> {
    let mut b = vec![out; steps.len()];
    for i in (0..steps.len().saturating_sub(1)).rev() {
        let n = b[i + 1];
        b[i] = match steps[i + 1].id {
            SHUFFLE => n,
            FLETCHER32 => n.saturating_add(4),
            NBIT | SCALEOFFSET => n.saturating_add(64),
            _ => n.saturating_add(n / 16).saturating_add(1024),
        };
    }
    b
}

/// [`apply`] writing the unfiltered chunk into `out` (sized to the expected chunk): the
/// last step, inflate or unshuffle, writes there directly instead of into a buffer that
/// would then be copied. Returns the unfiltered length (may differ from `out.len()`; only
/// the first `out.len()` bytes are kept).
pub fn apply_into(
    filters: &[Filter],
    mask: u32,
    data: &[u8],
    out: &mut [u8],
    offset: u64,
) -> Result<usize> {
    let steps: Vec<&Filter> = active(filters, mask).collect();
    let bound = bounds(&steps, out.len());
    let mut buf: Cow<[u8]> = Cow::Borrowed(data);
    if let Some((last, first)) = steps.split_last() {
        let mut first = first;
        // Inflate then unshuffle (h5py's gzip + shuffle): unshuffle straight from the
        // inflated buffer into `out`.
        if let Some((prev, before)) = first.split_last() {
            if prev.id == DEFLATE && last.id == SHUFFLE {
                for (f, &b) in before.iter().zip(&bound) {
                    buf = undo(f, buf, b, offset)?;
                }
                let inflated = deflate::inflate(&buf, out.len(), offset)?;
                if inflated.len() == out.len() {
                    shuffle::unshuffle_into(&inflated, shuffle_size(last), out);
                    // The next chunk inflates into the same buffer.
                    arrowsmith_core::recycle::give_back(inflated);
                    return Ok(out.len());
                }
                buf = Cow::Owned(inflated);
                first = &[];
            }
        }
        // `first` is a prefix of `steps` (or empty after the fused inflate + unshuffle,
        // whose bound is then the chunk's).
        for (f, &b) in first.iter().zip(&bound) {
            buf = undo(f, buf, b, offset)?;
        }
        match last.id {
            DEFLATE => return deflate::inflate_into(&buf, out, offset),
            SHUFFLE if buf.len() == out.len() => {
                shuffle::unshuffle_into(&buf, shuffle_size(last), out);
                return Ok(out.len());
            }
            NBIT | SCALEOFFSET | BLOSC | LZ4 | BITSHUFFLE | ZSTD | BZIP2 | SZIP => {
                return decode_into(last, &buf, out, offset)
            }
            _ => buf = undo(last, buf, out.len(), offset)?,
        }
    }
    let n = buf.len().min(out.len());
    out[..n].copy_from_slice(&buf[..n]);
    Ok(buf.len())
}

/// The filters to undo, in order (the pipeline reversed, minus those the chunk's mask skips).
fn active(filters: &[Filter], mask: u32) -> impl Iterator<Item = &Filter> {
    filters
        .iter()
        .enumerate()
        .rev()
        .filter(move |(i, _)| !(*i < 32 && mask & (1 << i) != 0))
        .map(|(_, f)| f)
}

fn shuffle_size(f: &Filter) -> usize {
    f.cd.first().copied().unwrap_or(1) as usize
}

/// Undo one filter.
fn undo<'d>(f: &Filter, buf: Cow<'d, [u8]>, expected: usize, offset: u64) -> Result<Cow<'d, [u8]>> {
    Ok(match f.id {
        DEFLATE => Cow::Owned(deflate::inflate(&buf, expected, offset)?),
        SHUFFLE => Cow::Owned(shuffle::unshuffle(&buf, shuffle_size(f))),
        FLETCHER32 => {
            if buf.len() < 4 {
                return Err(err(
                    offset,
                    ErrorCode::Checksum,
                    "fletcher32: chunk shorter than its checksum",
                ));
            }
            let (body, sum) = buf.split_at(buf.len() - 4);
            let stored = u32::from_le_bytes(sum.try_into().unwrap());
            let calc = fletcher32(body);
            if stored != calc && stored != calc.swap_bytes() {
                return Err(err(
                    offset,
                    ErrorCode::Checksum,
                    format!("fletcher32 mismatch (stored {stored:#010x}, computed {calc:#010x})"),
                ));
            }
            match buf {
                Cow::Borrowed(b) => Cow::Borrowed(&b[..b.len() - 4]),
                Cow::Owned(mut v) => {
                    v.truncate(v.len() - 4);
                    Cow::Owned(v)
                }
            }
        }
        LZF => Cow::Owned(
            lzf::decompress(&buf, expected)
                .map_err(|m| err(offset, ErrorCode::Compression, format!("lzf chunk: {m}")))?,
        ),
        NBIT | SCALEOFFSET | BLOSC | LZ4 | BITSHUFFLE | ZSTD | BZIP2 | SZIP => {
            let mut v = arrowsmith_core::recycle::bytes_to_overwrite(expected);
            let n = decode_into(f, &buf, &mut v, offset)?;
            v.truncate(n);
            Cow::Owned(v)
        }
        id => {
            return Err(err(
                offset,
                ErrorCode::Unsupported,
                format!("filter id {id} ({}) is not supported", filter_name(id)),
            ))
        }
    })
}

/// Undo one of the filters that decode into a slice (the chunk's size) and report the
/// bytes written; more than the slice holds is an error.
fn decode_into(f: &Filter, src: &[u8], out: &mut [u8], offset: u64) -> Result<usize> {
    let r = match f.id {
        NBIT => nbit::decode(src, &f.cd, out),
        SCALEOFFSET => scaleoffset::decode(src, &f.cd, out),
        BLOSC => blosc::decode(src, out, offset),
        LZ4 => lz4::decode(src, out),
        BITSHUFFLE => bitshuffle::decode(src, &f.cd, out),
        ZSTD => zstd::decompress_into(src, out),
        BZIP2 => bzip2::decompress_into(src, out),
        SZIP => szip::decode(src, &f.cd, out),
        id => Err(format!("filter id {id} cannot decode into a chunk")),
    };
    match r {
        Ok(n) if n <= out.len() => Ok(n),
        Ok(n) => Err(err(
            offset,
            ErrorCode::Compression,
            format!(
                "{} chunk: decodes to {n} bytes, the chunk holds {}",
                filter_name(f.id),
                out.len()
            ),
        )),
        Err(m) => Err(err(
            offset,
            ErrorCode::Compression,
            format!("{} chunk: {m}", filter_name(f.id)),
        )),
    }
}

/// The block at `at` of a stream of big-endian u32 length-prefixed blocks (the framing of
/// the HDF5 LZ4 and bitshuffle filters), and where the next block starts.
pub(crate) fn be32_block<'a>(
    src: &'a [u8],
    at: usize,
    what: &str,
) -> Result<(&'a [u8], usize), String> {
    let n = src
        .get(at..at + 4)
        .map(|b| u32::from_be_bytes(b.try_into().unwrap()) as usize)
        .ok_or_else(|| format!("{what}: block length past the chunk"))?;
    let body = src
        .get(at + 4..at + 4 + n)
        .ok_or_else(|| format!("{what}: block past the chunk"))?;
    Ok((body, at + 4 + n))
}

/// One raw LZ4 block into `out` (LZ4 filter blocks, blosc's lz4/lz4hc, bitshuffle's LZ4
/// stage); returns the bytes written.
fn lz4_block(src: &[u8], out: &mut [u8]) -> std::result::Result<usize, String> {
    lz4_flex::block::decompress_into(src, out).map_err(|e| format!("lz4: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(id: u16, cd: &[u32]) -> Filter {
        Filter {
            id,
            name: String::new(),
            flags: 0,
            cd: cd.to_vec(),
        }
    }

    /// Streams that claim more output than the chunk holds are errors (code Compression,
    /// naming the filter) decided from their headers: no filter allocates more than the
    /// chunk's size whatever its input says.
    #[test]
    fn no_filter_writes_past_the_chunk() {
        let chunk = 64usize;
        let big = (1u64 << 40).to_be_bytes();
        let mut lz4 = big.to_vec();
        lz4.extend(4096u32.to_be_bytes());
        let mut blosc = vec![2u8, 1, 0x21, 4];
        blosc.extend((1u32 << 30).to_le_bytes());
        blosc.extend(65536u32.to_le_bytes());
        blosc.extend(32u32.to_le_bytes());
        blosc.extend([0u8; 16]);
        let mut bitshuffle = big.to_vec();
        bitshuffle.extend(8192u32.to_be_bytes());
        let mut so = [0u32; 20];
        so[0] = 2; // integer scale type
        so[2] = 1 << 30; // values in the chunk
        so[4] = 4;
        let nbit = [8u32, 0, 1 << 30, 1, 4, 0, 12, 0];
        // A Zstandard frame of 4 KiB of zeros.
        let zst = ruzstd::encoding::compress_to_vec(
            &[0u8; 4096][..],
            ruzstd::encoding::CompressionLevel::Fastest,
        );
        let cases: Vec<(Filter, Vec<u8>, &str)> = vec![
            (filter(LZ4, &[]), lz4, "lz4"),
            (filter(BLOSC, &[2, 2, 4, 0, 5, 1, 1]), blosc, "blosc"),
            (
                filter(BITSHUFFLE, &[0, 0, 4, 0, 2]),
                bitshuffle,
                "bitshuffle",
            ),
            (filter(SCALEOFFSET, &so), vec![0u8; 64], "scaleoffset"),
            (filter(NBIT, &nbit), vec![0u8; 64], "nbit"),
            (filter(ZSTD, &[]), zst, "zstd"),
        ];
        for (f, data, name) in cases {
            let e = apply(std::slice::from_ref(&f), 0, &data, chunk, 99).unwrap_err();
            assert_eq!(
                (e.code, e.offset),
                (ErrorCode::Compression, 99),
                "{name}: {e}"
            );
            assert!(e.message.starts_with(name), "{name}: {}", e.message);
            let mut out = vec![0u8; chunk];
            assert!(apply_into(&[f], 0, &data, &mut out, 99).is_err(), "{name}");
        }
    }
}
