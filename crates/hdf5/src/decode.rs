//! Raw element bytes → Arrow columns, for every datatype class.

use std::collections::HashMap;

use arrowsmith_core::{simd, Bitmap, Buffer, Column, DataType, Field, Result};

use crate::datatype::Datatype;
use crate::file::schema::fixed_size_list;
use crate::io::le_uint;
use crate::vlen::VlReader;

/// Utf8 when the bytes are valid UTF-8 per value, else Binary (nothing is lossy-replaced).
pub fn utf8_or_binary(offsets: Vec<i32>, data: Vec<u8>, validity: Option<Bitmap>) -> Column {
    // One validation over the whole buffer, plus a check that no value starts on a
    // continuation byte: together they imply every value is valid on its own. All-ASCII
    // data (no continuation bytes at all) needs neither.
    let ok = simd::is_ascii(&data)
        || std::str::from_utf8(&data).is_ok()
            && offsets
                .iter()
                .all(|&o| data.get(o as usize).is_none_or(|&b| (b as i8) >= -0x40));
    Column::bytes(
        if ok { DataType::Utf8 } else { DataType::Binary },
        offsets,
        data,
        validity,
    )
}

fn prim<T: bytemuck::Pod + Default>(
    bytes: &[u8],
    n: usize,
    stride: usize,
    off: usize,
    be: bool,
) -> Vec<T> {
    let w = std::mem::size_of::<T>();
    let mut out = vec![T::default(); n];
    if n == 0 {
        return out;
    }
    let dst: &mut [u8] = bytemuck::cast_slice_mut(&mut out);
    if stride == w && off == 0 {
        let src = &bytes[..n * w];
        if be && w > 1 {
            simd::swap_bytes(w, src, dst);
        } else {
            dst.copy_from_slice(src);
        }
    } else {
        for i in 0..n {
            let s = &bytes[i * stride + off..i * stride + off + w];
            let d = &mut dst[i * w..(i + 1) * w];
            if be {
                for k in 0..w {
                    d[k] = s[w - 1 - k];
                }
            } else {
                d.copy_from_slice(s);
            }
        }
    }
    out
}

fn fixed_binary(bytes: &[u8], n: usize, stride: usize, off: usize, size: usize) -> Column {
    let mut offsets = Vec::with_capacity(n + 1);
    let mut data = Vec::with_capacity(n * size);
    offsets.push(0);
    for i in 0..n {
        data.extend_from_slice(&bytes[i * stride + off..i * stride + off + size]);
        offsets.push(data.len() as i32);
    }
    Column::bytes(DataType::Binary, offsets, data, None)
}

/// An enum as a dictionary of its labels (Int32 keys = label positions; a value that
/// matches no label is null), or h5py's boolean enum as Bool (anything but FALSE/TRUE
/// null). Values are matched by their stored bytes.
fn enum_column(dt: &Datatype, bytes: &[u8], n: usize, stride: usize, off: usize) -> Column {
    let Datatype::Enum { names, values, .. } = dt else {
        unreachable!("enum_column on a non-enum")
    };
    let size = dt.size();
    let mut valid = Bitmap::with_capacity(n);
    let lookup: HashMap<&[u8], usize> = values
        .iter()
        .enumerate()
        .rev()
        .map(|(i, v)| (v.as_slice(), i))
        .collect();
    let key = |i: usize| {
        lookup
            .get(&bytes[i * stride + off..i * stride + off + size])
            .copied()
    };
    if dt.is_bool_enum() {
        let truth = names.iter().position(|n| n == "TRUE");
        let mut bits = Bitmap::with_capacity(n);
        for i in 0..n {
            let k = key(i);
            valid.push(k.is_some());
            bits.push(k.is_some() && k == truth);
        }
        return Column::boolean(bits, Some(valid));
    }
    let mut keys = Vec::with_capacity(n);
    for i in 0..n {
        let k = key(i);
        valid.push(k.is_some());
        keys.push(k.unwrap_or(0) as i32);
    }
    let mut offsets = Vec::with_capacity(names.len() + 1);
    let mut data = Vec::new();
    offsets.push(0);
    for name in names {
        data.extend_from_slice(name.as_bytes());
        offsets.push(data.len() as i32);
    }
    let valid = Some(valid).filter(|v| v.count_zeros() > 0);
    Column {
        dtype: DataType::DictionaryUtf8,
        len: n,
        validity: valid,
        buffers: vec![Buffer::I32(keys)],
        children: vec![Column::bytes(DataType::Utf8, offsets, data, None)],
    }
}

/// Integers that do not fill their bytes: keep bits `offset..offset + precision` of each
/// value, shifted down, sign-extended when signed (what libhdf5's conversion to a native
/// integer gives).
fn narrow(col: &mut Column, offset: u32, precision: u32, signed: bool) {
    let fit = |x: u64| {
        let v = (x >> offset) & (u64::MAX >> (64 - precision));
        if signed && v >> (precision - 1) & 1 == 1 {
            v | !(u64::MAX >> (64 - precision))
        } else {
            v
        }
    };
    match col.buffers.first_mut() {
        Some(Buffer::I8(v)) => v.iter_mut().for_each(|x| *x = fit(*x as u8 as u64) as i8),
        Some(Buffer::U8(v)) => v.iter_mut().for_each(|x| *x = fit(*x as u64) as u8),
        Some(Buffer::I16(v)) => v.iter_mut().for_each(|x| *x = fit(*x as u16 as u64) as i16),
        Some(Buffer::U16(v)) => v.iter_mut().for_each(|x| *x = fit(*x as u64) as u16),
        Some(Buffer::I32(v)) => v.iter_mut().for_each(|x| *x = fit(*x as u32 as u64) as i32),
        Some(Buffer::U32(v)) => v.iter_mut().for_each(|x| *x = fit(*x as u64) as u32),
        Some(Buffer::I64(v)) => v.iter_mut().for_each(|x| *x = fit(*x as u64) as i64),
        Some(Buffer::U64(v)) => v.iter_mut().for_each(|x| *x = fit(*x)),
        _ => {}
    }
}

/// Wrap `child` (len = rows * prod(dims)) into nested FixedSizeLists, outermost = dims[0],
/// of `rows` rows. Lengths come from `rows`, not from the child's length, so a zero-length
/// dimension gives rows of empty lists (the child holds nothing to divide).
pub fn fixed_size_lists(mut child: Column, dims: &[u64], rows: usize) -> Column {
    for k in (0..dims.len()).rev() {
        let len = dims[..k]
            .iter()
            .fold(rows, |a, &d| a.saturating_mul(d as usize));
        child = Column {
            dtype: fixed_size_list(child.dtype.clone(), dims[k]),
            len,
            validity: None,
            buffers: vec![],
            children: vec![child],
        };
    }
    child
}

/// Decode `n` elements of `dt` found at `bytes[i * stride + off ..]`.
pub fn decode(
    vl: &mut VlReader,
    dt: &Datatype,
    bytes: &[u8],
    n: usize,
    stride: usize,
    off: usize,
) -> Result<Column> {
    let size = dt.size();
    if n > 0
        && (n - 1)
            .saturating_mul(stride)
            .saturating_add(off)
            .saturating_add(size)
            > bytes.len()
    {
        return Err(crate::io::invalid(
            0,
            format!(
                "raw data holds {} bytes, {n} elements of {size} need more",
                bytes.len()
            ),
        ));
    }
    Ok(match dt {
        Datatype::Int {
            size,
            signed,
            be,
            bits,
        } => {
            let (s, be) = (*size as usize, *be);
            let t = dt.arrow_type();
            let mut col = match (s, signed) {
                (1, true) => {
                    Column::primitive(t, Buffer::I8(prim(bytes, n, stride, off, be)), None)
                }
                (1, false) => {
                    Column::primitive(t, Buffer::U8(prim(bytes, n, stride, off, be)), None)
                }
                (2, true) => {
                    Column::primitive(t, Buffer::I16(prim(bytes, n, stride, off, be)), None)
                }
                (2, false) => {
                    Column::primitive(t, Buffer::U16(prim(bytes, n, stride, off, be)), None)
                }
                (4, true) => {
                    Column::primitive(t, Buffer::I32(prim(bytes, n, stride, off, be)), None)
                }
                (4, false) => {
                    Column::primitive(t, Buffer::U32(prim(bytes, n, stride, off, be)), None)
                }
                (8, true) => {
                    Column::primitive(t, Buffer::I64(prim(bytes, n, stride, off, be)), None)
                }
                (8, false) => {
                    Column::primitive(t, Buffer::U64(prim(bytes, n, stride, off, be)), None)
                }
                (3..=7, _) => {
                    // Odd widths: widen to 64 bits, sign-extending.
                    let mut v = Vec::with_capacity(n);
                    for i in 0..n {
                        let mut b = bytes[i * stride + off..i * stride + off + s].to_vec();
                        if be {
                            b.reverse();
                        }
                        let x = le_uint(&b);
                        v.push(if *signed {
                            ((x << (64 - 8 * s)) as i64 >> (64 - 8 * s)) as u64
                        } else {
                            x
                        });
                    }
                    if *signed {
                        Column::primitive(
                            DataType::Int64,
                            Buffer::I64(v.into_iter().map(|x| x as i64).collect()),
                            None,
                        )
                    } else {
                        Column::primitive(DataType::UInt64, Buffer::U64(v), None)
                    }
                }
                _ => fixed_binary(bytes, n, stride, off, s),
            };
            if let Some((offset, precision)) = bits {
                narrow(&mut col, *offset as u32, *precision as u32, *signed);
            }
            col
        }
        Datatype::Float { size, be } => match size {
            2 => Column::primitive(
                dt.arrow_type(),
                Buffer::U16(prim(bytes, n, stride, off, *be)),
                None,
            ),
            4 => Column::primitive(
                dt.arrow_type(),
                Buffer::F32(prim(bytes, n, stride, off, *be)),
                None,
            ),
            _ => Column::primitive(
                dt.arrow_type(),
                Buffer::F64(prim(bytes, n, stride, off, *be)),
                None,
            ),
        },
        Datatype::CustomFloat(f) => f.decode(bytes, n, stride, off)?,
        Datatype::Complex { base, .. } => decode(
            vl,
            &Datatype::Array {
                dims: vec![2],
                base: base.clone(),
            },
            bytes,
            n,
            stride,
            off,
        )?,
        Datatype::FixedString { size, pad, .. } => {
            let s = *size as usize;
            let mut offsets = Vec::with_capacity(n + 1);
            let mut data = Vec::with_capacity(n * s);
            offsets.push(0);
            for i in 0..n {
                let v = &bytes[i * stride + off..i * stride + off + s];
                let v = match pad {
                    0 => &v[..v.iter().position(|&b| b == 0).unwrap_or(s)],
                    2 => {
                        &v[..v
                            .iter()
                            .rposition(|&b| b != b' ' && b != 0)
                            .map_or(0, |p| p + 1)]
                    }
                    _ => &v[..v.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1)],
                };
                data.extend_from_slice(v);
                offsets.push(data.len() as i32);
            }
            utf8_or_binary(offsets, data, None)
        }
        Datatype::Reference { size: 8, kind: 0 } => Column::primitive(
            DataType::UInt64,
            Buffer::U64(prim(bytes, n, stride, off, false)),
            None,
        ),
        Datatype::Bitfield {
            size: sz @ (1 | 2 | 4 | 8),
            be,
        } => decode(
            vl,
            &Datatype::Int {
                size: *sz,
                signed: false,
                be: *be,
                bits: None,
            },
            bytes,
            n,
            stride,
            off,
        )?,
        Datatype::Time { size: 4, be } => decode(
            vl,
            &Datatype::Int {
                size: 4,
                signed: true,
                be: *be,
                bits: None,
            },
            bytes,
            n,
            stride,
            off,
        )?,
        Datatype::Time { size: 8, be } => {
            // PyTables' timeval32 → float64, computed as it does (`typeconv.c`):
            // 1e-6 × (int32) low word + (high word, arithmetic shift).
            let v: Vec<i64> = prim(bytes, n, stride, off, *be);
            let secs = v
                .iter()
                .map(|&x| 1e-6 * (x as i32) as f64 + (x >> 32) as f64)
                .collect();
            Column::primitive(DataType::Float64, Buffer::F64(secs), None)
        }
        Datatype::Bitfield { size, .. }
        | Datatype::Opaque { size, .. }
        | Datatype::Time { size, .. }
        | Datatype::Reference { size, .. } => fixed_binary(bytes, n, stride, off, *size as usize),
        Datatype::Enum { .. } => enum_column(dt, bytes, n, stride, off),
        Datatype::Compound { members, .. } => {
            let mut fields = Vec::with_capacity(members.len());
            let mut children = Vec::with_capacity(members.len());
            for m in members {
                let c = decode(vl, &m.dtype, bytes, n, stride, off + m.offset as usize)?;
                fields.push(Field::new(m.name.clone(), c.dtype.clone(), true));
                children.push(c);
            }
            Column {
                dtype: DataType::Struct(fields),
                len: n,
                validity: None,
                buffers: vec![],
                children,
            }
        }
        Datatype::Array { dims, base } => {
            let count: usize = dims.iter().map(|&d| d as usize).product();
            let bs = base.size();
            let mut tmp = Vec::with_capacity(n * count * bs);
            for i in 0..n {
                tmp.extend_from_slice(&bytes[i * stride + off..i * stride + off + count * bs]);
            }
            let child = decode(vl, base, &tmp, n * count, bs, 0)?;
            let d: Vec<u64> = dims.iter().map(|&d| d as u64).collect();
            fixed_size_lists(child, &d, n)
        }
        Datatype::VlString { .. } | Datatype::VlSequence { .. } => {
            vl.decode_vl(dt, bytes, n, stride, off)?
        }
    })
}
