//! A [`Batch`] described for a foreign host (the wasm boundary): a JSON schema whose
//! columns name their buffers by index, plus the list of those buffers' bytes.
//!
//! The host copies each buffer out once and wraps it as an Arrow array; nothing here
//! touches values, so describing is O(columns), not O(rows).

use crate::column::{Batch, Column, DataType, Field, TimeUnit};

/// A batch's schema as JSON and the bytes of the buffers it names.
pub struct Description<'a> {
    /// The schema: fields, each column's buffers by index into `buffers`.
    pub json: String,
    /// Every buffer of the batch, in the order the JSON numbers them.
    pub buffers: Vec<&'a [u8]>,
}

/// Describe `batch` (O(columns): no value is read or copied).
pub fn describe(batch: &Batch) -> Description<'_> {
    let mut d = Description {
        json: String::with_capacity(256),
        buffers: Vec::new(),
    };
    d.json
        .push_str(&format!("{{\"rows\":{},\"fields\":[", batch.num_rows));
    for (i, (f, c)) in batch.fields.iter().zip(&batch.columns).enumerate() {
        if i > 0 {
            d.json.push(',');
        }
        field(&mut d, f, c);
    }
    d.json.push_str("]}");
    d
}

fn field<'a>(d: &mut Description<'a>, f: &Field, c: &'a Column) {
    d.json.push_str("{\"name\":");
    push_str_json(&mut d.json, &f.name);
    d.json
        .push_str(&format!(",\"nullable\":{},\"col\":", f.nullable));
    column(d, c);
    d.json.push('}');
}

fn column<'a>(d: &mut Description<'a>, c: &'a Column) {
    let (name, extra) = type_name(&c.dtype);
    d.json.push_str(&format!(
        "{{\"type\":\"{name}\"{extra},\"len\":{},\"nulls\":{}",
        c.len,
        c.null_count()
    ));
    let validity = match &c.validity {
        Some(v) => {
            d.buffers.push(v.as_bytes());
            (d.buffers.len() - 1) as i64
        }
        None => -1,
    };
    d.json
        .push_str(&format!(",\"validity\":{validity},\"buffers\":["));
    for (i, b) in c.buffers.iter().enumerate() {
        if i > 0 {
            d.json.push(',');
        }
        d.buffers.push(b.as_bytes());
        d.json.push_str(&(d.buffers.len() - 1).to_string());
    }
    d.json.push_str("],\"children\":[");
    let child_fields: Vec<Field> = match &c.dtype {
        DataType::List(f) | DataType::FixedSizeList(f, _) | DataType::Map(f) => vec![(**f).clone()],
        DataType::Struct(fs) => fs.clone(),
        DataType::DictionaryUtf8 => vec![Field::new("dictionary", DataType::Utf8, false)],
        _ => vec![],
    };
    for (i, (f, child)) in child_fields.iter().zip(&c.children).enumerate() {
        if i > 0 {
            d.json.push(',');
        }
        field(d, f, child);
    }
    d.json.push_str("]}");
}

fn type_name(t: &DataType) -> (&'static str, String) {
    let s = match t {
        DataType::Null => "null",
        DataType::Bool => "bool",
        DataType::Int8 => "int8",
        DataType::Int16 => "int16",
        DataType::Int32 => "int32",
        DataType::Int64 => "int64",
        DataType::UInt8 => "uint8",
        DataType::UInt16 => "uint16",
        DataType::UInt32 => "uint32",
        DataType::UInt64 => "uint64",
        DataType::Float16 => "float16",
        DataType::Float32 => "float32",
        DataType::Float64 => "float64",
        DataType::Utf8 => "utf8",
        DataType::Binary => "binary",
        DataType::Date32 => "date32",
        DataType::Timestamp(u) => {
            let unit = match u {
                TimeUnit::Second => "s",
                TimeUnit::Millisecond => "ms",
                TimeUnit::Microsecond => "us",
                TimeUnit::Nanosecond => "ns",
            };
            return ("timestamp", format!(",\"unit\":\"{unit}\""));
        }
        DataType::List(_) => "list",
        DataType::FixedSizeList(_, n) => return ("fixedsizelist", format!(",\"size\":{n}")),
        DataType::Struct(_) => "struct",
        DataType::Map(_) => "map",
        DataType::DictionaryUtf8 => "dictionary",
    };
    (s, String::new())
}

/// Append `s` as a JSON string literal.
pub fn push_str_json(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bitmap, Buffer};

    #[test]
    fn describes_nested_columns() {
        let child = Column::primitive(DataType::Int32, Buffer::I32(vec![1, 2, 3]), None);
        let list = Column {
            dtype: DataType::List(Box::new(Field::new("item", DataType::Int32, true))),
            len: 2,
            validity: Some(Bitmap::from_bytes(vec![0b01], 2)),
            buffers: vec![Buffer::I32(vec![0, 3, 3])],
            children: vec![child],
        };
        let batch = Batch::new(
            vec![Field::new("a\"b", list.dtype.clone(), true)],
            vec![list],
        );
        let d = describe(&batch);
        assert_eq!(
            d.json,
            "{\"rows\":2,\"fields\":[{\"name\":\"a\\\"b\",\"nullable\":true,\"col\":{\"type\":\"list\",\"len\":2,\"nulls\":1,\"validity\":0,\"buffers\":[1],\"children\":[{\"name\":\"item\",\"nullable\":true,\"col\":{\"type\":\"int32\",\"len\":3,\"nulls\":0,\"validity\":-1,\"buffers\":[2],\"children\":[]}}]}}]}"
        );
        assert_eq!(d.buffers.len(), 3);
        assert_eq!(d.buffers[1], &[0, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0]);
    }
}
