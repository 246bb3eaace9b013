//! Truncated and corrupted files: typed errors, never a panic or a hang.

mod common;
// The fuzz target's harness: open, walk, read everything (whole and through a HostSource).
#[path = "../../fuzz/harness/hdf5.rs"]
mod harness;

use std::time::{Duration, Instant};

use arrowsmith_core::{ErrorCode, RangeCache};
use arrowsmith_hdf5::Hdf5File;
use harness::exercise;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(common::fixtures_dir().join(format!("{name}.h5"))).unwrap()
}

const FILES: &[&str] = &[
    "vl_earliest",
    "vl_latest",
    "types_earliest",
    "types_latest",
    "dense_attrs",
    "vl_nested",
    "len4",
    "userblock_latest",
    "vl_v108",
    "struct_h5py",
    "sohm_btree",
    "h5jam_earliest",
    "browse_mixed",
    "pytables_time",
    "extstore/extstore",
    "vds/vds_latest",
    "vds/vds_earliest",
];

#[test]
fn truncated_files_error_cleanly() {
    for name in FILES {
        let b = fixture(name);
        let full = exercise(&b, 1 << 26);
        assert!(full > 0, "{name}: nothing readable");
        for k in 1..24u64 {
            let cut = (b.len() as u64 * k / 24) as usize;
            let t = Instant::now();
            exercise(&b[..cut], 1 << 26);
            assert!(
                t.elapsed() < Duration::from_secs(5),
                "{name} cut at {cut}: slow"
            );
        }
        let src = b[..b.len() / 2].to_vec();
        if let Ok(f) = Hdf5File::open(&src) {
            for p in ["/vlstr_utf8", "/ck_deflate", "/vlen_struct_60"] {
                if let Err(e) = f.read(&src, p, 0, None) {
                    assert!(!e.message.is_empty());
                }
            }
        }
    }
}

/// A xorshift64 generator from `seed`.
fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

#[test]
fn corrupted_bytes_never_panic() {
    let mut next = xorshift(0x2545_f491_4f6c_dd1d);
    for name in FILES {
        let orig = fixture(name);
        // Mutations concentrate on metadata: the first 8 KiB and around object headers.
        for _ in 0..60 {
            let mut b = orig.clone();
            for _ in 0..1 + next() % 4 {
                let span = if next().is_multiple_of(2) {
                    b.len().min(8192)
                } else {
                    b.len()
                };
                let at = (next() as usize) % span;
                b[at] = match next() % 4 {
                    0 => 0xff,
                    1 => 0,
                    2 => b[at] ^ (1 << (next() % 8)),
                    _ => next() as u8,
                };
            }
            let t = Instant::now();
            exercise(&b, 1 << 26);
            assert!(
                t.elapsed() < Duration::from_secs(5),
                "{name}: slow on a mutation"
            );
        }
    }
}

/// Virtual datasets' mappings (h5py's, fixtures/hdf5/vds/*.bin): every truncation and
/// many mutations parse or fail cleanly, quickly.
#[test]
fn virtual_mappings_truncated_or_corrupted() {
    let dir = common::fixtures_dir().join("vds");
    let mut seeds = 0;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "bin") {
            continue;
        }
        let orig = std::fs::read(&p).unwrap();
        assert!(arrowsmith_hdf5::fuzz_mappings(&orig).is_ok(), "{p:?}");
        seeds += 1;
        for cut in 0..orig.len() {
            let _ = arrowsmith_hdf5::fuzz_mappings(&orig[..cut]);
        }
        let t = Instant::now();
        for _ in 0..2000 {
            let mut b = orig.clone();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = (seed % b.len() as u64) as usize;
            b[at] = (seed >> 32) as u8;
            let _ = arrowsmith_hdf5::fuzz_mappings(&b);
        }
        assert!(t.elapsed() < Duration::from_secs(5), "{p:?}: slow");
    }
    assert_eq!(seeds, 8);
}

#[test]
fn not_hdf5_is_invalid() {
    let e = Hdf5File::open(&b"definitely not an HDF5 file, just some text".to_vec()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Invalid);
    let e = Hdf5File::open(&Vec::new()).unwrap_err();
    assert_eq!(e.code, ErrorCode::Invalid);
}

#[test]
fn unknown_filter_is_named() {
    // Patch the deflate filter id (1) of a v1 pipeline into 32026 (blosc2, which stays
    // unsupported) and expect an Unsupported error that names it.
    let mut b = fixture("types_earliest");
    let f = Hdf5File::open(&b).unwrap();
    let info = f.info(&b, "/ck_deflate").unwrap();
    assert_eq!(info.filters, vec!["deflate"]);
    // Filter pipeline message v1: version 1, nfilters 1, 6 reserved, id 1 (LE), name len.
    let pat = [1u8, 1, 0, 0, 0, 0, 0, 0, 1, 0];
    let hits: Vec<usize> = b
        .windows(pat.len())
        .enumerate()
        .filter(|(_, w)| *w == pat)
        .map(|(i, _)| i)
        .collect();
    assert!(!hits.is_empty(), "pipeline message");
    for pos in hits {
        b[pos + 8] = 0x1a;
        b[pos + 9] = 0x7d;
    }
    let e = f.read(&b, "/ck_deflate", 0, None).unwrap_err();
    assert_eq!(e.code, ErrorCode::Unsupported, "{e}");
    assert!(
        e.message.contains("32026") && e.message.contains("blosc2"),
        "{}",
        e.message
    );
}

#[test]
fn read_limit_is_enforced() {
    let b = fixture("types_earliest");
    let mut f = Hdf5File::open(&b).unwrap();
    f.max_read_bytes = 100;
    let e = f.read(&b, "/ck_deflate", 0, None).unwrap_err();
    assert_eq!(e.code, ErrorCode::TooLarge);
    assert!(
        f.read(&b, "/ck_deflate", 0, Some(10)).is_err(),
        "chunk of 400 bytes exceeds 100"
    );
    f.max_read_bytes = 1 << 20;
    assert_eq!(f.read(&b, "/ck_deflate", 0, Some(10)).unwrap().num_rows, 10);
}

/// A host that only has the bytes it was asked for: every NeedBytes is answered by loading
/// that range, and the call is repeated. Results must equal the whole-buffer read.
#[test]
fn restartable_with_range_cache() {
    for name in [
        "vl_earliest",
        "vl_latest",
        "types_latest",
        "dense_attrs",
        "vl_nested",
    ] {
        let b = fixture(name);
        let full = Hdf5File::open(&b).unwrap();
        let paths = arrowsmith_hdf5::dataset_paths(&full, &b).unwrap();
        let mut cache = RangeCache::new(b.len() as u64);
        let mut rounds = 0;
        let load = |cache: &mut RangeCache, off: u64, len: u64| {
            let end = (off + len).min(b.len() as u64);
            cache.insert(off, b[off as usize..end as usize].to_vec());
        };
        let f = open_through(&mut cache, load);
        for p in &paths {
            // Prefetch with plan() until it stops asking, then read must need nothing more.
            let want = full.read(&b, p, 0, None);
            loop {
                rounds += 1;
                assert!(rounds < 100_000, "{name}{p}: plan does not converge");
                let ranges = f.plan(&cache, p, 0, None);
                match ranges {
                    Ok(r) => {
                        let missing: Vec<_> = r
                            .iter()
                            .filter(|(o, l)| cache_get(&cache, *o, *l).is_none())
                            .cloned()
                            .collect();
                        if missing.is_empty() {
                            break;
                        }
                        for (o, l) in missing {
                            load(&mut cache, o, l);
                        }
                    }
                    Err(e) => {
                        assert!(want.is_err(), "{name}{p}: plan failed: {e}");
                        break;
                    }
                }
            }
            let got = f.read(&cache, p, 0, None);
            match (got, want) {
                (Ok(g), Ok(w)) => assert_eq!(g, w, "{name}{p}"),
                (Err(g), Err(w)) => assert_eq!(g.code, w.code),
                (g, w) => panic!("{name}{p}: {:?} vs {:?}", g.err(), w.err()),
            }
        }
    }
}

/// Open from a range cache, loading each range the open asks for (the sans-I/O host loop).
fn open_through(cache: &mut RangeCache, load: impl Fn(&mut RangeCache, u64, u64)) -> Hdf5File {
    loop {
        match Hdf5File::open(&*cache) {
            Ok(f) => return f,
            Err(e) if e.is_need_bytes() => load(cache, e.offset, e.need_len),
            Err(e) => panic!("{e}"),
        }
    }
}

fn cache_get(c: &RangeCache, o: u64, l: u64) -> Option<()> {
    use arrowsmith_core::ByteSource;
    c.get(o, l as usize).map(|_| ())
}

/// A host answering the ranges `read` asks for without a plan, call after call (segments
/// kept apart, as the wasm reader keeps them). Retries after missing heap bytes
/// reuse the decoded chunks (retry memo); results must equal the whole-buffer read.
#[test]
fn restartable_read_without_plan() {
    for name in ["vl_earliest", "vl_latest", "types_latest", "vl_nested"] {
        let b = fixture(name);
        let full = Hdf5File::open(&b).unwrap();
        let paths = arrowsmith_hdf5::dataset_paths(&full, &b).unwrap();
        for (start, count) in [(0, None), (1, Some(2))] {
            let mut cache = RangeCache::keeping_neighbours(b.len() as u64);
            let load = |cache: &mut RangeCache, off: u64, len: u64| {
                let end = (off + len.max(64)).min(b.len() as u64);
                cache.insert(off, b[off as usize..end as usize].to_vec());
            };
            let f = open_through(&mut cache, load);
            for p in &paths {
                let want = full.read(&b, p, start, count);
                let mut rounds = 0;
                let got = loop {
                    rounds += 1;
                    assert!(rounds < 10_000, "{name}{p}: read does not converge");
                    match f.read(&cache, p, start, count) {
                        Err(e) if e.is_need_bytes() => load(&mut cache, e.offset, e.need_len),
                        r => break r,
                    }
                };
                match (got, want) {
                    (Ok(g), Ok(w)) => assert_eq!(g, w, "{name}{p} {start}"),
                    (Err(g), Err(w)) => assert_eq!(g.code, w.code),
                    (g, w) => panic!("{name}{p}: {:?} vs {:?}", g.err(), w.err()),
                }
            }
        }
    }
}

/// The in-memory host of the JS package: bytes are fetched as the reader reaches them
/// (`HostSource`), with no restarts. Every dataset, whole and a window, equals the
/// whole-buffer read, and a read copies little more than the file holds.
#[test]
fn host_source_reads_match_whole_buffer() {
    use arrowsmith_core::{Bump, HostSource};
    for name in FILES {
        let b = fixture(name);
        let full = Hdf5File::open(&b).unwrap();
        let paths = arrowsmith_hdf5::dataset_paths(&full, &b).unwrap();
        let kept = RangeCache::new(b.len() as u64);
        let mut arena = Bump::new();
        let (mut fetched, mut most) = (0, 0);
        for p in &paths {
            for (start, count) in [(0, None), (1, Some(2))] {
                arena.reset();
                let src = HostSource::over_slice(&kept, &arena, &b);
                let f = Hdf5File::open(&src).unwrap();
                let got = f.read(&src, p, start, count);
                match (got, full.read(&b, p, start, count)) {
                    (Ok(g), Ok(w)) => assert_eq!(format!("{g:?}"), format!("{w:?}"), "{name}{p}"),
                    (Err(g), Err(w)) => assert_eq!(g.code, w.code, "{name}{p}"),
                    (g, w) => panic!("{name}{p}: {:?} vs {:?}", g.err(), w.err()),
                }
                fetched += src.fetched_bytes();
                most = most.max(src.fetched_bytes());
            }
        }
        eprintln!(
            "{name}: {} bytes, {} datasets, most fetched by one read {most}, total {fetched}",
            b.len(),
            paths.len()
        );
        assert!(
            most <= 2 * b.len() as u64,
            "{name}: one read fetched {most} bytes of a {}-byte file",
            b.len()
        );
    }
}

/// Hyperslab reads (the `hdf5_select` fuzz target's harness) of the selection fixtures,
/// truncated and mutated: typed errors, never a panic or a hang; the intact files read.
#[test]
fn selections_of_damaged_files_never_panic() {
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    for name in ["select/select_latest", "select/select_earliest"] {
        let orig = fixture(name);
        assert!(
            harness::select(&orig, 1 << 26) > 20,
            "{name}: few selections read"
        );
        for k in 1..16u64 {
            harness::select(&orig[..(orig.len() as u64 * k / 16) as usize], 1 << 26);
        }
        for _ in 0..40 {
            let mut b = orig.clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() as usize) % b.len();
                b[at] = next() as u8;
            }
            let t = Instant::now();
            harness::select(&b, 1 << 26);
            assert!(
                t.elapsed() < Duration::from_secs(5),
                "{name}: slow on a mutation"
            );
        }
    }
}
