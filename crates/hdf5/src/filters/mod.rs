//! Filter pipeline: deflate, shuffle, Fletcher-32 (verified), LZF; any other id is a
//! clear `Unsupported` error naming it.

mod adler32;
mod bits;
mod deflate;
mod huffman;
pub mod inflate;
mod inflate_fast;
mod lzf;
mod shuffle;

use std::borrow::Cow;

use arrowsmith_core::{ErrorCode, Result};

use crate::checksum::fletcher32;
use crate::io::err;
use crate::layout::Filter;

pub const DEFLATE: u16 = 1;
pub const SHUFFLE: u16 = 2;
pub const FLETCHER32: u16 = 3;
pub const SZIP: u16 = 4;
pub const NBIT: u16 = 5;
pub const SCALEOFFSET: u16 = 6;
pub const LZF: u16 = 32000;

pub fn filter_name(id: u16) -> &'static str {
    match id {
        DEFLATE => "deflate",
        SHUFFLE => "shuffle",
        FLETCHER32 => "fletcher32",
        SZIP => "szip",
        NBIT => "nbit",
        SCALEOFFSET => "scaleoffset",
        LZF => "lzf",
        32001 => "blosc",
        32004 => "lz4",
        32008 => "bitshuffle",
        32015 => "zstd",
        307 => "bzip2",
        _ => "unknown",
    }
}

pub fn check_supported(filters: &[Filter], offset: u64) -> Result<()> {
    for f in filters {
        if !matches!(f.id, DEFLATE | SHUFFLE | FLETCHER32 | LZF) {
            return Err(err(
                offset,
                ErrorCode::Unsupported,
                format!(
                    "filter id {} ({}{}) is not supported",
                    f.id,
                    filter_name(f.id),
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
    let mut buf: Cow<[u8]> = Cow::Borrowed(data);
    for f in active(filters, mask) {
        buf = undo(f, buf, expected, offset)?;
    }
    Ok(buf.into_owned())
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
    let mut buf: Cow<[u8]> = Cow::Borrowed(data);
    if let Some((last, first)) = steps.split_last() {
        let mut first = first;
        // Inflate then unshuffle (h5py's gzip + shuffle): unshuffle straight from the
        // inflated buffer into `out`.
        if let Some((prev, before)) = first.split_last() {
            if prev.id == DEFLATE && last.id == SHUFFLE {
                for f in before {
                    buf = undo(f, buf, out.len(), offset)?;
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
        for f in first {
            buf = undo(f, buf, out.len(), offset)?;
        }
        match last.id {
            DEFLATE => return deflate::inflate_into(&buf, out, offset),
            SHUFFLE if buf.len() == out.len() => {
                shuffle::unshuffle_into(&buf, shuffle_size(last), out);
                return Ok(out.len());
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
        id => {
            return Err(err(
                offset,
                ErrorCode::Unsupported,
                format!("filter id {id} ({}) is not supported", filter_name(id)),
            ))
        }
    })
}
