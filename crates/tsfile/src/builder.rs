//! Output column builders: nullable typed columns assembled page by page.

use crate::encoding::Values;
use crate::types::TsType;
use arrowsmith_core::{Bitmap, Buffer, Column, DataType, TimeUnit};

#[derive(Debug)]
pub(crate) enum Data {
    Bool(Bitmap),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Bytes { offsets: Vec<i32>, data: Vec<u8> },
}

#[derive(Debug)]
pub(crate) struct ColBuilder {
    pub dtype: TsType,
    pub data: Data,
    pub validity: Bitmap,
    pub nulls: usize,
}

impl ColBuilder {
    pub fn new(dtype: TsType) -> Self {
        let data = match dtype {
            TsType::Boolean => Data::Bool(Bitmap::new()),
            TsType::Int32 | TsType::Date => Data::I32(Vec::new()),
            TsType::Int64 | TsType::Timestamp | TsType::Vector => Data::I64(Vec::new()),
            TsType::Float => Data::F32(Vec::new()),
            TsType::Double => Data::F64(Vec::new()),
            TsType::Text | TsType::String | TsType::Blob => Data::Bytes {
                offsets: vec![0],
                data: Vec::new(),
            },
        };
        ColBuilder {
            dtype,
            data,
            validity: Bitmap::new(),
            nulls: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.validity.len()
    }

    pub fn reserve(&mut self, n: usize) {
        match &mut self.data {
            Data::Bool(_) => {}
            Data::I32(v) => v.reserve(n),
            Data::I64(v) => v.reserve(n),
            Data::F32(v) => v.reserve(n),
            Data::F64(v) => v.reserve(n),
            Data::Bytes { offsets, .. } => offsets.reserve(n),
        }
    }

    /// Decode a page with no nulls straight into this column's value buffer (one copy).
    /// `decode` appends to the `Values` it is given and reports errors; returns `None` when
    /// this column kind has no direct path (the caller then decodes into scratch).
    #[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
    pub fn decode_direct<E>(
        &mut self,
        decode: impl FnOnce(&mut Values) -> Result<(), E>,
    ) -> Option<Result<usize, E>> {
        let before = self.validity.len();
        let (mut vals, put_back): (Values, fn(&mut Data, Values)) = match &mut self.data {
            Data::I32(v) if self.dtype != TsType::Date => {
                (Values::I32(std::mem::take(v)), |d, v| {
                    if let (Data::I32(d), Values::I32(v)) = (d, v) {
                        *d = v
                    }
                })
            }
            Data::I64(v) => (Values::I64(std::mem::take(v)), |d, v| {
                if let (Data::I64(d), Values::I64(v)) = (d, v) {
                    *d = v
                }
            }),
            Data::F32(v) => (Values::F32(std::mem::take(v)), |d, v| {
                if let (Data::F32(d), Values::F32(v)) = (d, v) {
                    *d = v
                }
            }),
            Data::F64(v) => (Values::F64(std::mem::take(v)), |d, v| {
                if let (Data::F64(d), Values::F64(v)) = (d, v) {
                    *d = v
                }
            }),
            _ => return None,
        };
        let r = decode(&mut vals);
        let n = vals.len() - before;
        put_back(&mut self.data, vals);
        Some(r.map(|_| {
            self.validity.push_n(true, n);
            n
        }))
    }

    pub fn push_nulls(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        self.validity.push_n(false, n);
        self.nulls += n;
        self.push_null_values(n);
    }

    /// The value slots of `n` null rows (zeros; Utf8/Binary: empty).
    fn push_null_values(&mut self, n: usize) {
        match &mut self.data {
            Data::Bool(b) => b.push_n(false, n),
            Data::I32(v) => v.resize(v.len() + n, 0),
            Data::I64(v) => v.resize(v.len() + n, 0),
            Data::F32(v) => v.resize(v.len() + n, 0.0),
            Data::F64(v) => v.resize(v.len() + n, 0.0),
            Data::Bytes { offsets, data } => {
                let last = data.len() as i32;
                offsets.resize(offsets.len() + n, last);
            }
        }
    }

    /// Append non-null values `vals[k0..k1]` (one copy).
    #[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
    pub fn push_run(&mut self, vals: &Values, k0: usize, k1: usize) {
        if k1 <= k0 {
            return;
        }
        self.validity.push_n(true, k1 - k0);
        self.push_values(vals, k0, k1);
    }

    /// The value slots of `vals[k0..k1]`, validity untouched.
    fn push_values(&mut self, vals: &Values, k0: usize, k1: usize) {
        match (&mut self.data, vals) {
            (Data::Bool(b), Values::Bool(v)) => v[k0..k1].iter().for_each(|&x| b.push(x)),
            (Data::I32(o), Values::I32(v)) => o.extend_from_slice(&v[k0..k1]),
            (Data::I64(o), Values::I64(v)) => o.extend_from_slice(&v[k0..k1]),
            (Data::F32(o), Values::F32(v)) => o.extend_from_slice(&v[k0..k1]),
            (Data::F64(o), Values::F64(v)) => o.extend_from_slice(&v[k0..k1]),
            (
                Data::Bytes { offsets, data },
                Values::Bytes {
                    offsets: vo,
                    data: vd,
                },
            ) => {
                let (s, e) = (vo[k0] as usize, vo[k1] as usize);
                let base = data.len() as i64 - s as i64;
                data.extend_from_slice(&vd[s..e]);
                offsets.extend(vo[k0 + 1..=k1].iter().map(|&o| (o as i64 + base) as i32));
            }
            _ => unreachable!("value kind matches column kind"),
        }
    }

    /// Append one non-null value `vals[k]`.
    #[inline]
    pub fn push_one(&mut self, vals: &Values, k: usize) {
        self.validity.push(true);
        match (&mut self.data, vals) {
            (Data::Bool(b), Values::Bool(v)) => b.push(v[k]),
            (Data::I32(o), Values::I32(v)) => o.push(v[k]),
            (Data::I64(o), Values::I64(v)) => o.push(v[k]),
            (Data::F32(o), Values::F32(v)) => o.push(v[k]),
            (Data::F64(o), Values::F64(v)) => o.push(v[k]),
            (
                Data::Bytes { offsets, data },
                Values::Bytes {
                    offsets: vo,
                    data: vd,
                },
            ) => {
                data.extend_from_slice(&vd[vo[k] as usize..vo[k + 1] as usize]);
                offsets.push(data.len() as i32);
            }
            _ => unreachable!("value kind matches column kind"),
        }
    }

    /// Rows `lo..hi` of a page whose presence bitmap is `bitmap` (MSB-first, 1 = present) and
    /// whose non-null values are `vals`.
    #[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
    pub fn push_scatter(&mut self, vals: &Values, bitmap: &[u8], lo: usize, hi: usize) {
        if hi <= lo {
            return;
        }
        let k0 = popcount_prefix(bitmap, lo);
        let kept = popcount_prefix(bitmap, hi) - k0;
        // Validity: the page bitmap bit-reversed in bulk (MSB-first → Arrow's LSB-first).
        self.validity.extend_from_msb_first(bitmap, lo, hi);
        self.nulls += (hi - lo) - kept;
        match (&mut self.data, vals) {
            (Data::I32(o), Values::I32(v)) => expand(o, v, k0, bitmap, lo, hi),
            (Data::I64(o), Values::I64(v)) => expand(o, v, k0, bitmap, lo, hi),
            (Data::F32(o), Values::F32(v)) => expand(o, v, k0, bitmap, lo, hi),
            (Data::F64(o), Values::F64(v)) => expand(o, v, k0, bitmap, lo, hi),
            _ => {
                // Booleans and bytes: runs of present rows copied at once, null runs filled.
                let (mut i, mut k) = (lo, k0);
                while i < hi {
                    let (start, p) = (i, msb_bit(bitmap, i));
                    while i < hi && msb_bit(bitmap, i) == p {
                        i += 1;
                    }
                    if p {
                        self.push_values(vals, k, k + (i - start));
                        k += i - start;
                    } else {
                        self.push_null_values(i - start);
                    }
                }
            }
        }
    }

    pub fn is_valid(&self, i: usize) -> bool {
        self.validity.get(i)
    }

    /// Turn row `i`'s value into a null (its value slot stays, unseen).
    pub fn set_null(&mut self, i: usize) {
        if self.validity.get(i) {
            self.validity.set(i, false);
            self.nulls += 1;
        }
    }

    /// Keep the rows `from + r` with `keep[r]` (rows `from..` are the last `keep.len()`),
    /// compacting them in place.
    pub fn retain_tail(&mut self, from: usize, keep: &[bool]) {
        debug_assert_eq!(from + keep.len(), self.len());
        let mut w = from;
        for (r, _) in keep.iter().enumerate().filter(|(_, k)| **k) {
            let i = from + r;
            let valid = self.validity.get(i);
            self.validity.set(w, valid);
            match &mut self.data {
                Data::Bool(b) => {
                    let v = b.get(i);
                    b.set(w, v);
                }
                Data::I32(v) => v[w] = v[i],
                Data::I64(v) => v[w] = v[i],
                Data::F32(v) => v[w] = v[i],
                Data::F64(v) => v[w] = v[i],
                Data::Bytes { offsets, data } => {
                    // Offsets of rows before `w` are final; move row i's bytes down.
                    let (s, e) = (offsets[i] as usize, offsets[i + 1] as usize);
                    let d = offsets[w] as usize;
                    data.copy_within(s..e, d);
                    offsets[w + 1] = (d + e - s) as i32;
                }
            }
            w += 1;
        }
        self.validity.truncate(w);
        self.nulls = self.validity.count_zeros();
        match &mut self.data {
            Data::Bool(b) => b.truncate(w),
            Data::I32(v) => v.truncate(w),
            Data::I64(v) => v.truncate(w),
            Data::F32(v) => v.truncate(w),
            Data::F64(v) => v.truncate(w),
            Data::Bytes { offsets, data } => {
                offsets.truncate(w + 1);
                data.truncate(offsets[w] as usize);
            }
        }
    }

    /// Reorder the rows `from..` (the last `perm.len()`): row `from + r` becomes the old row
    /// `from + perm[r]`.
    pub fn permute_tail(&mut self, from: usize, perm: &[usize]) {
        debug_assert_eq!(from + perm.len(), self.len());
        let valid: Vec<bool> = perm.iter().map(|&i| self.validity.get(from + i)).collect();
        for (r, v) in valid.into_iter().enumerate() {
            self.validity.set(from + r, v);
        }
        fn reorder<T: Copy>(v: &mut [T], from: usize, perm: &[usize]) {
            let tail: Vec<T> = perm.iter().map(|&i| v[from + i]).collect();
            v[from..].copy_from_slice(&tail);
        }
        match &mut self.data {
            Data::Bool(b) => {
                let tail: Vec<bool> = perm.iter().map(|&i| b.get(from + i)).collect();
                for (r, x) in tail.into_iter().enumerate() {
                    b.set(from + r, x);
                }
            }
            Data::I32(v) => reorder(v, from, perm),
            Data::I64(v) => reorder(v, from, perm),
            Data::F32(v) => reorder(v, from, perm),
            Data::F64(v) => reorder(v, from, perm),
            Data::Bytes { offsets, data } => {
                let base = offsets[from] as usize;
                let mut d = Vec::with_capacity(data.len() - base);
                let mut o = Vec::with_capacity(perm.len());
                for &i in perm {
                    let (s, e) = (offsets[from + i] as usize, offsets[from + i + 1] as usize);
                    d.extend_from_slice(&data[s..e]);
                    o.push((base + d.len()) as i32);
                }
                data.truncate(base);
                data.extend_from_slice(&d);
                offsets[from + 1..].copy_from_slice(&o);
            }
        }
    }

    pub fn finish(self, unit: TimeUnit) -> Column {
        let validity = if self.nulls > 0 {
            Some(self.validity)
        } else {
            None
        };
        match self.data {
            Data::Bool(b) => Column::boolean(b, validity),
            Data::I32(v) => {
                let dt = if self.dtype == TsType::Date {
                    DataType::Date32
                } else {
                    DataType::Int32
                };
                Column::primitive(dt, Buffer::I32(v), validity)
            }
            Data::I64(v) => {
                let dt = if self.dtype == TsType::Timestamp {
                    DataType::Timestamp(unit)
                } else {
                    DataType::Int64
                };
                Column::primitive(dt, Buffer::I64(v), validity)
            }
            Data::F32(v) => Column::primitive(DataType::Float32, Buffer::F32(v), validity),
            Data::F64(v) => Column::primitive(DataType::Float64, Buffer::F64(v), validity),
            Data::Bytes { offsets, data } => {
                let dt = if self.dtype == TsType::Blob {
                    DataType::Binary
                } else {
                    DataType::Utf8
                };
                Column::bytes(dt, offsets, data, validity)
            }
        }
    }
}

pub(crate) fn arrow_type(t: TsType, unit: TimeUnit) -> DataType {
    match t {
        TsType::Boolean => DataType::Bool,
        TsType::Int32 => DataType::Int32,
        TsType::Date => DataType::Date32,
        TsType::Int64 | TsType::Vector => DataType::Int64,
        TsType::Timestamp => DataType::Timestamp(unit),
        TsType::Float => DataType::Float32,
        TsType::Double => DataType::Float64,
        TsType::Text | TsType::String => DataType::Utf8,
        TsType::Blob => DataType::Binary,
    }
}

/// Number of set bits among the first `n` bits of an MSB-first bitmap.
/// Values of rows `lo..hi` placed at their row positions (zeros in null slots): `vals[k..]`
/// holds the present values in order. Eight rows per bitmap byte: a full byte copies eight
/// values, an empty byte writes eight zeros, only mixed bytes go bit by bit.
fn expand<T: Copy + Default>(
    out: &mut Vec<T>,
    vals: &[T],
    mut k: usize,
    bitmap: &[u8],
    lo: usize,
    hi: usize,
) {
    out.reserve(hi - lo);
    let mut i = lo;
    let one = |out: &mut Vec<T>, i: usize, k: &mut usize| {
        if msb_bit(bitmap, i) {
            out.push(vals[*k]);
            *k += 1;
        } else {
            out.push(T::default());
        }
    };
    while i < hi && !i.is_multiple_of(8) {
        one(out, i, &mut k);
        i += 1;
    }
    while i + 8 <= hi {
        match bitmap[i >> 3] {
            0xff => {
                out.extend_from_slice(&vals[k..k + 8]);
                k += 8;
            }
            0 => out.extend_from_slice(&[T::default(); 8]),
            _ => (i..i + 8).for_each(|j| one(out, j, &mut k)),
        }
        i += 8;
    }
    while i < hi {
        one(out, i, &mut k);
        i += 1;
    }
}

/// Bit `i` of an MSB-first bitmap (TsFile's null bitmaps: 1 = present).
#[inline]
fn msb_bit(bitmap: &[u8], i: usize) -> bool {
    bitmap[i >> 3] & (0x80 >> (i & 7)) != 0
}

#[inline(never)] // out of line: tiers up by itself (crate docs, "First reads")
pub(crate) fn popcount_prefix(bitmap: &[u8], n: usize) -> usize {
    let full = n / 8;
    let mut c: usize = bitmap[..full].iter().map(|b| b.count_ones() as usize).sum();
    if !n.is_multiple_of(8) {
        c += (bitmap[full] & (0xffu8 << (8 - n % 8))).count_ones() as usize;
    }
    c
}

/// yyyyMMdd → days since 1970-01-01; `None` if not a valid calendar date.
pub(crate) fn date_to_days(v: i32) -> Option<i32> {
    let (y, m, d) = (v / 10000, (v / 100) % 100, v % 100);
    if !(1..=12).contains(&m) || d < 1 || v < 0 {
        return None;
    }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let mdays = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if d > mdays[(m - 1) as usize] {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y } as i64;
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some((era * 146097 + doe - 719468) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn dates() {
        assert_eq!(date_to_days(19700101), Some(0));
        assert_eq!(date_to_days(20240102), Some(19724));
        assert_eq!(date_to_days(19691231), Some(-1));
        assert_eq!(date_to_days(20230229), None);
    }
    #[test]
    fn scatter() {
        let vals = Values::I32(vec![1, 2, 3, 4, 5, 6, 7]);
        // rows 0..10 with rows 1,4,7 null → b6 c0
        let mut b = ColBuilder::new(TsType::Int32);
        b.push_scatter(&vals, &[0xb6, 0xc0], 2, 10);
        let Data::I32(v) = &b.data else { panic!() };
        assert_eq!(v, &vec![2, 3, 0, 4, 5, 0, 6, 7]);
        assert_eq!(b.nulls, 2);
        assert_eq!(popcount_prefix(&[0xb6, 0xc0], 10), 7);
    }

    /// The bulk scatter equals pushing row by row, for every column kind and any window.
    #[test]
    fn scatter_matches_row_by_row() {
        let bitmap: Vec<u8> = (0..24u32)
            .map(|i| [0xff, 0, 0xb6, 0x7f, 0x01][i as usize % 5] ^ (i as u8 & 3))
            .collect();
        let n = popcount_prefix(&bitmap, bitmap.len() * 8);
        let kinds = [
            (TsType::Int64, Values::I64((0..n as i64).collect())),
            (
                TsType::Double,
                Values::F64((0..n).map(|x| x as f64 + 0.5).collect()),
            ),
            (
                TsType::Boolean,
                Values::Bool((0..n).map(|x| x % 3 == 0).collect()),
            ),
            (TsType::Text, {
                let mut offsets = vec![0u32];
                let mut data = Vec::new();
                for x in 0..n {
                    data.extend(std::iter::repeat_n(b'a' + (x % 26) as u8, x % 4));
                    offsets.push(data.len() as u32);
                }
                Values::Bytes { offsets, data }
            }),
        ];
        for (t, vals) in &kinds {
            for (lo, hi) in [(0, 192), (3, 77), (8, 9), (13, 13), (1, 190), (64, 128)] {
                let mut a = ColBuilder::new(*t);
                let mut b = ColBuilder::new(*t);
                a.push_nulls(5);
                b.push_nulls(5);
                a.push_scatter(vals, &bitmap, lo, hi);
                let mut k = popcount_prefix(&bitmap, lo);
                for i in lo..hi {
                    if bitmap[i / 8] & (0x80 >> (i % 8)) != 0 {
                        b.push_one(vals, k);
                        k += 1;
                    } else {
                        b.push_nulls(1);
                    }
                }
                assert_eq!(a.validity, b.validity, "{t:?} {lo}..{hi}");
                assert_eq!(a.nulls, b.nulls);
                assert_eq!(
                    format!("{:?}", a.data),
                    format!("{:?}", b.data),
                    "{t:?} {lo}..{hi}"
                );
            }
        }
    }
}
