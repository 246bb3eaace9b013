//! Cutting one input into pieces that decode independently (parallel decoding).
//!
//! MessagePack is not self-synchronising: a value boundary can only be found by walking
//! the headers from the start. The walk is structural only (tags, lengths, counts; no
//! payload is looked at), so it costs a fraction of a decode. Each piece is a run of
//! whole rows (elements of the top-level array, or top-level values of a stream) and is
//! decoded by [`decode_piece`] with offsets that stay absolute.

use arrowsmith_core::{Batch, DecodeError, ErrorCode};

use crate::builder::Builder;
use crate::parser::{err, Parser};
use crate::stream::header;
use crate::{not_an_array, to_batch, trailing, Layout, Options};

/// A run of whole rows: bytes `start..end` of the input holding `rows` rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub start: usize,
    pub end: usize,
    pub rows: usize,
}

/// How an input splits: pieces in order, and whether the rows are elements of a
/// top-level array (which counts as one level of nesting) or top-level values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub in_array: bool,
    pub pieces: Vec<Piece>,
}

/// Total size of a value whose tag alone gives it (scalars, fixstr; 0: read its header).
/// One table lookup per value keeps the walk a small fraction of a decode: most values of
/// real data (small ints, floats, short strings, nil, bools) take this path.
const FIXED: [u8; 256] = fixed_sizes();

const fn fixed_sizes() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = match b {
            0x00..=0x7f | 0xe0..=0xff | 0xc0..=0xc3 => 1,
            0xa0..=0xbf => 1 + (b & 0x1f),
            0xcc | 0xd0 => 2,
            0xcd | 0xd1 | 0xd4 => 3,
            0xd5 => 4,
            0xca | 0xce | 0xd2 => 5,
            0xd6 => 6,
            0xcb | 0xcf | 0xd3 => 9,
            0xd7 => 10,
            0xd8 => 18,
            _ => 0,
        };
        i += 1;
    }
    t
}

/// End of the value starting at `pos`, walking headers only.
fn skip_value(bytes: &[u8], mut pos: usize) -> Result<usize, DecodeError> {
    let truncated = |at: usize| {
        err(
            at as u64,
            ErrorCode::Truncated,
            "the input ends inside a value".into(),
        )
    };
    let len = bytes.len();
    let mut pending: u64 = 1;
    while pending > 0 {
        let t = *bytes.get(pos).ok_or_else(|| truncated(pos))?;
        let fixed = FIXED[t as usize] as usize;
        if fixed != 0 {
            if fixed > len - pos {
                return Err(truncated(pos));
            }
            pos += fixed;
            pending -= 1;
        } else if t & 0xe0 == 0x80 {
            // fixmap (two values per entry) or fixarray
            let n = (t & 0x0f) as u64;
            pos += 1;
            pending = pending - 1 + if t < 0x90 { 2 * n } else { n };
        } else {
            let (h, n, payload) = header(t, &bytes[pos..]).ok_or_else(|| truncated(pos))?;
            let left = (len - pos - h) as u64;
            if payload > left {
                return Err(truncated(pos));
            }
            pos += h + payload as usize;
            pending = pending - 1 + n;
        }
        // Every pending value needs at least one more byte: a count beyond the input is
        // a truncation, found here instead of after billions of iterations.
        if pending > (len - pos) as u64 {
            return Err(truncated(pos));
        }
    }
    Ok(pos)
}

/// Cut `bytes` into at most `parts` pieces of roughly equal size, at row boundaries.
/// The layout is decided as [`crate::decode`] decides it.
pub fn split(bytes: &[u8], parts: usize, opts: &Options) -> Result<Split, DecodeError> {
    let parts = parts.max(1);
    let array = match (opts.layout, bytes.first()) {
        (Layout::Stream, _) => None,
        (_, Some(&t)) if matches!(t, 0x90..=0x9f | 0xdc | 0xdd) => header(t, bytes),
        (Layout::Array, _) => return Err(not_an_array(bytes)),
        (Layout::Auto, _) => None,
    };
    if let Some((h, n, _)) = array {
        if opts.max_depth == 0 {
            return Err(err(
                0,
                ErrorCode::TooDeep,
                "the top-level array nests deeper than max_depth = 0".into(),
            ));
        }
        let (pieces, end) = walk(bytes, h, Some(n), parts)?;
        if end == bytes.len() {
            return Ok(Split {
                in_array: true,
                pieces,
            });
        }
        if opts.layout == Layout::Array {
            return Err(trailing(end as u64, bytes.len() as u64));
        }
    } else if opts.layout == Layout::Array {
        return Err(not_an_array(bytes));
    }
    let (pieces, _) = walk(bytes, 0, None, parts)?;
    Ok(Split {
        in_array: false,
        pieces,
    })
}

/// Walk `count` values (or to the end) from `pos`, cutting a piece every ~len/parts bytes.
fn walk(
    bytes: &[u8],
    mut pos: usize,
    count: Option<u64>,
    parts: usize,
) -> Result<(Vec<Piece>, usize), DecodeError> {
    let target = (bytes.len() - pos).div_ceil(parts).max(1);
    let mut pieces = Vec::with_capacity(parts);
    let mut piece = Piece {
        start: pos,
        end: pos,
        rows: 0,
    };
    let mut left = count;
    loop {
        match left {
            Some(0) => break,
            None if pos == bytes.len() => break,
            Some(ref mut l) => *l -= 1,
            None => {}
        }
        pos = skip_value(bytes, pos)?;
        piece.rows += 1;
        if pos - piece.start >= target {
            piece.end = pos;
            pieces.push(piece);
            piece = Piece {
                start: pos,
                end: pos,
                rows: 0,
            };
        }
    }
    if piece.rows > 0 {
        piece.end = pos;
        pieces.push(piece);
    }
    Ok((pieces, pos))
}

/// Decode one piece of a [`split`]: its bytes, where they start in the whole input (so
/// error offsets stay absolute) and whether they are array elements.
pub fn decode_piece(
    bytes: &[u8],
    base: u64,
    in_array: bool,
    opts: &Options,
) -> Result<Batch, DecodeError> {
    let mut p = Parser::new(bytes, base, opts.max_depth, opts.fast_path);
    let mut root = Builder::new();
    p.seq(&mut root, usize::MAX, usize::from(in_array), true)?;
    Ok(to_batch(root))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode;

    fn encode(v: &rmpv::Value) -> Vec<u8> {
        let mut out = Vec::new();
        rmpv::encode::write_value(&mut out, v).unwrap();
        out
    }

    fn records(n: usize) -> rmpv::Value {
        use rmpv::Value as V;
        V::Array(
            (0..n)
                .map(|i| {
                    V::Map(vec![
                        (V::from("a"), V::from(i as i64 * 1000)),
                        (V::from("s"), V::from(format!("row{i}"))),
                        (V::from("l"), V::Array(vec![V::from(i as f64); 1 + i % 3])),
                    ])
                })
                .collect(),
        )
    }

    /// The pieces, decoded one by one and concatenated, give what one decode gives.
    fn check(bytes: &[u8], parts: usize, opts: &Options) {
        let whole = decode(bytes, opts).unwrap();
        let s = split(bytes, parts, opts).unwrap();
        assert!(s.pieces.len() <= parts.max(1));
        assert_eq!(
            s.pieces.iter().map(|p| p.rows).sum::<usize>(),
            whole.num_rows
        );
        let mut at = s.pieces.first().map_or(0, |p| p.start);
        let mut rows = 0;
        for p in &s.pieces {
            assert_eq!(p.start, at);
            at = p.end;
            let b = decode_piece(&bytes[p.start..p.end], p.start as u64, s.in_array, opts).unwrap();
            assert_eq!(b.num_rows, p.rows);
            for (c, wc) in b.columns.iter().zip(&whole.columns) {
                assert_eq!(c.dtype, wc.dtype);
            }
            rows += b.num_rows;
        }
        assert_eq!(at, bytes.len());
        assert_eq!(rows, whole.num_rows);
    }

    /// The size table agrees with the general header reader for every tag.
    #[test]
    fn fixed_sizes_match_headers() {
        for t in 0..=255u8 {
            let (h, n, payload) = header(t, &[t, 0, 0, 0, 0, 0]).unwrap();
            let fixed = FIXED[t as usize] as u64;
            if fixed != 0 {
                assert_eq!((n, h as u64 + payload), (0, fixed), "tag {t:#04x}");
            } else {
                // Containers, or a length read from the header.
                assert!(
                    n > 0 || matches!(t, 0x80 | 0x90 | 0xc4..=0xc9 | 0xd9..=0xdf),
                    "tag {t:#04x}"
                );
            }
        }
    }

    #[test]
    fn array_of_records_splits_at_elements() {
        let bytes = encode(&records(1000));
        for parts in [1, 2, 3, 7, 64, 5000] {
            check(&bytes, parts, &Options::default());
        }
    }

    #[test]
    fn stream_of_values_splits_at_values() {
        let mut bytes = Vec::new();
        for i in 0..500i64 {
            bytes.extend(encode(&rmpv::Value::from(i * 77_777)));
        }
        let s = split(&bytes, 4, &Options::default()).unwrap();
        assert!(!s.in_array);
        assert_eq!(s.pieces.len(), 4);
        check(&bytes, 4, &Options::default());
    }

    #[test]
    fn concatenated_arrays_are_a_stream_in_auto_layout() {
        let mut bytes = encode(&records(3));
        bytes.extend(encode(&records(3)));
        let s = split(&bytes, 2, &Options::default()).unwrap();
        assert!(!s.in_array);
        assert_eq!(s.pieces.iter().map(|p| p.rows).sum::<usize>(), 2);
        let e = split(
            &bytes,
            2,
            &Options {
                layout: Layout::Array,
                ..Options::default()
            },
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::Invalid);
    }

    #[test]
    fn truncation_and_huge_counts_are_errors_not_hangs() {
        let bytes = encode(&records(10));
        let e = split(&bytes[..bytes.len() - 1], 2, &Options::default()).unwrap_err();
        assert_eq!(e.code, ErrorCode::Truncated);
        // array32 claiming 4 G elements of which one is present.
        let e = split(
            &[0xdd, 0xff, 0xff, 0xff, 0xff, 0x01],
            2,
            &Options::default(),
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::Truncated);
        // a map claiming 2^32-1 entries inside an array.
        let e = split(
            &[0x91, 0xdf, 0xff, 0xff, 0xff, 0xff],
            2,
            &Options::default(),
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::Truncated);
    }

    #[test]
    fn error_offsets_in_a_piece_are_absolute() {
        let mut v = records(100);
        if let rmpv::Value::Array(rows) = &mut v {
            rows[80] = rmpv::Value::from(1); // not a map: type mismatch for records
        }
        let bytes = encode(&v);
        let whole = decode(&bytes, &Options::default()).unwrap_err();
        let s = split(&bytes, 4, &Options::default()).unwrap();
        let first_err = s
            .pieces
            .iter()
            .find_map(|p| {
                decode_piece(
                    &bytes[p.start..p.end],
                    p.start as u64,
                    s.in_array,
                    &Options::default(),
                )
                .err()
            })
            .unwrap();
        assert_eq!(first_err.offset, whole.offset);
        assert_eq!(first_err.code, whole.code);
    }
}
