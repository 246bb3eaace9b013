//! Ext types: `undefined`, msgpackr records, and the readings of `Options::extensions`.
//! (Real encoders' output is compared in the fixture tests; these pin the byte rules.)
mod common;

use arrowsmith_core::{DataType, ErrorCode, TimeUnit};
use arrowsmith_msgpack::{decode, split, ExtReading, Options, StreamDecoder};
use common::*;

fn with(ty: i8, r: ExtReading) -> Options {
    let mut o = Options::default();
    o.extensions.set(ty, r);
    o
}

/// notepack.io 2.x: fixext8, int64 ms.
fn i64_ext(ty: u8, ms: i64) -> Vec<u8> {
    let mut v = vec![0xd7, ty];
    v.extend(ms.to_be_bytes());
    v
}

/// msgpack-lite: the data is `+date` as MessagePack (here a float64, as it packs large
/// numbers, or any other number encoding).
fn number_ext(ty: u8, number: &[u8]) -> Vec<u8> {
    let mut v = vec![0xc7, number.len() as u8, ty];
    v.extend(number);
    v
}

fn f64_number(x: f64) -> Vec<u8> {
    [&[0xcb][..], &x.to_be_bytes()].concat()
}

#[test]
fn undefined_only_where_javascript_semantics_hold() {
    // msgpackr and notepack.io write `undefined` as fixext1 of type 0 with data 0; other
    // encoders (rmp-serde's ext, Fluentd) use ext 0 for data of their own.
    let bytes = [0x93, 0x01, 0xd4, 0x00, 0x00, 0x03];
    // By default, an ext like any other (here among ints: a type mismatch, not a null).
    assert_eq!(dec_err(&bytes).0, ErrorCode::TypeMismatch);
    let one = [0x92, 0xd4, 0x00, 0x00, 0xd4, 0x00, 0x07];
    let b = dec(&one);
    assert!(matches!(&value(&b).dtype, DataType::Struct(f) if f[0].name == "type"));
    assert_eq!(valid(value(&b)), [true, true]);
    // Asked for ('undefined'), or under the JavaScript Date reading of type 0: null.
    for r in [ExtReading::Undefined, ExtReading::TimestampMs] {
        let b = decode(&bytes, &with(0, r)).unwrap();
        assert_eq!(i32s(value(&b)), [1, 0, 3]);
        assert_eq!(valid(value(&b)), [true, false, true]);
    }
    // Any other explicit reading wins: binary keeps the data byte.
    let b = decode(&one, &with(0, ExtReading::Binary)).unwrap();
    assert_eq!(byte_values(value(&b)), [vec![0], vec![7]]);
    // Where msgpackr records are in force (a structure was defined), null.
    let mut rec = vec![0x92, 0xd4, 0x72, 0x40, 0x91, 0xa1, b'a', 0xd4, 0x00, 0x00];
    rec.extend([0x40, 0x05]);
    let b = dec(&rec);
    assert_eq!(i32s(&b.columns[0]), [0, 5]);
    assert_eq!(valid(&b.columns[0]), [false, true]);
    // ... unless type 0 has a reading of its own.
    let e = decode(&rec, &with(0, ExtReading::Struct)).unwrap_err();
    assert_eq!(e.code, ErrorCode::TypeMismatch);
}

#[test]
fn fluentd_event_time() {
    // Ext 0, 8 bytes: big-endian u32 seconds, u32 nanoseconds.
    let mut bytes = vec![0x92, 0xd7, 0x00];
    bytes.extend(1_767_225_600u32.to_be_bytes());
    bytes.extend(123_456_789u32.to_be_bytes());
    bytes.push(0xc0);
    let b = decode(&bytes, &with(0, ExtReading::EventTime)).unwrap();
    let c = value(&b);
    assert_eq!(c.dtype, DataType::Timestamp(TimeUnit::Nanosecond));
    assert_eq!(i64s(c)[0], 1_767_225_600_123_456_789);
    assert_eq!(valid(c), [true, false]);
    // Without the reading: the ext as it is.
    assert!(matches!(dec(&bytes).columns[0].dtype, DataType::Struct(_)));
    // Other lengths and nanoseconds past 999999999 are errors.
    let e = decode(
        &[0x91, 0xd6, 0x00, 0, 0, 0, 1],
        &with(0, ExtReading::EventTime),
    )
    .unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::Invalid, 1));
    let mut bad = vec![0x91, 0xd7, 0x00, 0, 0, 0, 1];
    bad.extend(1_000_000_000u32.to_be_bytes());
    let e = decode(&bad, &with(0, ExtReading::EventTime)).unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::Invalid, 1));
}

#[test]
fn js_dates_as_timestamp_ms() {
    let o = |ty: u8| with(ty as i8, ExtReading::TimestampMs);
    // notepack.io 2.x: ext 0, int64 ms.
    let mut bytes = vec![0x93];
    bytes.extend(i64_ext(0, 1_767_225_600_123));
    bytes.extend(i64_ext(0, -1000));
    bytes.extend([0xc0]);
    let b = decode(&bytes, &o(0)).unwrap();
    let c = value(&b);
    assert_eq!(c.dtype, DataType::Timestamp(TimeUnit::Millisecond));
    assert_eq!(i64s(c)[..2], [1_767_225_600_123, -1000]);
    assert_eq!(valid(c), [true, true, false]);
    // Without the reading it stays an opaque ext.
    assert!(matches!(dec(&bytes).columns[0].dtype, DataType::Struct(_)));
    // msgpack-lite: ext 0x0d holding one MessagePack number; NaN is an invalid Date.
    let mut bytes = vec![0x96];
    bytes.extend(number_ext(0x0d, &f64_number(1_767_225_600_123.0)));
    bytes.extend([0xd4, 0x0d, 0x00]); // new Date(0): fixint 0
    bytes.extend(number_ext(0x0d, &[0xcd, 0x03, 0xe8]));
    bytes.extend(number_ext(0x0d, &[0xd1, 0xfc, 0x18]));
    bytes.extend(number_ext(
        0x0d,
        &[0xd3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe],
    ));
    bytes.extend(number_ext(0x0d, &f64_number(f64::NAN)));
    let b = decode(&bytes, &o(0x0d)).unwrap();
    assert_eq!(
        i64s(value(&b))[..5],
        [1_767_225_600_123, 0, 1000, -1000, -2]
    );
    assert_eq!(valid(value(&b)), [true, true, true, true, true, false]);
    // Not a whole number of milliseconds, or not a number: an error at the value.
    let mut bytes = vec![0x92, 0x01];
    bytes.extend(number_ext(0x0d, &f64_number(0.5)));
    let e = decode(&bytes, &o(0x0d)).unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::Invalid, 2));
    assert!(e.message.contains("0.5"), "{}", e.message);
    let e = decode(&[0x91, 0xd6, 0x05, 0xa3, b'a', b'b', b'c'], &o(5)).unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::Invalid, 1));
    // One column holds one unit.
    let mut mixed = vec![0x92];
    mixed.extend(i64_ext(0, 1));
    mixed.extend([0xd6, 0xff, 0, 0, 0, 1]);
    let e = decode(&mixed, &o(0)).unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::TypeMismatch, 11));
}

#[test]
fn timestamp_ns_and_binary_readings() {
    let mut bytes = vec![0x92, 0xd7, 0x21];
    bytes.extend(1_700_000_000_123_456_789i64.to_be_bytes());
    bytes.extend([0xd5, 0x21, 0xab, 0xcd]);
    let b = decode(
        &[&[0x91][..], &bytes[1..11]].concat(),
        &with(0x21, ExtReading::TimestampNs),
    );
    let c = &b.unwrap().columns[0];
    assert_eq!(c.dtype, DataType::Timestamp(TimeUnit::Nanosecond));
    assert_eq!(i64s(c), [1_700_000_000_123_456_789]);
    let b = decode(&bytes, &with(0x21, ExtReading::Binary)).unwrap();
    assert_eq!(byte_values(value(&b))[1], [0xab, 0xcd]);
    // The timestamp (type -1) cannot be changed.
    let o = with(-1, ExtReading::Binary);
    let b = decode(&[0x91, 0xd6, 0xff, 0, 0, 0, 1], &o).unwrap();
    assert_eq!(value(&b).dtype, DataType::Timestamp(TimeUnit::Nanosecond));
}

/// Two records of msgpackr's record extension, as `new Packr().pack([{a: 1, b: "x"}, {a:
/// 2, b: "y"}])` writes them: the first defines structure 0x40 with keys ["a", "b"].
const RECORDS: &[u8] = &[
    0x92, 0xd4, 0x72, 0x40, 0x92, 0xa1, b'a', 0xa1, b'b', 0x01, 0xa1, b'x', 0x40, 0x02, 0xa1, b'y',
];

#[test]
fn msgpackr_records_are_records() {
    let b = dec(RECORDS);
    assert_eq!(
        b.fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
        ["a", "b"]
    );
    assert_eq!(i32s(&b.columns[0]), [1, 2]);
    assert_eq!(strs(&b.columns[1]), ["x", "y"]);
    // Without a definition, 0x40 is the int 64; read as 'struct', 0x72 is opaque.
    assert_eq!(i32s(value(&dec(&[0x91, 0x40]))), [64]);
    let o = with(0x72, ExtReading::Struct);
    let e = decode(RECORDS, &o).unwrap_err();
    assert_eq!(e.code, ErrorCode::TypeMismatch);
    // Streamed in any chunks, and split for a pool (one piece: records refer back).
    for cut in 0..RECORDS.len() {
        let mut s = StreamDecoder::new(Options::default());
        s.push(&RECORDS[..cut]).unwrap();
        s.push(&RECORDS[cut..]).unwrap();
        let mut got = vec![];
        while let Some(x) = s.take_batch(1).unwrap() {
            got.push(x);
        }
        got.extend(s.finish().unwrap());
        assert_eq!(
            got.iter().map(|x| x.num_rows).sum::<usize>(),
            2,
            "cut at {cut}"
        );
        assert_eq!(strs(&got.last().unwrap().columns[1]).last().unwrap(), "y");
    }
    let sp = split(RECORDS, 4, &Options::default()).unwrap();
    assert_eq!(sp.pieces.len(), 1);
    assert_eq!(sp.pieces[0].rows, 2);
}

#[test]
fn msgpackr_record_errors() {
    // A record whose values run past the input.
    let e = decode(&RECORDS[..14], &Options::default()).unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::OutOfBounds, 12));
    // Two-byte ids (more than 64 structures) are not supported.
    let e = decode(
        &[0x91, 0xd5, 0x72, 0x60, 0x01, 0x91, 0xa1, b'a', 0x01],
        &Options::default(),
    )
    .unwrap_err();
    assert_eq!((e.code, e.offset), (ErrorCode::Unsupported, 1));
    // A fixext1 of type 0x72 not followed by keys is an ordinary ext.
    let b = dec(&[0x92, 0xd4, 0x72, 0x40, 0xc0]);
    assert!(matches!(value(&b).dtype, DataType::Struct(_)));
}
