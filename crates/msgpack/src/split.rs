//! Cutting one input into pieces that decode independently (parallel decoding).
//!
//! MessagePack is not self-synchronising: a value boundary can only be found by walking
//! the headers from the start. The walk is structural only (tags, lengths, counts; no
//! payload is looked at), so it costs a fraction of a decode. Each piece is a run of
//! whole rows (elements of the top-level array, or top-level values of a stream) and is
//! decoded by [`decode_piece`] with offsets that stay absolute.

use arrowsmith_core::{Batch, DecodeError, ErrorCode};

use crate::options::{Layout, Options};
use crate::parser::err;
use crate::parser::rows::{decode, decode_rows, not_an_array, trailing, Rows};
use crate::plan::Plan;
use crate::scan::Scanner;
use crate::structures::Structures;
use crate::tags::header;

/// A run of whole rows: bytes `start..end` of the input holding `rows` rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    /// The first byte of the piece's first row.
    pub start: usize,
    /// The byte after the piece's last row.
    pub end: usize,
    /// The rows in the piece.
    pub rows: usize,
}

/// How an input splits: pieces in order, and whether the rows are elements of a
/// top-level array (which counts as one level of nesting) or top-level values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// Whether the rows are elements of a top-level array.
    pub in_array: bool,
    /// The pieces, in input order.
    pub pieces: Vec<Piece>,
}

/// Cut `bytes` into at most `parts` pieces of roughly equal size, at row boundaries.
/// The layout is decided as [`crate::decode`] decides it.
///
/// When the input cannot be cut (it is malformed), the error is the one [`crate::decode`]
/// gives for it, so that a pool reports exactly what one thread reports. The walk only
/// knows that the structure is broken somewhere; the decode names the first problem in
/// input order (a type mismatch before a truncation, say) with its offset. That second
/// pass costs one decode, on the error path only.
pub fn split(bytes: &[u8], parts: usize, opts: &Options) -> Result<Split, DecodeError> {
    cut(bytes, parts, opts).map_err(|e| decode(bytes, opts).err().unwrap_or(e))
}

fn cut(bytes: &[u8], parts: usize, opts: &Options) -> Result<Split, DecodeError> {
    let parts = parts.max(1);
    let array = match (opts.layout, bytes.first()) {
        (Layout::Stream, _) => None,
        (_, Some(&(0x90..=0x9f | 0xdc | 0xdd))) => header(bytes),
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
        let (pieces, end) = walk(bytes, h, Some(n), parts, opts)?;
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
    let (pieces, _) = walk(bytes, 0, None, parts, opts)?;
    Ok(Split {
        in_array: false,
        pieces,
    })
}

/// Walk `count` values (or to the end) from `pos`, cutting a piece every ~len/parts bytes.
/// Input with msgpackr records is one piece: a record can refer to a structure defined
/// in any earlier row.
fn walk(
    bytes: &[u8],
    mut pos: usize,
    count: Option<u64>,
    parts: usize,
    opts: &Options,
) -> Result<(Vec<Piece>, usize), DecodeError> {
    let target = (bytes.len() - pos).div_ceil(parts).max(1);
    let mut pieces = Vec::with_capacity(parts);
    let mut piece = Piece {
        start: pos,
        end: pos,
        rows: 0,
    };
    let mut scan = Scanner::new(opts);
    let mut left = count;
    loop {
        match left {
            Some(0) => break,
            None if pos == bytes.len() => break,
            Some(ref mut l) => *l -= 1,
            None => {}
        }
        scan.start();
        if !scan.walk(bytes, &mut pos, true) {
            return Err(err(
                pos as u64,
                ErrorCode::Truncated,
                "the input ends inside a value".into(),
            ));
        }
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
    if scan.saw_records() && pieces.len() > 1 {
        let rows = pieces.iter().map(|p| p.rows).sum();
        let start = pieces[0].start;
        pieces = vec![Piece {
            start,
            end: pos,
            rows,
        }];
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
    decode_rows(
        bytes,
        base,
        opts,
        Rows::Open { in_array },
        &mut Plan::default(),
        &mut Structures::default(),
    )
    .map(|(batch, _)| batch)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let o = Options::default();
        let e = split(&bytes[..bytes.len() - 1], 2, &o).unwrap_err();
        assert_eq!(e.code, ErrorCode::Truncated);
        // array32 claiming 4 G elements of which one is present; a map claiming 2^32-1
        // entries inside an array: counts past the input, as the decode reports them.
        for input in [
            &[0xdd, 0xff, 0xff, 0xff, 0xff, 0x01][..],
            &[0x91, 0xdf, 0xff, 0xff, 0xff, 0xff],
        ] {
            let e = split(input, 2, &o).unwrap_err();
            assert_eq!(e.code, ErrorCode::OutOfBounds);
            assert_eq!(e, decode(input, &o).unwrap_err());
        }
    }

    /// `dc 00 14` (an array16 of 20 elements with none present): the walk finds a
    /// truncation at byte 3, the decode an out-of-bounds count at byte 0. Both paths must
    /// say what the decode says, on that input and on every corrupted one.
    #[test]
    fn split_errors_are_the_decode_errors() {
        let o = Options::default();
        let e = split(&[0xdc, 0x00, 0x14], 2, &o).unwrap_err();
        assert_eq!((e.code, e.offset), (ErrorCode::OutOfBounds, 0));
        assert_eq!(e, decode(&[0xdc, 0x00, 0x14], &o).unwrap_err());

        let bytes = encode(&records(40));
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            (seed >> 33) as usize
        };
        let mut errors = 0;
        for _ in 0..3000 {
            let mut m = bytes.clone();
            for _ in 0..1 + next() % 3 {
                let i = next() % m.len();
                m[i] = next() as u8;
            }
            m.truncate(m.len() - next() % 4);
            for layout in [Layout::Auto, Layout::Array, Layout::Stream] {
                let o = Options {
                    layout,
                    ..Options::default()
                };
                if let Err(e) = split(&m, 3, &o) {
                    errors += 1;
                    assert_eq!(e, decode(&m, &o).unwrap_err(), "input {m:02x?}");
                }
            }
        }
        assert!(
            errors > 1000,
            "the mutations should break most inputs ({errors})"
        );
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
