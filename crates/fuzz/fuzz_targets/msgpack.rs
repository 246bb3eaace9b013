//! MessagePack: `decode` with each layout (fast paths on and off must agree), the
//! `StreamDecoder` with the input split in two at a point taken from the input, and the
//! worker pool's `split` + `decode_piece` (pieces tile the input and hold all rows).
#![no_main]

use arrowsmith_core::{describe::describe, ErrorCode};
use arrowsmith_msgpack::{decode, decode_piece, Layout, Options, StreamDecoder};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for layout in [Layout::Auto, Layout::Array, Layout::Stream] {
        let fast = Options {
            layout,
            ..Options::default()
        };
        let slow = Options {
            fast_path: false,
            ..fast.clone()
        };
        let whole = decode(data, &fast);
        match (&whole, decode(data, &slow)) {
            (Ok(a), Ok(b)) => {
                let (da, db) = (describe(a), describe(&b));
                assert!(
                    da.json == db.json && da.buffers == db.buffers,
                    "fast path changed the result"
                );
            }
            (Err(a), Err(b)) => assert_eq!(a, &b, "fast path changed the error"),
            _ => panic!("fast path changed success/failure"),
        }

        let split = data.first().map_or(0, |&b| b as usize % (data.len() + 1));
        let mut s = StreamDecoder::new(fast.clone());
        let streamed = (|| {
            let mut rows = 0;
            s.push(&data[..split])?;
            let ready = s.ready_rows();
            if let Some(b) = s.take_batch(7)? {
                assert_eq!(b.num_rows, ready.min(7));
                rows += b.num_rows;
            }
            s.push(&data[split..])?;
            if let Some(b) = s.finish()? {
                rows += b.num_rows;
            }
            Ok::<usize, arrowsmith_core::DecodeError>(rows)
        })();
        // Whatever `decode` accepts, the stream accepts with the same rows (Auto differs
        // only for several top-level values after an array, documented), except that a
        // batch's schema is inferred from its own rows: a batch without the floats that
        // made the whole column Float64 can fail with TypeMismatch (documented).
        // Pool pieces: contiguous, whole rows; whatever decodes whole has the same rows in
        // its pieces (or a TypeMismatch, when a piece infers a type from fewer rows).
        if let Ok(sp) = arrowsmith_msgpack::split(data, 3, &fast) {
            let mut at = sp.pieces.first().map_or(0, |p| p.start);
            let mut rows = 0;
            let mut failed = None;
            for p in &sp.pieces {
                assert_eq!(p.start, at, "pieces are not contiguous");
                at = p.end;
                match decode_piece(&data[p.start..p.end], p.start as u64, sp.in_array, &fast) {
                    Ok(b) => rows += b.num_rows,
                    Err(e) => failed = failed.or(Some(e)),
                }
            }
            if let (Ok(_), None) = (&whole, &failed) {
                // Pieces are runs of rows: a single top-level map is one row there, as
                // `decode` reads it without the columnar reading (the pool decodes a
                // one-piece input on one thread).
                let flat = Options {
                    columnar: false,
                    ..fast.clone()
                };
                let n = decode(data, &flat).map_or(0, |b| b.num_rows);
                assert_eq!(rows, n, "pieces and decode disagree");
            }
            if let (Ok(_), Some(e)) = (&whole, &failed) {
                assert_eq!(
                    e.code,
                    ErrorCode::TypeMismatch,
                    "a piece failed where decode did not: {e}"
                );
            }
        }
        if let (Ok(b), false) = (&whole, layout == Layout::Auto) {
            match &streamed {
                Ok(rows) => assert_eq!(*rows, b.num_rows, "stream and decode disagree"),
                Err(e) => assert_eq!(
                    e.code,
                    ErrorCode::TypeMismatch,
                    "stream failed where decode did not: {e}"
                ),
            }
        }
    }
});
