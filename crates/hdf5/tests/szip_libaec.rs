//! Our SZIP (AEC) decoder against libaec's own: random streams of every bit width 1..32,
//! block sizes 8–64, segment lengths 1–300 blocks, preprocessing on and off, both sample
//! orders, data making every coding option (fixtures/hdf5/aec_cases.bin, written by the
//! `aec` CLI: gen_aec_cases.py). Each case must decode to exactly libaec's bytes, and a
//! truncated stream must be an error, never a panic or a short answer.

mod common;

use arrowsmith_hdf5::filters::AecCoder;

fn fnv1a(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325, |h, &x| {
        (h ^ x as u64).wrapping_mul(0x100_0000_01b3)
    })
}

#[test]
fn decodes_as_libaec_does() {
    let data = std::fs::read(common::fixtures_dir().join("aec_cases.bin")).unwrap();
    let (mut at, mut cases, mut failures) = (0, 0, Vec::new());
    while at < data.len() {
        let h = &data[at..at + 21];
        let (bits, j, rsi, flags) = (
            h[0] as u32,
            h[1] as usize,
            u16::from_le_bytes([h[2], h[3]]),
            h[4],
        );
        let enc_len = u32::from_le_bytes(h[5..9].try_into().unwrap()) as usize;
        let dec_len = u32::from_le_bytes(h[9..13].try_into().unwrap()) as usize;
        let hash = u64::from_le_bytes(h[13..21].try_into().unwrap());
        let stream = &data[at + 21..at + 21 + enc_len];
        at += 21 + enc_len;
        cases += 1;
        let rsi = rsi as usize;
        let coder = AecCoder {
            bps: bits,
            j,
            rsi,
            pps: rsi * j,
            pp: flags & 1 != 0,
            msb: flags & 2 != 0,
        };
        let what = format!("bits {bits} block {j} rsi {rsi} flags {flags} ({enc_len} bytes)");
        let mut out = vec![0u8; dec_len];
        match coder.run(stream, &mut out) {
            Ok(()) if fnv1a(&out) == hash => {}
            Ok(()) => failures.push(format!("{what}: bytes differ from libaec's")),
            Err(e) => failures.push(format!("{what}: {e}")),
        }
        // Cut short: an error (the stream cannot fill the output), never a panic.
        if enc_len > 8 {
            let mut more = vec![0u8; dec_len + 4096];
            if coder.run(&stream[..enc_len / 2], &mut more).is_ok() {
                failures.push(format!("{what}: a half stream filled {} bytes", more.len()));
            }
        }
    }
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    assert!(cases >= 300, "{cases} cases");
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed",
        failures.len()
    );
}

/// Hostile streams: the libaec streams with bytes flipped, through the SZIP filter with
/// random parameters (bits per pixel 1–32 and 64, blocks, scanlines, NN, MSB): errors or
/// output within the chunk, never a panic.
#[test]
fn corrupted_streams_never_panic() {
    use arrowsmith_hdf5::filters::{apply, Filter, SZIP};
    let data = std::fs::read(common::fixtures_dir().join("aec_cases.bin")).unwrap();
    let mut streams = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let n = u32::from_le_bytes(data[at + 5..at + 9].try_into().unwrap()) as usize;
        streams.push(&data[at + 21..at + 21 + n]);
        at += 21 + n;
    }
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for round in 0..4000 {
        let s = streams[round % streams.len()];
        let expected = (next() % 6000) as usize;
        let mut chunk = (expected as u32).to_le_bytes().to_vec();
        chunk.extend_from_slice(s);
        for _ in 0..next() % 4 {
            let i = next() as usize % chunk.len();
            chunk[i] ^= next() as u8;
        }
        let bpp = [1, 7, 8, 12, 16, 24, 31, 32, 64][next() as usize % 9];
        let ppb = 2 * (1 + next() % 32) as u32;
        let pps = 1 + (next() % 400) as u32;
        let mask = 128 | 8 | ((next() % 2) as u32 * 32) | ((next() % 2) as u32 * 16);
        let f = Filter {
            id: SZIP,
            name: String::new(),
            flags: 0,
            cd: vec![mask, ppb, bpp, pps],
        };
        if let Ok(v) = apply(&[f], 0, &chunk, expected, 0) {
            assert!(v.len() <= expected);
        }
    }
}
