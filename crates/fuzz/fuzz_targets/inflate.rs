//! The inflater (crates/inflate) against zlib (the zlib-rs port): the first two bytes give the
//! output buffer's size, the rest is a raw deflate stream. Both must give the same verdict
//! and, when they accept it, the same bytes; ours must never write past its buffer.
//! Seed corpus: any deflate streams (e.g. chunks of fixtures/hdf5/*.h5).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [a, b, src @ ..] = data else { return };
    let cap = (*a as usize) << 8 | *b as usize;
    let mut ours = vec![0u8; cap];
    let ours_r = arrowsmith_inflate::inflate(src, &mut ours);
    // zlib-rs answers Ok to any stream when given no room at all: nothing to compare.
    if cap == 0 {
        return;
    }
    let mut theirs = vec![0u8; cap];
    let (t, rc) = zlib_rs::decompress_slice(
        &mut theirs,
        src,
        zlib_rs::InflateConfig { window_bits: -15 },
    );
    let zlib_ok = rc == zlib_rs::ReturnCode::Ok;
    let t = t.to_vec();
    match ours_r {
        Ok((n, used)) => {
            assert!(zlib_ok, "zlib refused a stream we accepted: {rc:?}");
            assert_eq!(&ours[..n], &t[..], "different bytes");
            assert!(used <= src.len());
        }
        Err(e) => assert!(!zlib_ok, "we refused a stream zlib accepted: {e:?}"),
    }
});
