//! The lanes' edge cases (`src/lanes.rs`): nil taken inside the int, float, bool and str
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
        let b = dec(&encode(&vals));
        let c = value(&b);
        check_validity(c, &vals);
        if c.dtype == DataType::Null {
            continue;
        }
        let got = bools(c);
        for (i, x) in vals.iter().enumerate() {
            match x {
                V::Bool(x) => assert_eq!(got[i], *x),
                _ => assert!(!got[i], "placeholder false at a nil"),
            }
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
