//! The lanes' edge cases (`src/parser/lanes.rs`): nil taken inside the int, float, bool and str
//! lanes (first, last, all, runs), a value the lane does not take in the middle of a run
//! (the general path takes over), and the str lane's batched copy and UTF-8 check (length
//! boundaries, strings at the very end of the input, invalid UTF-8 in the middle, a
//! character split across two strings). Expected values are the inputs, written by `rmp`.

mod common;
use arrowsmith_core::{DataType, ErrorCode};
use common::*;

#[derive(Clone, Debug)]
enum V {
    Nil,
    Int(i64),
    F64(f64),
    F32(f32),
    Bool(bool),
    Str(String),
}

fn encode(vals: &[V]) -> Vec<u8> {
    let mut v = vec![];
    rmp::encode::write_array_len(&mut v, vals.len() as u32).unwrap();
    for x in vals {
        match x {
            V::Nil => rmp::encode::write_nil(&mut v).unwrap(),
            V::Int(i) => {
                rmp::encode::write_sint(&mut v, *i).unwrap();
            }
            V::F64(f) => rmp::encode::write_f64(&mut v, *f).unwrap(),
            V::F32(f) => rmp::encode::write_f32(&mut v, *f).unwrap(),
            V::Bool(b) => rmp::encode::write_bool(&mut v, *b).unwrap(),
            V::Str(s) => rmp::encode::write_str(&mut v, s).unwrap(),
        }
    }
    v
}

fn nils(vals: &[V]) -> Vec<bool> {
    vals.iter().map(|x| !matches!(x, V::Nil)).collect()
}

/// A column's validity as the decoder must give it: none when nothing is null.
fn check_validity(c: &arrowsmith_core::Column, vals: &[V]) {
    let want = nils(vals);
    assert_eq!(c.len, vals.len());
    if want.iter().all(|v| !v) {
        assert_eq!(c.dtype, DataType::Null);
        return;
    }
    assert_eq!(valid(c), want);
    assert_eq!(
        c.validity.is_some(),
        want.iter().any(|v| !v),
        "validity bitmap present iff a nil"
    );
}

/// Patterns of nil around a run of `n` values made by `f(i)`: nil first, last, both,
/// every k-th, runs of nils, all nil but one.
fn nil_patterns(n: usize, f: impl Fn(usize) -> V) -> Vec<Vec<V>> {
    let mut out = vec![];
    let with = |nil: &dyn Fn(usize) -> bool| {
        (0..n)
            .map(|i| if nil(i) { V::Nil } else { f(i) })
            .collect::<Vec<_>>()
    };
    out.push(with(&|i| i == 0));
    out.push(with(&|i| i == n - 1));
    out.push(with(&|i| i == 0 || i == n - 1));
    for k in [2, 3, 4, 7, 8, 9, 64] {
        out.push(with(&|i| i % k == 1));
    }
    out.push(with(&|i| (i / 5) % 2 == 0));
    out.push(with(&|i| i != n / 2));
    out
}

#[test]
fn ints_with_nil_first_last_all_and_runs() {
    let enc = [
        3i64,
        -7,
        200,
        -200,
        40_000,
        -40_000,
        3_000_000_000,
        -3_000_000_000,
        100,
        -1,
    ];
    for n in [1usize, 2, 9, 17, 300, 1000] {
        for wide in [false, true] {
            let f = |i: usize| {
                let x = enc[i % enc.len()];
                V::Int(if wide || x.unsigned_abs() < 1 << 31 {
                    x
                } else {
                    x / 1000
                })
            };
            for vals in nil_patterns(n, f) {
                let b = dec(&encode(&vals));
                let c = value(&b);
                check_validity(c, &vals);
                if c.dtype == DataType::Null {
                    continue;
                }
                let got: Vec<i64> = if c.dtype == DataType::Int32 {
                    i32s(c).into_iter().map(i64::from).collect()
                } else {
                    i64s(c)
                };
                for (i, x) in vals.iter().enumerate() {
                    match x {
                        V::Int(x) => assert_eq!(got[i], *x, "n={n} i={i}"),
                        _ => assert_eq!(got[i], 0, "placeholder at a nil, n={n} i={i}"),
                    }
                }
            }
        }
    }
}

#[test]
fn all_nil_is_a_null_column() {
    for n in [1, 2, 300] {
        let vals = vec![V::Nil; n];
        let b = dec(&encode(&vals));
        let c = value(&b);
        assert_eq!((c.dtype.clone(), c.len), (DataType::Null, n));
    }
}

#[test]
fn a_float_in_a_nil_int_run_widens_to_float64() {
    // Ints and nils, then a float64 in the middle: the int lane stops, the column becomes
    // Float64, and the f64 lane takes the rest (nils included).
    let mut vals: Vec<V> = (0..100)
        .map(|i| {
            if i % 3 == 0 {
                V::Nil
            } else {
                V::Int(i as i64 * 1000 - 7)
            }
        })
        .collect();
    vals[50] = V::F64(0.5);
    let b = dec(&encode(&vals));
    let c = value(&b);
    assert_eq!(c.dtype, DataType::Float64);
    check_validity(c, &vals);
    let got = f64s(c);
    for (i, x) in vals.iter().enumerate() {
        match x {
            V::Int(x) => assert_eq!(got[i], *x as f64),
            V::F64(x) => assert_eq!(got[i], *x),
            _ => assert_eq!(got[i], 0.0),
        }
    }
}

#[test]
fn a_str_in_a_nil_int_run_is_a_type_mismatch_at_its_offset() {
    let mut vals: Vec<V> = (0..40)
        .map(|i| if i % 2 == 0 { V::Nil } else { V::Int(i) })
        .collect();
    vals[21] = V::Str("x".into());
    let bytes = encode(&vals);
    let at = encode(&vals[..21]).len() as u64; // the array header is one byte either way
    let (code, off, msg) = dec_err(&bytes);
    assert_eq!((code, off), (ErrorCode::TypeMismatch, at), "{msg}");
}

#[test]
fn floats_and_bools_with_nil() {
    for vals in nil_patterns(70, |i| V::F64(i as f64 * 1.25 - 3.0)) {
        let b = dec(&encode(&vals));
        let c = value(&b);
        check_validity(c, &vals);
        if c.dtype == DataType::Null {
            continue;
        }
        let got = f64s(c);
        for (i, x) in vals.iter().enumerate() {
            if let V::F64(x) = x {
                assert_eq!(got[i], *x);
            }
        }
    }
    for vals in nil_patterns(70, |i| V::F32(i as f32 * 0.5)) {
        let b = dec(&encode(&vals));
        let c = value(&b);
        check_validity(c, &vals);
        if c.dtype == DataType::Null {
            continue;
        }
        let got = f32s(c);
        for (i, x) in vals.iter().enumerate() {
            if let V::F32(x) = x {
                assert_eq!(got[i], *x);
            }
        }
    }
    for vals in nil_patterns(70, |i| V::Bool(i % 3 == 0)) {
        check_bools(&vals);
    }
}

/// Decode `vals` (bools and nils) and compare value by value.
fn check_bools(vals: &[V]) {
    let b = dec(&encode(vals));
    let c = value(&b);
    check_validity(c, vals);
    if c.dtype == DataType::Null {
        return;
    }
    let got = bools(c);
    for (i, x) in vals.iter().enumerate() {
        match x {
            V::Bool(x) => assert_eq!(got[i], *x, "value {i} of {}", vals.len()),
            _ => assert!(!got[i], "placeholder false at a nil"),
        }
    }
}

fn check_strs(vals: &[V]) {
    let b = dec(&encode(vals));
    let c = value(&b);
    check_validity(c, vals);
    if c.dtype == DataType::Null {
        return;
    }
    assert_eq!(c.dtype, DataType::Utf8);
    let got = strs(c);
    for (i, x) in vals.iter().enumerate() {
        match x {
            V::Str(s) => assert_eq!(&got[i], s, "i={i}"),
            _ => assert_eq!(got[i], "", "empty at a nil, i={i}"),
        }
    }
}

#[test]
fn strings_at_length_boundaries() {
    // fixstr up to 31, str8 from 32; the 16-byte copy up to 16; str16 from 256.
    let lens = [0usize, 1, 15, 16, 17, 30, 31, 32, 33, 255, 256, 300];
    let text = |len: usize, i: usize| -> String {
        (0..len)
            .map(|k| (b'a' + ((i + k) % 26) as u8) as char)
            .collect()
    };
    for &len in &lens {
        // Alone, as the last value of the input (no 16 bytes after it), and mixed with others.
        check_strs(&[V::Str(text(len, 0))]);
        check_strs(&(0..20).map(|i| V::Str(text(len, i))).collect::<Vec<_>>());
        check_strs(
            &(0..40)
                .map(|i| V::Str(text(lens[(i + len) % lens.len()], i)))
                .collect::<Vec<_>>(),
        );
    }
    // Non-ASCII (valid) of every length class, and nils.
    let multi = ["é", "日本", "😀x", "aé", "ßßßßßßßßßßßßßßßß"];
    let vals: Vec<V> = (0..200)
        .map(|i| {
            if i % 7 == 3 {
                V::Nil
            } else {
                V::Str(multi[i % multi.len()].repeat(1 + i % 20))
            }
        })
        .collect();
    check_strs(&vals);
    for vals in nil_patterns(50, |i| V::Str(text(i % 40, i))) {
        check_strs(&vals);
    }
}

/// A str value with these raw bytes (not necessarily UTF-8).
fn raw_str(out: &mut Vec<u8>, bytes: &[u8]) {
    rmp::encode::write_str_len(out, bytes.len() as u32).unwrap();
    out.extend_from_slice(bytes);
}

#[test]
fn invalid_utf8_in_the_middle_of_a_run() {
    for bad_at in [0usize, 1, 17, 63] {
        for bad in [
            &[0xffu8][..],
            &[b'a', 0xc3][..],
            &[0xa9, b'b'][..],
            &[0xe6, 0x97][..],
        ] {
            let mut v = vec![];
            rmp::encode::write_array_len(&mut v, 64).unwrap();
            let mut at = 0;
            for i in 0..64 {
                if i == bad_at {
                    at = v.len();
                    raw_str(&mut v, bad);
                } else if i % 5 == 4 {
                    rmp::encode::write_nil(&mut v).unwrap();
                } else {
                    raw_str(&mut v, format!("s{i}é").as_bytes());
                }
            }
            let (code, off, msg) = dec_err(&v);
            assert_eq!(
                (code, off),
                (ErrorCode::InvalidUtf8, at as u64),
                "bad {bad:?} at {bad_at}: {msg}"
            );
        }
    }
}

#[test]
fn a_character_split_across_two_strings_is_invalid() {
    // "é" is c3 a9: the first string ends with c3, the next starts with a9. Their
    // concatenation is valid UTF-8, each string is not.
    let mut v = vec![0x93];
    raw_str(&mut v, b"ab");
    let at = v.len();
    raw_str(&mut v, &[b'x', 0xc3]);
    raw_str(&mut v, &[0xa9, b'y']);
    let (code, off, _) = dec_err(&v);
    assert_eq!((code, off), (ErrorCode::InvalidUtf8, at as u64));
    // A four-byte character split 2 + 2.
    let mut v = vec![0x92];
    raw_str(&mut v, &[0xf0, 0x9f]);
    raw_str(&mut v, &[0x98, 0x80]);
    let (code, off, _) = dec_err(&v);
    assert_eq!((code, off), (ErrorCode::InvalidUtf8, 1));
}

/// One int in the given encoding (explicitly: a small value may be written wide), or nil.
#[derive(Clone, Copy, Debug)]
enum Enc {
    Nil,
    PFix(u8),
    NFix(i8),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
}

impl Enc {
    fn write(self, out: &mut Vec<u8>) {
        use rmp::encode::*;
        match self {
            Enc::Nil => write_nil(out).unwrap(),
            Enc::PFix(x) => write_pfix(out, x).unwrap(),
            Enc::NFix(x) => write_nfix(out, x).unwrap(),
            Enc::U8(x) => write_u8(out, x).unwrap(),
            Enc::U16(x) => write_u16(out, x).unwrap(),
            Enc::U32(x) => write_u32(out, x).unwrap(),
            Enc::U64(x) => write_u64(out, x).unwrap(),
            Enc::I8(x) => write_i8(out, x).unwrap(),
            Enc::I16(x) => write_i16(out, x).unwrap(),
            Enc::I32(x) => write_i32(out, x).unwrap(),
            Enc::I64(x) => write_i64(out, x).unwrap(),
        }
    }

    /// The value as an i128 (holds every int), None for nil.
    fn value(self) -> Option<i128> {
        Some(match self {
            Enc::Nil => return None,
            Enc::PFix(x) | Enc::U8(x) => x as i128,
            Enc::NFix(x) | Enc::I8(x) => x as i128,
            Enc::U16(x) => x as i128,
            Enc::U32(x) => x as i128,
            Enc::U64(x) => x as i128,
            Enc::I16(x) => x as i128,
            Enc::I32(x) => x as i128,
            Enc::I64(x) => x as i128,
        })
    }
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random encoding of kind `kind` (0..10): every payload width, signed and unsigned,
/// small values written wide too. `range`: 0 keeps values within i32, 1 within i64
/// (uint32 and int64 beyond i32), 2 non-negative with uint64 beyond i64::MAX.
fn random_int(r: &mut Rng, kind: u64, range: u8) -> Enc {
    let x = r.next();
    let neg = range != 2;
    match kind {
        0 => Enc::PFix((x % 128) as u8),
        1 if neg => Enc::NFix(-1 - (x % 32) as i8),
        2 => Enc::U8(x as u8),
        3 => Enc::U16(x as u16),
        4 if range == 0 => Enc::U32((x as u32) >> 1),
        4 => Enc::U32(x as u32),
        5 if range == 2 => Enc::U64(x),
        5 if range == 1 => Enc::U64(x >> 1),
        5 => Enc::U64(x % (1 << 31)),
        6 if neg => Enc::I8(x as i8),
        7 if neg => Enc::I16(x as i16),
        8 if neg => Enc::I32(x as i32),
        9 if range == 1 => Enc::I64(x as i64),
        9 if neg => Enc::I64(x as i32 as i64),
        // Non-negative payloads of the signed tags for the uint64 column.
        6 => Enc::I8((x % 128) as i8),
        7 => Enc::I16((x % 32768) as i16),
        8 => Enc::I32((x % (1 << 31)) as i32),
        9 => Enc::I64((x >> 1) as i64),
        _ => Enc::PFix((x % 128) as u8),
    }
}

fn encode_ints(vals: &[Enc]) -> Vec<u8> {
    let mut v = vec![];
    rmp::encode::write_array_len(&mut v, vals.len() as u32).unwrap();
    for x in vals {
        x.write(&mut v);
    }
    v
}

/// Every int of every encoding, in random order, with nil at several rates: each tag's
/// size, payload and sign in the int lanes, validity across lanes longer and shorter than
/// 64 values, values at the very end of the input, and the column type from the values
/// (Int32, Int64, UInt64).
#[test]
fn random_mixes_of_every_int_encoding_with_nil() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    for range in [0u8, 1, 2] {
        for nil_per_64 in [0u64, 1, 16, 60] {
            for n in [1usize, 2, 8, 9, 63, 64, 65, 127, 128, 129, 700, 3000] {
                let vals: Vec<Enc> = (0..n)
                    .map(|_| {
                        if r.below(64) < nil_per_64 {
                            Enc::Nil
                        } else {
                            let kind = r.below(10);
                            random_int(&mut r, kind, range)
                        }
                    })
                    .collect();
                check_ints(&vals, range);
            }
        }
    }
    // One large value (past i32, past i64) first, in the middle and last of small ones.
    for (big, range) in [
        (Enc::U32(3_000_000_000), 1),
        (Enc::I64(-5_000_000_000), 1),
        (Enc::U64(u64::MAX - 3), 2),
    ] {
        for at in [0, 1, 63, 64, 500, 998, 999] {
            let mut vals: Vec<Enc> = (0..1000)
                .map(|i| match i % 4 {
                    0 => Enc::PFix((i % 128) as u8),
                    1 => Enc::U16(i as u16 * 7),
                    2 => Enc::Nil,
                    _ => Enc::U8(i as u8),
                })
                .collect();
            vals[at] = big;
            check_ints(&vals, range);
        }
    }
}

fn check_ints(vals: &[Enc], range: u8) {
    let b = dec(&encode_ints(vals));
    let c = value(&b);
    assert_eq!(c.len, vals.len());
    let present: Vec<i128> = vals.iter().filter_map(|x| x.value()).collect();
    if present.is_empty() {
        assert_eq!(c.dtype, DataType::Null);
        return;
    }
    let want_type = if present.iter().any(|&x| x > i64::MAX as i128) {
        DataType::UInt64
    } else if present
        .iter()
        .all(|&x| x >= i32::MIN as i128 && x <= i32::MAX as i128)
    {
        DataType::Int32
    } else {
        DataType::Int64
    };
    assert_eq!(c.dtype, want_type, "range {range}");
    let got: Vec<i128> = match want_type {
        DataType::Int32 => i32s(c).into_iter().map(i128::from).collect(),
        DataType::Int64 => i64s(c).into_iter().map(i128::from).collect(),
        _ => u64s(c).into_iter().map(i128::from).collect(),
    };
    let ok = valid(c);
    assert_eq!(
        c.validity.is_some(),
        vals.iter().any(|x| matches!(x, Enc::Nil)),
        "validity bitmap present iff a nil"
    );
    for (i, x) in vals.iter().enumerate() {
        match x.value() {
            Some(w) => {
                assert!(ok[i], "value {i} of {} ({x:?}) marked null", vals.len());
                assert_eq!(got[i], w, "value {i} of {} ({x:?})", vals.len());
            }
            None => {
                assert!(!ok[i], "nil {i} of {} marked valid", vals.len());
                assert_eq!(got[i], 0, "placeholder at nil {i}");
            }
        }
    }
}

/// Where a value cannot join the column, the lane stops before it and the general path
/// reports it at its own offset: a negative int after a uint64 above i64::MAX, at every
/// position around the lane's word edges and the tail.
#[test]
fn a_negative_int_after_a_huge_uint64_is_a_type_mismatch_at_its_offset() {
    for bad in [1usize, 2, 62, 63, 64, 65, 128, 290, 297, 298, 299] {
        for neg in [
            Enc::NFix(-3),
            Enc::I8(-100),
            Enc::I32(-70_000),
            Enc::I64(-1),
        ] {
            let mut vals: Vec<Enc> = (0..300)
                .map(|i| {
                    if i % 3 == 0 {
                        Enc::Nil
                    } else {
                        Enc::U16(i as u16)
                    }
                })
                .collect();
            vals[0] = Enc::U64(u64::MAX);
            vals[bad] = neg;
            // The array16 header (3 bytes), then the values before the bad one.
            let before = encode_ints(&vals[..bad]);
            let header = if bad < 16 { 1 } else { 3 };
            let at = (3 + before.len() - header) as u64;
            let (code, off, msg) = dec_err(&encode_ints(&vals));
            assert_eq!(
                (code, off),
                (ErrorCode::TypeMismatch, at),
                "{neg:?} at {bad}: {msg}"
            );
        }
    }
}

/// With a msgpackr structure defined, bytes 0x40–0x7f start records: the int lane stops
/// at them (here a record where an int field is expected: a type mismatch at its byte)
/// instead of reading the int 64.
#[test]
fn the_int_lane_stops_at_a_msgpackr_record() {
    let mut v = vec![0x98];
    // Row 1 defines structure 0x40 with the key "a" (a = 1).
    v.extend([0xd4, 0x72, 0x40, 0x91, 0xa1, b'a', 0x01]);
    // Row 2: a = a record of structure 0x40.
    let at = v.len() as u64 + 1;
    v.extend([0x40, 0x40, 0x02]);
    // Six more rows: the bad byte is not at the end of the input.
    for x in 3..9 {
        v.extend([0x40, x]);
    }
    let (code, off, msg) = dec_err(&v);
    assert_eq!((code, off), (ErrorCode::TypeMismatch, at), "{msg}");
}

/// Each int encoding at the edges of its payload (sign bits, the uint32 that no longer
/// fits Int32), followed by 0 to 9 one-byte values: the int lane's 4-byte window near the
/// end of the input, a tag change after every width, nil first and last.
#[test]
fn every_int_width_at_its_edges_near_the_end_of_the_input() {
    let edges = [
        Enc::PFix(127),
        Enc::NFix(-32),
        Enc::U8(255),
        Enc::U8(0),
        Enc::U16(65535),
        Enc::U16(0x8000),
        Enc::U32(0x7fff_ffff),
        Enc::U32(0x8000_0000),
        Enc::U32(u32::MAX),
        Enc::I8(-128),
        Enc::I8(127),
        Enc::I16(-32768),
        Enc::I16(-1),
        Enc::I32(i32::MIN),
        Enc::I32(-1),
        Enc::U64(u64::MAX),
        Enc::U64(7),
        Enc::I64(i64::MIN),
        Enc::I64(-2),
    ];
    for e in edges {
        for tail in 0..10 {
            for nil_first in [false, true] {
                let mut vals = vec![if nil_first { Enc::Nil } else { Enc::U16(300) }];
                vals.extend([Enc::U16(1), Enc::I32(-5), e]);
                vals.extend((0..tail).map(|i| if i % 2 == 0 { Enc::Nil } else { Enc::PFix(9) }));
                // u64::MAX and a negative cannot share a column.
                if matches!(e, Enc::U64(u64::MAX)) {
                    vals[2] = Enc::U16(5);
                }
                check_ints(&vals, 2);
            }
        }
    }
}

/// The input ending inside an int's payload, at each width and each missing byte count,
/// after a run the lane has taken: a truncation error at the int's first byte.
#[test]
fn an_int_cut_short_at_the_end_is_truncated_at_its_offset() {
    for last in [
        Enc::U8(200),
        Enc::U16(40_000),
        Enc::U32(70_000),
        Enc::U64(1 << 40),
        Enc::I8(-100),
        Enc::I16(-1000),
        Enc::I32(-70_000),
        Enc::I64(-(1 << 40)),
    ] {
        for run in [0usize, 1, 5, 70] {
            let mut vals: Vec<Enc> = (0..run)
                .map(|i| {
                    if i % 3 == 0 {
                        Enc::Nil
                    } else {
                        Enc::U16(i as u16 + 1000)
                    }
                })
                .collect();
            vals.push(last);
            let whole = encode_ints(&vals);
            let at = whole.len() - encode_ints(&[last]).len() + 1;
            let payload = whole.len() - at - 1;
            for cut in 1..=payload {
                let (code, off, msg) = dec_err(&whole[..whole.len() - cut]);
                assert_eq!(
                    (code, off),
                    (ErrorCode::Truncated, at as u64),
                    "{last:?} after {run}, {cut} bytes cut: {msg}"
                );
            }
        }
    }
}

/// Bools in runs of every length around the bitmap's byte edges, after 0 to 9 values
/// already in the column (the lane's bits appended at an unaligned position), with nil
/// first, last or inside, and a str after the run (a type mismatch at its offset).
#[test]
fn bool_runs_at_every_byte_offset() {
    for before in 0..10usize {
        for n in [0usize, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 300] {
            for nil in [None, Some(0), Some(n / 2), Some(n.saturating_sub(1))] {
                let mut vals: Vec<V> = (0..before).map(|i| V::Bool(i % 2 == 1)).collect();
                vals.extend((0..n).map(|i| {
                    if Some(i) == nil {
                        V::Nil
                    } else {
                        V::Bool((i * 7 + before) % 3 == 0)
                    }
                }));
                if vals.is_empty() {
                    continue;
                }
                check_bools(&vals);
                if vals.iter().all(|v| matches!(v, V::Nil)) {
                    continue; // a str joins a column of nils
                }
                // A str right after the run: the lane stops before it.
                vals.push(V::Str("x".into()));
                let bytes = encode(&vals);
                // The fixstr "x" is the last 2 bytes.
                let at = (bytes.len() - 2) as u64;
                let (code, off, msg) = dec_err(&bytes);
                assert_eq!((code, off), (ErrorCode::TypeMismatch, at), "{msg}");
            }
        }
    }
}

/// Records take one value per field through the lanes (`max` = 1): a bool field with nil
/// first, inside and last, next to an int field.
#[test]
fn a_bool_field_of_records_with_nil() {
    let oks: Vec<Option<bool>> = (0..40)
        .map(|i| {
            if i % 7 == 0 || i == 39 {
                None
            } else {
                Some(i % 3 == 1)
            }
        })
        .collect();
    let mut v = vec![];
    rmp::encode::write_array_len(&mut v, oks.len() as u32).unwrap();
    for (i, ok) in oks.iter().enumerate() {
        rmp::encode::write_map_len(&mut v, 2).unwrap();
        rmp::encode::write_str(&mut v, "n").unwrap();
        rmp::encode::write_sint(&mut v, i as i64 * 1000).unwrap();
        rmp::encode::write_str(&mut v, "ok").unwrap();
        match ok {
            Some(b) => rmp::encode::write_bool(&mut v, *b).unwrap(),
            None => rmp::encode::write_nil(&mut v).unwrap(),
        }
    }
    let b = dec(&v);
    let c = &b.columns[b.fields.iter().position(|f| f.name == "ok").unwrap()];
    assert_eq!(c.dtype, DataType::Bool);
    let (got, ok) = (bools(c), valid(c));
    for (i, want) in oks.iter().enumerate() {
        assert_eq!(ok[i], want.is_some(), "row {i}");
        assert_eq!(got[i], want.unwrap_or(false), "row {i}");
    }
}
