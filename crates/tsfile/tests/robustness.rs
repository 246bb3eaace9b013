//! Damaged files: truncations and byte mutations must give errors, never panics or
//! runaway allocations.

mod common;
use arrowsmith_core::ErrorCode;
use arrowsmith_tsfile::{Query, TsFile};
use common::fixtures_dir;

// `&Vec`, not `&[u8]`: the readers take `&dyn ByteSource`, which needs a sized source.
#[allow(clippy::ptr_arg)]
fn try_all(bytes: &Vec<u8>) -> Result<usize, arrowsmith_core::DecodeError> {
    let f = TsFile::open(bytes)?;
    let _ = f.timeseries(bytes);
    let _ = f.plan(bytes, &Query::default());
    let b = f.read(bytes, &Query::default())?;
    // The same read with bytes fetched on demand (the in-memory wasm path) and a time slice
    // (page headers walked, bodies skipped) must give the same answer.
    let arena = arrowsmith_core::Bump::new();
    let kept = arrowsmith_core::RangeCache::new(bytes.len() as u64);
    let src = arrowsmith_core::HostSource::over_slice(&kept, &arena, bytes);
    match f.read(&src, &Query::default()) {
        // Compared as text: a mutated file may decode NaNs, which are never == themselves.
        Ok(h) => assert_eq!(format!("{h:?}"), format!("{b:?}")),
        Err(e) => panic!("host source: {e}"),
    }
    let slice = Query {
        start: Some(1_600_000_000_000),
        end: Some(1_800_000_000_000),
        ..Default::default()
    };
    let _ = f.read(&src, &slice);
    Ok(b.num_rows)
}

#[test]
fn truncations_error_cleanly() {
    for name in ["cpp_plain_snappy", "cpp_tree_mixed", "java_deep_index"] {
        let bytes = std::fs::read(fixtures_dir().join(format!("{name}.tsfile"))).unwrap();
        let full = try_all(&bytes).unwrap();
        assert!(full > 0);
        let step = (bytes.len() / 300).max(1);
        for len in (0..bytes.len()).step_by(step) {
            let cut = bytes[..len].to_vec();
            let e = try_all(&cut).unwrap_err();
            assert!(
                matches!(
                    e.code,
                    ErrorCode::Truncated | ErrorCode::Invalid | ErrorCode::OutOfBounds
                ),
                "{name} cut at {len}: {e}"
            );
        }
    }
}

#[test]
fn mutations_never_panic() {
    let mut x: u64 = 0x9e3779b97f4a7c15;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for name in [
        "cpp_gorilla_lz4",
        "cpp_rle_uncompressed",
        "cpp_sprintz_zstd",
        "cpp_rlbe_uncompressed",
        "cpp_chimp_gzip",
        "cpp_dictionary_uncompressed",
        "cpp_tree_mixed",
        "java_tree_aligned",
        "java_deep_index",
    ] {
        let orig = std::fs::read(fixtures_dir().join(format!("{name}.tsfile"))).unwrap();
        for _ in 0..300 {
            let mut b = orig.clone();
            for _ in 0..1 + rnd() % 4 {
                let i = (rnd() % b.len() as u64) as usize;
                b[i] = match rnd() % 4 {
                    0 => 0xff,
                    1 => 0,
                    2 => b[i] ^ (1 << (rnd() % 8)),
                    _ => rnd() as u8,
                };
            }
            if let Ok(n) = try_all(&b) {
                // A mutation inside values may still decode; the row count stays sane.
                assert!(n < 10 * 1_000_000);
            }
        }
    }
}

#[test]
fn error_names_structure_and_offset() {
    let bytes = std::fs::read(fixtures_dir().join("cpp_plain_uncompressed.tsfile")).unwrap();
    let mut b = bytes.clone();
    b[0] = b'X';
    let e = TsFile::open(&b).unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::Invalid, 0));
    let mut b = bytes.clone();
    let n = b.len();
    b[n - 8] = 0x7f; // metadata size → huge
    let e = TsFile::open(&b).unwrap_err();
    assert_eq!(e.code, ErrorCode::OutOfBounds);
    assert!(e.message.contains("metadata size"), "{e}");
}

/// A read over its memory limit fails before it allocates, naming the bytes it needs; the
/// same read within the limit gives its rows.
#[test]
fn reads_over_max_read_bytes_are_too_large() {
    for name in ["cpp_plain_snappy", "java_tree_nonaligned"] {
        let bytes = std::fs::read(fixtures_dir().join(format!("{name}.tsfile"))).unwrap();
        let f = TsFile::open(&bytes).unwrap();
        let whole = f.read(&bytes, &Query::default()).unwrap();
        let q = |max| Query {
            max_read_bytes: Some(max),
            ..Default::default()
        };
        let e = f.read(&bytes, &q(1000)).unwrap_err();
        assert_eq!(e.code, ErrorCode::TooLarge, "{name}: {e}");
        assert!(e.need_len > 1000, "{name}: {e}");
        assert!(e.message.contains("maxReadBytes"), "{e}");
        let fits = f.read(&bytes, &q(64 << 20)).unwrap();
        assert_eq!(fits.num_rows, whole.num_rows);
    }
}
