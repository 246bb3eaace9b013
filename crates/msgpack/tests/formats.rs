//! Every format byte family, the integer/float boundaries, and each error with its offset.

mod common;
use arrowsmith_core::{DataType, ErrorCode, Field, TimeUnit};
use arrowsmith_msgpack::{decode, Layout, Options};
use common::*;

/// A fixarray/array16/array32 header for `n` elements followed by `body`.
fn arr(n: usize, body: &[u8]) -> Vec<u8> {
    let mut v = vec![];
    rmp::encode::write_array_len(&mut v, n as u32).unwrap();
    v.extend_from_slice(body);
    v
}

fn ints_i64(xs: &[i64]) -> Vec<u8> {
    let mut body = vec![];
    for &x in xs {
        rmp::encode::write_sint(&mut body, x).unwrap();
    }
    arr(xs.len(), &body)
}

#[test]
fn fixint_boundaries_stay_int32() {
    let b = dec(&[0x96, 0x00, 0x7f, 0xcc, 0x80, 0xff, 0xe0, 0xd0, 0xdf]);
    assert_eq!(b.num_rows, 6);
    assert_eq!(i32s(value(&b)), vec![0, 127, 128, -1, -32, -33]);
}

#[test]
fn uint_and_int_families() {
    // 255 (uint8), 256 (uint16), 2^15 (uint16), -129 (int16), 65536 (uint32 fits i32), i32::MIN (int32)
    let b = dec(&[
        0x96, 0xcc, 0xff, 0xcd, 0x01, 0x00, 0xcd, 0x80, 0x00, 0xd1, 0xff, 0x7f, 0xce, 0x00, 0x01,
        0x00, 0x00, 0xd2, 0x80, 0, 0, 0,
    ]);
    assert_eq!(
        i32s(value(&b)),
        vec![255, 256, 32768, -129, 65536, i32::MIN]
    );
}

#[test]
fn int32_widens_to_int64_once() {
    // 2^31 as uint32, then small ints after: Int64.
    let b = dec(&[0x93, 0x01, 0xce, 0x80, 0, 0, 0, 0xff]);
    assert_eq!(value(&b).dtype, DataType::Int64);
    assert_eq!(i64s(value(&b)), vec![1, 1 << 31, -1]);
    let big = [
        1i64,
        1 << 32,
        1 << 53,
        -(1 << 53),
        i64::MIN,
        i64::MAX,
        (i32::MIN as i64) - 1,
    ];
    let b = dec(&ints_i64(&big));
    assert_eq!(value(&b).dtype, DataType::Int64);
    assert_eq!(i64s(value(&b)), big.to_vec());
}

#[test]
fn uint64_beyond_i64_max() {
    let mut body = vec![0x05];
    body.extend([0xcf, 0x80, 0, 0, 0, 0, 0, 0, 0]); // 2^63
    body.extend([0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]); // 2^64-1
    let b = dec(&arr(3, &body));
    assert_eq!(u64s(value(&b)), vec![5, 1 << 63, u64::MAX]);
    // A negative int after it: no Arrow int type holds both.
    let mut body2 = body.clone();
    body2.push(0xff);
    let (code, off, msg) = dec_err(&arr(4, &body2));
    assert_eq!(code, ErrorCode::TypeMismatch);
    assert_eq!(off, 20);
    assert!(msg.contains("negative"), "{msg}");
    // ... and before it.
    let mut body3 = vec![0xff];
    body3.extend([0xcf, 0x80, 0, 0, 0, 0, 0, 0, 0]);
    let (code, off, _) = dec_err(&arr(2, &body3));
    assert_eq!((code, off), (ErrorCode::TypeMismatch, 2));
}

#[test]
fn floats_f32_f64_and_mixing_with_ints() {
    let mut v = vec![0x94];
    for x in [1.5f32, -0.0, f32::NAN, f32::INFINITY] {
        rmp::encode::write_f32(&mut v, x).unwrap();
    }
    let b = dec(&v);
    let f = f32s(value(&b));
    assert_eq!(f[0], 1.5);
    assert!(f[1] == 0.0 && f[1].is_sign_negative());
    assert!(f[2].is_nan());
    assert_eq!(f[3], f32::INFINITY);

    let mut v = vec![0x93];
    rmp::encode::write_f32(&mut v, 1.5).unwrap();
    rmp::encode::write_f64(&mut v, -0.0).unwrap();
    rmp::encode::write_f64(&mut v, f64::NAN).unwrap();
    let b = dec(&v);
    let f = f64s(value(&b));
    assert_eq!(f[0], 1.5);
    assert!(f[1] == 0.0 && f[1].is_sign_negative());
    assert!(f[2].is_nan());

    // ints then a float32 → Float64; float32 then an int → Float64.
    let mut v = vec![0x93, 0x07, 0xcd, 0x01, 0x00];
    rmp::encode::write_f32(&mut v, 0.25).unwrap();
    assert_eq!(f64s(value(&dec(&v))), vec![7.0, 256.0, 0.25]);
    let mut v = vec![0x92];
    rmp::encode::write_f32(&mut v, 0.25).unwrap();
    v.push(0xff);
    assert_eq!(f64s(value(&dec(&v))), vec![0.25, -1.0]);
    // 2^53 as uint64 in a float column stays exact.
    let mut v = vec![0x92];
    rmp::encode::write_f64(&mut v, 0.5).unwrap();
    v.extend([0xcf, 0, 0x20, 0, 0, 0, 0, 0, 0]);
    assert_eq!(f64s(value(&dec(&v))), vec![0.5, 9007199254740992.0]);
}

#[test]
fn bool_and_nil() {
    let b = dec(&[0x94, 0xc3, 0xc0, 0xc2, 0xc3]);
    let c = value(&b);
    assert_eq!(bools(c), vec![true, false, false, true]);
    assert_eq!(valid(c), vec![true, false, true, true]);
    assert_eq!(c.null_count(), 1);
    // Leading and trailing nils around ints.
    let b = dec(&[0x94, 0xc0, 0xc0, 0x05, 0xc0]);
    let c = value(&b);
    assert_eq!(i32s(c), vec![0, 0, 5, 0]);
    assert_eq!(valid(c), vec![false, false, true, false]);
    // All nil → Null.
    let b = dec(&[0x93, 0xc0, 0xc0, 0xc0]);
    assert_eq!(value(&b).dtype, DataType::Null);
    assert_eq!(value(&b).len, 3);
    assert_eq!(value(&b).null_count(), 3);
}

#[test]
fn str_families() {
    let long16 = "é".repeat(200); // 400 bytes → str16
    let long32 = "x".repeat(70_000); // str32
    let mut v = vec![0x95];
    rmp::encode::write_str(&mut v, "").unwrap();
    rmp::encode::write_str(&mut v, "hi").unwrap();
    v.extend([0xd9, 3, b'a', b'b', b'c']); // str8
    rmp::encode::write_str(&mut v, &long16).unwrap();
    rmp::encode::write_str(&mut v, &long32).unwrap();
    assert_eq!(v[1], 0xa0);
    let b = dec(&v);
    assert_eq!(
        strs(value(&b)),
        vec!["".to_string(), "hi".into(), "abc".into(), long16, long32]
    );
    assert_eq!(offsets(value(&b))[..4], [0, 0, 2, 5]);
}

#[test]
fn bin_families() {
    let mut v = vec![0x93, 0xc4, 2, 0xff, 0x00];
    rmp::encode::write_bin(&mut v, &[7u8; 300]).unwrap(); // bin16
    rmp::encode::write_bin(&mut v, &[8u8; 70_000]).unwrap(); // bin32
    let b = dec(&v);
    let c = value(&b);
    assert_eq!(c.dtype, DataType::Binary);
    assert_eq!(
        byte_values(c),
        vec![vec![0xff, 0], vec![7; 300], vec![8; 70_000]]
    );
}

#[test]
fn empty_and_wide_array_headers() {
    let b = dec(&[0x90]);
    assert_eq!(b.num_rows, 0);
    assert_eq!(value(&b).dtype, DataType::Null);
    // array16 and array32 headers with 3 elements.
    for head in [vec![0xdc, 0, 3], vec![0xdd, 0, 0, 0, 3]] {
        let mut v = head;
        v.extend([1, 2, 3]);
        assert_eq!(i32s(value(&dec(&v))), vec![1, 2, 3]);
    }
    // 20 elements: array16 from rmp.
    let v = ints_i64(&(0..20).collect::<Vec<_>>());
    assert_eq!(v[0], 0xdc);
    assert_eq!(i32s(value(&dec(&v))), (0..20).collect::<Vec<_>>());
    // Empty input: zero rows in Auto.
    assert_eq!(dec(&[]).num_rows, 0);
}

#[test]
fn records_union_of_keys_in_first_appearance_order() {
    // [{"a":1,"b":"x"}, {"b":"y","c":true}, {"a":3}] with map16 and map32 headers.
    let mut v = vec![0x93, 0x82, 0xa1, b'a', 1, 0xa1, b'b', 0xa1, b'x'];
    v.extend([0xde, 0, 2, 0xa1, b'b', 0xa1, b'y', 0xa1, b'c', 0xc3]);
    v.extend([0xdf, 0, 0, 0, 1, 0xa1, b'a', 3]);
    let b = dec(&v);
    assert_eq!(b.num_rows, 3);
    let names: Vec<&str> = b.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    let a = b.column("a").unwrap();
    assert_eq!(i32s(a), vec![1, 0, 3]);
    assert_eq!(valid(a), vec![true, false, true]);
    let bc = b.column("b").unwrap();
    assert_eq!(valid(bc), vec![true, true, false]);
    assert_eq!(byte_values(bc)[..2], [b"x".to_vec(), b"y".to_vec()]);
    let c = b.column("c").unwrap();
    assert_eq!(valid(c), vec![false, true, false]);
    assert!(bools(c)[1]);
}

#[test]
fn records_in_a_repeated_key_order_keep_every_check() {
    // The same two keys in every record (the key cache hits), then one record that
    // repeats "one" where "two" was: still a duplicate key, at that key's offset.
    let rec = |v: &mut Vec<u8>, k2: &[u8]| {
        v.extend([0x82, 0xa3, b'o', b'n', b'e', 1]);
        v.extend(k2);
        v.push(2);
    };
    let two = [0xa3, b't', b'w', b'o'];
    let mut v = vec![0x95];
    for _ in 0..3 {
        rec(&mut v, &two);
    }
    let dup_at = v.len() + 6;
    rec(&mut v, &[0xa3, b'o', b'n', b'e']);
    rec(&mut v, &two);
    let (code, off, msg) = dec_err(&v);
    assert_eq!((code, off), (ErrorCode::Invalid, dup_at as u64));
    assert!(msg.contains("\"one\""), "{msg}");

    // Keys longer than the cache's 16-byte window (and near the end of the input,
    // where the window does not fit) resolve by name, in any order.
    let long = b"a_key_longer_than_sixteen_bytes";
    let mut v = vec![0x93];
    for swap in [false, true, false] {
        let mut keys = vec![(long.as_slice(), 1u8), (b"s".as_slice(), 2u8)];
        if swap {
            keys.reverse();
        }
        v.push(0x82);
        for (k, x) in keys {
            v.push(0xa0 | k.len() as u8);
            v.extend(k);
            v.push(x);
        }
    }
    let b = dec(&v);
    assert_eq!(b.fields.len(), 2);
    assert_eq!(
        i32s(b.column(std::str::from_utf8(long).unwrap()).unwrap()),
        vec![1, 1, 1]
    );
    assert_eq!(i32s(b.column("s").unwrap()), vec![2, 2, 2]);

    // The same name under a str8 header is the same column.
    let mut v = vec![0x93];
    rec(&mut v, &two);
    rec(&mut v, &[0xd9, 3, b't', b'w', b'o']);
    rec(&mut v, &two);
    let b = dec(&v);
    assert_eq!(b.fields.len(), 2);
    assert_eq!(i32s(b.column("two").unwrap()), vec![2, 2, 2]);
}

#[test]
fn nested_maps_become_structs_and_arrays_lists() {
    // [{"p":{"x":1,"y":2.5f64},"l":[1,2]}, {"p":{"x":3},"l":[]}, {"l":nil}]
    let mut v = vec![0x93, 0x82, 0xa1, b'p', 0x82, 0xa1, b'x', 1, 0xa1, b'y'];
    rmp::encode::write_f64(&mut v, 2.5).unwrap();
    v.extend([0xa1, b'l', 0x92, 1, 2]);
    v.extend([0x82, 0xa1, b'p', 0x81, 0xa1, b'x', 3, 0xa1, b'l', 0x90]);
    v.extend([0x81, 0xa1, b'l', 0xc0]);
    let b = dec(&v);
    let p = b.column("p").unwrap();
    let DataType::Struct(fs) = &p.dtype else {
        panic!("{:?}", p.dtype)
    };
    assert_eq!(
        fs.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
        ["x", "y"]
    );
    assert_eq!(valid(p), vec![true, true, false]);
    assert_eq!(i32s(&p.children[0]), vec![1, 3, 0]);
    assert_eq!(valid(&p.children[0]), vec![true, true, false]);
    assert_eq!(f64s(&p.children[1])[0], 2.5);
    assert_eq!(valid(&p.children[1]), vec![true, false, false]);
    let l = b.column("l").unwrap();
    assert_eq!(
        l.dtype,
        DataType::List(Box::new(Field::new("item", DataType::Int32, true)))
    );
    assert_eq!(offsets(l), vec![0, 2, 2, 2]);
    assert_eq!(valid(l), vec![true, true, false]);
    assert_eq!(i32s(&l.children[0]), vec![1, 2]);
}

#[test]
fn array_of_arrays_is_one_list_column() {
    let b = dec(&[0x93, 0x92, 1, 2, 0x90, 0x91, 0xcd, 1, 0]);
    let c = value(&b);
    assert!(matches!(c.dtype, DataType::List(_)));
    assert_eq!(offsets(c), vec![0, 2, 2, 3]);
    assert_eq!(i32s(&c.children[0]), vec![1, 2, 256]);
}

#[test]
fn ext_families_become_type_and_data() {
    let mut v = vec![0x98];
    v.extend([0xd4, 5, 0xaa]); // fixext1
    v.extend([0xd5, 5, 1, 2]); // fixext2
    v.extend([0xd6, 5, 1, 2, 3, 4]); // fixext4
    v.extend([0xd7, 0xfe, 1, 2, 3, 4, 5, 6, 7, 8]); // fixext8, type -2
    v.push(0xd8);
    v.push(9);
    v.extend([0x11; 16]); // fixext16
    v.extend([0xc7, 3, 7, 1, 2, 3]); // ext8
    v.extend([0xc8, 0, 1, 7, 9]); // ext16
    v.extend([0xc9, 0, 0, 0, 0, 7]); // ext32, empty
    let b = dec(&v);
    let c = value(&b);
    let DataType::Struct(fs) = &c.dtype else {
        panic!()
    };
    assert_eq!(fs[0], Field::new("type", DataType::Int8, false));
    assert_eq!(fs[1], Field::new("data", DataType::Binary, false));
    let arrowsmith_core::Buffer::I8(types) = &c.children[0].buffers[0] else {
        panic!()
    };
    assert_eq!(types, &vec![5, 5, 5, -2, 9, 7, 7, 7]);
    let d = byte_values(&c.children[1]);
    assert_eq!(d[0], vec![0xaa]);
    assert_eq!(d[3], vec![1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(d[4], vec![0x11; 16]);
    assert_eq!(d[5], vec![1, 2, 3]);
    assert_eq!(d[6], vec![9]);
    assert_eq!(d[7], Vec::<u8>::new());
}

#[test]
fn timestamps_32_64_96() {
    let mut v = vec![0x94];
    v.extend([0xd6, 0xff, 0x00, 0x00, 0x00, 0x02]); // 2 s
    let t64: u64 = (500u64 << 34) | 3; // 3 s + 500 ns
    v.extend([0xd7, 0xff]);
    v.extend(t64.to_be_bytes());
    v.extend([0xc7, 12, 0xff]); // -1 s + 7 ns
    v.extend(7u32.to_be_bytes());
    v.extend((-1i64).to_be_bytes());
    v.extend([0xd6, 0xff, 0xff, 0xff, 0xff, 0xff]); // u32::MAX s
    let b = dec(&v);
    let c = value(&b);
    assert_eq!(c.dtype, DataType::Timestamp(TimeUnit::Nanosecond));
    assert_eq!(
        i64s(c),
        vec![
            2_000_000_000,
            3_000_000_500,
            -999_999_993,
            u32::MAX as i64 * 1_000_000_000
        ]
    );
    // nanoseconds > 999999999 → Invalid
    let mut v = vec![0xd7, 0xff];
    v.extend(((1_000_000_000u64) << 34).to_be_bytes());
    let (code, off, _) = dec_err(&v);
    assert_eq!((code, off), (ErrorCode::Invalid, 0));
    // timestamp 96 beyond year 2262 → Unsupported
    let mut v = vec![0x91, 0xc7, 12, 0xff, 0, 0, 0, 0];
    v.extend(i64::MAX.to_be_bytes());
    assert_eq!(dec_err(&v).0, ErrorCode::Unsupported);
    // type -1 with 2 bytes → Invalid
    assert_eq!(dec_err(&[0xd5, 0xff, 0, 0]).0, ErrorCode::Invalid);
}

#[test]
fn error_truncated() {
    let (code, off, msg) = dec_err(&[0x92, 0x01, 0xcd, 0x01]);
    assert_eq!((code, off), (ErrorCode::Truncated, 2));
    assert!(msg.contains("uint16") && msg.contains("byte 2"), "{msg}");
    // Array declares 3 elements, has 2 → the missing element's offset.
    let (code, off, _) = dec_err(&[0x93, 0x01, 0x02]);
    assert_eq!((code, off), (ErrorCode::OutOfBounds, 0));
    let (code, off, msg) = dec_err(&[0x92, 0x91, 0x01]);
    assert_eq!((code, off), (ErrorCode::Truncated, 3));
    assert!(msg.contains("where a value was expected"), "{msg}");
}

#[test]
fn error_c1() {
    let (code, off, msg) = dec_err(&[0x93, 0x01, 0x02, 0xc1]);
    assert_eq!((code, off), (ErrorCode::Invalid, 3));
    assert!(msg.contains("0xc1"));
}

#[test]
fn error_length_past_end() {
    let mut v = vec![
        0x93, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0xd9, 200,
    ];
    v.extend([b'a'; 6]);
    let v = [&v[..1], &[1, 2], &v[17..]].concat(); // [1, 2, str8(200) with 6 bytes]
    let (code, off, msg) = dec_err(&v);
    assert_eq!((code, off), (ErrorCode::OutOfBounds, 3));
    assert_eq!(
        msg,
        "str8 length 200 at byte 3 runs past the end of the input (11 bytes)"
    );
    // bin32 / ext32 with huge lengths.
    assert_eq!(
        dec_err(&[0xc6, 0xff, 0xff, 0xff, 0xff, 0]).0,
        ErrorCode::OutOfBounds
    );
    assert_eq!(
        dec_err(&[0xc9, 0xff, 0xff, 0xff, 0xff, 1, 0]).0,
        ErrorCode::OutOfBounds
    );
}

#[test]
fn error_huge_counts_do_not_allocate() {
    let v = [0xdd, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5];
    let (code, off, msg) = dec_err(&v);
    assert_eq!((code, off), (ErrorCode::OutOfBounds, 0));
    assert!(msg.contains("4294967295"), "{msg}");
    for layout in [Layout::Array, Layout::Stream] {
        assert_eq!(
            decode(&v, &opts(layout)).unwrap_err().code,
            ErrorCode::OutOfBounds
        );
    }
    let (code, off, _) = dec_err(&[0x91, 0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, b'a', 1]);
    assert_eq!((code, off), (ErrorCode::OutOfBounds, 1));
}

#[test]
fn error_too_deep() {
    let mut v = vec![0x91; 300];
    v.push(1);
    let (code, off, _) = dec_err(&v);
    assert_eq!((code, off), (ErrorCode::TooDeep, 256));
    let o = Options {
        max_depth: 2,
        ..Options::default()
    };
    assert!(decode(&[0x91, 0x91, 1], &o).is_ok());
    let e = decode(&[0x91, 0x91, 0x91, 1], &o).unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::TooDeep, 2));
    // Maps count as well.
    let e = decode(&[0x91, 0x81, 0xa1, b'a', 0x91, 1], &o).unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::TooDeep, 4));
}

#[test]
fn error_invalid_utf8() {
    let (code, off, msg) = dec_err(&[0x92, 0xa1, b'a', 0xa3, b'x', 0xff, b'y']);
    assert_eq!((code, off), (ErrorCode::InvalidUtf8, 3));
    assert!(msg.contains("bad byte at 5"), "{msg}");
    // In a key.
    let (code, off, _) = dec_err(&[0x91, 0x81, 0xa1, 0xc0, 1]);
    assert_eq!((code, off), (ErrorCode::InvalidUtf8, 2));
}

#[test]
fn error_keys_records_cannot_name() {
    // A float key (int keys are named by their text, see tests/keys.rs).
    let (code, off, msg) = dec_err(&[0x92, 0x81, 0xa1, b'a', 1, 0x81, 0xca, 0, 0, 0, 0, 2]);
    assert_eq!((code, off), (ErrorCode::Invalid, 6));
    assert!(
        msg.contains("float") && msg.contains("maps: 'map'"),
        "{msg}"
    );
    // Duplicate key.
    let (code, off, _) = dec_err(&[0x82, 0xa1, b'a', 1, 0xa1, b'a', 2]);
    assert_eq!((code, off), (ErrorCode::Invalid, 4));
}

#[test]
fn error_type_mismatch_names_both_kinds() {
    let (code, off, msg) = dec_err(&[0x93, 0x01, 0x02, 0xa1, b'x']);
    assert_eq!((code, off), (ErrorCode::TypeMismatch, 3));
    assert!(msg.contains("str") && msg.contains("int"), "{msg}");
    let (code, off, msg) = dec_err(&[0x92, 0xc3, 0x91, 1]);
    assert_eq!((code, off), (ErrorCode::TypeMismatch, 2));
    assert!(msg.contains("array") && msg.contains("bool"), "{msg}");
    // Records: a key whose values change kind.
    let (code, off, _) = dec_err(&[0x92, 0x81, 0xa1, b'a', 1, 0x81, 0xa1, b'a', 0xc4, 0]);
    assert_eq!((code, off), (ErrorCode::TypeMismatch, 8));
    // A map row among scalar rows.
    assert_eq!(dec_err(&[0x92, 0x01, 0x80]).0, ErrorCode::TypeMismatch);
}

#[test]
fn layouts() {
    // Two concatenated arrays: Auto → two List rows; Array → error; Stream → two rows.
    let v = [0x92, 1, 2, 0x91, 3];
    let b = dec(&v);
    assert_eq!(b.num_rows, 2);
    assert_eq!(offsets(value(&b)), vec![0, 2, 3]);
    assert_eq!(decode(&v, &opts(Layout::Stream)).unwrap(), b);
    let e = decode(&v, &opts(Layout::Array)).unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::Invalid, 3));
    // One array: Stream → one List row.
    let b = decode(&[0x92, 1, 2], &opts(Layout::Stream)).unwrap();
    assert_eq!(b.num_rows, 1);
    // Scalars in a stream → rows.
    let b = dec(&[1, 2, 0xc0, 0xcd, 1, 0]);
    assert_eq!(i32s(value(&b)), vec![1, 2, 0, 256]);
    assert_eq!(valid(value(&b)), vec![true, true, false, true]);
    // Stream of maps → record columns.
    let b = dec(&[0x81, 0xa1, b'k', 1, 0x81, 0xa1, b'k', 2]);
    assert_eq!(i32s(b.column("k").unwrap()), vec![1, 2]);
    // Array layout on a non-array / empty input.
    let e = decode(&[1], &opts(Layout::Array)).unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::Invalid, 0));
    assert_eq!(
        decode(&[], &opts(Layout::Array)).unwrap_err().code,
        ErrorCode::Truncated
    );
    // A single non-array value → one row.
    assert_eq!(i32s(value(&dec(&[0x05]))), vec![5]);
}

#[test]
fn long_fixint_runs_with_every_interruption() {
    for n in [0usize, 1, 15, 16, 17, 33, 100] {
        for at in 0..n {
            for other in [
                &[0xcc, 0xc8][..],
                &[0xcd, 0x12, 0x34],
                &[0xd2, 0x80, 0, 0, 0],
                &[0xc0],
                &[0xcb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0],
            ] {
                let mut body = vec![];
                let mut want = vec![];
                for i in 0..n {
                    if i == at {
                        body.extend_from_slice(other);
                        continue;
                    }
                    let x = ((i * 37) % 160) as u8;
                    let x = if x < 128 { x } else { x + 96 }; // 0..127, 0xe0..0xff
                    body.push(x);
                    want.push(x as i8 as i64);
                }
                let v = arr(n, &body);
                let b = dec(&v);
                let c = value(&b);
                assert_eq!(c.len, n);
                let got: Vec<f64> = match &c.dtype {
                    DataType::Int32 => i32s(c).iter().map(|&x| x as f64).collect(),
                    DataType::Float64 => f64s(c),
                    DataType::Null => vec![0.0; c.len],
                    t => panic!("{t:?}"),
                };
                let mut wi = want.iter();
                for (i, g) in got.iter().enumerate() {
                    if i != at {
                        assert_eq!(*g, *wi.next().unwrap() as f64);
                    }
                }
            }
        }
    }
}

#[test]
fn fixed_width_runs() {
    // Runs of each fixed-width tag, with a break in the middle, across fast-path sizes.
    for n in [1usize, 2, 7, 8, 9, 16, 40] {
        let mut v = vec![];
        let mut want_u16 = vec![];
        rmp::encode::write_array_len(&mut v, (2 * n + 1) as u32).unwrap();
        for i in 0..n {
            let x = 256 + i as u16 * 997;
            v.push(0xcd);
            v.extend(x.to_be_bytes());
            want_u16.push(x as i64);
        }
        v.extend([0xce, 0xff, 0xff, 0xff, 0xff]); // forces Int64
        want_u16.push(u32::MAX as i64);
        for i in 0..n {
            let x = -(i as i64) * 1_000_000_007;
            v.push(0xd3);
            v.extend(x.to_be_bytes());
            want_u16.push(x);
        }
        let b = dec(&v);
        assert_eq!(i64s(value(&b)), want_u16);

        // float32 runs then float64
        let mut v = vec![];
        rmp::encode::write_array_len(&mut v, (2 * n) as u32).unwrap();
        let mut want = vec![];
        for i in 0..n {
            let x = i as f32 * 0.5 - 3.0;
            rmp::encode::write_f32(&mut v, x).unwrap();
            want.push(x as f64);
        }
        for i in 0..n {
            let x = i as f64 * 1e300;
            rmp::encode::write_f64(&mut v, x).unwrap();
            want.push(x);
        }
        assert_eq!(f64s(value(&dec(&v))), want);

        // uint32 run that crosses 2^31 in the middle; uint64 run crossing 2^63.
        let mut v = vec![];
        rmp::encode::write_array_len(&mut v, (2 * n) as u32).unwrap();
        let mut want = vec![];
        for i in 0..2 * n {
            let x: u32 = if i < n {
                70_000 + i as u32
            } else {
                0x8000_0000 + i as u32
            };
            v.push(0xce);
            v.extend(x.to_be_bytes());
            want.push(x as i64);
        }
        assert_eq!(i64s(value(&dec(&v))), want);
        let mut v = vec![];
        rmp::encode::write_array_len(&mut v, (2 * n + 1) as u32).unwrap();
        v.extend([0xcf, 0, 0, 0, 1, 0, 0, 0, 0]); // 2^32 → Int64 store
        let mut want = vec![1u64 << 32];
        for i in 0..2 * n {
            let x: u64 = if i < n { 1 << 40 } else { (1 << 63) + i as u64 };
            v.push(0xcf);
            v.extend(x.to_be_bytes());
            want.push(x);
        }
        assert_eq!(u64s(value(&dec(&v))), want);
        // int8 / int16 runs
        let mut v = vec![];
        rmp::encode::write_array_len(&mut v, (2 * n) as u32).unwrap();
        let mut want = vec![];
        for i in 0..n {
            v.extend([0xd0, (-100 - (i as i32 % 20)) as i8 as u8]);
            want.push(-100 - (i as i32 % 20));
        }
        for i in 0..n {
            let x = -30000 + i as i16;
            v.push(0xd1);
            v.extend(x.to_be_bytes());
            want.push(x as i32);
        }
        assert_eq!(i32s(value(&dec(&v))), want);
    }
}
