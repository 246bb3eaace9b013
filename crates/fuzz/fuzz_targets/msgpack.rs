//! MessagePack: `decode` with each layout (fast paths on and off must agree), and the
//! `StreamDecoder` with the input split in two at a point taken from the input.
#![no_main]

use arrowsmith_core::{describe::describe, ErrorCode};
use arrowsmith_msgpack::{decode, Layout, Options, StreamDecoder};
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
        let mut s = StreamDecoder::new(fast);
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
